// SPDX-License-Identifier: MIT
// A copy of a results database grown to a given number of evaluations, for measuring how the reports,
// the Charts data and the workbench scale (bench/report_scale.py, through the Python module's
// grow_copy). Part of the store: it writes the schema's tables directly, in SQL, as no other tool may.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace kbx {

/// How the copies are arranged.
///  Samples: what a large study looks like (tasks x methods x rounds x samples x GPUs): copy
///    k = (s * rounds + r) * G + g of the source for every (GPU g, round r, sample s) but (0, 0, 0).
///    Runs per GPU (cuda runs renamed to gpus[g] in their provenance; CPU runs stay CPU runs, so the
///    copies of other GPUs re-evaluate those submissions on the CPU and only the latest counts),
///    candidates per sample (code hash + ":s"), submissions per (sample, round) with round
///    b -> b * rounds + r, evaluations and timings per copy.
///  Rounds: the source repeated as further rounds (round + 1000 k): every per-round analysis has
///    thousands of groups and every figure thousands of "method · round" series.
enum class GrowShape { Samples, Rounds };

/// The GPU models a Samples copy spreads its cuda runs over.
const std::vector<std::string>& defaultGrowGpus();

struct GrowSummary {
    std::int64_t evaluations = 0;  ///< in the copy, the source's included
    std::int64_t timings = 0;
    std::int64_t copies = 0;  ///< copies of the source appended
};

/// Copies `source` (a kbx database; never written) to `target` (replaced) and appends copies of its
/// rows until it holds about `evaluations` evaluations (at least one copy). Ids of copy k are the
/// source's shifted by k times the source's largest id, so copy k of evaluation e is e + k * max(id).
/// Manual labels, case results and code-quality rows are not copied. The derived report tables and
/// their triggers (core/store_derived.h) are dropped, so the copy's first writable open by kbx builds
/// them, as for any database grown by another tool. Throws StoreError (the target is then removed)
/// when the source is not a kbx database with evaluations, or std::invalid_argument for rounds < 1,
/// an empty GPU list or evaluations < 1.
GrowSummary growCopy(const std::string& source, const std::string& target, std::int64_t evaluations, GrowShape shape,
                     const std::vector<std::string>& gpus = defaultGrowGpus(), int rounds = 4);

}  // namespace kbx
