// SPDX-License-Identifier: MIT
#pragma once
// Code quality of candidate kernels (the candidate's code alone: the stored, cleaned code, without
// the seed's test section): maintainability index, cyclomatic complexity and SLOC from radon
// (PyPI), run in the build's venv Python by tasks/worker/harness/quality.py. radon only parses the
// code; nothing is executed. Computed lazily for the submissions a report needs, in one batch
// subprocess, and cached in the store's code_quality table (schema v4).

#include "store.h"

#include <cstdint>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

namespace kbx::quality {

struct Options {
    std::filesystem::path python;  ///< empty: kbx::findPython() ($KBX_PYTHON, the build's venv, the `kbx setup-python` venv), else python3 on PATH
    std::filesystem::path script;  ///< empty: $KBX_QUALITY_SCRIPT, else tasks/worker/harness/quality.py
    double timeoutSeconds = 600;
};

/// What a report gets: the cached (and newly measured) rows by submission id. available is false
/// when the tool could not run (radon missing, no Python, no script); note then says why in one
/// line, and rows holds only what was cached before.
struct Result {
    bool available = true;
    std::string note;
    std::map<std::int64_t, CodeQualityRow> rows;
    int measured = 0;  ///< rows computed by this call
};

/// The placeholder code kbx import stores when the seed kept none: never measured.
bool isPlaceholder(const std::string& code);

/// Ensures a code_quality row for every submission in ids (measures the missing ones in one batch)
/// and returns them. Never throws for a missing tool; throws StoreError for database errors.
Result ensure(Store& store, const std::vector<std::int64_t>& submissionIds, const Options& options = {});

/// Only what is cached, without measuring anything.
std::map<std::int64_t, CodeQualityRow> cached(const Store& store, const std::vector<std::int64_t>& submissionIds);

std::filesystem::path defaultPython();
std::filesystem::path defaultScript();

}  // namespace kbx::quality
