// SPDX-License-Identifier: MIT
#pragma once
#include "catalogue.h"

#include <filesystem>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace kbx {

/// One candidate kernel as submitted: which task, the cleaned code (fences and the seed's test
/// section removed), and where it came from.
struct Submission {
    std::string taskId;
    std::string code;
    std::string origin;              ///< "path" or "path:line"
    std::optional<int> round;        ///< when the format carries it (corpus records)
    std::optional<std::string> method;  ///< a JSONL record's own "method" (else the run's --method)
    /// Set only by `kbx tasks --check` for a task's own reference: the quantization task's static
    /// contract (no high-level APIs, scale/rounding evidence) does not apply to the PyTorch reference.
    bool selfCheckReference = false;
};

class ImportError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

/// Reads every seed submission format:
///  - JSONL, one object a line: {"predict": code, "file": "Category/stem.py"}, or {"predict", "instruction"}
///    where the instruction names the entry ("Wrapper Entry Information: name(...)"), or a corpus
///    record {"task_id", "after_code", "to_round"};
///  - a single .py named after a task (`stem.py` or `.../Category/stem.py`);
///  - a directory of those (searched recursively, sorted).
/// Validates everything before returning: a malformed line or an unknown task throws ImportError
/// naming the file and line, so callers write nothing for a bad source.
std::vector<Submission> loadSubmissions(const std::filesystem::path& source, const TaskCatalogue& catalogue);

/// Same, but records naming a task the catalogue does not have are left out and listed in
/// `skipped` ("origin: unknown task 'x'") instead of failing the whole source. Malformed
/// records still throw.
std::vector<Submission> loadSubmissions(const std::filesystem::path& source, const TaskCatalogue& catalogue,
                                        std::vector<std::string>* skipped);

/// The same formats from memory (fuzzing, tests): (path, content) pairs as a directory would give
/// them, read in path order; each path's extension picks its format and, for a .py, its last
/// components the task. Throws ImportError like loadSubmissions; reads no file.
std::vector<Submission> parseSubmissions(const std::vector<std::pair<std::filesystem::path, std::string>>& files,
                                         const TaskCatalogue& catalogue, std::vector<std::string>* skipped = nullptr);

/// Extracts the entry name from a seed instruction text, or "" when none.
std::string entryFromInstruction(const std::string& instruction);

}  // namespace kbx
