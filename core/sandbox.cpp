// SPDX-License-Identifier: MIT
// The candidate sandbox: which kind this machine gives (resolveSandbox, probed once per mode), and
// applying it to one candidate's process (applySandbox). What the candidate sees of the file system is
// core/sandbox_fs.cpp; the uids of a kbx running as root, core/sandbox_uid.cpp.
#include "sandbox.h"
#include "sandbox_internal.h"

#include "option_words.h"
#include "paths.h"

#include <fmt/format.h>

#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <map>
#include <mutex>
#include <set>
#include <stdexcept>
#include <system_error>

#ifndef KBX_DEFAULT_PYTHON
#define KBX_DEFAULT_PYTHON ""
#endif

namespace kbx {
namespace fs = std::filesystem;
using namespace sandbox_internal;

namespace {

const char* env(const char* name)
{
    const char* v = std::getenv(name);
    return (v && *v) ? v : nullptr;
}

fs::path findExecutable(const std::string& name)
{
    const char* path = env("PATH");
    std::string dirs = path ? path : "/usr/local/bin:/usr/bin:/bin";
    std::size_t start = 0;
    while (start <= dirs.size()) {
        auto end = dirs.find(':', start);
        if (end == std::string::npos)
            end = dirs.size();
        fs::path c = fs::path(dirs.substr(start, end - start)) / name;
        if (access(c.c_str(), X_OK) == 0)
            return c;
        start = end + 1;
    }
    for (const char* d : {"/usr/bin", "/bin", "/usr/local/bin"}) {
        fs::path c = fs::path(d) / name;
        if (access(c.c_str(), X_OK) == 0)
            return c;
    }
    return {};
}

// ---- probes ----------------------------------------------------------------------------------------

ProcessResult runQuiet(std::vector<std::string> argv, const ChildRestrictions& rx, double timeout = 20)
{
    ProcessSpec spec;
    spec.argv = std::move(argv);
    spec.timeoutSeconds = timeout;
    spec.restrictions = rx;
    spec.cwd = "/";
    return runProcess(spec);
}

/// Can a child get a network namespace of its own (with the restrictions the candidate gets)?
bool probeNetNamespace()
{
    ChildRestrictions rx;
    rx.unshareNet = true;
    auto sh = findExecutable("true");
    if (sh.empty())
        return false;
    auto r = runQuiet({sh.string()}, rx);
    return !r.spawnFailed && r.signal == 0 && r.exitCode == 0;
}

/// Can a child get the namespace sandbox (mount, pid, net, ipc namespaces and a root of its own)?
/// Empty on success, else why not.
std::string probeNamespaces()
{
    auto t = findExecutable("true");
    if (t.empty())
        return "no 'true' executable to test it with";
    ChildRestrictions rx;
    rx.namespaces = true;
    rx.noNewPrivs = true;
    rx.dieWithParent = true;
    SandboxRequest req;
    req.readOnly = {canon(t)};
    rx.view = sandboxView(req);
    auto r = runQuiet({canon(t).string()}, rx);
    if (!r.spawnFailed && r.signal == 0 && r.exitCode == 0)
        return {};
    std::string why = r.stderrText;
    while (!why.empty() && (why.back() == '\n' || why.back() == ' '))
        why.pop_back();
    return why.empty() ? fmt::format("exit {} signal {}", r.exitCode, r.signal) : why;
}

std::string bwrapVersion(const fs::path& bwrap)
{
    auto r = runQuiet({bwrap.string(), "--version"}, {});
    auto v = r.stdoutText;
    while (!v.empty() && (v.back() == '\n' || v.back() == '\r'))
        v.pop_back();
    return v;
}

/// Starts a minimal sandbox the way candidates get theirs; empty on success, else why not.
std::string probeBwrap(const fs::path& bwrap, bool separateUid)
{
    auto t = findExecutable("true");
    if (t.empty())
        return "no 'true' executable to test it with";
    std::vector<std::string> argv = {bwrap.string(), "--unshare-user", "--unshare-pid", "--unshare-net", "--die-with-parent",
                                     "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--tmpfs", "/tmp", t.string()};
    ChildRestrictions rx;
    rx.noNewPrivs = true;
    int uid = -1;
    if (separateUid) {
        uid = leaseUid();
        rx.uid = rx.gid = uid;
    }
    auto r = runQuiet(argv, rx);
    if (uid >= 0) {
        killAllOf(uid);
        releaseUid(uid);
    }
    if (!r.spawnFailed && r.signal == 0 && r.exitCode == 0)
        return {};
    std::string why = r.stderrText;
    while (!why.empty() && (why.back() == '\n' || why.back() == ' '))
        why.pop_back();
    return why.empty() ? fmt::format("exit {} signal {}", r.exitCode, r.signal) : why;
}

}  // namespace

namespace {

bool isVenv(const fs::path& python)
{
    std::error_code ec;
    return fs::exists(python.parent_path().parent_path() / "pyvenv.cfg", ec);
}

}  // namespace

// ---- SandboxInfo ---------------------------------------------------------------------------------------

std::string SandboxInfo::name() const
{
    switch (kind) {
    case SandboxKind::Bwrap:
        return "bwrap";
    case SandboxKind::Rlimit:
        return "rlimit";
    case SandboxKind::None:
        break;
    }
    return "none";
}

std::string SandboxInfo::describe() const
{
    std::string s;
    switch (kind) {
    case SandboxKind::Bwrap:
        s = fmt::format("bwrap (namespaces: user, pid, net, ipc; read-only system; private scratch; rlimits{})",
                        separateUid ? "; a uid of its own per candidate" : "");
        break;
    case SandboxKind::Rlimit:
        if (namespaces)
            s = fmt::format("rlimit+namespaces (namespaces: mount, pid, net, ipc{}; a root of its own: read-only system, "
                            "private scratch, no host sockets, its own /proc; rlimits{})",
                            geteuid() == 0 ? "" : ", user", separateUid ? "; a uid of its own per candidate" : "");
        else
            s = fmt::format("rlimit (resource limits{}{}; no bwrap, no namespaces: weaker, the file system stays readable)",
                            networkIsolated ? ", no network" : ", network NOT isolated",
                            separateUid ? ", a uid of its own per candidate" : "");
        break;
    case SandboxKind::None:
        s = "none (process group and wall-clock limit only; candidate code is NOT contained)";
        break;
    }
    if (!note.empty())
        s += " [" + note + "]";
    return s;
}

nlohmann::json SandboxInfo::toJson() const
{
    nlohmann::json j = {{"kind", name()}, {"requested", requested}, {"network_isolated", networkIsolated},
                        {"separate_uid", separateUid}, {"nproc_limited", nprocLimited}, {"namespaces", namespaces}};
    if (kind == SandboxKind::Bwrap) {
        j["bwrap"] = bwrap.string();
        j["bwrap_version"] = bwrapVersion(bwrap);
    }
    if (!note.empty())
        j["note"] = note;
    return j;
}

namespace {
constexpr std::pair<SandboxMode, const char*> kSandboxModes[] = {
    {SandboxMode::Auto, "auto"}, {SandboxMode::Bwrap, "bwrap"}, {SandboxMode::Rlimit, "rlimit"}, {SandboxMode::None, "none"}};
}  // namespace

const char* sandboxModeName(SandboxMode mode) { return wordOf(kSandboxModes, mode); }
std::optional<SandboxMode> parseSandboxMode(std::string_view word) { return valueOf(kSandboxModes, word); }
bool isSandboxMode(const std::string& mode) { return parseSandboxMode(mode).has_value(); }
std::vector<std::string> sandboxModeWords() { return wordsOf(kSandboxModes); }

namespace {
/// As root, candidates run under a uid of their own when that uid can reach the worker and its Python.
bool canUseSeparateUid(std::string* why)
{
    if (geteuid() != 0)
        return false;
    std::vector<fs::path> need = workerRuntimePaths();
    if (auto w = findWorker(); !w.empty())
        need.push_back(w);
    if (auto t = findTasksDir(); !t.empty())
        need.push_back(t);
    for (const auto& p : need)
        if (!reachableByOthers(p)) {
            *why = "running as root, but " + p.string() +
                   " is not readable by other users: candidates run as root (no process-count limit)";
            return false;
        }
    return true;
}
}  // namespace

SandboxInfo resolveSandbox(const std::string& word)
{
    const auto m = parseSandboxMode(word);
    if (!m)
        throw std::invalid_argument("unknown sandbox mode '" + word + "' (auto, bwrap, rlimit or none)");
    return resolveSandbox(*m);
}

SandboxInfo resolveSandbox(SandboxMode sandboxMode)
{
    const std::string mode = sandboxModeName(sandboxMode);
    static std::mutex m;
    static std::map<std::string, SandboxInfo> cache;
    static std::map<std::string, std::string> errors;
    std::lock_guard g(m);
    if (auto it = cache.find(mode); it != cache.end())
        return it->second;
    if (auto it = errors.find(mode); it != errors.end())
        throw std::runtime_error(it->second);

    SandboxInfo info;
    info.requested = mode;
    std::string uidNote;
    const bool root = canUseSeparateUid(&uidNote);
    info.note = uidNote;
    if (mode == "none") {
        info.note.clear();
        info.kind = SandboxKind::None;
        return cache[mode] = info;
    }
    std::string why;
    if (mode == "auto" || mode == "bwrap") {
        fs::path bwrap = env("KBX_BWRAP") ? fs::path(env("KBX_BWRAP")) : findExecutable("bwrap");
        if (bwrap.empty())
            why = "bwrap not installed (Debian/Ubuntu package bubblewrap)";
        else
            why = probeBwrap(bwrap, root);
        if (why.empty()) {
            info.kind = SandboxKind::Bwrap;
            info.bwrap = bwrap;
            info.networkIsolated = true;
            info.separateUid = root;
            info.nprocLimited = root || (geteuid() != 0 && !findExecutable("prlimit").empty());
            return cache[mode] = info;
        }
        if (mode == "bwrap") {
            errors[mode] = "sandbox bwrap asked for, but it cannot run here: " + why;
            throw std::runtime_error(errors[mode]);
        }
        info.note = "bwrap unavailable: " + why + (info.note.empty() ? "" : "; " + info.note);
    }
    info.kind = SandboxKind::Rlimit;
    // bwrap's containment without the bwrap binary, where the machine allows it (root, or
    // unprivileged user namespaces): preferred by auto and rlimit alike. KBX_SANDBOX_NO_NAMESPACES=1
    // leaves it out (the plain rlimit sandbox, for comparison and tests).
    if (!env("KBX_SANDBOX_NO_NAMESPACES")) {
        const auto nsWhy = probeNamespaces();
        info.namespaces = nsWhy.empty();
        if (!nsWhy.empty())
            info.note = "no namespace sandbox: " + nsWhy + (info.note.empty() ? "" : "; " + info.note);
    }
    info.networkIsolated = info.namespaces || probeNetNamespace();
    info.separateUid = root;
    // RLIMIT_NPROC counts every process of the uid: safe with a uid of its own, or inside a user
    // namespace of its own (kernel >= 5.14 counts per namespace), which the non-root network
    // namespace brings.
    info.nprocLimited = root || (geteuid() != 0 && info.networkIsolated);
    return cache[mode] = info;
}

// ---- environment and paths -------------------------------------------------------------------------

bool candidateEnvAllowed(const std::string& name)
{
    static const std::set<std::string> exact = {"PATH", "LANG", "LANGUAGE", "TZ", "TERM", "LD_LIBRARY_PATH", "KBX_PYTHON",
                                                "KBX_HARNESS_DIR", "CC", "CXX"};
    static const char* prefixes[] = {"LC_", "CUDA_", "NVIDIA_", "TRITON_", "PYTHON", "OMP_", "MKL_", "OPENBLAS_", "TORCH_",
                                     "PYTORCH_", "CUBLAS_", "CUDNN_", "KMP_"};
    if (exact.count(name))
        return true;
    for (const char* p : prefixes)
        if (name.rfind(p, 0) == 0)
            return true;
    return false;
}

std::vector<fs::path> workerRuntimePaths()
{
    std::vector<fs::path> v;
    fs::path py = findPython();  // $KBX_PYTHON, the build's venv, or the venv of `kbx setup-python`
    if (!py.empty()) {
        v.push_back(canon(py.parent_path().parent_path()));                  // the venv (bin/..)
        v.push_back(canon(canon(py).parent_path().parent_path()));           // the interpreter's real prefix
    }
    if (auto h = findHarnessDir(); !h.empty())  // $KBX_HARNESS_DIR, or an installed libexec/kbx/harness
        v.push_back(canon(h));
    // The worker's directory: an installed worker is a launcher beside bin/kbx-worker (libexec/kbx),
    // which must stay visible where the prefix lies under a hidden path ($HOME/.local, /tmp).
    if (auto w = findWorker(); !w.empty())
        v.push_back(canon(w).parent_path());
    return v;
}

std::vector<fs::path> defaultHiddenPaths(const fs::path& tasksDir)
{
    std::vector<fs::path> v;
    fs::path py = findPython();
    // $HOME can go when the worker's Python does not depend on it beyond what is re-exposed (a venv
    // ignores the user site-packages).
    if (auto* h = env("HOME"); h && !py.empty() && isVenv(py) && canon(h) != "/")
        v.push_back(canon(h));
    if (!tasksDir.empty()) {
        auto root = canon(tasksDir).parent_path();
        std::error_code ec;
        if (fs::exists(root / "CMakeLists.txt", ec))  // a source tree, not an installed copy
            for (const char* d : {"tests", "bench", ".git"})
                if (fs::exists(root / d, ec))
                    v.push_back(root / d);
    }
    return v;
}

// ---- applying it -------------------------------------------------------------------------------------

SandboxLease::~SandboxLease()
{
    if (m_uid >= 0) {
        killAllOf(m_uid);
        if (!m_workDir.empty()) {
            chownTree(m_workDir, geteuid(), getegid());
            chmod(m_workDir.c_str(), 0700);
        }
        releaseUid(m_uid);
    }
}

namespace {

/// A clean environment: what the worker needs, nothing of ours (tokens, KBX_DB, ssh agent ...).
void setCandidateEnvironment(ProcessSpec& spec, const fs::path& work)
{
    for (const auto& [name, value] : currentEnvironment())
        if (!candidateEnvAllowed(name) && !spec.env.count(name))
            spec.unsetEnv.push_back(name);
    spec.env["HOME"] = work.string();
    spec.env["TMPDIR"] = (work / "tmp").string();
    spec.env["XDG_CACHE_HOME"] = (work / ".cache").string();
    spec.env["TRITON_CACHE_DIR"] = (work / ".cache" / "triton").string();
    spec.env["USER"] = "kbx-sandbox";
    spec.env["LOGNAME"] = "kbx-sandbox";
}

void setLimits(const SandboxLimits& limits, ChildRestrictions& rx)
{
    using L = ChildRestrictions::Limit;
    if (limits.cpuSeconds > 0) {
        auto s = static_cast<std::uint64_t>(limits.cpuSeconds + 0.999);
        rx.rlimits.push_back(L{RLIMIT_CPU, s, s + 5});
    }
    if (limits.addressSpace)
        rx.rlimits.push_back(L{RLIMIT_AS, limits.addressSpace, limits.addressSpace});
    if (limits.fileSize)
        rx.rlimits.push_back(L{RLIMIT_FSIZE, limits.fileSize, limits.fileSize});
    if (limits.openFiles)
        rx.rlimits.push_back(L{RLIMIT_NOFILE, limits.openFiles, limits.openFiles});
    rx.rlimits.push_back(L{RLIMIT_CORE, 0, 0});
    rx.dieWithParent = true;
    rx.noNewPrivs = true;
}

/// A uid of its own (kbx as root): its evaluation directory handed over to `uid`, our private files
/// closed to it, the files it must read below the scratch root opened to it.
void handOverToUid(const SandboxRequest& req, const fs::path& work, int uid, ChildRestrictions& rx)
{
    killAllOf(uid);  // anything a crashed kbx left under this uid
    chownTree(work, static_cast<uid_t>(uid), static_cast<gid_t>(uid));
    chmod(work.c_str(), 0700);
    rx.uid = rx.gid = uid;
    // Reference outputs and the database: ours alone (kbx eval creates files 0600 from the
    // start, umask 077; this covers what an older kbx or another tool made).
    std::vector<fs::path> private_ = req.unreadable;
    private_.insert(private_.end(), req.hidden.begin(), req.hidden.end());
    for (const auto& f : private_) {
        struct stat st {};
        if (lstat(f.c_str(), &st) == 0 && S_ISREG(st.st_mode) && st.st_uid == geteuid() && (st.st_mode & 077))
            chmod(f.c_str(), st.st_mode & 0700);
    }
    // What it must read below the scratch root (its inputs file, 0600 from creation): readable
    // by others now, when this candidate starts.
    const auto root = canon(req.traverseRoot);
    for (const auto& r : req.readOnly) {
        const auto p = canon(r);
        struct stat st {};
        if (!root.empty() && isUnder(p, root) && lstat(p.c_str(), &st) == 0 && S_ISREG(st.st_mode) && st.st_uid == geteuid())
            chmod(p.c_str(), (st.st_mode & 07777) | S_IRUSR | S_IROTH);
    }
}

/// The containment itself: argv wrapped in bwrap, or the namespace sandbox, or a network namespace.
void contain(const SandboxInfo& info, const SandboxRequest& req, ProcessSpec& spec, bool nprocDirect)
{
    auto& rx = spec.restrictions;
    if (info.kind == SandboxKind::Bwrap) {
        auto argv = bwrapArguments(info, req);
        argv.push_back("--");
        if (!nprocDirect && req.limits.processes && info.nprocLimited) {
            // Not root: the limit is set inside the sandbox's user namespace, where it counts the
            // sandbox's processes only.
            if (auto pl = findExecutable("prlimit"); !pl.empty())
                argv.insert(argv.end(), {pl.string(), fmt::format("--nproc={0}:{0}", req.limits.processes), "--"});
        }
        argv.insert(argv.end(), spec.argv.begin(), spec.argv.end());
        spec.argv = std::move(argv);
    } else if (info.namespaces) {
        rx.namespaces = true;
        rx.view = sandboxView(req);
    } else {
        rx.unshareNet = info.networkIsolated;
    }
}

}  // namespace

std::unique_ptr<SandboxLease> applySandbox(const SandboxInfo& info, const SandboxRequest& req, ProcessSpec& spec)
{
    auto lease = std::make_unique<SandboxLease>();
    if (info.kind == SandboxKind::None)
        return lease;
    std::error_code ec;
    if (fs::is_symlink(fs::symlink_status(req.workDir, ec)))
        throw std::runtime_error("sandbox: the evaluation directory is a symlink: " + req.workDir.string());
    const fs::path work = canon(req.workDir);
    for (const char* sub : {"tmp", ".cache"})
        fs::create_directories(work / sub, ec);

    setCandidateEnvironment(spec, work);
    auto& rx = spec.restrictions;
    setLimits(req.limits, rx);
    if (info.separateUid) {
        makeTraversable(canon(req.traverseRoot), work);
        for (const auto& r : req.readOnly)
            makeTraversable(canon(req.traverseRoot), canon(r));
        lease->m_uid = leaseUid();
        lease->m_workDir = work;
        handOverToUid(req, work, lease->m_uid, rx);
    }
    const bool nprocDirect = req.limits.processes && (info.separateUid || (info.kind == SandboxKind::Rlimit && info.nprocLimited));
    if (nprocDirect)
        rx.rlimits.push_back(ChildRestrictions::Limit{RLIMIT_NPROC, req.limits.processes, req.limits.processes});
    contain(info, req, spec, nprocDirect);
    return lease;
}

}  // namespace kbx
