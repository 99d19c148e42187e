// SPDX-License-Identifier: MIT
#pragma once
// A reference server: one kbx-worker reference process that computes the references of one task
// after another (kbx_harness/reference.py, {"serve": true}), so that its CUDA context and the
// libraries' handles are made once, not once per task. On the H200 a fresh reference process spent
// ~2.3 s per task drawing inputs, nearly all of it CUDA set-up, in a correctness stage that is
// CPU-bound (issue 22). The process is ours (it never sees candidate code) and starts each task from
// the state a new process would have (fresh random seeds, default dtype, grad mode, flags); a request it cannot answer is run in a fresh process by the
// caller (core/reference_cache.cpp).
#include "device.h"
#include "process.h"

#include <nlohmann/json.hpp>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <filesystem>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

namespace kbx {

struct DeviceSlot;
class WorkerLauncher;

class ReferenceServer {
public:
    /// Starts the server process (in a thread of its own) through `slot`'s environment; `dir` is its
    /// scratch directory. A request not answered within `timeoutPerTask` seconds kills it.
    ReferenceServer(const WorkerLauncher& launcher, const DeviceSlot& slot, Device device, std::filesystem::path dir,
                    double timeoutPerTask);
    ~ReferenceServer();  ///< stops the process (asks, then kills) and waits for it
    ReferenceServer(const ReferenceServer&) = delete;
    ReferenceServer& operator=(const ReferenceServer&) = delete;

    struct Answer {
        std::vector<nlohmann::json> frames;  ///< the server's hello, then this task's frames (progress…, result or error)
        double seconds = 0;                  ///< from the request to its last frame
    };
    /// One task's request (reference.py's request without "serve"). nullopt: the server is gone (it
    /// died, was stopped or cancelled) or did not answer in time (it is killed then). One request at
    /// a time; concurrent callers wait their turn.
    std::optional<Answer> call(const nlohmann::json& request);
    /// False once the process ended, was stopped, or served its maximum number of tasks.
    bool usable() const;
    /// Tasks served before the server stops taking more (its frames are bounded per process).
    static constexpr int kMaxTasks = 64;

private:
    std::string onFrame(const nlohmann::json& frame);  ///< the process's frames (server thread)
    void stop();

    mutable std::mutex m_mutex;
    std::condition_variable m_cv;
    std::mutex m_callMutex;
    std::optional<nlohmann::json> m_pending;  ///< the next request, until the server takes it
    std::vector<nlohmann::json> m_frames;     ///< the current request's frames
    nlohmann::json m_hello;
    bool m_done = false;                      ///< the current request's result (or error) came
    bool m_inFlight = false;                  ///< a request was handed over and not yet answered
    bool m_restarted = false;                 ///< the process started again while a request was in flight
    bool m_stop = false;
    bool m_ended = false;                     ///< the process ended
    int m_served = 0;
    double m_timeout;
    std::atomic<bool> m_abandon{false};
    ProcessResult m_result;                   ///< the process's, once it ended
    std::thread m_thread;
};

}  // namespace kbx
