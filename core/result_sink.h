// SPDX-License-Identifier: MIT
#pragma once
// Where an evaluation's results go: the store's rows (method, candidate, submission, evaluation,
// timings, run) through ResultSink, and the run's own tally (its outcomes in submission order, its
// counts, the progress callbacks) through RunTally.
#include "evaluator.h"
#include "store.h"

#include <nlohmann/json.hpp>

#include <cstddef>
#include <cstdint>
#include <mutex>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace kbx {

/// Every write of a run to the store.
class ResultSink {
public:
    explicit ResultSink(Store& store) : m_store(store) {}
    /// For reads (earlier runs' timings and stage seconds); writes go through the methods below.
    const Store& store() const { return m_store; }

    std::int64_t ensureMethod(const std::string& name) { return m_store.ensureMethod(name); }
    std::int64_t beginRun(const std::string& device, const nlohmann::json& provenance, const std::vector<std::int64_t>& publicSeeds,
                          std::int64_t secretSeed, const nlohmann::json& args)
    {
        return m_store.beginRun(device, provenance, publicSeeds, secretSeed, args);
    }
    void finishRun(std::int64_t runId, const std::string& status, const nlohmann::json& provenance)
    {
        m_store.finishRun(runId, status, provenance);
    }
    /// A judged outcome: its candidate (once per task and code), its submission and its evaluation;
    /// fills out.candidateId, out.newCandidate, out.evaluationId and the record's submission id.
    void storeEvaluation(const Submission& sub, std::int64_t methodId, Outcome& out);
    /// The perf stage's timings and summary of a stored evaluation (and the failure it found, if any).
    void storePerf(std::int64_t evaluationId, const std::vector<TimingRow>& rows, const nlohmann::json& perfEvidence,
                   const std::optional<std::pair<std::string, std::string>>& failure)
    {
        m_store.addPerf(evaluationId, rows, perfEvidence, failure);
    }
    /// Work for a stored evaluation that decides nothing (the perf shapes' precompile at the stage's tail).
    void storeStageResult(std::int64_t evaluationId, const std::string& key, const nlohmann::json& evidence,
                          std::optional<double> seconds)
    {
        m_store.addStageResult(evaluationId, key, evidence, seconds);
    }

private:
    Store& m_store;
};

/// The run's outcomes as they come in from the worker threads: counted into the RunSummary and
/// reported to the progress callbacks, one at a time.
class RunTally {
public:
    RunTally(RunSummary& sum, std::size_t n, const Evaluator::ProgressFn& progress);
    /// A correctness outcome for submission i: stored in order, counted, reported.
    void record(std::size_t i, Outcome o);
    bool finished(std::size_t i) const { return m_finished[i]; }
    /// The outcomes in submission order (the perf stage reads and updates them).
    std::vector<Outcome>& outcomes() { return m_outcomes; }
    /// A perf-stage evaluation of submission i ended: the counts follow a verdict it changed.
    void perfDone(std::size_t i, bool wasPass, const nlohmann::json& perf, int total, const Evaluator::PerfProgressFn& progress);

private:
    RunSummary& m_sum;
    const Evaluator::ProgressFn& m_progress;
    std::mutex m_mutex;
    std::vector<Outcome> m_outcomes;
    std::vector<bool> m_finished;
    int m_done = 0;
    int m_perfDone = 0;
};

}  // namespace kbx
