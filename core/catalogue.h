// SPDX-License-Identifier: MIT
#pragma once
#include <nlohmann/json.hpp>

#include <filesystem>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace kbx {

struct Tolerance {
    double atol = 0;
    double rtol = 0;
};

/// One task of the benchmark as the C++ side sees it: metadata only, read from tasks/index.json
/// (generated from each task's META by scripts/gen_task_index.py and kept in sync by a test).
struct TaskInfo {
    std::string id;        ///< "Category/stem"
    std::string category;
    std::string stem;
    std::string entry;     ///< entry point besides kernel_function
    std::string signature;
    std::string description;
    int difficulty = 0;
    std::string comparison = "allclose";  ///< allclose | quantization | uniform
    std::map<std::string, Tolerance> tolerance;  ///< by dtype name ("float32", ...)
    std::string toleranceNote;
    bool tf32 = false;
    std::string oracle;  ///< "" or "float64"
    nlohmann::json quantization;  ///< null or {cosine_sim, l1_relative, rmse, static}
    nlohmann::json uniform;       ///< null or {low, high[, calls]}
    bool signedZeros = false;     ///< META "signed_zeros": the spec fixes the sign of a zero result (abs: +0)
    bool driveChecks = false;     ///< META "drive_checks": drive() verifies; re-run trusted (kbx-worker judge)
    nlohmann::json perfShapes;    ///< array
    std::string file;             ///< path relative to the tasks directory
    std::string sourceSha256;     ///< hash of the task file (reference cache key)
    int caseCount = 0;            ///< edge + random cases per seed (informative)

    nlohmann::json contract() const;  ///< what the comparison needs
};

class CatalogueError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

class TaskCatalogue {
public:
    /// Loads `<tasksDir>/index.json`; throws CatalogueError with a precise message.
    static TaskCatalogue load(const std::filesystem::path& tasksDir);

    const std::vector<TaskInfo>& tasks() const { return m_tasks; }
    const TaskInfo* find(std::string_view id) const;
    /// Resolves "Category/stem", "Category/stem.py" or a bare unique stem.
    const TaskInfo* resolve(std::string_view name) const;
    std::vector<std::string> categories() const;
    const std::filesystem::path& dir() const { return m_dir; }
    std::filesystem::path taskFile(const TaskInfo& t) const { return m_dir / t.file; }

private:
    std::filesystem::path m_dir;
    std::vector<TaskInfo> m_tasks;
};

}  // namespace kbx
