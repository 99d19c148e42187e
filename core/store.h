// SPDX-License-Identifier: MIT
#pragma once
#include <nlohmann/json.hpp>

#include <atomic>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

struct sqlite3;

namespace kbx {

struct ImportBatch;    // seed_import.h
struct ImportSummary;  // seed_import.h

inline constexpr int kSchemaVersion = 6;
/// The most evidence one evaluation keeps (its own and its cases' together; issue 20).
inline constexpr std::size_t kEvidenceBytes = 256 * 1024;

class StoreError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

/// Everything the evaluator produces for one candidate in one run.
struct EvaluationRecord {
    std::int64_t runId = 0;
    std::int64_t submissionId = 0;
    std::string taskId;
    bool pass = false;
    bool callOk = false;
    bool exeOk = false;
    std::optional<std::string> failureClass;
    std::string failureDetail;
    nlohmann::json evidence = nlohmann::json::object();
    nlohmann::json stageSeconds = nlohmann::json::object();
    std::string startedAt;
    std::string finishedAt;
    /// Which tier decided the verdict: "contract" | "strict" (empty: stored before tiers existed,
    /// every case decided). The extended tier's counts (cases run, passed) and first failure class;
    /// unset when the task has no extended case or the tier did not run (the contract tier failed).
    std::string protocol;
    std::optional<int> extCases;
    std::optional<int> extPassed;
    std::optional<std::string> extFailureClass;
    struct Case {
        int index = 0;
        std::string name;
        std::string status;  ///< pass | fail | error | skipped
        std::optional<std::string> failureClass;
        nlohmann::json evidence;
        std::string tier = "contract";  ///< contract | extended (kbx_harness/contract.py)
    };
    std::vector<Case> cases;
};

/// One perf shape of one evaluation (medians in ms; raw samples and derived numbers in `samples`).
struct TimingRow {
    std::string shape;
    std::optional<double> candidateMs;
    std::optional<double> baselineMs;
    nlohmann::json samples = nlohmann::json::object();
};

/// Code-quality metrics of one submission's candidate code (radon; core/quality). A row whose
/// code could not be measured (e.g. it does not parse) has no numbers and says why in `error`.
struct CodeQualityRow {
    std::int64_t submissionId = 0;
    std::optional<double> mi;      ///< maintainability index (radon, 0..100)
    std::optional<double> ccMean;  ///< mean cyclomatic complexity of the code's blocks
    std::optional<int> ccMax;
    std::optional<int> sloc;       ///< source lines of code
    std::string toolVersion;       ///< e.g. "radon 6.0.1"
    std::string error;
};

/// A failure class given by hand (the failure inspector), stored beside the automatic one.
struct ManualLabel {
    std::string failureClass;  ///< a taxonomy id, or "pass" (the automatic verdict was wrong)
    std::string note;
    std::string author;
    std::string labelledAt;
};

struct ReportRow {
    std::string category;
    std::string method;
    int round = 0;
    int total = 0;
    int callOk = 0;
    int exeOk = 0;
    std::string gpu;  ///< the GPU's name, or "CPU (Triton interpreter)"
};

/// An SQL string literal ('' doubles a quote), for Store::query(), which takes no parameters.
std::string sqlQuote(const std::string& s);

/// A value bound to a statement's `?` parameter (Store::each with parameters), or read from a
/// column (Store::Cursor::value): NULL, integer, real or text.
using SqlValue = std::variant<std::monostate, std::int64_t, double, std::string>;

/// Why this user cannot write the database `path`, for people ("... is read-only for you", or its
/// directory is not writable: SQLite keeps its WAL journal beside the file); empty when they can.
/// access(2) with the real ids: root may write anything except on a read-only file system.
std::string readOnlyReason(const std::filesystem::path& path);

/// How a Store opens its database.
enum class OpenMode {
    /// Creates a missing file, switches to the WAL journal, migrates an older schema in place. A
    /// database this user cannot write (readOnlyReason) is refused with a message that says so and
    /// suggests a copy, before SQLite touches it.
    ReadWrite,
    /// SQLITE_OPEN_READONLY: the file is never written (no WAL switch, no migration, no cache), and
    /// every writing method throws StoreError naming the file, except putCodeQuality, which keeps
    /// nothing (the code-quality cache). A missing file or an older schema is refused (the message
    /// suggests a copy). When this user cannot write the file or its directory and there is no
    /// WAL journal beside it, the file is opened immutable (no -wal/-shm files are made, none can
    /// be: nobody able to change it is at work there); otherwise SQLite may make the empty -wal and
    /// -shm companions of a WAL database it needs to read safely beside a writer, as any reader does.
    ReadOnly,
    /// ReadWrite when this user can write the file and its directory, else ReadOnly (reading commands).
    Auto,
};

/// The SQLite result store. WAL journal, foreign keys on, every write in one transaction, schema
/// versioned with PRAGMA user_version and forward migrations; a database from a newer kbx is refused.
/// Opened read-only (OpenMode), it reads any database of the current schema without changing it.
/// Thread-safe: one connection guarded by a mutex (writes are short).
class Store {
public:
    explicit Store(const std::filesystem::path& path, OpenMode mode = OpenMode::ReadWrite);
    ~Store();
    Store(const Store&) = delete;
    Store& operator=(const Store&) = delete;

    int schemaVersion() const;
    const std::filesystem::path& path() const { return m_path; }
    /// Opened read-only (OpenMode::ReadOnly, or Auto on a database this user cannot write).
    bool readOnly() const { return m_readOnly; }

    std::int64_t ensureMethod(const std::string& name);
    /// Inserts the candidate once per (task, code hash); returns its id and whether it was new.
    std::pair<std::int64_t, bool> ensureCandidate(const std::string& taskId, const std::string& code);
    std::int64_t ensureSubmission(std::int64_t candidateId, std::int64_t methodId, int round, const std::string& origin);

    std::int64_t beginRun(const std::string& device, const nlohmann::json& provenance,
                          const std::vector<std::int64_t>& publicSeeds, std::int64_t secretSeed,
                          const nlohmann::json& args);
    void finishRun(std::int64_t runId, const std::string& status, const nlohmann::json& provenance);
    /// kbx eval --resume: a run left 'running' by a killed kbx becomes 'interrupted', finished at its
    /// last committed evaluation (its start when it has none). Only from 'running'; returns whether
    /// this call changed it (core/resume.h).
    bool markRunInterrupted(std::int64_t runId);
    std::int64_t addEvaluation(const EvaluationRecord& rec);

    std::vector<ReportRow> report() const;
    /// Sets (or, with an empty class, removes) the manual label of an evaluation. Throws StoreError
    /// for an unknown evaluation or class.
    void setManualLabel(std::int64_t evaluationId, const std::string& failureClass, const std::string& note,
                        const std::string& author = {});
    std::optional<ManualLabel> manualLabel(std::int64_t evaluationId) const;
    /// The perf stage's results for an evaluation already stored: one timings row per perf shape,
    /// the perf summary merged into the evidence under "perf", and, when the stage changes the
    /// verdict (e.g. the GPU time is not in Triton kernels), the new failure: verdict and class change,
    /// call_ok and exe_ok stay (the outputs were checked right). One transaction.
    void addPerf(std::int64_t evaluationId, const std::vector<TimingRow>& rows, const nlohmann::json& perfEvidence,
                 const std::optional<std::pair<std::string, std::string>>& failure = std::nullopt);
    /// Work done for an evaluation after it was stored that decides nothing (the perf shapes'
    /// precompile at the correctness stage's tail): its evidence under `key`, and its seconds under
    /// `key` in stage_seconds when given. The verdict is not touched. One transaction.
    void addStageResult(std::int64_t evaluationId, const std::string& key, const nlohmann::json& evidence,
                        std::optional<double> seconds);
    /// Writes what kbx import read (seed_import.h) in one transaction: imported runs (device
    /// "imported", provenance naming format, file, GPU and method) with their evaluations, golden
    /// eager timings (replacing earlier ones of the same GPU and task), corpus transitions and seed
    /// summaries. The same content imported again with the same options writes nothing (duplicate).
    ImportSummary writeImport(const ImportBatch& batch);
    /// Stores (replacing) code-quality rows, one transaction. Throws StoreError for an unknown submission.
    /// Opened read-only, it stores nothing (a cache: the rows are measured again next time).
    void putCodeQuality(const std::vector<CodeQualityRow>& rows);
    /// What stripCode changed.
    struct StripSummary {
        int candidates = 0;   ///< candidates whose code was replaced by a line naming its sha256
        int evaluations = 0;  ///< evaluations whose evidence or failure detail was scrubbed
        int caseResults = 0;  ///< case results whose evidence was scrubbed
    };
    /// Makes a database of third-party kernels fit to share (kbx strip-code): every verdict, class,
    /// case, timing, tier and perf figure stays; the kernels' code does not. candidates.code becomes
    /// one line naming its sha256 (code_hash still identifies the kernel); from the evidence of
    /// evaluations and case results the tracebacks, error maps, stderr/stdout and log tails and
    /// source excerpts are dropped (keys kStrippedEvidenceKeys); a line of a failure detail or of an
    /// evidence string that is a line of the candidate's own code (trimmed, 12 characters or more)
    /// becomes "[code line left out]". One transaction, then VACUUM (the old pages are gone from the
    /// file). Running it again changes nothing.
    StripSummary stripCode();
    /// Generic read helper for tests and reports: rows of a query as JSON objects.
    nlohmann::json query(const std::string& sql) const;
    /// One row of each(): column values by position (valid during the callback only).
    class Cursor {
    public:
        bool isNull(int column) const;
        bool isText(int column) const;
        bool isNumber(int column) const;  ///< integer or real
        std::int64_t i64(int column) const;
        double f64(int column) const;
        std::string text(int column) const;  ///< "" for NULL
        /// text() without a copy: valid until the next row (the callback's end).
        std::string_view textView(int column) const;
        /// The value as query() would give it (integer, real, text or null).
        nlohmann::json json(int column) const;
        /// The value with its SQLite type (integer, real, text or null; a blob as text).
        SqlValue value(int column) const;

    private:
        friend class Store;
        explicit Cursor(void* stmt) : m_stmt(stmt) {}
        void* m_stmt;
    };
    /// Streams a query's rows to fn without building JSON (issue 24: reports over a million rows,
    /// where query()'s one JSON object per row was most of the time).
    void each(const std::string& sql, const std::function<void(const Cursor&)>& fn) const;
    /// each() with the statement's `?` parameters bound in order (values are never pasted into the
    /// SQL). core/query is the read layer built on it (store_read.cpp). fn must not call the store.
    void each(const std::string& sql, const std::vector<SqlValue>& params, const std::function<void(const Cursor&)>& fn) const;
    /// Makes statements running on this store fail with StoreError ("... interrupted") soon after
    /// *flag becomes true: a view's query overtaken by a newer one stops early. nullptr: never.
    /// The flag must outlive the store or the next call.
    void setCancelFlag(const std::atomic<bool>* flag);

private:
    /// SQL functions of every connection (store_read.cpp): kbx_speedup(baseline_ms, candidate_ms),
    /// an aggregate over an evaluation's shapes with the reports' rule (core/analysis loadRows):
    /// ratios baseline/candidate that are not finite and > 0 are skipped; one shape gives the ratio
    /// itself, more their geometric mean, none NULL.
    static void registerFunctions(sqlite3* db);
    void exec(const std::string& sql) const;
    void requireKbxDatabase() const;  ///< throws StoreError for another program's SQLite file
    void migrate();
    std::string withoutExistingColumns(const std::string& sql) const;
    void openReadOnly();
    /// Throws the StoreError of a write to a store opened read-only.
    void requireWritable(const char* what) const;

    std::filesystem::path m_path;
    sqlite3* m_db = nullptr;
    bool m_readOnly = false;
    std::string m_readOnlyReason;  ///< why this user cannot write it (readOnlyReason), or empty
    mutable std::mutex m_mutex;
};

std::string nowIso8601();

}  // namespace kbx
