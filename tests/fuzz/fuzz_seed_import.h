// SPDX-License-Identifier: MIT
#pragma once
// One body for the kbx import targets: the files given are all the reader sees; any input is read
// or refused with kbx::ImportError, and what is read is consistent.
#include "fuzz_common.h"
#include "seed_import.h"

#include <map>

namespace kbx_fuzz {

inline void seedImport(const std::map<std::filesystem::path, std::string>& files, const std::filesystem::path& path,
                       const kbx::ImportOptions& options)
{
    try {
        const auto batch = kbx::parseSeedImport(files, path, options);
        if (batch.runs.empty() && batch.golden.empty() && batch.summaries.empty())
            fail("an import with nothing in it was not refused");
        if (batch.sha256.size() != 64)
            fail("an import without its content hash");
        for (const auto& run : batch.runs)
            for (const auto& e : run.evaluations)
                if (e.taskId.empty() || (e.state.exeOk && !e.state.callOk))
                    fail("an imported verdict without a task, or exe_ok without call_ok");
        for (const auto& t : batch.transitions)
            if (t.run >= batch.runs.size() || t.beforeEvaluation >= batch.runs[t.run].evaluations.size() ||
                t.afterEvaluation >= batch.runs[t.run].evaluations.size())
                fail("a transition points past its run's evaluations");
        for (const auto& g : batch.golden)
            if (!(g.ms > 0))
                fail("a golden timing without a positive time");
    } catch (const kbx::ImportError&) {
    }
}

}  // namespace kbx_fuzz
