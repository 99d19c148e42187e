// SPDX-License-Identifier: MIT
#pragma once
// The read-query layer's part for the evaluation engine and its helpers (issue 25: SQL lives in the
// query layer and the store): what the scheduler, the perf stage, `kbx eval --resume` and the
// code-quality cache read from a result database. Each returns the rows as JSON objects (column
// alias -> value) exactly as Store::query gives them; the callers interpret them.
#include "store.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <set>
#include <string>
#include <vector>

namespace kbx::query {

/// Per task, the average seconds its evaluations took (the whole evaluation's wall time where
/// recorded, else its contract tier's candidate process): rows {t, s}.
nlohmann::json secondsSeenPerTask(const Store& store);

/// Every timed shape's recorded @triton.autotune choice on a device kind ("cuda" or "cpu"), in
/// evaluation order: rows {task, hash, shape, at (JSON text)}.
nlohmann::json recordedAutotuneChoices(const Store& store, const std::string& deviceKind);

/// The latest self-speedup (geomean interval, JSON text) of `taskId`'s reference timed against
/// itself on a device kind: zero or one row {g, id}.
nlohmann::json latestReferenceSelfSpeedup(const Store& store, const std::string& taskId, const std::string& deviceKind);

/// (task, code hash, method, round) of every evaluation of these tasks on `device`: rows {task, hash, method, round}.
nlohmann::json evaluatedWork(const Store& store, const std::string& device, const std::set<std::string>& tasks);

/// The runs on `device` still marked running, newest first: rows {id, started_at, public_seeds,
/// secret_seed, args, host, evaluations}.
nlohmann::json runningRuns(const Store& store, const std::string& device);

/// Cached code-quality rows of these submissions: rows {submission_id, mi, cc_mean, cc_max, sloc, tool_version, error}.
nlohmann::json codeQualityRows(const Store& store, const std::vector<std::int64_t>& submissionIds);

/// The code of these submissions: rows {id, code}.
nlohmann::json submissionCodes(const Store& store, const std::vector<std::int64_t>& submissionIds);

}  // namespace kbx::query
