// SPDX-License-Identifier: MIT
#pragma once
// Where a run's correctness stage spent its time (issue 22: "report the stage's phases so the
// remaining cost is visible"): the processes' seconds per phase summed over the run's evaluations,
// from what each evaluation stored in stage_seconds. kbx eval prints it after the run.
#include "evaluator.h"

#include <map>
#include <set>
#include <string>

namespace kbx {

class StagePhases {
public:
    /// Adds one evaluation's stage seconds (harness errors count only as evaluations).
    void add(const Outcome& o);
    /// Phase -> summed process seconds: reference (once per task: references are cached),
    /// contract (candidate process), compare, judge, autotune_sweep, extended (candidate + compare),
    /// precompile; and "evaluation", the evaluations' summed wall time.
    const std::map<std::string, double>& seconds() const { return m_seconds; }
    int evaluations() const { return m_evaluations; }
    /// One line: "50 evaluations, 598 s of evaluation wall time on 14 jobs (60 s): reference 95 s ...".
    std::string describe(int jobs, double wallSeconds) const;

private:
    std::map<std::string, double> m_seconds;
    std::set<std::string> m_referenced;
    int m_evaluations = 0;
};

}  // namespace kbx
