// SPDX-License-Identifier: MIT
#pragma once
// Small helpers shared by the evaluator's rooms (core/evaluator.cpp and the stages it drives:
// worker_launch, reference_cache, correctness_stage, tier_judge, perf_stage, perf_summary, scheduler).
#include "catalogue.h"
#include "process.h"
#include "store.h"

#include <nlohmann/json.hpp>

#include <cstddef>
#include <filesystem>
#include <string>
#include <vector>

namespace kbx::evalutil {

/// The last n bytes of s.
std::string tail(const std::string& s, std::size_t n);
/// Writes text to p (binary); throws std::runtime_error when it cannot.
void writeText(const std::filesystem::path& p, const std::string& text);
/// The first frame of this type a worker sent, or null.
const nlohmann::json* findFrame(const ProcessResult& r, const std::string& type);
/// Text safe to store and print: control characters other than newline and tab become '?'.
std::string printable(std::string s);
/// printable() on every string and object key of candidate-written JSON evidence before it is stored.
nlohmann::json printableStrings(const nlohmann::json& j);
/// The function the harness calls: the task's entry point, or the alias the static check found.
std::string entryPoint(const EvaluationRecord& rec, const TaskInfo& task);
/// A candidate's scratch directory (its source, its stages' files, its Triton cache).
std::filesystem::path candidateDir(const std::filesystem::path& scratch, int index, const std::string& codeHash);
/// The positive numbers of a JSON array of timings (anything else, and a non-array, gives none).
std::vector<double> positiveNumbers(const nlohmann::json& a);

}  // namespace kbx::evalutil
