// SPDX-License-Identifier: MIT
#pragma once
// The worker probe of `kbx eval` (Evaluator::probe's facts) whose process, on CUDA, keeps its
// device context open after it answered, until kbx no longer needs it (issue 22). A run's first
// reference servers open the device right after the probe: on a GPU that no process holds open
// (no persistence daemon), the driver sets the GPU up again for them, seconds that the whole first
// wave of candidates waited for (5-8 s on the H100/H200 machines). Held, the device stays set up.
#include "evaluator.h"
#include "process.h"

#include <nlohmann/json.hpp>

#include <condition_variable>
#include <mutex>
#include <string>
#include <thread>

namespace kbx {

class HeldProbe {
public:
    /// Runs `kbx-worker probe` and waits for its answer; with `hold`, the process then keeps its
    /// device open until release() or destruction. Throws std::runtime_error as Evaluator::probe.
    HeldProbe(const WorkerConfig& worker, bool hold);
    ~HeldProbe();
    HeldProbe(const HeldProbe&) = delete;
    HeldProbe& operator=(const HeldProbe&) = delete;

    const nlohmann::json& result() const { return m_result; }
    /// Whether the process said it holds its device open (and has not been released).
    bool holding() const;
    /// Lets the process end (it exits on our answer); idempotent, does not wait.
    void release();
    /// Seconds from the probe's answer to release() (0 before; not holding: 0).
    double heldSeconds() const;

    /// Whether `kbx eval` holds: on a CUDA run unless KBX_PROBE_HOLD=0 (for an A/B in bench/).
    static bool wanted(bool cuda);

private:
    std::string onFrame(const nlohmann::json& frame);

    mutable std::mutex m_mutex;
    std::condition_variable m_cv;
    nlohmann::json m_result;
    ProcessResult m_res;      ///< the process's end (read when it gave no answer)
    bool m_answered = false;  ///< a result frame came, or the process ended
    bool m_holding = false;
    bool m_released = false;
    std::chrono::steady_clock::time_point m_answeredAt, m_releasedAt;
    std::thread m_thread;
};

}  // namespace kbx
