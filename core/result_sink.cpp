// SPDX-License-Identifier: MIT
#include "result_sink.h"

namespace kbx {

void ResultSink::storeEvaluation(const Submission& sub, std::int64_t methodId, Outcome& out)
{
    auto [cid, isNew] = m_store.ensureCandidate(sub.taskId, sub.code);
    out.candidateId = cid;
    out.newCandidate = isNew;
    out.record.submissionId = m_store.ensureSubmission(cid, methodId, out.round, sub.origin);
    out.evaluationId = m_store.addEvaluation(out.record);
}

RunTally::RunTally(RunSummary& sum, std::size_t n, const Evaluator::ProgressFn& progress)
    : m_sum(sum), m_progress(progress), m_outcomes(n), m_finished(n, false)
{
}

void RunTally::record(std::size_t i, Outcome o)
{
    std::lock_guard g(m_mutex);
    m_outcomes[i] = std::move(o);
    m_finished[i] = true;
    if (m_outcomes[i].harnessError)
        ++m_sum.harnessErrors;
    else if (m_outcomes[i].record.pass)
        ++m_sum.passed;
    else
        ++m_sum.failed;
    int d = ++m_done;
    if (m_progress)
        m_progress(m_outcomes[i], d, m_sum.total);
}

void RunTally::perfDone(std::size_t i, bool wasPass, const nlohmann::json& perf, int total, const Evaluator::PerfProgressFn& progress)
{
    std::lock_guard g(m_mutex);
    if (wasPass && !m_outcomes[i].record.pass) {  // the perf stage changed the verdict
        --m_sum.passed;
        ++m_sum.failed;
    }
    ++m_perfDone;
    if (progress)
        progress(m_outcomes[i], perf, m_perfDone, total);
}

}  // namespace kbx
