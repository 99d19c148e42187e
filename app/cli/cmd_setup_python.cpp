// SPDX-License-Identifier: MIT
#include "cmd_setup_python.h"
#include "exitcodes.h"

#include "paths.h"

#include <fmt/format.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <optional>
#include <regex>
#include <sstream>

#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

extern char** environ;

#ifndef KBX_WORKER_PYTHON_VERSION
#define KBX_WORKER_PYTHON_VERSION ""
#endif
#ifndef KBX_WORKER_TORCH_VERSION
#define KBX_WORKER_TORCH_VERSION ""
#endif
#ifndef KBX_SOURCE_DIR
#define KBX_SOURCE_DIR ""
#endif

namespace kbxcli {
namespace fs = std::filesystem;

namespace {

/// run()'s status for a program that could not start (the shell's 127); not an exit code of kbx.
constexpr int kCouldNotStart = 127;

/// Runs argv (PATH lookup) with our stdin/stderr; stdout captured into *out when given, else shown.
/// Returns the exit status, 127 when it could not start, 128+N for signal N.
int run(const std::vector<std::string>& argv, std::string* out = nullptr)
{
    std::vector<char*> av;
    for (const auto& a : argv)
        av.push_back(const_cast<char*>(a.c_str()));
    av.push_back(nullptr);
    int pipefd[2] = {-1, -1};
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    if (out) {
        if (pipe(pipefd) != 0)
            return kCouldNotStart;
        posix_spawn_file_actions_adddup2(&fa, pipefd[1], STDOUT_FILENO);
        posix_spawn_file_actions_addclose(&fa, pipefd[0]);
        posix_spawn_file_actions_addclose(&fa, pipefd[1]);
    } else {
        std::cout.flush();
    }
    pid_t pid = -1;
    int rc = posix_spawnp(&pid, av[0], &fa, nullptr, av.data(), environ);
    posix_spawn_file_actions_destroy(&fa);
    if (out) {
        ::close(pipefd[1]);
        if (rc == 0) {
            char buf[4096];
            ssize_t n;
            while ((n = ::read(pipefd[0], buf, sizeof buf)) > 0 || (n < 0 && errno == EINTR))
                if (n > 0)
                    out->append(buf, static_cast<size_t>(n));
        }
        ::close(pipefd[0]);
    }
    if (rc != 0)
        return kCouldNotStart;
    int status = 0;
    while (waitpid(pid, &status, 0) < 0)
        if (errno != EINTR)
            return kCouldNotStart;
    if (WIFSIGNALED(status))
        return 128 + WTERMSIG(status);
    return WEXITSTATUS(status);
}

std::string trim(std::string s)
{
    while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back())))
        s.pop_back();
    size_t i = 0;
    while (i < s.size() && std::isspace(static_cast<unsigned char>(s[i])))
        ++i;
    return s.substr(i);
}

/// "3.11" of an interpreter, empty if it does not run.
std::string pythonVersion(const std::string& python)
{
    std::string out;
    if (run({python, "-c", "import sys; print('%d.%d' % sys.version_info[:2])"}, &out) != 0)
        return {};
    return trim(out);
}

bool onPath(const std::string& name)
{
    const char* path = std::getenv("PATH");
    std::stringstream ss(path ? path : "/usr/bin:/bin");
    std::string dir;
    while (std::getline(ss, dir, ':'))
        if (!dir.empty() && ::access((fs::path(dir) / name).c_str(), X_OK) == 0)
            return true;
    return false;
}

fs::path defaultRequirements()
{
    std::error_code ec;
    if (auto data = kbx::installedDataDir(); !data.empty() && fs::is_regular_file(data / "requirements.txt", ec))
        return data / "requirements.txt";
    const fs::path src = KBX_SOURCE_DIR;
    if (!src.empty() && fs::is_regular_file(src / "requirements.txt", ec))
        return src / "requirements.txt";
    return {};
}

/// The requirement lines (comments and blanks dropped).
std::vector<std::string> readRequirements(const fs::path& file)
{
    std::vector<std::string> v;
    std::ifstream in(file);
    std::string line;
    while (std::getline(in, line)) {
        if (auto h = line.find('#'); h != std::string::npos)
            line.erase(h);
        line = trim(line);
        if (!line.empty())
            v.push_back(line);
    }
    return v;
}

/// "2.13.0" of "2.13.0+cpu".
std::string baseVersion(const std::string& v) { return v.substr(0, v.find('+')); }

/// The requirements file against kbx-worker's torch: torch must be the release whose LibTorch
/// kbx-worker was linked against (C++ ABI). Into `extra`: what pip must install beside the file
/// (torch when the file names none, radon for kbx report's code quality). An exit code: refused.
std::optional<int> checkRequirements(const fs::path& req, const std::string& wantTorch, std::vector<std::string>& extra)
{
    bool haveTorch = false, haveRadon = false;
    static const std::regex torchPin(R"(^torch\s*==\s*([0-9][0-9A-Za-z.+]*)\s*$)");
    for (const auto& r : readRequirements(req)) {
        std::smatch m;
        if (std::regex_match(r, m, torchPin)) {
            haveTorch = true;
            if (!wantTorch.empty() && baseVersion(m[1]) != wantTorch) {
                std::cerr << fmt::format("kbx setup-python: {} asks for torch {}, but kbx-worker was built against torch {}; "
                                         "edit the file or give another with --requirements\n",
                                         req.string(), m[1].str(), wantTorch);
                return ExitInput;
            }
        } else if (r.rfind("torch", 0) == 0 && (r.size() == 5 || std::strchr("=<>~! [", r[5]))) {
            haveTorch = true;
        }
        if (r.rfind("radon", 0) == 0)
            haveRadon = true;
    }
    if (!haveTorch && !wantTorch.empty())
        extra.push_back("torch==" + wantTorch);
    if (!haveRadon)
        extra.push_back("radon");  // code-quality statistics of kbx report (core/quality)
    return std::nullopt;
}

/// pip install of the requirements (and `extra`) into the venv, then what it can import; empty
/// string: done, otherwise why not.
std::string installPackages(const fs::path& vpy, const fs::path& req, const std::vector<std::string>& extra,
                            const std::vector<std::string>& pipArgs, const std::string& wantTorch)
{
    std::vector<std::string> cmd = {vpy.string(), "-m", "pip", "install", "--disable-pip-version-check", "-r", req.string()};
    cmd.insert(cmd.end(), extra.begin(), extra.end());
    cmd.insert(cmd.end(), pipArgs.begin(), pipArgs.end());
    std::string shown;
    for (const auto& c : cmd)
        shown += (shown.empty() ? "" : " ") + c;
    std::cout << "kbx setup-python: " << shown << "\n";
    if (int rc = run(cmd); rc != 0)
        return fmt::format("pip install failed (exit {})", rc);
    std::string out;
    const int rc = run({vpy.string(), "-c",
                        "import torch, triton, numpy; print(torch.__version__, triton.__version__, numpy.__version__, "
                        "int(torch.cuda.is_available()))"},
                       &out);
    std::stringstream ss(out);
    std::string tv, trv, nv, cuda;
    ss >> tv >> trv >> nv >> cuda;
    if (rc != 0 || nv.empty())
        return "the venv cannot import torch, triton and numpy after pip install";
    if (!wantTorch.empty() && baseVersion(tv) != wantTorch)
        return fmt::format("the venv has torch {}, kbx-worker was built against torch {}", tv, wantTorch);
    std::cout << fmt::format("kbx setup-python: torch {} (CUDA {}), triton {}, numpy {}\n", tv,
                             cuda == "1" ? "available" : "not available", trv, nv);
    return {};
}

/// The venv's interpreter recorded for kbx, kbx-workbench and kbx-worker; empty string: done.
std::string recordVenv(const fs::path& vpy)
{
    std::error_code ec;
    const fs::path rec = kbx::pythonRecordFile();
    if (rec.empty())
        return "neither $XDG_CONFIG_HOME nor $HOME is set: cannot record the venv (use --no-record and KBX_PYTHON)";
    fs::create_directories(rec.parent_path(), ec);
    const fs::path tmp = rec.string() + fmt::format(".tmp{}", ::getpid());
    {
        std::ofstream o(tmp);
        o << vpy.string() << "\n";
        if (!o)
            return fmt::format("cannot write {}", tmp.string());
    }
    fs::rename(tmp, rec, ec);
    if (ec) {
        fs::remove(tmp, ec);
        return fmt::format("cannot write {}", rec.string());
    }
    std::cout << fmt::format("kbx setup-python: recorded {} in {}\n", vpy.string(), rec.string());
    return {};
}

}  // namespace

CLI::App* addSetupPythonCommand(CLI::App& app, SetupPythonArgs& a)
{
    auto* c = app.add_subcommand("setup-python",
                                 "Create the venv with the worker's Python side (torch, Triton, numpy, radon) that kbx and "
                                 "kbx-workbench then use");
    c->add_option("--venv", a.venv, "Where (default $XDG_DATA_HOME/kbx/venv, i.e. ~/.local/share/kbx/venv)");
    c->add_option("--python", a.python,
                  std::string("Base interpreter of the venv (default python") +
                      (std::strlen(KBX_WORKER_PYTHON_VERSION) ? KBX_WORKER_PYTHON_VERSION : "3") +
                      ", the version kbx-worker embeds)");
    c->add_option("--requirements", a.requirements, "Requirements file (default: the one installed with kbx)");
    c->add_option("--pip-arg", a.pipArgs, "Extra argument for pip install, e.g. --pip-arg=--index-url=URL (repeatable)")
        ->allow_extra_args(false);
    c->add_flag("--no-install", a.noInstall, "Create (or keep) the venv and record it, install nothing");
    c->add_flag("--no-record", a.noRecord, "Do not record the venv's interpreter in ~/.config/kbx/python");
    return c;
}

int runSetupPython(const SetupPythonArgs& a)
{
    const std::string wantPy = KBX_WORKER_PYTHON_VERSION;
    const std::string wantTorch = baseVersion(KBX_WORKER_TORCH_VERSION);
    std::error_code ec;

    // ---- where, with what -------------------------------------------------------------------------
    fs::path venv = a.venv.empty() ? kbx::defaultVenvDir() : fs::path(a.venv);
    if (venv.empty()) {
        std::cerr << "kbx setup-python: no --venv given and neither $XDG_DATA_HOME nor $HOME is set\n";
        return ExitUsage;
    }
    venv = fs::absolute(venv, ec);
    fs::path req;
    if (!a.noInstall) {
        req = a.requirements.empty() ? defaultRequirements() : fs::path(a.requirements);
        if (req.empty()) {
            std::cerr << "kbx setup-python: no requirements file installed with kbx (share/kbx/requirements.txt); give --requirements FILE\n";
            return ExitEnvironment;
        }
        if (!fs::is_regular_file(req, ec)) {
            std::cerr << fmt::format("kbx setup-python: requirements file {} not found\n", req.string());
            return ExitInput;
        }
    }
    std::vector<std::string> extra;
    if (!a.noInstall)
        if (auto rc = checkRequirements(req, wantTorch, extra))
            return *rc;

    std::string base = a.python;
    if (base.empty()) {
        // The distribution's interpreter first: its prefix holds the standard library of the libpython
        // the worker embeds (a pyenv or conda python3.X earlier on PATH is another build of it).
        if (!wantPy.empty() && ::access(("/usr/bin/python" + wantPy).c_str(), X_OK) == 0)
            base = "/usr/bin/python" + wantPy;
        else
            base = !wantPy.empty() && onPath("python" + wantPy) ? "python" + wantPy : "python3";
    }
    const fs::path vpy = venv / "bin" / "python";
    const bool exists = fs::exists(vpy, ec);
    const std::string baseVer = pythonVersion(exists ? vpy.string() : base);
    if (baseVer.empty()) {
        std::cerr << fmt::format("kbx setup-python: cannot run {} (install Python {}; Debian/Ubuntu: apt install python3 python3-venv)\n",
                                 exists ? vpy.string() : base, wantPy.empty() ? "3" : wantPy);
        return ExitEnvironment;
    }
    if (!wantPy.empty() && baseVer != wantPy) {
        std::cerr << fmt::format("kbx setup-python: {} is Python {}, but kbx-worker embeds Python {}: the venv must be made with "
                                 "Python {} (--python python{}{})\n",
                                 exists ? vpy.string() : base, baseVer, wantPy, wantPy, wantPy,
                                 exists ? fmt::format(", and another --venv than {}", venv.string()) : std::string());
        return ExitEnvironment;
    }

    // ---- the venv ----------------------------------------------------------------------------------
    bool created = false;
    auto failed = [&](const std::string& msg) {
        std::cerr << "kbx setup-python: " << msg << "\n";
        if (created) {
            std::cerr << fmt::format("kbx setup-python: removing the incomplete venv {}\n", venv.string());
            fs::remove_all(venv, ec);
        }
        return ExitEnvironment;
    };
    if (exists) {
        std::cout << fmt::format("kbx setup-python: using the existing venv {} (Python {})\n", venv.string(), baseVer);
    } else {
        if (fs::exists(venv, ec) && !fs::is_empty(venv, ec)) {
            std::cerr << fmt::format("kbx setup-python: {} exists and is not a venv (no bin/python); choose another --venv\n",
                                     venv.string());
            return ExitUsage;
        }
        std::cout << fmt::format("kbx setup-python: creating the venv {} with {} (Python {})\n", venv.string(), base, baseVer);
        fs::create_directories(venv.parent_path(), ec);
        created = true;
        if (run({base, "-m", "venv", venv.string()}) != 0 || !fs::exists(vpy, ec))
            return failed(fmt::format("{} -m venv {} failed (Debian/Ubuntu: apt install python3-venv)", base, venv.string()));
    }

    // ---- packages ----------------------------------------------------------------------------------
    if (!a.noInstall)
        if (auto why = installPackages(vpy, req, extra, a.pipArgs, wantTorch); !why.empty())
            return failed(why);

    // ---- record ------------------------------------------------------------------------------------
    if (!a.noRecord)
        if (auto why = recordVenv(vpy); !why.empty())
            return failed(why);
    std::cout << fmt::format("kbx setup-python: done. kbx, kbx-workbench and kbx-worker use {}{} ($KBX_PYTHON overrides it)\n",
                             vpy.string(), a.noRecord ? " when it is the default venv or KBX_PYTHON names it" : "");
    return ExitOk;
}

}  // namespace kbxcli
