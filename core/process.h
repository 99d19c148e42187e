// SPDX-License-Identifier: MIT
#pragma once
#include <nlohmann/json.hpp>

#include <atomic>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace kbx {

class WarmWorker;  // core/warm.h

/// One step of a sandbox's view of the file system (core/sandbox.h builds the list; bwrap gets it as
/// arguments, the namespace sandbox applies it itself in the child, PreparedRestrictions::apply).
struct MountOp {
    enum Kind : int {
        RoBind = 0,    ///< src shown read-only at dst
        Bind = 1,      ///< src shown writable at dst
        DevBind = 2,   ///< a device node (GPU) at dst
        Tmpfs = 3,     ///< an empty private directory in memory at dst (size bytes)
        HideFile = 4,  ///< /dev/null over the file dst
        Symlink = 5,   ///< dst -> src
        Dev = 6,       ///< a minimal /dev (null, zero, full, random, urandom, tty, fd links)
        Proc = 7,      ///< a /proc of the sandbox's own pid namespace
    };
    Kind kind = RoBind;
    std::string src;
    std::string dst;
    std::uint64_t size = 0;  ///< Tmpfs: its size (0: 16 MiB)
    bool optional = false;   ///< a bind whose source may be missing: skipped then
};

/// Restrictions applied in the child between fork and exec (core/sandbox fills them in).
struct ChildRestrictions {
    struct Limit {
        int resource;            ///< RLIMIT_*
        std::uint64_t soft, hard;
    };
    std::vector<Limit> rlimits;
    /// Network namespace of its own (only loopback): CLONE_NEWNET as root, else CLONE_NEWUSER |
    /// CLONE_NEWNET with the caller's uid/gid mapped. The child fails (exit 127) when it cannot.
    bool unshareNet = false;
    int uid = -1;                ///< >= 0: setgroups({}), setgid(gid), setuid(uid) before exec (needs root)
    int gid = -1;
    bool noNewPrivs = false;     ///< PR_SET_NO_NEW_PRIVS: no setuid/file-capability gains after exec
    bool dieWithParent = false;  ///< PR_SET_PDEATHSIG(SIGKILL)
    /// The namespace sandbox (bwrap's containment without the bwrap binary): new mount, pid, network
    /// and IPC namespaces (and a user namespace when not root); a root of its own made of `view`
    /// only (pivot_root), its own /proc; the process runs as pid 2 under a small init (pid 1) and a
    /// relay in the caller's namespace that exits as the process did. Capabilities are dropped.
    bool namespaces = false;
    std::vector<MountOp> view;
};
/// This process's environment, by name.
std::map<std::string, std::string> currentEnvironment();
/// argv or envp for execve, made before fork: owns its strings, data() is NULL-terminated.
class ExecStrings {
public:
    explicit ExecStrings(std::vector<std::string> strings);
    explicit ExecStrings(const std::map<std::string, std::string>& env);  ///< NAME=value
    char** data() { return m_ptrs.data(); }
private:
    std::vector<std::string> m_strings;
    std::vector<char*> m_ptrs;
};
nlohmann::json toJson(const ChildRestrictions& rx);
ChildRestrictions restrictionsFromJson(const nlohmann::json& j);

/// ChildRestrictions in the form a freshly forked child can apply with async-signal-safe calls only:
/// prepared before fork (runProcess) or in a forked single-threaded child (the warm worker's).
struct PreparedRestrictions {
    std::vector<std::pair<int, std::pair<std::uint64_t, std::uint64_t>>> limits;  ///< clamped to the current hard limits
    bool unshareNet = false;
    bool asRoot = false;
    std::string uidMap, gidMap;
    int uid = -1, gid = -1;
    bool noNewPrivs = false;
    bool dieWithParent = false;
    int parentPid = 0;  ///< with dieWithParent: the process whose death kills the child
    bool namespaces = false;
    struct Op {
        int kind = 0;
        std::string src;     ///< as seen during set-up: below /oldroot
        std::string dst;
        std::string options; ///< tmpfs mount options
        bool optional = false;
    };
    std::vector<Op> view;
    static PreparedRestrictions prepare(const ChildRestrictions& rx, int parentPid);
    /// In the child: namespaces (network only, or the namespace sandbox), rlimits, uid,
    /// no_new_privs, parent-death signal (in that order). On failure writes why to fd 2 and
    /// _exit(127). With namespaces it forks twice: only the sandboxed process returns.
    void apply() const;

private:
    void enterNamespaces() const;
    void buildRoot() const;
};

/// One child process: its own process group (so a timeout kills everything it started), stdout
/// and stderr captured apart and capped, worker protocol frames read from a pipe at fd 3.
struct ProcessSpec {
    std::vector<std::string> argv;
    std::map<std::string, std::string> env;   ///< added to / overriding the inherited environment
    std::vector<std::string> unsetEnv;
    std::filesystem::path cwd;
    double timeoutSeconds = 60;
    std::size_t maxLogBytes = 256 * 1024;     ///< per stream; the rest is drained and dropped
    /// The protocol stream (fd 3) is bounded too, whatever the child sends: past this many frames or
    /// bytes in all, the rest is drained and dropped, no more frames are taken, and protocolError
    /// says so (a broken stream: the evaluator's crash class). Keeps kbx's memory bounded per child
    /// (issue 20: 48 frames of 15 MiB each took kbx to 826 MB).
    std::size_t maxFrames = 20000;
    std::size_t maxFrameStreamBytes = 32u << 20;
    std::function<void(const nlohmann::json&)> onFrame;
    /// Set: the child's stdin is a pipe, and every frame is offered to `reply`; what it returns (if
    /// anything) is written to the child's stdin. `reply` may block (e.g. until the GPU is free for
    /// timing); the time it blocks does not count against timeoutSeconds.
    std::function<std::string(const nlohmann::json&)> reply;
    const std::atomic<bool>* cancel = nullptr;
    /// A second flag, the caller's own: its result is no longer wanted (a speculative run whose
    /// premise failed). Killed like a cancel; the result says `cancelled`.
    const std::atomic<bool>* abandon = nullptr;
    bool stopRequested() const { return (cancel && cancel->load()) || (abandon && abandon->load()); }
    ChildRestrictions restrictions;           ///< sandbox: rlimits, uid, network namespace
    /// Set and usable: the child is forked from this warm worker (a kbx-worker with torch already
    /// imported, core/warm.h) instead of fork+exec of argv, which must then be a kbx-worker role
    /// command line; env, cwd, restrictions and the pipes are the same. Unusable: fork+exec.
    std::shared_ptr<WarmWorker> warm;
};

struct ProcessResult {
    int exitCode = -1;    ///< valid when signal == 0 and the process was not killed by us
    int signal = 0;       ///< terminating signal, 0 if it exited
    bool timedOut = false;
    bool cancelled = false;
    bool spawnFailed = false;
    std::string stdoutText;
    std::string stderrText;
    std::size_t droppedLogBytes = 0;
    std::vector<nlohmann::json> frames;
    std::string protocolError;
    double seconds = 0;
    bool warm = false;      ///< forked from a warm worker
    /// The warm worker died while this child ran (the child died with it): the result says nothing
    /// about the child; run it again (the warm worker is marked unusable, so that is fork+exec).
    bool warmLost = false;
};

ProcessResult runProcess(const ProcessSpec& spec);
std::string signalName(int sig);

}  // namespace kbx
