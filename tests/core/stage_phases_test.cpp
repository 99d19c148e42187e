// SPDX-License-Identifier: MIT
#include "stage_phases.h"

#include <gtest/gtest.h>

namespace {

kbx::Outcome outcome(const std::string& task, nlohmann::json stage)
{
    kbx::Outcome o;
    o.taskId = task;
    o.record.stageSeconds = std::move(stage);
    return o;
}

}  // namespace

TEST(StagePhases, SumsEachPhaseAndCountsACachedReferenceOnce)
{
    kbx::StagePhases p;
    // two evaluations of one task share its cached reference (both store its seconds)
    p.add(outcome("Math/abs", {{"reference", 2.0}, {"reference_cases", 40}, {"reference_phases", {{"draw_inputs", 1.0}}},
                               {"candidate", 3.0}, {"compare", 0.5}, {"candidate_extended", 4.0}, {"compare_extended", 0.25},
                               {"judge_outputs_extended", 0.125}, {"extended_started_after", 9.0}, {"contract_started_after", 2.5},
                               {"evaluation", 8.0}}));
    p.add(outcome("Math/abs", {{"reference", 2.0}, {"candidate", 1.0}, {"compare", 0.5}, {"autotune_sweep", 6.0}, {"judge", 0.75},
                               {"precompile", 1.5}, {"evaluation", 9.0}}));
    kbx::Outcome err = outcome("Math/exp", {{"reference", 100.0}});
    err.harnessError = true;
    p.add(err);
    const auto& s = p.seconds();
    EXPECT_EQ(p.evaluations(), 3);
    EXPECT_DOUBLE_EQ(s.at("reference"), 2.0);
    EXPECT_DOUBLE_EQ(s.at("contract"), 4.0);
    EXPECT_DOUBLE_EQ(s.at("compare"), 1.0);
    EXPECT_DOUBLE_EQ(s.at("extended"), 4.375);  // its candidate, compare and judge; not when it started
    EXPECT_DOUBLE_EQ(s.at("autotune_sweep"), 6.0);
    EXPECT_DOUBLE_EQ(s.at("judge"), 0.75);
    EXPECT_DOUBLE_EQ(s.at("precompile"), 1.5);
    EXPECT_DOUBLE_EQ(s.at("evaluation"), 17.0);
    const auto line = p.describe(2, 10.0);
    EXPECT_NE(line.find("3 evaluation(s), 17 s of evaluation wall time on 2 job(s) (10 s, 3.33 s/kernel)"), std::string::npos) << line;
    EXPECT_NE(line.find("reference 2 s, contract 4 s, compare 1 s, judge 1 s, autotune_sweep 6 s, extended 4 s, precompile 2 s"),
              std::string::npos)
        << line;
}
