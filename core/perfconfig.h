// SPDX-License-Identifier: MIT
// The perf stage's configuration (docs/PERF_PROTOCOL.md, "Configuration"): every key the perf
// stage knows, the evaluator's (processes, priors, precompile, baselines) and the worker's timer
// (kbx_harness/perf.py, precompile.py), with its default in one place. `kbx eval --perf-config` and
// `kbx tasks --check --perf-config` give overrides; fromJson rejects an unknown key or a value of the
// wrong type, and toJson is the complete configuration the evaluator sends to the worker (so the
// worker's own defaults are only a fallback for a request without one).
#pragma once

#include "device.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace kbx {

/// A --perf-config that names an unknown key or gives a key a value of the wrong type; what() names
/// the key and lists the known ones.
class PerfConfigError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

struct PerfConfig {
    // ---- The evaluator (core/evaluator.cpp) ----
    /// Fresh perf processes per side of a timing (3 on cuda, 1 on cpu); clamped to 1..8.
    int processes = 1;
    /// Processes when the first `processes` disagree by more than extra_process_threshold (4 on cuda, 1 on cpu); clamped to processes..8.
    int maxProcesses = 1;
    // The repeat interval's prior (perf::repeatInterval): the standard deviation of one process's log
    // geomean speedup as a repeat of the whole run sees it, worth 4 degrees of freedom against the
    // kernel's own processes. Each process draws its inputs at a random place (kbx_harness/perf.py
    // placement_offset), so the processes' own spread includes where the inputs lie.
    // Why three processes, a 0.5 % threshold and a 0.65 % prior: a kernel's spread between
    // processes is heavy-tailed (some small kernels sit at one of two levels per process), and two
    // processes that happen to agree cannot tell such a kernel from a quiet one; a third process, and
    // a fourth where the first three differ by more than extra_process_threshold, find it far more
    // often. The values come from bench/prior_sim.py over the stored per-process estimates of five
    // runs on two H200s; what they rest on and how they held out of sample: docs/PERF_PROTOCOL.md,
    // Statistics.
    /// Relative spread of the first processes' geomean speedups above which max_processes are run.
    double extraProcessThreshold = 0.005;
    // The precision target (issue 22): a kernel whose repeat interval, as its processes so far give it,
    // is wider than target_width ((hi - lo) / estimate) gets one more process, again and again up to
    // max_processes_for_width. Most of the corpus's wide intervals belong to kernels whose shapes
    // swing between processes (the shapes' floor decides them); only more processes narrow those.
    /// Relative width of the repeat interval above which one more process is run (0: no target; 0.02 on cuda).
    double targetWidth = 0;
    /// Processes at most for the width target (5 on cuda, 1 on cpu); clamped to max_processes..8.
    int maxProcessesForWidth = 1;
    /// Prior sd of one process's log geomean speedup, as a repeat of the run sees it (the repeat interval).
    double betweenProcessPrior = 0.0065;
    /// Degrees of freedom that prior is worth against the kernel's own processes.
    double betweenProcessPriorDf = 4.0;
    /// The repeat interval's variance at least what the kernel's shapes spread between its processes
    /// (perf::shapeSpreadVariance); false: the processes' geomeans and the prior alone.
    bool shapeSpreadFloor = true;
    /// Compile a passing candidate's perf-shape specialisations in its correctness stage (GPU only).
    bool precompile = true;
    /// Baselines timed beside PyTorch eager: "compile", "tf32" (kbx eval --perf-baseline).
    std::vector<std::string> baselines;
    /// Only these perf shapes of the task (by name); empty: all of them.
    std::vector<std::string> shapes;

    // ---- The worker's timer (kbx_harness/perf.py) ----
    int rotations = 3;                  ///< input sets per shape, rotated through the reps
    int minReps = 10;                   ///< candidate/reference pairs at least
    int maxReps = 300;                  ///< pairs at most
    int block = 10;                     ///< pairs between two checks of the stopping rule
    double targetRelCi = 0.005;         ///< stop when the median's CI half-width is below this (relative)
    double maxSeconds = 0.6;            ///< timing budget per shape (seconds) once min_reps are done
    int maxWarmup = 20;                 ///< warm-up calls at most
    double maxWarmupSeconds = 0.3;      ///< warm-up stops after this (and at least 2 calls)
    int minRepsSlow = 3;                ///< the floor of min_reps for a shape whose pairs exceed max_seconds
    double minGapUs = 20;               ///< launch gap, lower bound (microseconds)
    double maxGapUs = 2000;             ///< launch gap, upper bound (microseconds)
    double probeMaxMs = 10.0;           ///< host-time probe only for calls shorter than this (ms)
    std::int64_t recheckDriveMaxElements = std::int64_t{1} << 25;  ///< the in-timing recheck drives outputs up to this size
    double recheckDriveMaxSeconds = 2.0;  ///< and up to this long
    std::string compileBackend = "inductor";  ///< torch.compile backend of the "compile" baseline
    // An experiment on the run-level shifts (docs/PERF_PROTOCOL.md, "Placement"): each shape's outputs
    // land beyond an allocation of a random size. The probe reading it came from (the level follows
    // the allocation's size) was confounded with trial parity; the level follows the parity of the
    // launch index, which no allocation moves. Kept off until a repeat pair shows it helps.
    /// Per shape: unused cached blocks released, then a random 2..N MiB gap (uniform on a log scale,
    /// 2 MiB steps) held while the shape is timed, so that its outputs take new memory beyond it
    /// (0: off; 0..65536; cuda only).
    int placementGapMb = 0;
    // An experiment on the same shifts: the placement probes' level flipped with each new input, or
    // each extra kernel launched (kbx_harness/history.py); it was each kernel launched.
    /// Per process and shape a random bit; on 1 the inputs become fresh copies of their storages and
    /// an odd number of extra kernels runs before the warm-up (0: off, 1: on; cuda only).
    int historyFlip = 0;
    // What follows from the probes: a kernel's time follows the parity of its launch index, so each
    // process samples both parities and the groups are recorded (kbx_harness/parity.py; why it is
    // the default on cuda: PERF_PROTOCOL "Placement").
    /// One extra kernel before every block of pairs after the first; each sample's group (block and
    /// pair parity) stored, and per process each side's four-group median (0: off, 1: on; the kernel
    /// on cuda only); 2: also every statistic on the samples aligned by group (perf::alignGroups).
    /// Default: 2 on cuda, 0 on the CPU (defaults()).
    int parityBalance = 0;

    // ---- The precompile worker (kbx_harness/precompile.py) ----
    double maxShapeSeconds = 60.0;  ///< compile time limit per perf shape (seconds)

    /// The defaults on this device: on CUDA 3 and 4 processes, on the CPU 1.
    static PerfConfig defaults(Device device);
    /// The defaults for device, with overrides (a JSON object of known keys) applied. Throws
    /// PerfConfigError for a non-object, an unknown key or a wrongly typed value.
    static PerfConfig fromJson(const nlohmann::json& overrides, Device device);
    /// Every key with its value (what the worker receives as "config").
    nlohmann::json toJson() const;
    /// The keys fromJson accepts, in the order of toJson.
    static std::vector<std::string> knownKeys();

    bool operator==(const PerfConfig&) const = default;
};

}  // namespace kbx
