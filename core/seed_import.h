// SPDX-License-Identifier: MIT
#pragma once
// kbx import: the outputs users of the seed harness (KernelBench-X) already have, read into the
// database as imported runs so that every analysis groups them by GPU, method and round.
//
// Formats (detected from the content; the file name only decides between equals):
//  - seed-metrics: the seed's metrics.json, an object keyed by task file ("Category/stem.py") of
//    {call_ok, exe_ok, perf_ok, speedup, runtime_ms, dtype, maintainability, performance, error, code}
//    ("N/A" and null mean absent). A summary.json beside it is read too and must agree.
//  - seed-summary: the seed's summary.json alone (aggregates only: total, call_pass, exe_pass, ...).
//  - golden-results: the seed's eager timings, golden_results/<gpu>/<task>.json, each a list of
//    {input_size, ms, GB/s, TFLOPS}; a folder of GPUs, one GPU's folder, or one file.
//  - corpus: the seed's round-transition corpus, JSONL of {task_id, from_round, to_round, kind,
//    before: {call_ok, exe_ok, perf_ok, speedup, ...}, after: {...}, before_code, after_code}.
//  - result-tree: folders <gpu>/<method>/metrics.json (each with its summary.json).
// Method and GPU come from --method/--gpu, else from the layout (<gpu>/<method>/metrics.json; the
// summary's "method"); the round from --round (default 0) or the corpus records.
//
// Everything is read and validated before anything is written (readSeedImport throws ImportError
// naming the file and the line or key); Store::writeImport then writes it in one transaction.

#include "importers.h"
#include "rounds.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace kbx {

class TaskCatalogue;

/// One imported verdict: becomes a candidate, a submission and an evaluation of an imported run.
struct ImportedEvaluation {
    std::string taskId;   ///< "Category/stem"
    std::string code;     ///< the cleaned candidate code; a placeholder naming the source when the seed kept none
    int round = 0;
    std::string origin;   ///< "file#task" or "file:line (before|after)"
    rounds::State state;
    std::optional<double> runtimeMs;
    std::string error;    ///< the seed's error text (often warnings only)
    nlohmann::json seed = nlohmann::json::object();  ///< the seed's own fields, kept as evidence
};

struct ImportedRun {
    std::string gpu;
    std::string method;
    std::string file;     ///< the file the verdicts come from
    std::string format;   ///< seed-metrics | corpus
    nlohmann::json provenance = nlohmann::json::object();  ///< extra provenance (e.g. the seed's summary)
    std::vector<ImportedEvaluation> evaluations;
};

/// One row of a seed golden timing file: the eager time of one input size of one task on one GPU.
struct GoldenTiming {
    std::string gpu;
    std::string task;       ///< the task stem (the seed's file name without .json)
    std::string taskId;     ///< "Category/stem" when the task index knows the stem, else ""
    int index = 0;          ///< position in the file
    std::string inputSize;  ///< the input_size value as compact JSON
    double ms = 0;
    std::optional<double> gbs;
    std::optional<double> tflops;
    std::string file;
};

/// One corpus record: a round-to-round transition with the corpus's own kind.
struct ImportedTransition {
    std::string taskId;
    int fromRound = 0;
    int toRound = 0;
    std::string kind;       ///< as recorded ("" when the record has none)
    std::string origin;     ///< "file:line"
    rounds::State before;
    rounds::State after;
    std::size_t run = 0;    ///< index into ImportBatch::runs
    std::size_t beforeEvaluation = 0;  ///< indices into that run's evaluations
    std::size_t afterEvaluation = 0;
};

/// A seed summary.json (aggregates).
struct SeedSummary {
    std::string gpu;
    std::string method;
    int round = 0;
    std::string file;
    nlohmann::json fields = nlohmann::json::object();
};

struct ImportBatch {
    std::string format;   ///< seed-metrics | seed-summary | golden-results | corpus | result-tree
    std::string source;   ///< the path as given
    std::string sha256;   ///< over the relative names and contents of every file read
    nlohmann::json options = nlohmann::json::object();  ///< --gpu/--method/--round as given
    std::vector<std::string> files;
    std::vector<std::string> notes;  ///< what was left out and why, defaults taken from the layout
    std::vector<ImportedRun> runs;
    std::vector<GoldenTiming> golden;
    std::vector<ImportedTransition> transitions;
    std::vector<SeedSummary> summaries;
};

struct ImportOptions {
    std::optional<std::string> method;
    std::optional<std::string> gpu;
    std::optional<int> round;
    /// Resolves bare task names ("sqrt.py") and gives golden timings their category; may be null.
    const TaskCatalogue* catalogue = nullptr;
};

/// What Store::writeImport did.
struct ImportSummary {
    std::int64_t importId = 0;
    bool duplicate = false;  ///< the same content with the same options was imported before: nothing written
    std::vector<std::int64_t> runIds;
    int evaluations = 0;
    int newCandidates = 0;
    int golden = 0;
    int transitions = 0;
    int summaries = 0;
};

/// Detects the format, reads and validates everything. Throws ImportError ("file:line: ..." or
/// "file: key 'x': ...") for malformed or partial input; writes nothing.
ImportBatch readSeedImport(const std::filesystem::path& path, const ImportOptions& options);

/// The same for one file held in memory (fuzzing, tests): `path` names it (its name and folders
/// count as on disk: metrics.json, <gpu>/<method>/, .jsonl) and must be a key of `files`, which may
/// also hold the summary.json or metrics.json beside it. Reads no file.
ImportBatch parseSeedImport(const std::map<std::filesystem::path, std::string>& files, const std::filesystem::path& path,
                            const ImportOptions& options);

/// "Category/stem" from the seed's task file names ("Math/sqrt.py", "data/kernelbenchx/Math/sqrt.py",
/// bare "sqrt.py" through the catalogue). Throws ImportError naming `where` when it cannot tell.
std::string seedTaskId(const std::string& name, const TaskCatalogue* catalogue, const std::string& where);

/// The round number of "round_3", "3" or 3; nullopt otherwise.
std::optional<int> seedRound(const nlohmann::json& value);

}  // namespace kbx
