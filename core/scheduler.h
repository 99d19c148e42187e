// SPDX-License-Identifier: MIT
#pragma once
// The run's scheduler: its device slots (one Slot each), the shared correctness queue (longest
// expected work first) worked by `jobs` threads per slot, a slot taken out of the pool when its
// device fails, and the perf stage's queue worked by a few perf workers per slot.
#include "evaluator.h"

#include <nlohmann/json.hpp>

#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <deque>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace kbx {

class RunTally;

/// One device of the run (EvalOptions::deviceSlots; one implicit slot when none was given) and
/// what is kept per device.
struct Slot {
    Slot(std::size_t i, DeviceSlot d) : index(i), device(std::move(d)) {}
    std::size_t index;                   ///< its place in EvalOptions::deviceSlots
    DeviceSlot device;                   ///< the user's name for it and its environment
    nlohmann::json probe;                ///< its probe (GPU name, UUID) at the start of the run (multi-slot runs)
    std::atomic<bool> alive{true};       ///< in the pool: a slot whose device failed its health probe leaves it
    /// The correctness queue has been emptied: the run's tail, where worker threads are about to
    /// idle. A candidate evaluated then starts its extended tier with its contract tier.
    std::atomic<bool> queueDrained{false};
    std::mutex peaksMutex;
    nlohmann::json peaks;                ///< device peaks measured by its first perf worker (guarded by peaksMutex)
    bool calibrating = false;            ///< a perf worker was asked to calibrate (guarded by peaksMutex)
    /// Notified when the calibrating worker's peaks arrive or it ended without them, so that a
    /// timing that ended first still gets its rooflines (awaitPeaks, core/perf_stage.h).
    std::condition_variable peaksChanged;
    /// Held by the one perf worker whose timed work runs on that GPU. A perf worker starts
    /// (interpreter, torch, Triton, task module) while another times, then asks for it ("ready")
    /// before it draws inputs, imports the candidate or touches the GPU; released when it ended.
    std::timed_mutex timing;

    /// {"slot": name, "gpu": the probe's first device} for evidence; null for the implicit slot.
    nlohmann::json describeForEvidence() const;
};
using Slots = std::vector<std::unique_ptr<Slot>>;

/// Per task, the seconds a whole evaluation of its own solutions took on a GPU (`kbx tasks --check`),
/// from tasksDir/queue_prior.json; empty when there is none or it cannot be read.
std::map<std::string, double> queuePrior(const std::filesystem::path& tasksDir);

/// The correctness queue: submission indices, ordered (when `ordered`) by expected cost, longest
/// first: the seconds this database has seen per task, else the bundled prior (queuePrior), else
/// the task's difficulty, plus a hint for autotuned code. Each submission's expected seconds into
/// `expected` when given (left empty when not `ordered`).
std::deque<std::size_t> correctnessQueue(const std::vector<Submission>& subs, const TaskCatalogue& catalogue, const Store& store,
                                         bool ordered, std::vector<double>* expected = nullptr);

/// The correctness stage's expected critical path: the submissions expected to take at least a
/// third of the stage's expected wall (their expected seconds summed over `workers` threads, or the
/// longest one when that is longer). They are first in the queue and, started with the rest, would
/// end last: CorrectnessStage does not wait for their contract tier before their extended tier.
/// All false when `expected` is empty.
std::vector<bool> criticalPath(const std::vector<double>& expected, int workers);

/// Evaluates submission i on a slot (Evaluator's correctness stage; exceptions become harness errors).
using EvaluateFn = std::function<Outcome(std::size_t i, Slot& slot)>;
/// Health of a slot: empty when healthy, otherwise why not; its probe into probeOut when not null.
using HealthFn = std::function<std::string(const Slot& slot, nlohmann::json* probeOut)>;
/// Work for a worker thread that found the queue empty (the stage's tail): true when it did some
/// (the thread asks again), false when none is left (the thread ends).
using TailFn = std::function<bool(Slot& slot)>;

/// Runs the correctness stage over the queue: `jobs` threads per slot. In a multi-slot run a
/// harness error makes the slot probe itself; an unhealthy slot leaves the pool and the submission
/// goes back to the queue for the others (three attempts at most). Submissions left unjudged for
/// want of a healthy slot are recorded as harness errors. A thread that finds the queue empty
/// takes `tail` work (when given) until none is left.
void runCorrectnessPool(const std::vector<Submission>& subs, std::deque<std::size_t> queue, Slots& slots, int jobs, bool multi,
                        const EvaluateFn& evaluate, const HealthFn& health, RunTally& tally, const std::atomic<bool>* cancel,
                        const TailFn& tail = {});

/// Times submission i on a slot (Evaluator's perf stage); returns the perf summary stored.
using PerfFn = std::function<nlohmann::json(std::size_t i, Slot& slot)>;

/// Runs the perf stage over every correct candidate, longest reference first, with several perf
/// workers per live slot (EvalOptions::perfPipeline).
void runPerfPool(const std::vector<Submission>& subs, Slots& slots, const EvalOptions& opt, const PerfFn& perf, RunTally& tally,
                 const Evaluator::PerfProgressFn& progress, const std::atomic<bool>* cancel);

/// Probes every slot at once through its own environment (into Slot::probe); returns why each is
/// unhealthy ("" when healthy).
std::vector<std::string> probeSlots(Slots& slots, const HealthFn& health);

}  // namespace kbx
