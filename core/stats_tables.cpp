// SPDX-License-Identifier: MIT
#include "stats_tables.h"

#include "perfstats.h"
#include "quality.h"
#include "rounds.h"
#include "store.h"
#include "taxonomy.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <random>
#include <set>
#include <stdexcept>
#include <tuple>

namespace kbx::stats {
namespace {

const char* kAllMethods = "all methods";

template <typename T>
bool allowed(const std::vector<T>& filter, const T& v)
{
    return filter.empty() || std::find(filter.begin(), filter.end(), v) != filter.end();
}

double geomeanOf(const std::vector<double>& v)
{
    double s = 0;
    for (double x : v)
        s += std::log(x);
    return std::exp(s / double(v.size()));
}

double medianOf(std::vector<double> v)
{
    std::sort(v.begin(), v.end());
    return analysis::quantile(v, 0.5);
}

nlohmann::json opt(const std::optional<double>& v) { return v ? nlohmann::json(*v) : nlohmann::json(); }
nlohmann::json interval(const Interval& i) { return nlohmann::json::array({i.lo, i.hi}); }
nlohmann::json interval(const std::optional<Interval>& i) { return i ? interval(*i) : nlohmann::json(); }
nlohmann::json rateValue(const Rate& r) { return r.n > 0 ? nlohmann::json(r.value()) : nlohmann::json(); }
nlohmann::json rateCI(const Rate& r) { return r.n > 0 ? interval(r.ci()) : nlohmann::json(); }

}  // namespace

// ---- elementary statistics -------------------------------------------------------------------

Interval bootstrapGeomeanCI(const std::vector<double>& values, std::uint64_t seed, int resamples, double level)
{
    if (values.empty())
        return {0.0, 0.0};
    std::vector<double> logs;
    logs.reserve(values.size());
    for (double v : values) {
        if (!(v > 0) || !std::isfinite(v))
            throw std::invalid_argument("geometric mean of a value that is not positive and finite");
        logs.push_back(std::log(v));
    }
    const double est = std::exp(std::accumulate(logs.begin(), logs.end(), 0.0) / double(logs.size()));
    if (logs.size() < 2)
        return {est, est};
    std::mt19937_64 rng(seed);
    std::uniform_int_distribution<std::size_t> pick(0, logs.size() - 1);
    std::vector<double> stats;
    stats.reserve(std::size_t(std::max(1, resamples)));
    for (int i = 0; i < resamples; ++i) {
        double s = 0;
        for (std::size_t k = 0; k < logs.size(); ++k)
            s += logs[pick(rng)];
        stats.push_back(std::exp(s / double(logs.size())));
    }
    std::sort(stats.begin(), stats.end());
    return {analysis::quantile(stats, (1.0 - level) / 2.0), analysis::quantile(stats, 1.0 - (1.0 - level) / 2.0)};
}

const std::vector<double>& fastPThresholds()
{
    static const std::vector<double> p = {0.0, 0.5, 1.0, 1.5, 2.0};
    return p;
}

SpeedupStats speedupStats(const std::vector<double>& speedups, const std::vector<double>& baselineMs, const std::vector<double>& candidateMs)
{
    SpeedupStats s;
    s.n = int(speedups.size());
    if (speedups.empty())
        return s;
    s.geomean = geomeanOf(speedups);
    s.geomeanCI = bootstrapGeomeanCI(speedups);
    s.mean = std::accumulate(speedups.begin(), speedups.end(), 0.0) / double(speedups.size());
    s.median = medianOf(speedups);
    for (double x : speedups)
        s.slower += x < 1.0;
    s.slowerFraction = double(s.slower) / double(s.n);
    double base = 0, cand = 0;
    for (std::size_t i = 0; i < baselineMs.size() && i < candidateMs.size(); ++i)
        if (baselineMs[i] > 0 && candidateMs[i] > 0) {
            base += baselineMs[i];
            cand += candidateMs[i];
        }
    if (cand > 0)
        s.sumRatio = base / cand;
    return s;
}

SpeedupStats speedupStats(const std::vector<const Row*>& rows)
{
    std::vector<double> sp, base, cand;
    for (const Row* r : rows)
        if (r->pass && r->speedup) {
            sp.push_back(*r->speedup);
            base.push_back(r->baselineMsSum);
            cand.push_back(r->candidateMsSum);
        }
    return speedupStats(sp, base, cand);
}

// ---- Table 1 ---------------------------------------------------------------------------------------

std::vector<MethodSummary> methodSummary(const std::vector<Row>& rows, const std::map<std::int64_t, QualityValues>& quality)
{
    std::map<std::tuple<std::string, std::string, int>, std::vector<const Row*>> groups;
    for (const auto& r : rows)
        groups[{r.gpu, r.method, r.round}].push_back(&r);
    std::vector<MethodSummary> out;
    for (const auto& [key, group] : groups) {
        MethodSummary m;
        std::tie(m.gpu, m.method, m.round) = key;
        m.n = int(group.size());
        std::vector<double> mi, cc;
        for (const Row* r : group) {
            m.call.n++;
            m.exe.n++;
            m.call.k += r->callOk;
            m.exe.k += r->exeOk;
            m.exeExt.n++;
            m.exeExt.k += r->exeOk && r->extOk.value_or(true);
            if (r->exeOk)
                if (auto it = quality.find(r->submissionId); it != quality.end()) {
                    if (it->second.mi)
                        mi.push_back(*it->second.mi);
                    if (it->second.ccMean)
                        cc.push_back(*it->second.ccMean);
                }
        }
        m.exeGivenCall.n = m.call.k;
        for (const Row* r : group)
            m.exeGivenCall.k += r->callOk && r->exeOk;
        m.speedup = speedupStats(group);
        if (m.speedup.n > 0) {
            for (double p : fastPThresholds()) {
                int k = 0;
                for (const Row* r : group)
                    k += r->pass && r->speedup && *r->speedup > p;
                m.fastP.push_back(double(k) / double(m.n));
            }
        }
        m.quality.measured = int(mi.size());
        if (!mi.empty())
            m.quality.miMean = std::accumulate(mi.begin(), mi.end(), 0.0) / double(mi.size());
        if (!cc.empty())
            m.quality.ccMean = std::accumulate(cc.begin(), cc.end(), 0.0) / double(cc.size());
        out.push_back(std::move(m));
    }
    return out;
}

// ---- category x method -------------------------------------------------------------------------------

CategoryMethod categoryMethod(const std::vector<Row>& rows)
{
    CategoryMethod out;
    // (gpu, round, category) -> method -> cell
    std::map<std::tuple<std::string, int, std::string>, std::map<std::string, CategoryMethodCell>> cells;
    // (gpu, round) -> methods; (gpu, round, category) -> task -> method -> any correct
    std::map<std::pair<std::string, int>, std::set<std::string>> methods;
    std::map<std::tuple<std::string, int, std::string>, std::map<std::string, std::map<std::string, bool>>> tasks;
    for (const auto& r : rows) {
        const auto key = std::make_tuple(r.gpu, r.round, r.category);
        for (const std::string& m : {r.method, std::string(kAllMethods)}) {
            auto& c = cells[key][m];
            c.gpu = r.gpu;
            c.round = r.round;
            c.category = r.category;
            c.method = m;
            c.call.n++;
            c.exe.n++;
            c.call.k += r.callOk;
            c.exe.k += r.exeOk;
        }
        methods[{r.gpu, r.round}].insert(r.method);
        auto& solved = tasks[key][r.taskId][r.method];
        solved = solved || r.exeOk;
    }
    for (auto& [key, byMethod] : cells) {
        for (auto& [m, c] : byMethod)
            if (m != kAllMethods)
                out.cells.push_back(c);
        if (methods[{std::get<0>(key), std::get<1>(key)}].size() > 1)
            out.cells.push_back(byMethod[kAllMethods]);
    }
    for (const auto& [key, byTask] : tasks) {
        const auto& all = methods[{std::get<0>(key), std::get<1>(key)}];
        AllMethodFailure f;
        std::tie(f.gpu, f.round, f.category) = key;
        f.methods = int(all.size());
        for (const auto& [task, byMethod] : byTask) {
            if (byMethod.size() != all.size())
                continue;  // not attempted by every method
            f.failedByAll.n++;
            f.failedByAll.k += std::none_of(byMethod.begin(), byMethod.end(), [](const auto& kv) { return kv.second; });
        }
        out.failures.push_back(std::move(f));
    }
    return out;
}

// ---- deviance ----------------------------------------------------------------------------------------

std::vector<DevianceGroup> deviance(const std::vector<Row>& rows)
{
    std::map<std::pair<std::string, int>, std::vector<glm::Outcome>> groups;
    for (const auto& r : rows)
        groups[{r.gpu, r.round}].push_back({{r.category, r.method}, r.exeOk});
    std::vector<DevianceGroup> out;
    for (const auto& [key, outcomes] : groups)
        out.push_back({key.first, key.second, glm::devianceAnalysis({"category", "method"}, outcomes)});
    return out;
}

// ---- rescued vs persistent -------------------------------------------------------------------------------

Rescued rescued(const std::vector<Row>& rows)
{
    Rescued out;
    // (gpu, method, task) -> round -> latest row
    std::map<std::tuple<std::string, std::string, std::string>, std::map<int, const Row*>> series;
    for (const auto& r : rows) {
        auto& slot = series[{r.gpu, r.method, r.taskId}][r.round];
        if (!slot || slot->id < r.id)
            slot = &r;
    }
    // (gpu, method) -> cohort -> last rows
    std::map<std::pair<std::string, std::string>, std::map<std::string, std::vector<const Row*>>> cohorts;
    // gpu -> task -> cohort -> (method, speedup)
    std::map<std::string, std::map<std::string, std::map<std::string, std::vector<std::pair<std::string, const Row*>>>>> byTask;
    for (const auto& [key, byRound] : series) {
        if (byRound.size() < 2)
            continue;
        out.seriesWithRounds++;
        const auto& [gpu, method, task] = key;
        const Row* first = byRound.begin()->second;
        const Row* last = byRound.rbegin()->second;
        std::string cohort;
        if (!first->exeOk && last->exeOk)
            cohort = "rescued";
        else if (std::all_of(byRound.begin(), byRound.end(), [](const auto& kv) { return kv.second->exeOk; }))
            cohort = "persistent";
        else
            continue;
        cohorts[{gpu, method}][cohort].push_back(last);
        cohorts[{gpu, kAllMethods}][cohort].push_back(last);
        byTask[gpu][task][cohort].push_back({method, last});
    }
    std::map<std::string, std::set<std::string>> methodsPerGpu;
    for (const auto& [key, _] : cohorts)
        if (key.second != kAllMethods)
            methodsPerGpu[key.first].insert(key.second);
    for (const auto& [key, byCohort] : cohorts) {
        if (key.second == kAllMethods && methodsPerGpu[key.first].size() < 2)
            continue;  // one method: the pooled rows would repeat it
        for (const char* c : {"rescued", "persistent"}) {
            CohortStats s;
            s.gpu = key.first;
            s.method = key.second;
            s.cohort = c;
            auto it = byCohort.find(c);
            if (it != byCohort.end()) {
                s.kernels = int(it->second.size());
                s.speedup = speedupStats(it->second);
            }
            out.cohorts.push_back(std::move(s));
        }
    }
    for (const auto& [gpu, tasks] : byTask) {
        PairedCohorts p;
        p.gpu = gpu;
        std::vector<double> ratios;
        for (const auto& [task, byCohort] : tasks) {
            auto r = byCohort.find("rescued");
            auto q = byCohort.find("persistent");
            if (r == byCohort.end() || q == byCohort.end())
                continue;
            bool any = false;
            for (const auto& [m1, a] : r->second)
                for (const auto& [m2, b] : q->second)
                    if (a->pass && a->speedup && b->pass && b->speedup) {
                        ratios.push_back(*a->speedup / *b->speedup);
                        p.rescuedFaster += *a->speedup > *b->speedup;
                        any = true;
                    }
            p.tasks += any;
        }
        p.pairs = int(ratios.size());
        if (!ratios.empty()) {
            p.geomeanRatio = geomeanOf(ratios);
            p.ci = bootstrapGeomeanCI(ratios);
        }
        out.paired.push_back(std::move(p));
    }
    return out;
}

// ---- cross-hardware --------------------------------------------------------------------------------------

std::vector<SlowFraction> slowFraction(const std::vector<Row>& rows)
{
    std::map<std::pair<std::string, std::string>, Rate> by;
    std::map<std::string, std::set<std::string>> methods;
    for (const auto& r : rows) {
        if (!r.pass || !r.speedup)
            continue;
        for (const std::string& m : {r.method, std::string(kAllMethods)}) {
            auto& rate = by[{r.gpu, m}];
            rate.n++;
            rate.k += *r.speedup < 1.0;
        }
        methods[r.gpu].insert(r.method);
    }
    std::vector<SlowFraction> out;
    for (const auto& [key, rate] : by) {
        if (key.second == kAllMethods && methods[key.first].size() < 2)
            continue;
        out.push_back({key.first, key.second, rate});
    }
    return out;
}

CrossHardware crossHardware(const std::vector<Row>& rows)
{
    CrossHardware out;
    std::set<std::string> gpus;
    std::map<std::tuple<std::string, int, std::int64_t>, CrossKernel> kernels;
    for (const auto& r : rows) {
        if (!r.pass || !r.speedup)
            continue;
        gpus.insert(r.gpu);
        auto& k = kernels[{r.method, r.round, r.candidateId}];
        k.method = r.method;
        k.round = r.round;
        k.taskId = r.taskId;
        k.speedups[r.gpu] = *r.speedup;
    }
    out.gpus.assign(gpus.begin(), gpus.end());
    std::vector<double> spreads;
    for (auto& [_, k] : kernels) {
        if (k.speedups.size() < 2)
            continue;
        auto [lo, hi] = std::minmax_element(k.speedups.begin(), k.speedups.end(),
                                            [](const auto& a, const auto& b) { return a.second < b.second; });
        k.spread = hi->second / lo->second;
        k.fastestGpu = hi->first;
        k.slowestGpu = lo->first;
        spreads.push_back(k.spread);
        out.kernels.push_back(k);
    }
    std::stable_sort(out.kernels.begin(), out.kernels.end(), [](const CrossKernel& a, const CrossKernel& b) { return a.spread > b.spread; });
    if (!spreads.empty()) {
        out.spreadMedian = medianOf(spreads);
        out.spreadMax = *std::max_element(spreads.begin(), spreads.end());
    }
    out.slow = slowFraction(rows);
    return out;
}

void addGolden(CrossHardware& out, const Store& store, const Filters& filters)
{
    // task -> gpu -> (idx, input_size) -> ms
    std::map<std::string, std::map<std::string, std::map<std::pair<int, std::string>, double>>> byTask;
    std::map<std::string, std::string> taskIds;
    std::set<std::string> gpus;
    for (const auto& j : store.query("SELECT gpu, task, task_id, idx, input_size, ms FROM golden_timings WHERE ms > 0 ORDER BY task, gpu, idx")) {
        const auto gpu = j["gpu"].get<std::string>();
        if (!allowed(filters.gpus, gpu))
            continue;
        const auto task = j["task"].get<std::string>();
        const std::string taskId = j["task_id"].is_string() ? j["task_id"].get<std::string>() : "";
        if (!filters.categories.empty() && !allowed(filters.categories, taskId.substr(0, taskId.find('/'))))
            continue;
        taskIds[task] = taskId;
        byTask[task][gpu][{j["idx"].get<int>(), j["input_size"].get<std::string>()}] = j["ms"].get<double>();
        gpus.insert(gpu);
    }
    out.goldenGpus.assign(gpus.begin(), gpus.end());
    std::map<std::string, std::vector<double>> relative;
    std::map<std::string, int> fastest;
    std::vector<double> spreads;
    for (const auto& [task, byGpu] : byTask) {
        if (byGpu.size() < 2)
            continue;
        // The sizes every GPU has.
        std::set<std::pair<int, std::string>> common;
        for (const auto& [k, _] : byGpu.begin()->second)
            common.insert(k);
        for (const auto& [gpu, sizes] : byGpu)
            for (auto it = common.begin(); it != common.end();)
                it = sizes.count(*it) ? std::next(it) : common.erase(it);
        // The seed writes some input sizes differently on some GPUs (5090/L20: [[64, 1024], [64, 1024]] where
        // the others have [[2, 64, 1024]]): with as many rows on every GPU, the rows are compared by position.
        bool byPosition = false;
        const auto rowsOf = byGpu.begin()->second.size();
        if (common.size() < rowsOf &&
            std::all_of(byGpu.begin(), byGpu.end(), [&](const auto& g) { return g.second.size() == rowsOf; })) {
            byPosition = true;
            common.clear();
            for (const auto& [k, _] : byGpu.begin()->second)
                common.insert(k);
        }
        if (common.empty()) {
            out.goldenNoCommon.push_back(task);
            continue;
        }
        if (byPosition)
            out.goldenByPosition.push_back(task);
        GoldenTask t;
        t.task = task;
        t.taskId = taskIds[task];
        t.sizes = int(common.size());
        for (const auto& [gpu, sizes] : byGpu) {
            double sum = 0;
            if (byPosition) {
                for (const auto& [k, ms] : sizes)
                    sum += ms;
            } else {
                for (const auto& k : common)
                    sum += sizes.at(k);
            }
            t.ms[gpu] = sum;
        }
        auto [lo, hi] = std::minmax_element(t.ms.begin(), t.ms.end(), [](const auto& a, const auto& b) { return a.second < b.second; });
        t.spread = hi->second / lo->second;
        t.fastestGpu = lo->first;
        t.slowestGpu = hi->first;
        fastest[lo->first]++;
        for (const auto& [gpu, ms] : t.ms)
            relative[gpu].push_back(ms / lo->second);
        spreads.push_back(t.spread);
        out.golden.push_back(std::move(t));
    }
    for (const auto& gpu : out.goldenGpus) {
        GoldenGpu g;
        g.gpu = gpu;
        g.tasks = int(relative[gpu].size());
        if (g.tasks)
            g.geomeanRelative = geomeanOf(relative[gpu]);
        g.fastest = fastest[gpu];
        out.goldenPerGpu.push_back(g);
    }
    if (!spreads.empty()) {
        out.goldenSpreadMedian = medianOf(spreads);
        out.goldenSpreadMax = *std::max_element(spreads.begin(), spreads.end());
    }
}

// ---- provenance ------------------------------------------------------------------------------------------

nlohmann::json provenance(const Store& store, const std::string& name, const Filters& filters, const std::vector<Row>& rows)
{
    std::set<std::int64_t> runIds;
    std::set<std::string> gpus, methods;
    std::map<std::int64_t, std::string> runGpu;
    for (const auto& r : rows) {
        runIds.insert(r.runId);
        gpus.insert(r.gpu);
        methods.insert(r.method);
        runGpu[r.runId] = r.gpu;
    }
    nlohmann::json runs = nlohmann::json::array();
    std::set<std::string> harness, kbxVersions, perf;
    // Timed runs per GPU model and software stack: speedups from different stacks (or protocols)
    // are not comparable, and a report that pools them says so.
    std::map<std::string, std::map<std::string, std::vector<std::int64_t>>> stacks;
    std::set<std::int64_t> timedRuns;
    std::set<int> taxonomy;
    if (!runIds.empty()) {
        std::string list;
        for (auto id : runIds)
            list += (list.empty() ? "" : ",") + std::to_string(id);
        for (const auto& j : store.query("SELECT DISTINCT e.run_id AS id FROM evaluations e JOIN timings t ON t.evaluation_id = e.id "
                                         "JOIN runs r ON r.id = e.run_id WHERE r.device <> 'imported' AND e.run_id IN (" + list + ")"))
            timedRuns.insert(j["id"].get<std::int64_t>());
        for (const auto& j : store.query("SELECT id, device, started_at, provenance, args FROM runs WHERE id IN (" + list + ") ORDER BY id")) {
            auto p = nlohmann::json::parse(j["provenance"].get<std::string>(), nullptr, false);
            auto a = nlohmann::json::parse(j["args"].get<std::string>(), nullptr, false);
            if (!p.is_object())
                p = nlohmann::json::object();
            if (!a.is_object())
                a = nlohmann::json::object();
            const auto id = j["id"].get<std::int64_t>();
            nlohmann::json run = {{"id", id}, {"device", j["device"]}, {"gpu", runGpu[id]}, {"started_at", j["started_at"]}};
            const auto versions = p.value("versions", nlohmann::json::object());
            for (const char* k : {"torch", "triton"})
                if (versions.contains(k))
                    run[k] = versions[k];
            if (versions.contains("harness")) {
                run["harness_protocol"] = versions["harness"];
                harness.insert(versions["harness"].dump());
            }
            if (timedRuns.count(id)) {
                std::string driver;
                if (p.contains("devices") && p["devices"].is_array() && !p["devices"].empty() && p["devices"][0].is_object())
                    driver = p["devices"][0].value("driver", std::string());
                auto str = [&](const char* k) {
                    return versions.contains(k) && versions[k].is_string() ? versions[k].get<std::string>() : std::string("?");
                };
                std::string stack = "torch " + str("torch") + ", Triton " + str("triton") + ", CUDA " + str("cuda") +
                                    (driver.empty() ? std::string() : ", driver " + driver);
                stacks[runGpu[id]][stack].push_back(id);
            }
            if (p.contains("kbx_version")) {
                run["kbx_version"] = p["kbx_version"];
                kbxVersions.insert(p["kbx_version"].get<std::string>());
            }
            if (j["device"] == "imported") {
                for (const char* k : {"format", "file", "source"})
                    if (p.contains(k))
                        run[k] = p[k];
            } else if (a.contains("source")) {
                run["source"] = a["source"];
            }
            runs.push_back(std::move(run));
        }
        // Taxonomy versions of every evaluation of these runs; perf protocols of the timed ones only
        // (issue 24: reading every evaluation's evidence JSON for a protocol only timed ones have was
        // most of a report on a million evaluations). One pass over timings each (a correlated count
        // per evaluation made this quadratic on a database without the timings index).
        store.each("SELECT DISTINCT e.taxonomy_version FROM evaluations e WHERE +e.run_id IN (" + list + ")",
                   [&](const Store::Cursor& c) { taxonomy.insert(int(c.i64(0))); });
        store.each("SELECT DISTINCT CASE WHEN r.device = 'imported' THEN 'seed speedup (imported)' "
                   "ELSE coalesce(json_extract(e.evidence, '$.perf.protocol'), '') END "
                   "FROM (SELECT DISTINCT evaluation_id FROM timings) tt JOIN evaluations e ON e.id = tt.evaluation_id "
                   "JOIN runs r ON r.id = e.run_id WHERE e.run_id IN (" + list + ")",
                   [&](const Store::Cursor& c) {
                       if (const auto p = c.text(0); !p.empty())
                           perf.insert(p);
                   });
    }
    nlohmann::json warnings = nlohmann::json::array();
    for (const auto& [gpu, byStack] : stacks) {
        if (byStack.size() < 2)
            continue;
        std::string what;
        for (const auto& [stack, ids] : byStack) {
            std::string idList;
            for (auto id : ids)
                idList += (idList.empty() ? "" : ",") + std::to_string(id);
            what += (what.empty() ? "" : "; ") + stack + " (runs " + idList + ")";
        }
        warnings.push_back("timings on " + (gpu.empty() ? std::string("one GPU") : gpu) +
                           " come from different software stacks, so their speedups are not comparable: " + what +
                           ". Compare methods within one stack (a database per stack, or kbx merge of comparable runs only).");
    }
    if (perf.size() > 1) {
        std::string list;
        for (const auto& p : perf)
            list += (list.empty() ? "" : ", ") + p;
        warnings.push_back("speedups measured by different protocols are pooled (" + list +
                           "): imported seed speedups divide by eager times recorded once elsewhere, kbx-perf times eager "
                           "in the same session. Compare within one protocol.");
    }
    return {{"report", name},
            {"warnings", warnings},
            {"database", store.path().string()},
            {"schema_version", store.schemaVersion()},
            {"filters", filters.describe()},
            {"counting", analysis::countingRule() + "; speedups over correct (pass) kernels only"},
            {"runs", runs},
            {"gpus", std::vector<std::string>(gpus.begin(), gpus.end())},
            {"methods", std::vector<std::string>(methods.begin(), methods.end())},
            {"protocol",
             {{"harness", std::vector<std::string>(harness.begin(), harness.end())},
              {"kbx", std::vector<std::string>(kbxVersions.begin(), kbxVersions.end())},
              {"taxonomy", std::vector<int>(taxonomy.begin(), taxonomy.end())},
              {"perf", std::vector<std::string>(perf.begin(), perf.end())}}},
            {"generated_at", nowIso8601()}};
}

// ---- tables ------------------------------------------------------------------------------------------------

namespace {

using J = nlohmann::json;

Table methodSummaryTable(const std::vector<MethodSummary>& ms, bool qualityAvailable)
{
    Table t;
    t.name = "method-summary";
    t.title = "Method summary (Table 1): compile, correct, correct/compile, speedup, code quality";
    t.columns = {{"gpu", "GPU"},
                 {"method", "method"},
                 {"round", "round", Kind::Int},
                 {"n", "n", Kind::Int},
                 {"compile", "compile", Kind::Int},
                 {"compile_rate", "compile %", Kind::Percent},
                 {"compile_ci", "95% CI", Kind::PercentInterval},
                 {"correct", "correct", Kind::Int},
                 {"correct_rate", "correct %", Kind::Percent},
                 {"correct_ci", "95% CI", Kind::PercentInterval},
                 {"correct_per_compile", "correct/compile %", Kind::Percent},
                 {"correct_ext_rate", "incl. extended %", Kind::Percent},
                 {"timed", "timed", Kind::Int},
                 {"geomean_speedup", "geomean x", Kind::Ratio},
                 {"geomean_ci", "95% CI", Kind::Interval},
                 {"mi_mean", "MI", Kind::Real},
                 {"cc_mean", "CC", Kind::Real}};
    for (const auto& m : ms)
        t.rows.push_back({m.gpu, m.method, m.round, m.n, m.call.k, rateValue(m.call), rateCI(m.call), m.exe.k, rateValue(m.exe),
                          rateCI(m.exe), rateValue(m.exeGivenCall), rateValue(m.exeExt), m.speedup.n, opt(m.speedup.geomean), interval(m.speedup.geomeanCI),
                          opt(m.quality.miMean), opt(m.quality.ccMean)});
    t.notes.push_back("compile = call stage passed; correct = exe stage passed (Wilson 95% intervals), both on the contract tier "
                      "(the seed's own call patterns) unless the run used --protocol strict; incl. extended = correct and every "
                      "extended case passed too; speedup over the correct kernels with timings (geometric mean, 95% bootstrap CI "
                      "over kernels)");
    t.notes.push_back(qualityAvailable ? "MI: mean radon maintainability index (0-100) of the correct kernels' code alone; CC: mean "
                                         "cyclomatic complexity"
                                       : "MI, CC: code quality n/a (see the note below)");
    return t;
}

Table speedupTable(const std::vector<MethodSummary>& ms)
{
    Table t;
    t.name = "speedup";
    t.title = "Speedup over PyTorch eager of correct kernels, and fast_p";
    t.columns = {{"gpu", "GPU"},
                 {"method", "method"},
                 {"round", "round", Kind::Int},
                 {"n", "n", Kind::Int},
                 {"timed", "timed", Kind::Int},
                 {"geomean", "geomean x", Kind::Ratio},
                 {"geomean_ci", "95% CI", Kind::Interval},
                 {"mean", "mean x", Kind::Ratio},
                 {"sum_ratio", "sum-time x", Kind::Ratio},
                 {"median", "median x", Kind::Ratio},
                 {"slower", "slower", Kind::Int},
                 {"slower_fraction", "slower %", Kind::Percent}};
    for (double p : fastPThresholds())
        t.columns.push_back({fmt::format("fast_{}", p), fmt::format("fast_{}", p), Kind::Percent});
    for (const auto& m : ms) {
        std::vector<J> row = {m.gpu,
                              m.method,
                              m.round,
                              m.n,
                              m.speedup.n,
                              opt(m.speedup.geomean),
                              interval(m.speedup.geomeanCI),
                              opt(m.speedup.mean),
                              opt(m.speedup.sumRatio),
                              opt(m.speedup.median),
                              m.speedup.n ? J(m.speedup.slower) : J(),
                              opt(m.speedup.slowerFraction)};
        for (std::size_t i = 0; i < fastPThresholds().size(); ++i)
            row.push_back(i < m.fastP.size() ? J(m.fastP[i]) : J());
        t.rows.push_back(std::move(row));
    }
    t.notes.push_back("mean: arithmetic mean of the kernels' speedups; sum-time: the seed's aggregate, sum of eager ms / sum of kernel ms; "
                      "slower: speedup < 1");
    t.notes.push_back("fast_p: correct kernels with speedup > p over all n evaluations (n/a without timings, e.g. on the CPU)");
    return t;
}

Report methodSummaryReport(Store& store, const std::vector<Row>& rows, const ReportOptions& opt)
{
    Report rep;
    std::map<std::int64_t, QualityValues> qv;
    bool available = true;
    std::vector<std::int64_t> ids;
    for (const auto& r : rows)
        if (r.exeOk)
            ids.push_back(r.submissionId);
    std::sort(ids.begin(), ids.end());
    ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
    std::map<std::int64_t, CodeQualityRow> q;
    if (opt.quality) {
        auto res = quality::ensure(store, ids);
        available = res.available;
        if (!res.available)
            rep.notes.push_back(res.note);
        q = std::move(res.rows);
    } else {
        q = quality::cached(store, ids);
        available = !q.empty() || ids.empty();
        if (!available)
            rep.notes.push_back("code quality n/a: not measured (--no-quality)");
    }
    std::set<std::string> tools;
    for (const auto& [id, row] : q) {
        qv[id] = {row.mi, row.ccMean};
        if (row.mi)
            tools.insert(row.toolVersion);
    }
    const auto ms = methodSummary(rows, qv);
    rep.tables.push_back(methodSummaryTable(ms, available));
    rep.tables.push_back(speedupTable(ms));
    if (!tools.empty())
        rep.provenance["quality_tool"] = std::vector<std::string>(tools.begin(), tools.end());
    return rep;
}

Report categoryMethodReport(const std::vector<Row>& rows)
{
    Report rep;
    const auto cm = categoryMethod(rows);
    Table t;
    t.name = "category-method";
    t.title = "Correctness by category and method";
    t.columns = {{"gpu", "GPU"},           {"round", "round", Kind::Int},      {"category", "category"},
                 {"method", "method"},     {"n", "n", Kind::Int},              {"compile", "compile", Kind::Int},
                 {"compile_rate", "compile %", Kind::Percent}, {"correct", "correct", Kind::Int}, {"correct_rate", "correct %", Kind::Percent},
                 {"correct_ci", "95% CI", Kind::PercentInterval}};
    for (const auto& c : cm.cells)
        t.rows.push_back({c.gpu, c.round, c.category, c.method, c.call.n, c.call.k, rateValue(c.call), c.exe.k, rateValue(c.exe), rateCI(c.exe)});
    t.notes.push_back("'all methods' rows pool every method of the GPU and round (e.g. the paper's quantization outcomes, 0/30)");
    Table f;
    f.name = "all-method-failure";
    f.title = "Tasks no method solves, per category";
    f.columns = {{"gpu", "GPU"},
                 {"round", "round", Kind::Int},
                 {"category", "category"},
                 {"methods", "methods", Kind::Int},
                 {"tasks", "tasks", Kind::Int},
                 {"failed_by_all", "failed by all", Kind::Int},
                 {"fraction", "fraction", Kind::Percent},
                 {"ci", "95% CI", Kind::PercentInterval}};
    for (const auto& x : cm.failures)
        f.rows.push_back({x.gpu, x.round, x.category, x.methods, x.failedByAll.n, x.failedByAll.k, rateValue(x.failedByAll), rateCI(x.failedByAll)});
    f.notes.push_back("tasks: of the category, attempted by every method of that GPU and round; failed by all: no method correct "
                      "(the paper's Fusion all-method failure fraction, 72%)");
    rep.tables = {std::move(t), std::move(f)};
    return rep;
}

Report devianceReport(const std::vector<Row>& rows)
{
    Report rep;
    Table t;
    t.name = "deviance";
    t.title = "Deviance analysis: exe correctness ~ category + method (binomial GLM, IRLS)";
    t.columns = {{"gpu", "GPU"},          {"round", "round", Kind::Int},        {"n", "n", Kind::Int},
                 {"correct", "correct", Kind::Int}, {"null_deviance", "null dev.", Kind::Real}, {"model", "model"},
                 {"deviance", "deviance", Kind::Real}, {"chi2", "LR chi2", Kind::Real}, {"df", "df", Kind::Int},
                 {"p", "p", Kind::PValue},    {"share", "share", Kind::Percent},    {"separation", "separation"}};
    bool separation = false;
    for (const auto& g : deviance(rows)) {
        const auto& a = g.analysis;
        auto line = [&](const std::string& model, double dev, double chi2, int df, double p, double share, bool sep) {
            t.rows.push_back({g.gpu, g.round, a.n, a.successes, a.nullDeviance, model, dev, chi2, df, df ? J(p) : J(), share, sep ? "yes" : "no"});
            separation = separation || sep;
        };
        for (const auto& f : a.alone)
            line(f.factor + " alone", f.deviance, f.chi2, f.df, f.p, f.share, f.separation);
        line("category + method", a.jointDeviance, a.jointChi2, a.jointDf, a.jointP, a.jointShare, a.separation);
        for (const auto& f : a.drop)
            line("joint without " + f.factor, f.deviance, f.chi2, f.df, f.p, f.share, f.separation);
    }
    t.notes.push_back("deviance of the model on the line; LR chi2: explained against the null model (alone, joint) or lost when the factor "
                      "leaves the joint model (without); share: LR chi2 / null deviance");
    if (separation)
        t.notes.push_back("separation: some level is never (or always) correct; its estimate diverges, the deviance is the limit");
    rep.tables.push_back(std::move(t));
    return rep;
}

Report roundsReport(const Store& store, const Filters& f)
{
    Report rep;
    const auto ra = rounds::analyseRounds(store, f.tasks);
    auto keep = [&](const std::string& gpu, const std::string& method) { return allowed(f.gpus, gpu) && allowed(f.methods, method); };
    Table t;
    t.name = "per-round";
    t.title = "Per round: compile, correct and speedups";
    t.columns = {{"gpu", "GPU"},     {"method", "method"},         {"round", "round", Kind::Int},   {"n", "n", Kind::Int},
                 {"compile", "compile", Kind::Int}, {"compile_rate", "compile %", Kind::Percent}, {"correct", "correct", Kind::Int},
                 {"correct_rate", "correct %", Kind::Percent}, {"timed", "timed", Kind::Int}, {"mean_speedup", "mean x", Kind::Ratio},
                 {"geomean_speedup", "geomean x", Kind::Ratio}};
    for (const auto& r : ra.rounds) {
        if (!keep(r.gpu, r.method) || !allowed(f.rounds, r.round))
            continue;
        const Rate call{r.callOk, r.n}, exe{r.exeOk, r.n};
        t.rows.push_back({r.gpu, r.method, r.round, r.n, r.callOk, rateValue(call), r.exeOk, rateValue(exe), r.timed,
                          r.timed ? J(r.meanSpeedup) : J(), r.timed ? J(r.geoMeanSpeedup) : J()});
    }
    // An imported corpus holds change records only (tasks whose verdict or speedup changed between
    // two rounds): its per-round rates are rates among those tasks, never the benchmark's.
    std::set<std::string> corpusRows;
    for (const auto& j : store.query("SELECT DISTINCT v.gpu AS gpu, v.method AS method FROM evaluation_rows v JOIN runs r ON r.id = v.run_id "
                                     "WHERE json_extract(r.provenance, '$.format') = 'corpus'")) {
        const std::string gpu = j["gpu"].is_string() ? j["gpu"].get<std::string>() : "";
        if (keep(gpu, j["method"].get<std::string>()))
            corpusRows.insert(fmt::format("{} / {}", gpu, j["method"].get<std::string>()));
    }
    if (!corpusRows.empty())
        t.notes.push_back(fmt::format("{}: from an imported round-transition corpus, which records only tasks that changed between "
                                      "rounds; n is those tasks, so these rates are not the benchmark's per-round rates",
                                      fmt::format("{}", fmt::join(corpusRows, ", "))));
    Table x;
    x.name = "transitions";
    x.title = "Round-to-round transitions of the same task (a transition may count under several kinds)";
    x.columns = {{"gpu", "GPU"},
                 {"method", "method"},
                 {"from_round", "from", Kind::Int},
                 {"to_round", "to", Kind::Int},
                 {"total", "tasks", Kind::Int},
                 {"kind", "kind"},
                 {"count", "count", Kind::Int},
                 {"recorded", "recorded", Kind::Int},
                 {"agree", "agree", Kind::Int}};
    int recorded = 0, agree = 0;
    for (const auto& c : ra.transitions) {
        if (!keep(c.gpu, c.method) || (!f.rounds.empty() && !allowed(f.rounds, c.fromRound) && !allowed(f.rounds, c.toRound)))
            continue;
        for (const auto& [kind, n] : c.kinds)
            x.rows.push_back({c.gpu, c.method, c.fromRound, c.toRound, c.total, kind, n, c.recorded, c.agree});
        if (c.sameCodeSpeedupChanges)
            x.rows.push_back({c.gpu, c.method, c.fromRound, c.toRound, c.total, "same_code_speedup_change", c.sameCodeSpeedupChanges,
                              c.recorded, c.agree});
        recorded += c.recorded;
        agree += c.agree;
    }
    x.notes.push_back("same_code_speedup_change: a speedup change with unchanged code (re-timing noise, not optimisation)");
    if (recorded)
        x.notes.push_back(fmt::format("corpus kinds: computed from before/after, equal to the record's own kind on {} of {}", agree, recorded));
    for (const auto& d : ra.disagreements)
        if (keep(d.gpu, d.method))
            x.notes.push_back(fmt::format("{}: {} round {} -> {}: recorded '{}', computed '{}'", d.origin, d.taskId, d.fromRound, d.toRound,
                                          d.recordedKind.value_or(""), rounds::kindString(d.kinds)));
    rep.tables = {std::move(t), std::move(x)};
    return rep;
}

Report rescuedReport(const std::vector<Row>& rows)
{
    Report rep;
    const auto r = rescued(rows);
    Table t;
    t.name = "rescued";
    t.title = "Rescued vs persistently correct kernels over rounds";
    t.columns = {{"gpu", "GPU"},     {"method", "method"},         {"cohort", "cohort"},          {"kernels", "kernels", Kind::Int},
                 {"timed", "timed", Kind::Int}, {"geomean", "geomean x", Kind::Ratio}, {"geomean_ci", "95% CI", Kind::Interval},
                 {"mean", "mean x", Kind::Ratio}, {"median", "median x", Kind::Ratio}, {"slower_fraction", "slower %", Kind::Percent}};
    for (const auto& c : r.cohorts)
        t.rows.push_back({c.gpu, c.method, c.cohort, c.kernels, c.speedup.n, opt(c.speedup.geomean), interval(c.speedup.geomeanCI),
                          opt(c.speedup.mean), opt(c.speedup.median), opt(c.speedup.slowerFraction)});
    t.notes.push_back(fmt::format("per (GPU, method, task) over its observed rounds ({} series with 2+ rounds): rescued = not correct in the "
                                  "first round, correct in the last; persistent = correct in every round; speedup of the last round",
                                  r.seriesWithRounds));
    Table p;
    p.name = "rescued-paired";
    p.title = "Paired: tasks rescued for one method and persistent for another (same GPU)";
    p.columns = {{"gpu", "GPU"},
                 {"tasks", "tasks", Kind::Int},
                 {"pairs", "pairs", Kind::Int},
                 {"geomean_ratio", "rescued/persistent x", Kind::Ratio},
                 {"ci", "95% CI", Kind::Interval},
                 {"rescued_faster", "rescued faster", Kind::Int}};
    for (const auto& x : r.paired)
        p.rows.push_back({x.gpu, x.tasks, x.pairs, opt(x.geomeanRatio), interval(x.ci), x.rescuedFaster});
    rep.tables = {std::move(t), std::move(p)};
    return rep;
}

Table slowTable(const std::vector<SlowFraction>& slow)
{
    Table t;
    t.name = "slow-fraction";
    t.title = "Correct kernels slower than PyTorch eager, per GPU";
    t.columns = {{"gpu", "GPU"},
                 {"method", "method"},
                 {"timed", "timed", Kind::Int},
                 {"slower", "slower", Kind::Int},
                 {"fraction", "slower %", Kind::Percent},
                 {"ci", "95% CI", Kind::PercentInterval}};
    for (const auto& s : slow)
        t.rows.push_back({s.gpu, s.method, s.slower.n, s.slower.k, rateValue(s.slower), rateCI(s.slower)});
    t.notes.push_back("timed: correct kernels with a speedup on that GPU; slower: speedup < 1");
    return t;
}

/// perf::quantile, n/a (0) for no values.
double quantileOf(const std::vector<double>& v, double q) { return v.empty() ? 0.0 : perf::quantile(v, q); }

Report utilisationReport(const Store& store, const std::vector<Row>& rows)
{
    // Per GPU x method x round, over the correct kernels timed by kbx (their timings carry the
    // roofline of the device's measured peaks): how close they come to the roofline bound.
    struct Acc {
        int kernels = 0, flagged = 0;
        std::vector<double> frac, bw, comp;
    };
    std::map<std::tuple<std::string, std::string, int>, Acc> acc;
    std::map<std::int64_t, const Row*> byId;
    for (const auto& r : rows)
        if (r.pass)
            byId[r.id] = &r;
    if (!byId.empty()) {
        std::map<std::int64_t, std::vector<nlohmann::json>> shapes;
        // Only the roofline object of each timing's samples (SQLite's -> gives it as JSON text; the
        // samples are ~6 KB each): parsing every whole samples document here, and an IN list of every
        // correct evaluation's id, made this table the slowest (issue 24). Timings of evaluations
        // that do not count are skipped here, by id. A samples text that is not JSON (never
        // written by kbx) fails the fast query; then each is checked with json_valid first.
        auto take = [&](const Store::Cursor& c) {
            const auto id = c.i64(0);
            if (!byId.count(id) || !c.isText(2))
                return;
            auto rl = nlohmann::json::parse(c.text(2), nullptr, false);
            if (!rl.is_object() || !rl.contains("bound_ms"))
                return;
            rl["ms"] = c.json(1);
            shapes[id].push_back(std::move(rl));
        };
        try {
            store.each("SELECT evaluation_id, candidate_ms, samples -> '$.roofline' FROM timings "
                       "WHERE candidate_ms IS NOT NULL AND typeof(samples) = 'text' ORDER BY evaluation_id, id",
                       take);
        } catch (const StoreError&) {
            shapes.clear();
            store.each("SELECT evaluation_id, candidate_ms, CASE WHEN json_valid(samples) THEN samples -> '$.roofline' END FROM timings "
                       "WHERE candidate_ms IS NOT NULL AND typeof(samples) = 'text' ORDER BY evaluation_id, id",
                       take);
        }
        for (const auto& [id, list2] : shapes) {
            const Row* r = byId[id];
            auto& a = acc[{r->gpu, r->method, r->round}];
            std::vector<double> f, b, c;
            bool flag = false;
            for (const auto& rl : list2) {
                const double ms = rl.value("ms", 0.0), bound = rl.value("bound_ms", 0.0);
                if (ms > 0 && bound > 0)
                    f.push_back(bound / ms);
                b.push_back(rl.value("bandwidth_util", 0.0));
                c.push_back(rl.value("compute_util", 0.0));
                flag = flag || rl.value("faster_than_bound", false);
            }
            if (f.empty())
                continue;
            ++a.kernels;
            a.flagged += flag;
            a.frac.push_back(quantileOf(f, 0.5));
            a.bw.push_back(quantileOf(b, 0.5));
            a.comp.push_back(quantileOf(c, 0.5));
        }
    }
    Report rep;
    Table t;
    t.name = "utilisation";
    t.title = "Roofline utilisation of the correct kernels (kbx timings against the device's measured peaks)";
    t.columns = {{"gpu", "GPU"},
                 {"method", "method"},
                 {"round", "round", Kind::Int},
                 {"kernels", "kernels", Kind::Int},
                 {"roofline_median", "of roofline (median)", Kind::Percent},
                 {"roofline_p90", "of roofline (p90)", Kind::Percent},
                 {"bandwidth_median", "bandwidth util (median)", Kind::Percent},
                 {"compute_median", "compute util (median)", Kind::Percent},
                 {"faster_than_bound", "faster than bound", Kind::Int}};
    for (const auto& [k, a] : acc)
        t.rows.push_back({std::get<0>(k), std::get<1>(k), std::get<2>(k), a.kernels, quantileOf(a.frac, 0.5), quantileOf(a.frac, 0.9),
                          quantileOf(a.bw, 0.5), quantileOf(a.comp, 0.5), a.flagged});
    t.notes.push_back("per kernel the median over its perf shapes; of roofline = the roofline bound (bytes / copy bandwidth, "
                      "FLOPs / matmul rate of the shape's dtype) over the kernel's median time, 100% = at the bound");
    t.notes.push_back("bandwidth / compute util: achieved GB/s and TFLOP/s over the device's measured peaks (docs/PERF_PROTOCOL.md)");
    t.notes.push_back("faster than bound: kernels with a shape under 90% of its bound, flagged for audit (declared bytes/FLOPs too high, "
                      "or work skipped)");
    if (t.rows.empty())
        t.notes.push_back("no kbx perf timings with a roofline here (imported seed speedups and CPU runs have none)");
    rep.tables.push_back(std::move(t));
    return rep;
}

Report crossHardwareReport(const Store& store, const std::vector<Row>& rows, const Filters& f)
{
    Report rep;
    auto x = crossHardware(rows);
    addGolden(x, store, f);
    Table s;
    s.name = "kernel-spread";
    s.title = "The same kernel on several GPUs: max/min speedup over GPUs";
    s.columns = {{"gpus", "GPUs", Kind::Int},
                 {"kernels", "kernels", Kind::Int},
                 {"median_spread", "median max/min", Kind::Ratio},
                 {"max_spread", "max max/min", Kind::Ratio},
                 {"max_kernel", "kernel with the max"}};
    s.rows.push_back({int(x.gpus.size()), int(x.kernels.size()), opt(x.spreadMedian), opt(x.spreadMax),
                      x.kernels.empty() ? J() : J(fmt::format("{} / {} round {}", x.kernels.front().taskId, x.kernels.front().method,
                                                              x.kernels.front().round))});
    s.notes.push_back("a kernel: one candidate code of one method and round, correct and timed on 2+ GPUs (the paper's 21.4x maximum)");
    Table k;
    k.name = "kernels";
    k.title = "Kernels timed on several GPUs (largest spread first)";
    k.columns = {{"task", "task"},          {"method", "method"},           {"round", "round", Kind::Int}, {"gpus", "GPUs", Kind::Int},
                 {"fastest_gpu", "fastest"}, {"slowest_gpu", "slowest"},    {"min_speedup", "min x", Kind::Ratio},
                 {"max_speedup", "max x", Kind::Ratio}, {"spread", "max/min", Kind::Ratio}};
    for (const auto& c : x.kernels)
        k.rows.push_back({c.taskId, c.method, c.round, int(c.speedups.size()), c.fastestGpu, c.slowestGpu, c.speedups.at(c.slowestGpu),
                          c.speedups.at(c.fastestGpu), c.spread});
    Table g;
    g.name = "golden-gpus";
    g.title = "Eager time per GPU from the seed's golden timings";
    g.columns = {{"gpu", "GPU"},
                 {"tasks", "tasks", Kind::Int},
                 {"geomean_relative", "x fastest (geomean)", Kind::Ratio},
                 {"fastest", "fastest on", Kind::Int}};
    for (const auto& gg : x.goldenPerGpu)
        g.rows.push_back({gg.gpu, gg.tasks, opt(gg.geomeanRelative), gg.fastest});
    g.notes.push_back(fmt::format("per task: the sum of eager ms over the input sizes every GPU has; x fastest: ms / the fastest GPU's ms; "
                                  "tasks on 2+ GPUs: {}; spread slowest/fastest GPU: median {}, max {}",
                                  x.golden.size(), x.goldenSpreadMedian ? fmt::format("{:.3f}", *x.goldenSpreadMedian) : "n/a",
                                  x.goldenSpreadMax ? fmt::format("{:.3f}", *x.goldenSpreadMax) : "n/a"));
    if (!x.goldenByPosition.empty())
        g.notes.push_back(fmt::format("compared row by row ({} task(s) whose input sizes the GPUs' files write differently, with as many rows "
                                      "on each): {}",
                                      x.goldenByPosition.size(), fmt::join(x.goldenByPosition, ", ")));
    if (!x.goldenNoCommon.empty())
        g.notes.push_back(fmt::format("left out ({} task(s) on 2+ GPUs without one input size in common, nor as many rows): {}",
                                      x.goldenNoCommon.size(), fmt::join(x.goldenNoCommon, ", ")));
    Table gt;
    gt.name = "golden-tasks";
    gt.title = "Eager time per task and GPU (ms, golden timings)";
    gt.columns = {{"task", "task"}, {"sizes", "sizes", Kind::Int}};
    for (const auto& gpu : x.goldenGpus)
        gt.columns.push_back({"ms_" + gpu, gpu + " ms", Kind::Real});
    gt.columns.push_back({"fastest_gpu", "fastest"});
    gt.columns.push_back({"spread", "slowest/fastest", Kind::Ratio});
    for (const auto& t : x.golden) {
        std::vector<J> row = {t.taskId.empty() ? t.task : t.taskId, t.sizes};
        for (const auto& gpu : x.goldenGpus)
            row.push_back(t.ms.count(gpu) ? J(t.ms.at(gpu)) : J());
        row.push_back(t.fastestGpu);
        row.push_back(t.spread);
        gt.rows.push_back(std::move(row));
    }
    rep.tables = {std::move(s), slowTable(x.slow), std::move(k), std::move(g), std::move(gt)};
    return rep;
}

/// Protocol sensitivity (issue 21): every evaluation judged three ways from what was stored —
/// (a) seed: the cases the seed's own protocol makes (the contract tier's cases of the first public
/// seed, seed0; suspicious code flagged, not failed: not_triton_kernel does not count),
/// (b) contract: the verdict of the contract tier, (c) strict: contract and every extended case.
/// Evaluations stored before tiers existed (protocol NULL) cannot be split and are left out.
Report protocolReport(const Store& store, const std::vector<Row>& rows)
{
    Report rep;
    std::map<std::int64_t, const Row*> byId;
    for (const auto& r : rows)
        byId[r.id] = &r;
    const auto q = store.query(R"SQL(
SELECT e.id, e.protocol, e.ext_cases, e.ext_passed, e.ext_failure_class,
       json_extract(e.evidence, '$.tiers.contract.exe_ok') AS c_exe,
       json_extract(e.evidence, '$.tiers.contract.pass') AS c_pass,
       json_extract(e.evidence, '$.tiers.contract.failure_class') AS c_class,
       (SELECT count(*) FROM case_results c WHERE c.evaluation_id = e.id AND c.tier = 'contract'
          AND c.name LIKE 'seed0/%') AS a_n,
       (SELECT count(*) FROM case_results c WHERE c.evaluation_id = e.id AND c.tier = 'contract'
          AND c.name LIKE 'seed0/%' AND c.status = 'pass') AS a_pass,
       (SELECT c.name || ' (' || coalesce(c.failure_class, c.status) || ')' FROM case_results c
          WHERE c.evaluation_id = e.id AND c.tier = 'contract' AND c.status <> 'pass' ORDER BY c.idx LIMIT 1) AS c_first,
       (SELECT c.name || ' (' || coalesce(c.failure_class, c.status) || '): ' ||
               coalesce(json_extract(c.evidence, '$.extended_because'), '') FROM case_results c
          WHERE c.evaluation_id = e.id AND c.tier = 'extended' AND c.status <> 'pass' ORDER BY c.idx LIMIT 1) AS x_first
FROM evaluations e WHERE e.protocol IS NOT NULL)SQL");
    struct Three {
        int n = 0, a = 0, b = 0, c = 0;
    };
    std::map<std::tuple<std::string, std::string, std::string>, Three> groups;
    Table flips;
    flips.name = "protocol-flips";
    flips.title = "Verdicts that differ between protocols, and why";
    flips.columns = {{"evaluation", "evaluation", Kind::Int}, {"gpu", "GPU"},        {"method", "method"},
                     {"task", "task"},                        {"seed", "seed"},      {"contract", "contract"},
                     {"strict", "strict"},                    {"why", "why"}};
    int legacy = 0;
    auto flag = [](const nlohmann::json& v) { return v.is_number() ? v.get<double>() != 0 : v.is_boolean() && v.get<bool>(); };
    std::set<std::int64_t> seen;
    for (const auto& e : q) {
        const auto id = e["id"].get<std::int64_t>();
        auto it = byId.find(id);
        if (it == byId.end())
            continue;
        seen.insert(id);
        const Row& r = *it->second;
        const bool b = flag(e["c_pass"]);
        const bool cExe = flag(e["c_exe"]);
        const int aN = e["a_n"].get<int>(), aPass = e["a_pass"].get<int>();
        // (a) the seed's cases ran and passed; a PyTorch-only kernel is only flagged there
        const bool a = aN > 0 && aPass == aN && (cExe || (e["c_class"].is_string() && e["c_class"] == "not_triton_kernel"));
        const bool extAll = e["ext_cases"].is_null() || (e["ext_passed"].is_number() && e["ext_passed"] == e["ext_cases"]);
        const bool c = b && extAll;
        for (const auto& cat : {r.category, std::string("(all)")}) {
            auto& g = groups[{r.gpu, r.method, cat}];
            ++g.n;
            g.a += a;
            g.b += b;
            g.c += c;
        }
        if (a != b || b != c) {
            std::string why;
            if (a && !b)
                why = e["c_class"].is_string() && e["c_class"] == "not_triton_kernel"
                          ? "no Triton kernel ran (the seed only flags this)"
                          : "fails contract cases beyond the seed's one public seed: " +
                                (e["c_first"].is_string() ? e["c_first"].get<std::string>() : std::string("?"));
            else if (!a && b)
                why = "passes the contract tier but not its public-seed cases (should not happen)";
            if (b && !c)
                why += std::string(why.empty() ? "" : "; ") + "extended: " +
                       (e["x_first"].is_string() ? e["x_first"].get<std::string>()
                                                 : e["ext_failure_class"].is_string() ? e["ext_failure_class"].get<std::string>() : "?");
            if (flips.rows.size() < 500)
                flips.rows.push_back({id, r.gpu, r.method, r.taskId, a ? "pass" : "fail", b ? "pass" : "fail", c ? "pass" : "fail", why});
        }
    }
    for (const auto& r : rows)
        legacy += !seen.count(r.id);
    Table t;
    t.name = "protocol";
    t.title = "Correctness under three protocols: the seed's own cases, the contract tier, strict (contract + extended)";
    t.columns = {{"gpu", "GPU"},
                 {"method", "method"},
                 {"category", "category"},
                 {"n", "n", Kind::Int},
                 {"seed", "seed", Kind::Int},
                 {"seed_rate", "seed %", Kind::Percent},
                 {"contract", "contract", Kind::Int},
                 {"contract_rate", "contract %", Kind::Percent},
                 {"contract_ci", "95% CI", Kind::PercentInterval},
                 {"strict", "strict", Kind::Int},
                 {"strict_rate", "strict %", Kind::Percent},
                 {"strict_ci", "95% CI", Kind::PercentInterval}};
    for (const auto& [key, g] : groups) {
        const auto& [gpu, method, cat] = key;
        const auto ci = [&](int k) {
            const auto w = analysis::wilson(k, g.n);
            return J::array({w.lo, w.hi});
        };
        const double n = std::max(1, g.n);
        t.rows.push_back({gpu, method, cat, g.n, g.a, g.a / n, g.b, g.b / n, ci(g.b), g.c, g.c / n, ci(g.c)});
    }
    t.notes.push_back("seed: the contract tier's cases of the first public seed (seed0) all pass, as the seed's own protocol "
                      "runs its cases with one seed; a kernel that runs no Triton kernel still counts, as the seed only flags it");
    t.notes.push_back("contract: the verdict of the contract tier (the argument patterns the seed's tests use, several "
                      "seeds, secret seed included); strict: contract and every extended case (other dtypes, out=, 0-d, "
                      "None arguments, special values, other modes)");
    if (legacy)
        t.notes.push_back(fmt::format("{} evaluation(s) stored before tiers existed are left out (every case decided them)", legacy));
    flips.notes.push_back(fmt::format("{} evaluation(s) differ between protocols{}", flips.rows.size(),
                                      flips.rows.size() >= 500 ? " (the first 500 listed)" : ""));
    rep.tables.push_back(std::move(t));
    rep.tables.push_back(std::move(flips));
    return rep;
}

Report taxonomyReport(const std::vector<Row>& rows)
{
    Report rep;
    Table t;
    t.name = "taxonomy";
    t.title = "Failure taxonomy per GPU, by category and by method";
    t.columns = {{"gpu", "GPU"},
                 {"group_by", "by"},
                 {"group", "group"},
                 {"evaluations", "n", Kind::Int},
                 {"class", "failure class"},
                 {"stage", "stage"},
                 {"count", "count", Kind::Int},
                 {"share", "% of n", Kind::Percent},
                 {"reviewed", "reviewed", Kind::Int}};
    std::map<std::string, std::vector<Row>> byGpu;
    for (const auto& r : rows)
        byGpu[r.gpu].push_back(r);
    auto stageOf = [](const std::string& cls) {
        for (const auto& info : failureClasses())
            if (info.id == cls)
                return std::string(info.stage);
        return std::string("?");
    };
    for (const auto& [gpu, gr] : byGpu)
        for (auto by : {analysis::GroupBy::Category, analysis::GroupBy::Method}) {
            const auto tx = analysis::taxonomy(gr, by);
            for (std::size_t g = 0; g < tx.groups.size(); ++g)
                for (std::size_t c = 0; c < tx.classes.size(); ++c) {
                    const int n = tx.automatic[g][c];
                    const int rv = tx.reviewed ? (*tx.reviewed)[g][c] : n;
                    if (n == 0 && rv == 0)
                        continue;
                    t.rows.push_back({gpu, by == analysis::GroupBy::Category ? "category" : "method", tx.groups[g], tx.evaluations[g],
                                      tx.classes[c], stageOf(tx.classes[c]), n, double(n) / double(std::max(1, tx.evaluations[g])),
                                      tx.reviewed ? J(rv) : J()});
                }
        }
    t.notes.push_back("count: evaluations failed with that class (taxonomy v1); reviewed: after manual labels, where there are any");
    rep.tables.push_back(std::move(t));
    return rep;
}

// ---- rendering --------------------------------------------------------------------------------------

std::string pValue(double p) { return p < 1e-4 ? fmt::format("{:.2e}", p) : fmt::format("{:.4f}", p); }

std::string display(const J& v, Kind kind)
{
    if (v.is_null())
        return "n/a";
    if (v.is_string())
        return v.get<std::string>();
    if (v.is_boolean())
        return v.get<bool>() ? "yes" : "no";
    switch (kind) {
    case Kind::Int: return v.is_number_integer() ? std::to_string(v.get<std::int64_t>()) : fmt::format("{:g}", v.get<double>());
    case Kind::Percent: return fmt::format("{:.1f}%", 100.0 * v.get<double>());
    case Kind::Ratio: return fmt::format("{:.3f}", v.get<double>());
    case Kind::Real: return fmt::format("{:.2f}", v.get<double>());
    case Kind::PValue: return pValue(v.get<double>());
    case Kind::Interval: return fmt::format("[{:.3f}, {:.3f}]", v[0].get<double>(), v[1].get<double>());
    case Kind::PercentInterval: return fmt::format("[{:.1f}, {:.1f}]", 100.0 * v[0].get<double>(), 100.0 * v[1].get<double>());
    case Kind::Text: break;
    }
    return v.is_number_integer() ? std::to_string(v.get<std::int64_t>()) : fmt::format("{:g}", v.get<double>());
}

bool isInterval(Kind k) { return k == Kind::Interval || k == Kind::PercentInterval; }

std::string csvField(const std::string& s)
{
    if (s.find_first_of(",\"\n") == std::string::npos)
        return s;
    std::string out = "\"";
    for (char c : s)
        out += c == '"' ? std::string("\"\"") : std::string(1, c);
    return out + "\"";
}

std::string csvValue(const J& v)
{
    if (v.is_null())
        return "";
    if (v.is_string())
        return csvField(v.get<std::string>());
    if (v.is_boolean())
        return v.get<bool>() ? "1" : "0";
    if (v.is_number_integer())
        return std::to_string(v.get<std::int64_t>());
    return fmt::format("{:.10g}", v.get<double>());
}

std::string latexEscape(const std::string& s)
{
    std::string out;
    for (char c : s) {
        switch (c) {
        case '\\': out += "\\textbackslash{}"; break;
        case '&': case '%': case '$': case '#': case '_': case '{': case '}': out += '\\'; out += c; break;
        case '~': out += "\\textasciitilde{}"; break;
        case '^': out += "\\textasciicircum{}"; break;
        default: out += c;
        }
    }
    return out;
}

std::vector<std::string> provenanceLines(const Report& r)
{
    const auto& p = r.provenance;
    std::vector<std::string> lines;
    lines.push_back(fmt::format("kbx report --table {}; database {} (schema v{})", p.value("report", r.name), p.value("database", ""),
                                p.value("schema_version", 0)));
    lines.push_back(fmt::format("filters: {}; counting: {}", p.value("filters", ""), p.value("counting", "")));
    std::string runs;
    for (const auto& run : p.value("runs", J::array())) {
        std::string what = run.value("gpu", "");
        if (run.contains("torch"))
            what += fmt::format(", torch {}", run["torch"].get<std::string>());
        if (run.contains("triton"))
            what += fmt::format(", triton {}", run["triton"].get<std::string>());
        if (run.contains("harness_protocol"))
            what += fmt::format(", harness protocol {}", run["harness_protocol"].dump());
        if (run.contains("format"))
            what += fmt::format(", imported {}", run["format"].get<std::string>());
        if (run.contains("file") && run["file"].is_string())
            what += fmt::format(" {}", run["file"].get<std::string>());
        runs += fmt::format("{}#{} ({})", runs.empty() ? "" : "; ", run.value("id", 0), what);
    }
    lines.push_back("runs: " + (runs.empty() ? std::string("none") : runs));
    auto list = [](const J& a) {
        std::string s;
        for (const auto& x : a)
            s += (s.empty() ? "" : ", ") + (x.is_string() ? x.get<std::string>() : x.dump());
        return s.empty() ? std::string("none") : s;
    };
    lines.push_back(fmt::format("gpus: {}; methods: {}", list(p.value("gpus", J::array())), list(p.value("methods", J::array()))));
    const auto proto = p.value("protocol", J::object());
    lines.push_back(fmt::format("protocol: kbx {}; harness {}; taxonomy v{}; perf {}{}", list(proto.value("kbx", J::array())),
                                list(proto.value("harness", J::array())), list(proto.value("taxonomy", J::array())),
                                list(proto.value("perf", J::array())),
                                p.contains("quality_tool") ? "; quality " + list(p["quality_tool"]) : ""));
    lines.push_back("generated " + p.value("generated_at", ""));
    return lines;
}

std::string renderText(const Report& r)
{
    std::string out;
    for (const auto& l : provenanceLines(r))
        out += "# " + l + "\n";
    for (const auto& t : r.tables) {
        out += fmt::format("\n== {}\n", t.title);
        std::vector<std::vector<std::string>> cells;
        std::vector<std::size_t> width(t.columns.size());
        for (std::size_t c = 0; c < t.columns.size(); ++c)
            width[c] = t.columns[c].header.size();
        for (const auto& row : t.rows) {
            std::vector<std::string> line;
            for (std::size_t c = 0; c < t.columns.size(); ++c) {
                line.push_back(display(row[c], t.columns[c].kind));
                width[c] = std::max(width[c], line.back().size());
            }
            cells.push_back(std::move(line));
        }
        auto emit = [&](const std::vector<std::string>& line) {
            std::string s;
            for (std::size_t c = 0; c < line.size(); ++c) {
                const bool left = t.columns[c].kind == Kind::Text;
                const auto pad = std::string(width[c] - std::min(width[c], line[c].size()), ' ');
                s += (c ? "  " : "") + (left ? line[c] + pad : pad + line[c]);
            }
            while (!s.empty() && s.back() == ' ')
                s.pop_back();
            out += s + "\n";
        };
        std::vector<std::string> header;
        for (const auto& c : t.columns)
            header.push_back(c.header);
        emit(header);
        if (t.rows.empty())
            out += "(no rows)\n";
        for (const auto& line : cells)
            emit(line);
        for (const auto& n : t.notes)
            out += "  " + n + "\n";
    }
    for (const auto& n : r.notes)
        out += "\nnote: " + n + "\n";
    return out;
}

std::string renderCsv(const Report& r)
{
    std::string out;
    for (const auto& l : provenanceLines(r))
        out += "# " + l + "\n";
    for (const auto& n : r.notes)
        out += "# note: " + n + "\n";
    bool first = true;
    for (const auto& t : r.tables) {
        out += fmt::format("{}# table {}: {}\n", first ? "" : "\n", t.name, t.title);
        first = false;
        std::string header;
        for (const auto& c : t.columns) {
            if (isInterval(c.kind))
                header += fmt::format("{}{}_lo,{}_hi", header.empty() ? "" : ",", c.key, c.key);
            else
                header += (header.empty() ? "" : ",") + csvField(c.key);
        }
        out += header + "\n";
        for (const auto& row : t.rows) {
            std::string line;
            for (std::size_t c = 0; c < t.columns.size(); ++c) {
                if (c)
                    line += ",";
                if (isInterval(t.columns[c].kind))
                    line += row[c].is_array() ? csvValue(row[c][0]) + "," + csvValue(row[c][1]) : ",";
                else
                    line += csvValue(row[c]);
            }
            out += line + "\n";
        }
    }
    return out;
}

std::string renderJson(const Report& r)
{
    J tables = J::array();
    for (const auto& t : r.tables) {
        J cols = J::array(), rows = J::array();
        for (const auto& c : t.columns)
            cols.push_back({{"key", c.key}, {"header", c.header}});
        for (const auto& row : t.rows) {
            J o = J::object();
            for (std::size_t c = 0; c < t.columns.size(); ++c)
                o[t.columns[c].key] = isInterval(t.columns[c].kind) && row[c].is_array() ? J{{"lo", row[c][0]}, {"hi", row[c][1]}} : row[c];
            rows.push_back(std::move(o));
        }
        tables.push_back({{"name", t.name}, {"title", t.title}, {"columns", cols}, {"rows", rows}, {"notes", t.notes}});
    }
    return J{{"report", r.name}, {"provenance", r.provenance}, {"notes", r.notes}, {"tables", tables}}.dump(1) + "\n";
}

std::string renderLatex(const Report& r)
{
    std::string out;
    for (const auto& l : provenanceLines(r))
        out += "% " + l + "\n";
    for (const auto& n : r.notes)
        out += "% note: " + n + "\n";
    for (const auto& t : r.tables) {
        out += fmt::format("\n% {}: {}\n", t.name, t.title);
        for (const auto& n : t.notes)
            out += "% " + n + "\n";
        std::string align, header;
        for (std::size_t c = 0; c < t.columns.size(); ++c) {
            align += t.columns[c].kind == Kind::Text ? 'l' : 'r';
            header += (c ? " & " : "") + latexEscape(t.columns[c].header);
        }
        out += fmt::format("\\begin{{tabular}}{{{}}}\n\\toprule\n{} \\\\\n\\midrule\n", align, header);
        for (const auto& row : t.rows) {
            std::string line;
            for (std::size_t c = 0; c < t.columns.size(); ++c) {
                const auto text = display(row[c], t.columns[c].kind);
                line += (c ? " & " : "") + (text == "n/a" ? std::string("--") : latexEscape(text));
            }
            out += line + " \\\\\n";
        }
        out += "\\bottomrule\n\\end{tabular}\n";
    }
    return out;
}

}  // namespace

Bundle computeBundle(const Store& store, const Filters& filters)
{
    return computeBundle(store, filters, analysis::loadRows(store, filters));
}

Bundle computeBundle(const Store& store, const Filters& filters, const std::vector<Row>& rows)
{
    Bundle b;
    b.methods = methodSummary(rows);
    b.deviance = deviance(rows);
    b.rescued = rescued(rows);
    b.cross = crossHardware(rows);
    addGolden(b.cross, store, filters);
    return b;
}

const std::vector<std::string>& tableNames()
{
    static const std::vector<std::string> names = {"method-summary", "category-method", "deviance",      "rounds",      "rescued",
                                                   "cross-hardware", "slow-fraction",   "taxonomy",      "utilisation",
                                                   "protocol"};
    return names;
}

bool isTableName(const std::string& name)
{
    const auto& n = tableNames();
    return std::find(n.begin(), n.end(), name) != n.end();
}

Report buildReport(Store& store, const std::string& name, const Filters& filters, const ReportOptions& options)
{
    if (!isTableName(name))
        throw std::invalid_argument(fmt::format("unknown table '{}'", name));
    const auto rows = analysis::loadRows(store, filters);
    Report rep;
    if (name == "method-summary")
        rep = methodSummaryReport(store, rows, options);
    else if (name == "category-method")
        rep = categoryMethodReport(rows);
    else if (name == "deviance")
        rep = devianceReport(rows);
    else if (name == "rounds")
        rep = roundsReport(store, filters);
    else if (name == "rescued")
        rep = rescuedReport(rows);
    else if (name == "cross-hardware")
        rep = crossHardwareReport(store, rows, filters);
    else if (name == "slow-fraction")
        rep.tables.push_back(slowTable(slowFraction(rows)));
    else if (name == "utilisation")
        rep = utilisationReport(store, rows);
    else if (name == "protocol")
        rep = protocolReport(store, rows);
    else
        rep = taxonomyReport(rows);
    rep.name = name;
    auto prov = provenance(store, name, filters, rows);
    for (auto& [k, v] : rep.provenance.items())
        prov[k] = v;
    rep.provenance = std::move(prov);
    for (const auto& w : rep.provenance.value("warnings", nlohmann::json::array()))
        rep.notes.push_back("warning: " + w.get<std::string>());
    if (!filters.tasks.empty()) {
        // What the task filter (the benchmark's own tasks, by default) left out, said once.
        std::string in;
        for (const auto& t : filters.tasks)
            in += (in.empty() ? "" : ",") + sqlQuote(t);
        std::vector<std::string> names;
        int evaluations = 0;
        // +task_id: a pass over the covering index evaluations_counting, not the task index and
        // every evaluation's row (issue 24).
        store.each("SELECT task_id, count(*) AS n FROM evaluation_rows WHERE +task_id NOT IN (" + in + ") GROUP BY task_id ORDER BY task_id",
                   [&](const Store::Cursor& c) {
                       names.push_back(c.text(0));
                       evaluations += int(c.i64(1));
                   });
        if (!names.empty())
            rep.notes.push_back(fmt::format("left out: {} evaluation(s) of {} task(s) outside {} ({}{}); --all-tasks includes them",
                                            evaluations, names.size(), filters.tasksLabel.empty() ? "the task filter" : filters.tasksLabel,
                                            fmt::join(names.begin(), names.begin() + std::min<std::size_t>(names.size(), 8), ", "),
                                            names.size() > 8 ? ", ..." : ""));
    }
    if (rows.empty())
        rep.notes.push_back(filters.empty() ? "no evaluations in this database" : "no evaluations match these filters");
    return rep;
}

std::string render(const Report& report, Format format)
{
    switch (format) {
    case Format::Csv: return renderCsv(report);
    case Format::Json: return renderJson(report);
    case Format::Latex: return renderLatex(report);
    case Format::Text: break;
    }
    return renderText(report);
}

}  // namespace kbx::stats
