// SPDX-License-Identifier: MIT
#pragma once
// Warm worker (fork server): one long-lived `kbx-worker zygote` that has imported Python, torch,
// Triton and the harness (but never initialised CUDA and never runs candidate code) forks a child
// per worker process instead of kbx starting a fresh interpreter each time. The child gets the
// same pipes, environment, working directory and sandbox restrictions (rlimits, uid, network
// namespace) as a fork+exec'd worker, in its own process group, and then runs the role as usual.
// Every child is a copy of the same pristine state: candidates share nothing with each other.
// Not for bwrap (a namespace sandbox set up around exec); see docs/ARCHITECTURE.md.
#include <nlohmann/json.hpp>

#include <atomic>
#include <condition_variable>
#include <filesystem>
#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace kbx {

class WarmWorker {
public:
    /// Starts `argv` (a `kbx-worker zygote` command line) with exactly `env`, its output appended to
    /// `logFile`, dying with this process. Returns at once; the worker gets ready in the background.
    WarmWorker(std::vector<std::string> argv, std::map<std::string, std::string> env, std::filesystem::path logFile,
               double readyTimeoutSeconds = 300);
    ~WarmWorker();
    WarmWorker(const WarmWorker&) = delete;
    WarmWorker& operator=(const WarmWorker&) = delete;

    /// Blocks until the worker is ready; false when it failed, timed out, was lost, or `cancel` was set.
    bool waitReady(const std::atomic<bool>* cancel = nullptr);
    /// Not (yet) known to be broken: spawn may be tried.
    bool usable() const { return m_state.load() != Failed; }

    struct Spawned {
        int session = -1;  ///< socket: the child's exit status arrives here (readStatus); -1: not started
        int pid = -1;      ///< the child, leader of its own process group
    };
    /// One child: `job` = {argv, env (complete), cwd, restrictions (toJson(ChildRestrictions))};
    /// `childFds` become its fds 0-3. Thread-safe. On failure the worker is marked lost and
    /// session is -1: start the process some other way.
    Spawned spawn(const nlohmann::json& job, const int childFds[4], const std::atomic<bool>* cancel = nullptr);
    /// Reads a child's exit status (a waitpid status) from its session socket, waiting up to
    /// `timeoutMs`: 1 got it, 0 not yet, -1 the session ended without one (the worker died).
    static int readStatus(int session, int* status, int timeoutMs);
    /// Marks the worker unusable (later spawns fail at once, so callers fork+exec) and stops it.
    void lost(const std::string& why);

    /// For the run's provenance: state, pid, start-up seconds, children forked, why it failed.
    nlohmann::json describe() const;

private:
    enum State { Starting, Ready, Failed };
    void readyThread(double timeout);
    void stop();
    std::vector<std::string> m_argv;
    int m_control = -1;
    int m_pid = -1;
    std::atomic<int> m_state{Starting};
    std::atomic<int> m_forks{0};
    double m_startSeconds = 0;
    std::string m_why;
    nlohmann::json m_ready;
    mutable std::mutex m_mutex;  // m_why, m_ready, m_control sends
    std::condition_variable m_cv;
    std::thread m_thread;
};

}  // namespace kbx
