// SPDX-License-Identifier: MIT
#pragma once
#include <nlohmann/json.hpp>

#include <atomic>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <string>
#include <vector>

namespace kbx {

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
    std::function<void(const nlohmann::json&)> onFrame;
    /// Set: the child's stdin is a pipe, and every frame is offered to `reply`; what it returns (if
    /// anything) is written to the child's stdin. `reply` may block (e.g. until the GPU is free for
    /// timing); the time it blocks does not count against timeoutSeconds.
    std::function<std::string(const nlohmann::json&)> reply;
    const std::atomic<bool>* cancel = nullptr;
    ChildRestrictions restrictions;           ///< sandbox: rlimits, uid, network namespace
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
};

ProcessResult runProcess(const ProcessSpec& spec);
std::string signalName(int sig);

}  // namespace kbx
