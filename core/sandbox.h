// SPDX-License-Identifier: MIT
#pragma once
#include "process.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace kbx {

/// How candidate code is contained (only the candidate role: reference and compare are ours).
///   bwrap  : bubblewrap: new user, pid, network, IPC and UTS namespaces; an allow-list view of the
///            file system (sandboxView: the system read-only, the worker's Python, harness and tasks,
///            this candidate's inputs file, its own evaluation directory writable; private /tmp,
///            /var/tmp, /run, /dev/shm; nothing else of the host: other checkouts, $HOME, databases,
///            the run's scratch); GPU device nodes passed through; plus the rlimits below.
///   rlimit : no bwrap: setrlimit (CPU, NOFILE, FSIZE, AS on the CPU device, NPROC where it is
///            counted per sandbox), as root a uid of its own per candidate (so the project, $HOME,
///            the database and the reference outputs, 0600 from creation, are out of reach and every
///            process it leaves is killed afterwards), and, where the machine allows it (root, or
///            unprivileged user namespaces), the namespace sandbox: new mount, pid, network and IPC
///            namespaces with the same allow-list view as bwrap and a /proc of its own
///            (SandboxInfo::namespaces; ChildRestrictions::namespaces), also for workers forked from
///            the warm worker. Without namespaces: a network namespace where permitted, the file
///            system readable, /tmp shared, no pid namespace (weaker; said in describe()).
///   none   : a process group with a wall-clock limit, nothing else (the old behaviour).
enum class SandboxKind { None, Rlimit, Bwrap };

struct SandboxInfo {
    SandboxKind kind = SandboxKind::None;
    std::string requested = "auto";
    std::filesystem::path bwrap;       ///< the bwrap executable (kind == Bwrap)
    bool networkIsolated = false;      ///< no network beyond its own loopback
    bool separateUid = false;          ///< kbx runs as root: every candidate runs under a uid of its own
    bool nprocLimited = false;         ///< RLIMIT_NPROC applies to the candidate alone
    /// kind == Rlimit: the namespace sandbox (ChildRestrictions::namespaces): new mount, pid, net
    /// and IPC namespaces (a user namespace too when not root), a root of its own made of the view
    /// (sandboxView), its own /proc; bwrap's containment without the bwrap binary.
    bool namespaces = false;
    std::string note;                  ///< why auto did not get bwrap, etc.

    std::string name() const;          ///< none | rlimit | bwrap
    std::string describe() const;      ///< one line for people ("bwrap 0.8.0: ...")
    nlohmann::json toJson() const;     ///< for the run's provenance
};

/// What `--sandbox` asks for: auto (bwrap where it works, else rlimit) or one kind.
enum class SandboxMode { Auto, Bwrap, Rlimit, None };
/// "auto", "bwrap", "rlimit", "none".
const char* sandboxModeName(SandboxMode mode);
std::optional<SandboxMode> parseSandboxMode(std::string_view word);
/// Every --sandbox word, in order (auto, bwrap, rlimit, none).
std::vector<std::string> sandboxModeWords();

/// "auto", "bwrap", "rlimit" or "none".
bool isSandboxMode(const std::string& mode);

/// Resolves a mode on this machine (cached per mode). auto: bwrap when installed and able to start a
/// sandbox here, else rlimit. Throws std::runtime_error when bwrap is asked for and cannot run.
SandboxInfo resolveSandbox(SandboxMode mode);
/// The same for a mode's word; throws std::invalid_argument for an unknown one.
SandboxInfo resolveSandbox(const std::string& mode);

struct SandboxLimits {
    double cpuSeconds = 0;                   ///< RLIMIT_CPU (0: none)
    std::uint64_t addressSpace = 0;          ///< RLIMIT_AS in bytes (0: none; never with CUDA)
    std::uint64_t fileSize = 4ull << 30;     ///< RLIMIT_FSIZE: largest file it may write
    std::uint64_t openFiles = 4096;          ///< RLIMIT_NOFILE
    std::uint64_t processes = 512;           ///< RLIMIT_NPROC (threads count), where it is safe
    std::uint64_t tmpfsBytes = 256ull << 20; ///< size of the private /tmp, /var/tmp, /dev/shm (bwrap)
};

/// What one candidate may see and touch.
struct SandboxRequest {
    std::filesystem::path workDir;                  ///< its evaluation directory: private, writable
    std::vector<std::filesystem::path> readOnly;    ///< stay visible even inside hidden directories
    std::vector<std::filesystem::path> hidden;      ///< directories shown empty, files shown as /dev/null
    std::vector<std::filesystem::path> unreadable;  ///< rlimit with a separate uid: chmod 0600 (root-owned)
    /// Directories from here down to workDir and to the readOnly paths below it are made traversable
    /// by others (o+x), so a candidate under a uid of its own reaches its files (the run's scratch root).
    std::filesystem::path traverseRoot;
    bool gpu = false;                               ///< pass /dev/nvidia* through
    SandboxLimits limits;
};

/// Held while the sandboxed process runs; on destruction kills whatever is left under the
/// candidate's uid, hands the uid back and returns its directory to us.
class SandboxLease {
public:
    SandboxLease() = default;
    SandboxLease(const SandboxLease&) = delete;
    SandboxLease& operator=(const SandboxLease&) = delete;
    ~SandboxLease();
    int uid() const { return m_uid; }

private:
    friend std::unique_ptr<SandboxLease> applySandbox(const SandboxInfo&, const SandboxRequest&, ProcessSpec&);
    int m_uid = -1;
    std::filesystem::path m_workDir;
};

/// Applies the sandbox to a process about to be started: wraps argv in bwrap, sets rlimits, the uid,
/// the network namespace and a clean environment (HOME, TMPDIR, caches inside workDir; variables
/// outside an allow-list removed). Keep the lease until runProcess returned.
std::unique_ptr<SandboxLease> applySandbox(const SandboxInfo& info, const SandboxRequest& req, ProcessSpec& spec);

/// What a candidate sees of the file system, as an allow-list (bwrap and the namespace sandbox
/// alike): the system (/usr, /etc, /lib*, /bin, /sbin, /sys) read-only, a minimal /dev (and the GPU's
/// nodes), its own /proc, empty private /tmp, /var/tmp, /dev/shm and /run, req.readOnly read-only,
/// req.workDir writable, req.hidden emptied where it lies inside any of these; nothing else of the
/// host (other checkouts, $HOME, databases, the run's scratch). Ordered by depth.
std::vector<MountOp> sandboxView(const SandboxRequest& req);

/// The bwrap command line (without the sandboxed command) for a request. Exposed for tests.
std::vector<std::string> bwrapArguments(const SandboxInfo& info, const SandboxRequest& req);

/// Environment variables a candidate keeps (PATH, locale, CUDA_*, TRITON_*, PYTHON*, ...).
bool candidateEnvAllowed(const std::string& name);

/// Paths a candidate worker needs to start: the Python of the worker (KBX_PYTHON or the build's
/// venv) with its real prefix, KBX_HARNESS_DIR when set.
std::vector<std::filesystem::path> workerRuntimePaths();

/// With a uid of its own per candidate (rlimit as root), everything the candidate must reach has to
/// be traversable by others from / down: returns the first directory from / down to `p` (itself
/// included when it is one) whose mode lacks o+x, or an empty path when `p` is reachable.
std::filesystem::path firstUntraversable(const std::filesystem::path& p);

/// Directories candidates must not see by default: $HOME (when the worker's Python is a venv, re-exposed
/// where needed), and the source tree's tests/, bench/ and .git beside tasksDir.
std::vector<std::filesystem::path> defaultHiddenPaths(const std::filesystem::path& tasksDir);

}  // namespace kbx
