// SPDX-License-Identifier: MIT
// The `kbx` Python module's kbx.Database: a result database opened through kbx::Store, read through
// the core's read layer (core/query.h) and analyses; tables come back as plain Python objects.
#include "pyconvert.h"

#include "analysis.h"
#include "catalogue.h"
#include "glm.h"
#include "paths.h"
#include "query.h"
#include "rounds.h"
#include "stats_tables.h"
#include "store.h"
#include "store_grow.h"

#include <fmt/format.h>
#include <pybind11/stl.h>

#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace kbxpy {

namespace {

class Database {
public:
    explicit Database(const std::string& path) : m_path(path)
    {
        std::error_code ec;
        if (path.empty())
            throw py::value_error("kbx.open: empty database path");
        // kbx::Store creates a missing file; a notebook asking to read one wants an error instead.
        if (!std::filesystem::exists(m_path, ec)) {
            PyErr_SetString(PyExc_FileNotFoundError, fmt::format("no kbx database at {}", path).c_str());
            throw py::error_already_set();
        }
        if (std::filesystem::is_directory(m_path, ec)) {
            PyErr_SetString(PyExc_IsADirectoryError, fmt::format("{} is a directory, not a kbx database", path).c_str());
            throw py::error_already_set();
        }
        m_store = std::make_unique<kbx::Store>(m_path, kbx::OpenMode::Auto);
    }

    const kbx::Store& store() const
    {
        if (!m_store)
            throw kbx::StoreError(fmt::format("{} is closed", m_path.string()));
        return *m_store;
    }

    void close() { m_store.reset(); }
    bool closed() const { return !m_store; }
    std::string path() const { return m_path.string(); }
    int schemaVersion() const { return store().schemaVersion(); }
    bool readOnly() const { return store().readOnly(); }

    std::string repr() const
    {
        if (!m_store)
            return fmt::format("<kbx.Database {} (closed)>", m_path.string());
        return fmt::format("<kbx.Database {} schema v{}, {} evaluations{}>", m_path.string(), m_store->schemaVersion(),
                           kbx::query::evaluationCount(*m_store), m_store->readOnly() ? ", read-only" : "");
    }

    py::object evaluations(const py::object& method, const py::object& round, const py::object& gpu,
                           const py::object& category, const py::object& task, bool latest, bool columns) const
    {
        auto f = makeFilters(method, round, gpu, category);
        f.tasks = stringList(task, "task");
        const auto sp = kbx::query::speedups(store());
        Table t({"id", "run_id", "task", "category", "method", "round", "device", "gpu", "imported", "verdict", "stage",
                 "call_ok", "exe_ok", "failure_class", "manual_class", "manual_note", "failure_detail", "speedup",
                 "timed_shapes", "candidate_id", "submission_id", "started_at", "finished_at", "protocol", "ext_cases",
                 "ext_passed", "ext_failure_class", "correct_incl_extended"});
        for (const auto& r : kbx::query::evaluationRows(store(), f, latest)) {
            auto it = sp.find(r.id);
            t.add({py::int_(r.id), py::int_(r.runId), py::str(r.taskId), py::str(r.category), py::str(r.method), py::int_(r.round),
                   py::str(r.device), py::str(r.gpu), py::bool_(r.imported), py::str(r.verdict), py::str(r.stage),
                   py::bool_(r.callOk), py::bool_(r.exeOk), optStr(r.failureClass), optStr(r.manualClass), optStr(r.manualNote),
                   optStr(r.failureDetail), it == sp.end() ? py::object(py::none()) : py::object(py::float_(it->second.first)),
                   py::int_(it == sp.end() ? 0 : it->second.second), py::int_(r.candidateId), py::int_(r.submissionId),
                   py::str(r.startedAt), py::str(r.finishedAt), optStr(r.protocol), optInt(r.extCases), optInt(r.extPassed),
                   optStr(r.extFailureClass), r.correctExt ? py::object(py::bool_(*r.correctExt)) : py::object(py::none())});
        }
        return t.toPython(columns);
    }

    py::dict evaluation(std::int64_t id) const
    {
        const auto e = kbx::query::loadEvaluation(store(), id);
        if (!e)
            throw py::key_error(fmt::format("no evaluation {} in {}", id, m_path.string()));
        // The view's columns and the evaluation's, candidate's and submission's own, in the order of
        // their names (a JSON object's).
        json r = kbx::query::toJson(e->row);
        r["evidence"] = e->evidence;
        r["stage_seconds"] = e->stageSeconds;
        r["taxonomy_version"] = e->taxonomyVersion;
        r["code"] = e->code;
        r["code_hash"] = e->codeHash;
        r["origin"] = e->origin ? json(*e->origin) : json();
        py::dict d;
        for (const auto& [k, v] : r.items()) {
            if (k == "evidence" || k == "stage_seconds")
                d[py::str(k)] = parsedJson(v);
            else if (k == "call_ok" || k == "exe_ok" || k == "imported")
                d[py::str(k)] = py::bool_(v.is_number() && v.get<int>() != 0);
            else if (k == "task_id")
                d["task"] = toPy(v);
            else
                d[py::str(k)] = toPy(v);
        }
        const auto sp = kbx::query::speedups(store());
        auto it = sp.find(id);
        d["speedup"] = it == sp.end() ? py::object(py::none()) : py::object(py::float_(it->second.first));
        Table cases({"index", "name", "status", "failure_class", "evidence"});
        for (const auto& c : e->cases)
            cases.add({py::int_(c.index), py::str(c.name), py::str(c.status), optStr(c.failureClass), optJson(c.evidence)});
        d["cases"] = cases.toPython(false);
        d["timings"] = timings(py::int_(id), true, false);
        return d;
    }

    py::object timings(const py::object& evaluationId, bool samples, bool columns) const
    {
        std::optional<std::int64_t> only;
        if (!evaluationId.is_none())
            only = evaluationId.cast<std::int64_t>();
        std::vector<std::string> keys = {"id", "evaluation_id", "task", "category", "method", "round", "gpu", "verdict",
                                         "shape", "candidate_ms", "baseline_ms", "speedup"};
        if (samples)
            keys.push_back("samples");
        Table t(keys);
        for (const auto& r : kbx::query::timedShapes(store(), only, samples)) {
            const auto& x = r.timing;
            py::object speed = py::none();
            if (x.candidateMs && x.baselineMs && *x.candidateMs > 0 && *x.baselineMs > 0)
                speed = py::float_(*x.baselineMs / *x.candidateMs);
            std::vector<py::object> row = {py::int_(x.id), py::int_(x.evaluationId), py::str(r.taskId), py::str(r.category),
                                           py::str(r.method), py::int_(r.round), py::str(r.gpu), py::str(r.verdict),
                                           py::str(x.shape), optDouble(x.candidateMs), optDouble(x.baselineMs), speed};
            if (samples)
                row.push_back(optJson(x.samples));
            t.add(std::move(row));
        }
        return t.toPython(columns);
    }

    py::object runs(bool columns) const
    {
        Table t({"id", "started_at", "finished_at", "status", "device", "provenance", "public_seeds", "secret_seed", "args",
                 "evaluations"});
        for (const auto& r : kbx::query::listRuns(store()))
            t.add({py::int_(r.id), py::str(r.startedAt), optStr(r.finishedAt), py::str(r.status), py::str(r.device),
                   parsedJson(r.provenance), parsedJson(r.publicSeeds), py::int_(r.secretSeed), parsedJson(r.args),
                   py::int_(r.evaluations)});
        return t.toPython(columns);
    }

    py::object imports(bool columns) const
    {
        Table t({"id", "imported_at", "format", "source", "sha256", "options", "files", "notes"});
        for (const auto& r : kbx::query::listImports(store()))
            t.add({py::int_(r.id), py::str(r.importedAt), py::str(r.format), py::str(r.source), py::str(r.sha256),
                   parsedJson(r.options), parsedJson(r.files), parsedJson(r.notes)});
        return t.toPython(columns);
    }

    py::object goldenTimings(const py::object& gpu, const py::object& task, bool columns) const
    {
        Table t({"id", "import_id", "gpu", "task", "task_id", "index", "input_size", "ms", "gbs", "tflops", "file"});
        // task: the seed's stem or our "Category/stem"
        for (const auto& r : kbx::query::listGoldenTimings(store(), stringList(gpu, "gpu"), stringList(task, "task")))
            t.add({py::int_(r.id), py::int_(r.importId), py::str(r.gpu), py::str(r.task), optStr(r.taskId), py::int_(r.index),
                   parsedJson(r.inputSize), py::float_(r.ms), optDouble(r.gbs), optDouble(r.tflops), py::str(r.file)});
        return t.toPython(columns);
    }

    py::object seedSummaries(bool columns) const
    {
        Table t({"id", "import_id", "gpu", "method", "round", "total", "call_pass", "exe_pass", "perf_pass", "avg_speedup",
                 "avg_speedup_per_task", "fields", "file"});
        for (const auto& r : kbx::query::listSeedSummaries(store()))
            t.add({py::int_(r.id), py::int_(r.importId), py::str(r.gpu), py::str(r.method), py::int_(r.round), optInt(r.total),
                   optInt(r.callPass), optInt(r.exePass), optInt(r.perfPass), optDouble(r.avgSpeedup),
                   optDouble(r.avgSpeedupPerTask), parsedJson(r.fields), py::str(r.file)});
        return t.toPython(columns);
    }

    py::object transitions(bool columns) const
    {
        Table t({"gpu", "method", "task", "from_round", "to_round", "kind", "kinds", "recorded_kind", "agrees", "same_code",
                 "before_call_ok", "before_exe_ok", "before_perf_ok", "before_speedup", "after_call_ok", "after_exe_ok",
                 "after_perf_ok", "after_speedup", "origin"});
        for (const auto& x : kbx::rounds::loadTransitions(store()))
            t.add({py::str(x.gpu), py::str(x.method), py::str(x.taskId), py::int_(x.fromRound), py::int_(x.toRound),
                   py::str(kbx::rounds::kindString(x.kinds)), py::cast(x.kinds), optStr(x.recordedKind), py::bool_(x.agrees()),
                   py::bool_(x.sameCode), py::bool_(x.before.callOk), py::bool_(x.before.exeOk), py::bool_(x.before.perfOk),
                   optDouble(x.before.speedup), py::bool_(x.after.callOk), py::bool_(x.after.exeOk), py::bool_(x.after.perfOk),
                   optDouble(x.after.speedup), py::str(x.origin)});
        return t.toPython(columns);
    }

    py::dict roundAnalysis() const
    {
        const auto a = kbx::rounds::analyseRounds(store());
        Table rounds({"gpu", "method", "round", "n", "call_ok", "exe_ok", "timed", "mean_speedup", "geomean_speedup"});
        for (const auto& r : a.rounds)
            rounds.add({py::str(r.gpu), py::str(r.method), py::int_(r.round), py::int_(r.n), py::int_(r.callOk), py::int_(r.exeOk),
                        py::int_(r.timed), r.timed ? py::object(py::float_(r.meanSpeedup)) : py::object(py::none()),
                        r.timed ? py::object(py::float_(r.geoMeanSpeedup)) : py::object(py::none())});
        Table trans({"gpu", "method", "from_round", "to_round", "total", "kinds", "same_code_speedup_changes", "recorded", "agree"});
        for (const auto& c : a.transitions)
            trans.add({py::str(c.gpu), py::str(c.method), py::int_(c.fromRound), py::int_(c.toRound), py::int_(c.total),
                       py::cast(c.kinds), py::int_(c.sameCodeSpeedupChanges), py::int_(c.recorded), py::int_(c.agree)});
        py::list dis;
        for (const auto& x : a.disagreements) {
            py::dict d;
            d["gpu"] = x.gpu;
            d["method"] = x.method;
            d["task"] = x.taskId;
            d["from_round"] = x.fromRound;
            d["to_round"] = x.toRound;
            d["kind"] = kbx::rounds::kindString(x.kinds);
            d["recorded_kind"] = optStr(x.recordedKind);
            d["origin"] = x.origin;
            dis.append(d);
        }
        py::dict d;
        d["rounds"] = rounds.toPython(false);
        d["transitions"] = trans.toPython(false);
        d["disagreements"] = dis;
        d["recorded"] = a.recorded;
        d["agree"] = a.agree;
        return d;
    }

    py::object tasks(bool columns) const
    {
        // Per task: every evaluation, and the latest evaluation of each submission per GPU (the
        // counting rule of kbx report) for the rates.
        Table t({"task", "category", "n", "call_ok", "exe_ok", "passed", "methods", "gpus", "evaluations"});
        for (const auto& r : kbx::query::taskSummaries(store()))
            t.add({py::str(r.taskId), py::str(r.category), py::int_(r.n), py::int_(r.callOk), py::int_(r.exeOk), py::int_(r.passed),
                   py::cast(r.methods), py::cast(r.gpus), py::int_(r.evaluations)});
        return t.toPython(columns);
    }

    py::object report(bool columns) const
    {
        Table t({"gpu", "method", "round", "category", "total", "call_ok", "exe_ok"});
        for (const auto& r : store().report())
            t.add({py::str(r.gpu), py::str(r.method), py::int_(r.round), py::str(r.category), py::int_(r.total),
                   py::int_(r.callOk), py::int_(r.exeOk)});
        return t.toPython(columns);
    }

    py::dict choices() const
    {
        const auto c = kbx::analysis::choices(store());
        py::dict d;
        d["methods"] = c.methods;
        d["rounds"] = c.rounds;
        d["gpus"] = c.gpus;
        d["categories"] = c.categories;
        d["runs"] = c.runs;
        return d;
    }

    py::object rows(const py::object& method, const py::object& round, const py::object& gpu, const py::object& category,
                    bool columns) const
    {
        Table t({"id", "run_id", "submission_id", "task", "category", "method", "round", "gpu", "pass", "call_ok", "exe_ok",
                 "failure_class", "manual_class", "speedup"});
        for (const auto& r : kbx::analysis::loadRows(store(), makeFilters(method, round, gpu, category)))
            t.add({py::int_(r.id), py::int_(r.runId), py::int_(r.submissionId), py::str(r.taskId), py::str(r.category),
                   py::str(r.method), py::int_(r.round), py::str(r.gpu), py::bool_(r.pass), py::bool_(r.callOk),
                   py::bool_(r.exeOk), optStr(r.failureClass), optStr(r.manualClass), optDouble(r.speedup)});
        return t.toPython(columns);
    }

    py::dict datasets(const py::object& method, const py::object& round, const py::object& gpu, const py::object& category) const
    {
        return datasetsDict(kbx::analysis::compute(store(), makeFilters(method, round, gpu, category)));
    }

    py::list fastP(const py::object& grid, const py::object& method, const py::object& round, const py::object& gpu,
                   const py::object& category) const
    {
        const auto rows = kbx::analysis::loadRows(store(), makeFilters(method, round, gpu, category));
        return fastPList(kbx::analysis::fastP(rows, grid.is_none() ? kbx::analysis::logGrid() : grid.cast<std::vector<double>>()));
    }

    py::list devianceAnalysis(const std::vector<std::string>& factors, const py::object& method, const py::object& round,
                              const py::object& gpu, const py::object& category) const
    {
        static const std::set<std::string> known = {"category", "method", "task", "gpu", "round"};
        if (factors.empty())
            throw py::value_error("deviance_analysis: give at least one factor");
        for (const auto& f : factors)
            if (!known.count(f))
                throw py::value_error(fmt::format("deviance_analysis: unknown factor '{}' (known: category, method, task, gpu, round)", f));
        // exe correctness ~ factors, one analysis per (GPU, round) as kbx report --table deviance:
        // the latest evaluation of every submission per GPU; verdicts of different devices or rounds
        // are never pooled.
        std::map<std::pair<std::string, int>, std::vector<kbx::glm::Outcome>> groups;
        for (const auto& r : kbx::query::countedOutcomes(store(), makeFilters(method, round, gpu, category))) {
            kbx::glm::Outcome o;
            for (const auto& f : factors)
                o.levels.push_back(f == "category" ? r.category
                                   : f == "method" ? r.method
                                   : f == "task"   ? r.taskId
                                   : f == "gpu"    ? r.gpu
                                                   : std::to_string(r.round));
            o.success = r.exeOk;
            groups[{r.gpu, r.round}].push_back(std::move(o));
        }
        py::list out;
        for (const auto& [key, outcomes] : groups) {
            auto d = devianceDict(kbx::glm::devianceAnalysis(factors, outcomes));
            d["gpu"] = key.first;
            d["round"] = key.second;
            out.append(d);
        }
        return out;
    }

    py::object table(const std::string& name, const std::string& format, const py::object& method, const py::object& round,
                     const py::object& gpu, const py::object& category, bool allTasks)
    {
        static const std::map<std::string, kbx::stats::Format> formats = {
            {"json", kbx::stats::Format::Json}, {"records", kbx::stats::Format::Json}, {"text", kbx::stats::Format::Text},
            {"csv", kbx::stats::Format::Csv}, {"latex", kbx::stats::Format::Latex}};
        const auto fmtIt = formats.find(format);
        if (fmtIt == formats.end())
            throw py::value_error(fmt::format("table: unknown format '{}' (json, records, text, csv, latex)", format));
        if (!kbx::stats::isTableName(name)) {
            std::string known;
            for (const auto& n : kbx::stats::tableNames())
                known += (known.empty() ? "" : ", ") + n;
            throw py::value_error(fmt::format("table: unknown table '{}' (known: {})", name, known));
        }
        if (!m_store)
            throw kbx::StoreError(fmt::format("{} is closed", m_path.string()));
        // Code quality only from the cache: the module never runs radon nor writes.
        kbx::stats::ReportOptions options;
        options.quality = false;
        auto filters = makeFilters(method, round, gpu, category);
        if (!allTasks) {
            // As kbx report: the benchmark's own tasks unless all_tasks=True (imported corpora carry others).
            try {
                const auto cat = kbx::TaskCatalogue::load(kbx::findTasksDir());
                for (const auto& t : cat.tasks())
                    filters.tasks.push_back(t.id);
                filters.tasksLabel = fmt::format("the benchmark's {} tasks", filters.tasks.size());
            } catch (const std::exception&) {
                // no task index beside this module: every task counts (as all_tasks=True)
            }
        }
        const auto report = kbx::stats::buildReport(*m_store, name, filters, options);
        const auto text = kbx::stats::render(report, fmtIt->second);
        if (fmtIt->second != kbx::stats::Format::Json)
            return py::str(text);
        if (format != "records")
            return toPy(json::parse(text));
        // Flat records, DataFrame-ready: one dict per row, its table's name in "table", an interval
        // column as KEY_lo and KEY_hi.
        const auto doc = json::parse(text);
        json records = json::array();
        for (const auto& t : doc.value("tables", json::array())) {
            for (const auto& row : t.value("rows", json::array())) {
                json r = {{"table", t.value("name", "")}};
                for (const auto& [key, v] : row.items()) {
                    if (v.is_object() && v.contains("lo") && v.contains("hi")) {
                        r[key + "_lo"] = v["lo"];
                        r[key + "_hi"] = v["hi"];
                    } else {
                        r[key] = v;
                    }
                }
                records.push_back(std::move(r));
            }
        }
        return toPy(records);
    }

private:
    std::filesystem::path m_path;
    std::unique_ptr<kbx::Store> m_store;
};

}  // namespace

namespace {

void defineTables(py::class_<Database>& c)
{
    c.def("evaluations", &Database::evaluations, py::kw_only(), py::arg("method") = py::none(), py::arg("round") = py::none(),
             py::arg("gpu") = py::none(), py::arg("category") = py::none(), py::arg("task") = py::none(),
             py::arg("latest") = false, py::arg("columns") = false,
             R"doc(Evaluations from the store's evaluation_rows view, one row each, sorted by id.

Columns: id, run_id, task ("Category/stem"), category, method, round, device ("cpu", "cuda" or
"imported"), gpu, imported (bool), verdict ("pass"/"fail"), stage ("pass", "call" or "exe": where
it failed), call_ok, exe_ok (bools), failure_class (taxonomy id or None), manual_class and
manual_note (the failure inspector's label or None), failure_detail, speedup (geometric mean of
baseline_ms/candidate_ms over the timed perf shapes, correct evaluations only, else None),
timed_shapes, candidate_id, submission_id, started_at, finished_at.

latest=True keeps only the latest evaluation of each submission among the filtered ones (the
counting rule of the statistics). task filters on "Category/stem" ids.)doc")
        .def("evaluation", &Database::evaluation, py::arg("id"),
             R"doc(One evaluation in full: the evaluations() columns plus evidence and stage_seconds (parsed
JSON), taxonomy_version, the candidate's code and code_hash, the submission's origin, cases (index,
name, status, failure_class, evidence) and timings (with raw samples). KeyError when there is none.)doc")
        .def("rows", &Database::rows, py::kw_only(), py::arg("method") = py::none(), py::arg("round") = py::none(),
             py::arg("gpu") = py::none(), py::arg("category") = py::none(), py::arg("columns") = false,
             R"doc(The rows the figures and statistics count (core/analysis loadRows): the latest evaluation of
every submission under the filters, with pass, call_ok, exe_ok, failure_class, manual_class, speedup.)doc")
        .def("timings", &Database::timings, py::kw_only(), py::arg("evaluation_id") = py::none(), py::arg("samples") = false,
             py::arg("columns") = false,
             R"doc(Perf-stage timings, one row per evaluation and perf shape: id, evaluation_id, task, category,
method, round, gpu, verdict, shape, candidate_ms and baseline_ms (medians), speedup
(baseline/candidate). samples=True adds the raw samples and derived numbers (parsed JSON).)doc")
        .def("runs", &Database::runs, py::kw_only(), py::arg("columns") = false,
             R"doc(Runs: id, started_at, finished_at, status, device, provenance (dict: versions, GPU, sandbox,
or for imports the format, file, GPU and method), public_seeds, secret_seed, args, evaluations.)doc")
        .def("imports", &Database::imports, py::kw_only(), py::arg("columns") = false,
             "kbx import runs: id, imported_at, format, source, sha256, options, files, notes.")
        .def("golden_timings", &Database::goldenTimings, py::kw_only(), py::arg("gpu") = py::none(), py::arg("task") = py::none(),
             py::arg("columns") = false,
             R"doc(The seed's imported golden eager timings: id, import_id, gpu, task (the seed's name), task_id
("Category/stem" where known, else None), index, input_size (parsed), ms, gbs, tflops, file.
task filters on either name; gpu on the seed's GPU folder name.)doc")
        .def("seed_summaries", &Database::seedSummaries, py::kw_only(), py::arg("columns") = false,
             "Imported seed summary.json aggregates: gpu, method, round, total, call_pass, exe_pass, perf_pass, "
             "avg_speedup, avg_speedup_per_task, fields (all of the file's fields), file.")
        .def("transitions", &Database::transitions, py::kw_only(), py::arg("columns") = false,
             R"doc(Round-to-round transitions (core/rounds loadTransitions): every imported corpus record with
its recorded kind, and for our own evaluations each task's round r against round r+1 of the same
method and GPU. Columns: gpu, method, task, from_round, to_round, kind (computed, comma-joined or
"unchanged"), kinds (list), recorded_kind (the corpus's own, or None), agrees, same_code, the
before_/after_ call_ok, exe_ok, perf_ok, speedup, and origin.)doc")
        .def("round_analysis", &Database::roundAnalysis,
             R"doc(Per-round rates and transition counts (core/rounds analyseRounds, as kbx report --table
rounds): {"rounds": [gpu, method, round, n, call_ok, exe_ok, timed, mean_speedup,
geomean_speedup], "transitions": [gpu, method, from_round, to_round, total, kinds (kind -> count),
same_code_speedup_changes, recorded, agree], "disagreements": [...], "recorded", "agree"}.)doc")
        .def("tasks", &Database::tasks, py::kw_only(), py::arg("columns") = false,
             R"doc(The tasks this database has evaluations of: task, category, n (latest evaluation of each
submission per GPU), call_ok, exe_ok, passed (counts among those), methods, gpus (lists),
evaluations (all, every run). For the benchmark's own task list see kbx.catalogue().)doc")
        .def("report", &Database::report, py::kw_only(), py::arg("columns") = false,
             "The rows of `kbx report`: gpu, method, round, category, total, call_ok, exe_ok (latest evaluation of "
             "every submission per GPU).");
}

void defineAnalyses(py::class_<Database>& c)
{
    c.def("choices", &Database::choices, "The methods, rounds, gpus, categories and runs present (for filters).")
        .def("datasets", &Database::datasets, py::kw_only(), py::arg("method") = py::none(), py::arg("round") = py::none(),
             py::arg("gpu") = py::none(), py::arg("category") = py::none(),
             R"doc(Every figure dataset of the workbench (core/analysis compute) as plain dicts: filters, runs,
row_count, correctness (category x method cells and per-method totals of call/exe rates, each
{k, n, rate, lo, hi} with Wilson bounds), compile (per method), speedup (per method: sorted
speedups, correct, total, box statistics), fast_p, taxonomy_by_category, taxonomy_by_method,
rounds (pass rate per round per method).)doc")
        .def("fast_p", &Database::fastP, py::kw_only(), py::arg("grid") = py::none(), py::arg("method") = py::none(),
             py::arg("round") = py::none(), py::arg("gpu") = py::none(), py::arg("category") = py::none(),
             R"doc(fast_p per method: for each p of grid (default log_grid(): 41 points 0.1 .. 10), the fraction
of the method's evaluations that are correct AND faster than p x eager. [{method, n, p, fraction}].)doc")
        .def("table", &Database::table, py::arg("name"), py::kw_only(), py::arg("format") = "json",
             py::arg("method") = py::none(), py::arg("round") = py::none(), py::arg("gpu") = py::none(),
             py::arg("category") = py::none(), py::arg("all_tasks") = false,
             R"doc(One table of `kbx report --table NAME` (names in kbx.TABLES: method-summary, category-method,
deviance, rounds, rescued, cross-hardware, slow-fraction, taxonomy) under the filters, with its
provenance. format "json" (default) gives the report as a dict {name, provenance, tables: [{name,
title, columns, rows, notes}], notes}; "records" gives flat rows for pandas.DataFrame: a list of
dicts, each with its table's name in "table" and an interval column as KEY_lo and KEY_hi; "text",
"csv" and "latex" give the rendered str. As `kbx report`, the benchmark's own tasks only unless
all_tasks=True (a report note says what was left out). Code quality comes from the database's
cache only (`kbx report` measures what is missing).)doc")
        .def("deviance_analysis", &Database::devianceAnalysis, py::arg("factors") = std::vector<std::string>{"category", "method"},
             py::kw_only(), py::arg("method") = py::none(), py::arg("round") = py::none(), py::arg("gpu") = py::none(),
             py::arg("category") = py::none(),
             R"doc(Binomial GLM deviance analysis of exe correctness on factors (any of category, method, task,
gpu, round), one analysis per (GPU, round) as `kbx report --table deviance`: a list of the dicts
kbx.deviance_analysis returns, each with its gpu and round.)doc");
}

}  // namespace

void bindDatabase(py::module_& m)
{
    py::class_<Database> c(m, "Database", R"doc(A kbx result database, opened for reading by kbx.open(path).

Tables (list of dicts; columns=True: dict of equal-length lists; both for pandas.DataFrame):
  evaluations, evaluation, rows, timings, runs, imports, golden_timings, seed_summaries,
  transitions, tasks, report.
Analyses (plain dicts and lists): choices, datasets, fast_p, deviance_analysis, round_analysis,
table (every `kbx report --table` table).
Filters (method, round, gpu, category) take one value or a list; None means all. gpu is the
view's gpu column, e.g. "NVIDIA H200", "CPU (Triton interpreter)" or an imported run's GPU.
)doc");
    c.def_property_readonly("path", &Database::path, "The database file as given to kbx.open.")
        .def_property_readonly("schema_version", &Database::schemaVersion, "The schema version (PRAGMA user_version).")
        .def_property_readonly("read_only", &Database::readOnly,
                               "Whether the database was opened read-only: this user cannot write the file or its directory "
                               "(e.g. the installed demo). The module only reads either way.")
        .def_property_readonly("closed", &Database::closed, "Whether close() was called.")
        .def("close", &Database::close, "Closes the database; later calls raise kbx.StoreError.")
        .def("__enter__", [](py::object self) { return self; })
        .def("__exit__", [](Database& d, py::args) { d.close(); return false; })
        .def("__repr__", &Database::repr);
    defineTables(c);
    defineAnalyses(c);

    m.attr("TABLES") = kbx::stats::tableNames();

    m.def("open", [](const py::object& path) { return std::make_unique<Database>(fsPath(path)); }, py::arg("path"),
          R"doc(Opens a kbx result database for reading and returns a kbx.Database.

A database this user cannot write (the file or its directory; e.g. the installed demo
/usr/share/kbx/demo.sqlite) is opened read-only (Database.read_only) and never changed: no journal
file is made beside it. Raises FileNotFoundError when there is no such file (nothing is created),
and kbx.StoreError with the store's message when the file is not an SQLite database, not a kbx
database, or has a newer schema than this module understands. A database of an older kbx is
migrated forward when this user can write it, as every kbx program does on open; when this user
cannot, kbx.StoreError says so and suggests working on a copy.)doc");

    m.def(
        "grow_copy",
        [](const py::object& source, const py::object& target, std::int64_t evaluations, const std::string& shape,
           std::optional<std::vector<std::string>> gpus, int rounds) {
            if (shape != "samples" && shape != "rounds")
                throw std::invalid_argument(fmt::format("grow_copy: shape must be 'samples' or 'rounds', not '{}'", shape));
            const auto g = kbx::growCopy(fsPath(source), fsPath(target), evaluations,
                                         shape == "rounds" ? kbx::GrowShape::Rounds : kbx::GrowShape::Samples,
                                         gpus ? *gpus : kbx::defaultGrowGpus(), rounds);
            py::dict d;
            d["evaluations"] = g.evaluations;
            d["timings"] = g.timings;
            d["copies"] = g.copies;
            return d;
        },
        py::arg("source"), py::arg("target"), py::arg("evaluations"), py::kw_only(), py::arg("shape") = "samples",
        py::arg("gpus") = py::none(), py::arg("rounds") = 4,
        R"doc(Writes `target` (replaced): a copy of the kbx database `source` (never written) grown by whole copies
of its own rows to about `evaluations` evaluations, for measuring how reports and figures scale
(bench/report_scale.py). shape "samples": a large study, copies per (GPU, round, sample) over
`gpus` (default five GPU models; cuda runs renamed, CPU runs kept) and `rounds` rounds (new
candidates per sample, code hash + ":s"); "rounds": the source repeated as rounds + 1000 k. Ids of
copy k are the source's + k * max(id). Case results, manual labels and code quality are not copied;
the derived report tables are left to the copy's first writable open. Returns {evaluations,
timings, copies}. kbx.StoreError (and no target) when the source is not a kbx database with
evaluations; ValueError for a bad shape, evaluations or rounds < 1, or an empty GPU list.)doc");
}

}  // namespace kbxpy
