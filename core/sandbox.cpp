// SPDX-License-Identifier: MIT
#include "sandbox.h"

#include "paths.h"

#include <fmt/format.h>

#include <fcntl.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
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

namespace {

// Candidates of a kbx running as root get uids from this range, one per candidate at a time
// (a lock file per uid keeps concurrent kbx processes apart). No passwd entry is needed.
constexpr int kUidBase = 1'900'000'000;
constexpr int kUidCount = 1024;

const char* env(const char* name)
{
    const char* v = std::getenv(name);
    return (v && *v) ? v : nullptr;
}

fs::path canon(const fs::path& p)
{
    std::error_code ec;
    auto c = fs::weakly_canonical(p, ec);
    return ec ? p.lexically_normal() : c;
}

bool isUnder(const fs::path& p, const fs::path& dir)
{
    auto a = p.begin(), b = dir.begin();
    for (; b != dir.end(); ++a, ++b) {
        if (b->empty())
            continue;  // trailing separator
        if (a == p.end() || *a != *b)
            return false;
    }
    return true;
}

std::size_t depth(const fs::path& p) { return static_cast<std::size_t>(std::distance(p.begin(), p.end())); }

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

// ---- uid leases (root only) ----------------------------------------------------------------------

fs::path lockDir()
{
    for (fs::path d : {fs::path("/run/kbx-sandbox"), fs::temp_directory_path() / fmt::format("kbx-sandbox-{}", geteuid())}) {
        std::error_code ec;
        fs::create_directories(d, ec);
        struct stat st {};
        if (lstat(d.c_str(), &st) == 0 && S_ISDIR(st.st_mode) && st.st_uid == geteuid()) {
            chmod(d.c_str(), 0700);
            return d;
        }
    }
    throw std::runtime_error("sandbox: no private directory for uid locks (/run/kbx-sandbox)");
}

std::mutex g_uidMutex;
std::map<int, int> g_uidLocks;  // uid -> fd holding its flock

int leaseUid()
{
    static const fs::path dir = lockDir();
    std::lock_guard g(g_uidMutex);
    static int next = 0;
    for (int i = 0; i < kUidCount; ++i) {
        int uid = kUidBase + (next + i) % kUidCount;
        if (g_uidLocks.count(uid))
            continue;
        int fd = open((dir / fmt::format("uid-{}.lock", uid)).c_str(), O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
        if (fd < 0)
            continue;
        if (flock(fd, LOCK_EX | LOCK_NB) != 0) {
            close(fd);
            continue;
        }
        g_uidLocks[uid] = fd;
        next = (next + i + 1) % kUidCount;
        return uid;
    }
    throw std::runtime_error("sandbox: no free sandbox uid");
}

void releaseUid(int uid)
{
    std::lock_guard g(g_uidMutex);
    if (auto it = g_uidLocks.find(uid); it != g_uidLocks.end()) {
        close(it->second);
        g_uidLocks.erase(it);
    }
}

/// Is any live (not zombie) process running with this uid? (/proc/PID is owned by its euid.)
bool anyProcessOf(int uid)
{
    std::error_code ec;
    for (auto it = fs::directory_iterator("/proc", ec); !ec && it != fs::directory_iterator(); it.increment(ec)) {
        const auto name = it->path().filename().string();
        if (name.empty() || name.find_first_not_of("0123456789") != std::string::npos)
            continue;
        struct stat st {};
        if (stat(it->path().c_str(), &st) != 0 || st.st_uid != static_cast<uid_t>(uid))
            continue;
        char buf[512] = {};
        int fd = open((it->path() / "stat").c_str(), O_RDONLY | O_CLOEXEC);
        if (fd < 0)
            continue;
        ssize_t n = read(fd, buf, sizeof buf - 1);
        close(fd);
        const char* rp = n > 0 ? strrchr(buf, ')') : nullptr;
        if (rp && rp[1] == ' ' && rp[2] == 'Z')
            continue;
        return true;
    }
    return false;
}

/// Kills every process running under uid: a helper takes that uid and sends kill(-1, SIGKILL),
/// which reaches exactly those (and nothing it has no right to signal). Only as root.
void killAllOf(int uid)
{
    if (geteuid() != 0 || uid <= 0)
        return;
    for (int round = 0; round < 100 && anyProcessOf(uid); ++round) {
        pid_t pid = fork();
        if (pid == 0) {
            if (setresgid(static_cast<gid_t>(uid), static_cast<gid_t>(uid), static_cast<gid_t>(uid)) != 0 ||
                setresuid(static_cast<uid_t>(uid), static_cast<uid_t>(uid), static_cast<uid_t>(uid)) != 0)
                _exit(1);
            kill(-1, SIGKILL);
            _exit(0);
        }
        if (pid > 0) {
            int st = 0;
            while (waitpid(pid, &st, 0) < 0 && errno == EINTR) {
            }
        }
        usleep(2000);
    }
}

/// lchown of a tree without following links; a regular file with other hard links is left alone
/// (it could be one of ours that a candidate linked in).
void chownTree(const fs::path& root, uid_t uid, gid_t gid)
{
    struct stat st {};
    if (lstat(root.c_str(), &st) != 0 || !S_ISDIR(st.st_mode) || lchown(root.c_str(), uid, gid) != 0)
        return;
    std::error_code ec;
    for (auto it = fs::recursive_directory_iterator(root, fs::directory_options::skip_permission_denied, ec);
         !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
        if (lstat(it->path().c_str(), &st) != 0 || (S_ISREG(st.st_mode) && st.st_nlink > 1))
            continue;
        (void)!lchown(it->path().c_str(), uid, gid);
    }
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

/// Can a process of another uid reach p (every directory above traversable, p itself readable)?
bool reachableByOthers(const fs::path& p)
{
    fs::path cur;
    for (const auto& part : canon(p)) {
        cur /= part;
        struct stat st {};
        if (stat(cur.c_str(), &st) != 0)
            return false;
        if (S_ISDIR(st.st_mode) && !(st.st_mode & S_IXOTH))
            return false;
        if (cur == canon(p) && !(st.st_mode & S_IROTH))
            return false;
    }
    return true;
}

/// Makes the directories from root down to p traversable by others (only ours, only below root).
void makeTraversable(const fs::path& root, const fs::path& p)
{
    if (root.empty() || !isUnder(p, root))
        return;
    fs::path cur = root;
    auto rel = p.lexically_relative(root);
    auto step = [&](const fs::path& d) {
        struct stat st {};
        if (lstat(d.c_str(), &st) == 0 && S_ISDIR(st.st_mode) && st.st_uid == geteuid() && !(st.st_mode & S_IXOTH))
            chmod(d.c_str(), (st.st_mode & 07777) | 0111);
    };
    step(cur);
    for (const auto& part : rel) {
        if (part == "." || part.empty())
            continue;
        cur /= part;
        if (cur == p)
            break;
        step(cur);
    }
}

}  // namespace

fs::path firstUntraversable(const fs::path& p)
{
    std::error_code ec;
    fs::path target = fs::weakly_canonical(p, ec);
    if (ec)
        target = p;
    fs::path cur;
    for (const auto& part : target) {
        cur /= part;
        struct stat st {};
        if (stat(cur.c_str(), &st) == 0 && S_ISDIR(st.st_mode) && !(st.st_mode & S_IXOTH))
            return cur;
    }
    return {};
}

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

bool isSandboxMode(const std::string& mode) { return mode == "auto" || mode == "bwrap" || mode == "rlimit" || mode == "none"; }

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

SandboxInfo resolveSandbox(const std::string& mode)
{
    if (!isSandboxMode(mode))
        throw std::invalid_argument("unknown sandbox mode '" + mode + "' (auto, bwrap, rlimit or none)");
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

// ---- the view: what a candidate sees of the file system ------------------------------------------------

std::vector<MountOp> sandboxView(const SandboxRequest& req)
{
    std::vector<MountOp> view;
    std::error_code ec;
    // Everything shown, by depth: a path re-exposed inside a hidden directory shows, a hidden
    // directory inside a shown one stays hidden. Ties: hide, then read-only, then writable.
    enum Rank { First = 0, Hide = 1, ReadOnly = 2, Writable = 3 };
    struct Step {
        MountOp op;
        Rank rank;
    };
    std::vector<Step> steps;
    std::vector<fs::path> shown;  // what is bound from the host (hidden paths matter only below these)
    auto add = [&](MountOp op, Rank rank) { steps.push_back({std::move(op), rank}); };

    // The system: programs, libraries, configuration. Merged-/usr links stay links.
    for (const char* d : {"/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/etc", "/sys"}) {
        const auto st = fs::symlink_status(d, ec);
        if (ec || !fs::exists(st))
            continue;
        if (fs::is_symlink(st)) {
            auto target = fs::read_symlink(d, ec);
            if (!ec)
                add({MountOp::Symlink, target.string(), d}, First);
        } else if (fs::is_directory(st)) {
            add({MountOp::RoBind, d, d, 0, true}, ReadOnly);
            shown.emplace_back(d);
        }
    }
    add({MountOp::Dev, "", "/dev"}, First);
    add({MountOp::Proc, "", "/proc"}, First);
    // Private scratch, sized: tmpfs lives in memory. /run (sockets, the host's state) is empty.
    for (const char* d : {"/tmp", "/var/tmp", "/dev/shm"})
        add({MountOp::Tmpfs, "", d, req.limits.tmpfsBytes}, First);
    add({MountOp::Tmpfs, "", "/run", 16u << 20}, First);
    if (req.gpu) {
        std::vector<std::string> nodes;
        for (auto it = fs::directory_iterator("/dev", ec); !ec && it != fs::directory_iterator(); it.increment(ec))
            if (it->path().filename().string().rfind("nvidia", 0) == 0)
                nodes.push_back(it->path().string());
        std::sort(nodes.begin(), nodes.end());
        for (const auto& n : nodes)
            add({MountOp::DevBind, n, n, 0, true}, Writable);  // nodes, and /dev/nvidia-caps
        add({MountOp::RoBind, "/run/nvidia-persistenced", "/run/nvidia-persistenced", 0, true}, ReadOnly);
    }
    // Programs on PATH installed under their own prefix (a GPU image's /opt/gcc/bin/gcc, which
    // Triton compiles its launchers with): the prefix, read-only. Nothing under $HOME, /tmp or a
    // hidden path, nothing that is the root.
    if (const char* path = std::getenv("PATH")) {
        const char* home = std::getenv("HOME");
        std::string entry;
        std::istringstream in(path);
        while (std::getline(in, entry, ':')) {
            if (entry.empty() || entry[0] != '/')
                continue;
            auto p = canon(entry);
            if (p.empty() || !fs::is_directory(p, ec))
                continue;
            if (p.filename() == "bin" || p.filename() == "sbin")
                p = p.parent_path();
            if (p == "/" || p.empty() || isUnder(p, "/tmp") || (home && *home && isUnder(p, canon(home))) ||
                std::any_of(req.hidden.begin(), req.hidden.end(), [&](const fs::path& h) { return isUnder(p, canon(h)) || isUnder(canon(h), p); }))
                continue;
            if (std::any_of(shown.begin(), shown.end(), [&](const fs::path& s) { return isUnder(p, s); }))
                continue;
            add({MountOp::RoBind, p.string(), p.string(), 0, true}, ReadOnly);
            shown.push_back(p);
        }
    }
    // What the worker needs (its Python, the harness, the tasks, this candidate's inputs).
    const auto hiddenBetween = [&](const fs::path& p, const fs::path& s) {
        return std::any_of(req.hidden.begin(), req.hidden.end(), [&](const fs::path& h) {
            const auto c = canon(h);
            return isUnder(p, c) && isUnder(c, s);
        });
    };
    for (const auto& r : req.readOnly) {
        auto p = canon(r);
        if (p.empty() || p == "/" || !fs::exists(p, ec))
            continue;
        // Already shown through a directory above it (and not hidden on the way): nothing to add.
        if (std::any_of(shown.begin(), shown.end(), [&](const fs::path& s) { return isUnder(p, s) && !hiddenBetween(p, s); }))
            continue;
        add({MountOp::RoBind, p.string(), p.string()}, ReadOnly);
        shown.push_back(p);
    }
    if (!req.workDir.empty()) {
        const auto w = canon(req.workDir);
        add({MountOp::Bind, w.string(), w.string()}, Writable);
        shown.push_back(w);
    }
    // Hidden paths inside what is shown: empty directories, files shown as /dev/null.
    for (const auto& h : req.hidden) {
        auto p = canon(h);
        if (p.empty() || p == "/" || !fs::exists(p, ec))
            continue;
        const bool inside = std::any_of(shown.begin(), shown.end(), [&](const fs::path& s) { return isUnder(p, s) && p != s; });
        if (!inside)
            continue;  // not visible anyway
        if (fs::is_directory(p, ec))
            add({MountOp::Tmpfs, "", p.string(), 16u << 20}, Hide);
        else
            add({MountOp::HideFile, "/dev/null", p.string()}, Hide);
    }
    std::stable_sort(steps.begin(), steps.end(), [](const Step& x, const Step& y) {
        const auto dx = depth(x.op.dst), dy = depth(y.op.dst);
        if (dx != dy)
            return dx < dy;
        return x.rank < y.rank;
    });
    // /dev before what goes into it (/dev/shm, GPU nodes): depth already orders them.
    for (auto& st : steps)
        view.push_back(std::move(st.op));
    return view;
}

// ---- bwrap -------------------------------------------------------------------------------------------

std::vector<std::string> bwrapArguments(const SandboxInfo& info, const SandboxRequest& req)
{
    std::vector<std::string> a = {info.bwrap.string(), "--unshare-user", "--unshare-pid", "--unshare-net", "--unshare-ipc",
                                  "--unshare-uts", "--unshare-cgroup-try", "--die-with-parent", "--hostname", "kbx-sandbox"};
    if (geteuid() == 0 && !info.separateUid)
        a.insert(a.begin() + 1, {"--cap-drop", "ALL"});
    // An allow-list: nothing of the host's file tree beyond the view (other checkouts, $HOME, the
    // database, the run's scratch stay out of sight, issue 20).
    for (const auto& op : sandboxView(req)) {
        switch (op.kind) {
        case MountOp::RoBind:
            a.insert(a.end(), {op.optional ? "--ro-bind-try" : "--ro-bind", op.src, op.dst});
            break;
        case MountOp::Bind:
            a.insert(a.end(), {op.optional ? "--bind-try" : "--bind", op.src, op.dst});
            break;
        case MountOp::DevBind:
            a.insert(a.end(), {op.optional ? "--dev-bind-try" : "--dev-bind", op.src, op.dst});
            break;
        case MountOp::Tmpfs:
            a.insert(a.end(), {"--size", std::to_string(op.size ? op.size : (16u << 20)), "--tmpfs", op.dst});
            break;
        case MountOp::HideFile:
            a.insert(a.end(), {"--ro-bind", "/dev/null", op.dst});
            break;
        case MountOp::Symlink:
            a.insert(a.end(), {"--symlink", op.src, op.dst});
            break;
        case MountOp::Dev:
            a.insert(a.end(), {"--dev", "/dev"});
            break;
        case MountOp::Proc:
            a.insert(a.end(), {"--proc", "/proc"});
            break;
        }
    }
    a.insert(a.end(), {"--remount-ro", "/"});
    if (!req.workDir.empty())
        a.insert(a.end(), {"--chdir", canon(req.workDir).string()});
    return a;
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

    // A clean environment: what the worker needs, nothing of ours (tokens, KBX_DB, ssh agent ...).
    for (const auto& [name, value] : currentEnvironment())
        if (!candidateEnvAllowed(name) && !spec.env.count(name))
            spec.unsetEnv.push_back(name);
    spec.env["HOME"] = work.string();
    spec.env["TMPDIR"] = (work / "tmp").string();
    spec.env["XDG_CACHE_HOME"] = (work / ".cache").string();
    spec.env["TRITON_CACHE_DIR"] = (work / ".cache" / "triton").string();
    spec.env["USER"] = "kbx-sandbox";
    spec.env["LOGNAME"] = "kbx-sandbox";

    auto& rx = spec.restrictions;
    using L = ChildRestrictions::Limit;
    if (req.limits.cpuSeconds > 0) {
        auto s = static_cast<std::uint64_t>(req.limits.cpuSeconds + 0.999);
        rx.rlimits.push_back(L{RLIMIT_CPU, s, s + 5});
    }
    if (req.limits.addressSpace)
        rx.rlimits.push_back(L{RLIMIT_AS, req.limits.addressSpace, req.limits.addressSpace});
    if (req.limits.fileSize)
        rx.rlimits.push_back(L{RLIMIT_FSIZE, req.limits.fileSize, req.limits.fileSize});
    if (req.limits.openFiles)
        rx.rlimits.push_back(L{RLIMIT_NOFILE, req.limits.openFiles, req.limits.openFiles});
    rx.rlimits.push_back(L{RLIMIT_CORE, 0, 0});
    rx.dieWithParent = true;
    rx.noNewPrivs = true;

    if (info.separateUid) {
        makeTraversable(canon(req.traverseRoot), work);
        for (const auto& r : req.readOnly)
            makeTraversable(canon(req.traverseRoot), canon(r));
        lease->m_uid = leaseUid();
        lease->m_workDir = work;
        killAllOf(lease->m_uid);  // anything a crashed kbx left under this uid
        chownTree(work, static_cast<uid_t>(lease->m_uid), static_cast<gid_t>(lease->m_uid));
        chmod(work.c_str(), 0700);
        rx.uid = rx.gid = lease->m_uid;
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
    const bool nprocDirect = req.limits.processes && (info.separateUid || (info.kind == SandboxKind::Rlimit && info.nprocLimited));
    if (nprocDirect)
        rx.rlimits.push_back(L{RLIMIT_NPROC, req.limits.processes, req.limits.processes});

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
    return lease;
}

}  // namespace kbx
