// SPDX-License-Identifier: MIT
#include "stats_tables.h"

#include "query_reports.h"
#include "report_detail.h"
#include "store.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <exception>
#include <numeric>
#include <optional>
#include <set>
#include <string_view>
#include <thread>
#include <tuple>
#include <unordered_map>

namespace kbx::stats {

using namespace detail;

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

namespace {

/// The speedups of the timed correct rows among `rows` (indices into facts, in their order), with
/// their summed eager and kernel times.
struct Timed {
    std::vector<double> speedups, baseline, candidate;
};
template <typename Indices>
Timed timedOf(const analysis::Facts& f, const Indices& rows)
{
    Timed t;
    for (auto i : rows) {
        const auto& r = f.rows[std::size_t(i)];
        if (r.pass && r.timed) {
            t.speedups.push_back(r.speedup);
            t.baseline.push_back(r.baselineMsSum);
            t.candidate.push_back(r.candidateMsSum);
        }
    }
    return t;
}

/// Row indices grouped by a key (std::map order of the key), each group in row order.
template <typename Key, typename KeyFn>
std::map<Key, std::vector<std::uint32_t>> groupBy(const analysis::Facts& f, KeyFn&& keyOf)
{
    std::map<Key, std::vector<std::uint32_t>> groups;
    std::vector<std::uint32_t>* last = nullptr;
    Key lastKey{};
    for (std::size_t i = 0; i < f.rows.size(); ++i) {
        Key k = keyOf(f.rows[i]);
        if (!last || k != lastKey) {
            last = &groups[k];
            lastKey = k;
        }
        last->push_back(std::uint32_t(i));
    }
    return groups;
}

}  // namespace

// ---- Table 1 ---------------------------------------------------------------------------------------

std::vector<MethodSummary> methodSummary(const std::vector<Row>& rows, const std::map<std::int64_t, QualityValues>& quality)
{
    return methodSummary(analysis::factsOf(rows), quality);
}

std::vector<MethodSummary> methodSummary(const analysis::Facts& f, const std::map<std::int64_t, QualityValues>& quality)
{
    using Key = std::tuple<std::int32_t, std::int32_t, int>;
    const auto groups = groupBy<Key>(f, [](const analysis::Facts::Fact& r) { return Key{r.gpu, r.method, r.round}; });
    std::unordered_map<std::int64_t, const QualityValues*> q;
    q.reserve(quality.size());
    for (const auto& [id, v] : quality)
        q.emplace(id, &v);
    std::vector<MethodSummary> out;
    out.reserve(groups.size());
    std::vector<std::vector<double>> values;
    for (const auto& [key, group] : groups) {
        MethodSummary m;
        m.gpu = f.gpus[std::size_t(std::get<0>(key))];
        m.method = f.methods[std::size_t(std::get<1>(key))];
        m.round = std::get<2>(key);
        m.n = int(group.size());
        std::vector<double> mi, cc;
        for (auto i : group) {
            const auto& r = f.rows[i];
            m.call.n++;
            m.exe.n++;
            m.call.k += r.callOk;
            m.exe.k += r.exeOk;
            m.exeExt.n++;
            m.exeExt.k += r.exeOk && (r.extOk < 0 || r.extOk == 1);
            if (r.exeOk && !q.empty())
                if (auto it = q.find(r.submissionId); it != q.end()) {
                    if (it->second->mi)
                        mi.push_back(*it->second->mi);
                    if (it->second->ccMean)
                        cc.push_back(*it->second->ccMean);
                }
        }
        m.exeGivenCall.n = m.call.k;
        for (auto i : group)
            m.exeGivenCall.k += f.rows[i].callOk && f.rows[i].exeOk;
        auto t = timedOf(f, group);
        m.speedup = speedupStatsWithoutCI(t.speedups, t.baseline, t.candidate);
        if (m.speedup.n > 0) {
            for (double p : fastPThresholds()) {
                int k = 0;
                for (auto i : group)
                    k += f.rows[i].pass && f.rows[i].timed && f.rows[i].speedup > p;
                m.fastP.push_back(double(k) / double(m.n));
            }
        }
        m.quality.measured = int(mi.size());
        if (!mi.empty())
            m.quality.miMean = std::accumulate(mi.begin(), mi.end(), 0.0) / double(mi.size());
        if (!cc.empty())
            m.quality.ccMean = std::accumulate(cc.begin(), cc.end(), 0.0) / double(cc.size());
        out.push_back(std::move(m));
        values.push_back(std::move(t.speedups));
    }
    std::vector<BootstrapJob> jobs(out.size());
    for (std::size_t i = 0; i < out.size(); ++i)
        if (!values[i].empty())
            jobs[i] = {std::move(values[i]), &out[i].speedup.geomeanCI};
    bootstrapGeomeanCIs(jobs);
    return out;
}

// ---- category x method -------------------------------------------------------------------------------

CategoryMethod categoryMethod(const std::vector<Row>& rows)
{
    return categoryMethod(analysis::factsOf(rows));
}

namespace {

/// The counts of category-method: per (gpu, round, category) and method, and which methods
/// evaluated each (gpu, round).
struct CategoryCounts {
    using Key = std::tuple<std::int32_t, int, std::int32_t>;  // (gpu, round, category)
    struct Counts {
        Rate call, exe;
    };
    struct Cells {
        std::vector<Counts> byMethod;  ///< by method index; n == 0: not evaluated there
        Counts all;                    ///< every method pooled
        std::size_t index = 0;         ///< in the order of the keys
    };
    struct Methods {
        std::vector<char> seen;  ///< by method index
        std::size_t count = 0;
    };
    std::map<Key, Cells> cells;
    std::map<std::pair<std::int32_t, int>, Methods> methods;  ///< (gpu, round)
};

CategoryCounts countCategoryMethod(const analysis::Facts& f)
{
    CategoryCounts out;
    const std::size_t nMethods = f.methods.size();
    auto count = [](CategoryCounts::Counts& c, const analysis::Facts::Fact& r) {
        c.call.n++;
        c.exe.n++;
        c.call.k += r.callOk;
        c.exe.k += r.exeOk;
    };
    // Rows come by id, which keeps a (gpu, round, category) together in runs: the maps are looked
    // up when the key changes, not per row.
    CategoryCounts::Cells* last = nullptr;
    CategoryCounts::Methods* lastMethods = nullptr;
    CategoryCounts::Key lastKey{};
    for (const auto& r : f.rows) {
        const CategoryCounts::Key key{r.gpu, r.round, r.category};
        if (!last || key != lastKey) {
            last = &out.cells[key];
            if (last->byMethod.empty())
                last->byMethod.resize(nMethods);
            lastMethods = &out.methods[{r.gpu, r.round}];
            if (lastMethods->seen.empty())
                lastMethods->seen.resize(nMethods, 0);
            lastKey = key;
        }
        count(last->byMethod[std::size_t(r.method)], r);
        count(last->all, r);
        char& seen = lastMethods->seen[std::size_t(r.method)];
        lastMethods->count += !seen;
        seen = 1;
    }
    std::size_t index = 0;
    for (auto& [key, c] : out.cells)
        c.index = index++;
    return out;
}

/// Tasks no method solves: per (gpu, round, category, task), the methods that evaluated it and
/// whether any solved it, from the rows sorted by that key.
std::vector<AllMethodFailure> allMethodFailures(const analysis::Facts& f, const CategoryCounts& counts)
{
    struct Attempt {
        std::uint32_t cell;
        std::int32_t task, method;
        bool exeOk;
    };
    std::vector<Attempt> attempts;
    attempts.reserve(f.rows.size());
    const CategoryCounts::Cells* at = nullptr;
    CategoryCounts::Key atKey{};
    for (const auto& r : f.rows) {
        const CategoryCounts::Key key{r.gpu, r.round, r.category};
        if (!at || key != atKey) {
            at = &counts.cells.at(key);
            atKey = key;
        }
        attempts.push_back({std::uint32_t(at->index), r.task, r.method, r.exeOk});
    }
    std::sort(attempts.begin(), attempts.end(), [](const Attempt& a, const Attempt& b) {
        return std::tie(a.cell, a.task, a.method) < std::tie(b.cell, b.task, b.method);
    });
    std::vector<AllMethodFailure> out;
    std::size_t i = 0;
    for (const auto& [key, c] : counts.cells) {
        const auto& [gpu, round, category] = key;
        const auto all = counts.methods.at({gpu, round}).count;
        AllMethodFailure& fail = out.emplace_back();
        fail.gpu = f.gpus[std::size_t(gpu)];
        fail.round = round;
        fail.category = f.categories[std::size_t(category)];
        fail.methods = int(all);
        while (i < attempts.size() && attempts[i].cell == c.index) {
            const auto task = attempts[i].task;
            std::size_t distinct = 0;
            bool solved = false;
            std::int32_t lastMethod = -1;
            for (; i < attempts.size() && attempts[i].cell == c.index && attempts[i].task == task; ++i) {
                if (attempts[i].method != lastMethod) {
                    ++distinct;
                    lastMethod = attempts[i].method;
                }
                solved = solved || attempts[i].exeOk;
            }
            if (distinct != all)
                continue;  // not attempted by every method
            fail.failedByAll.n++;
            fail.failedByAll.k += !solved;
        }
    }
    return out;
}

}  // namespace

CategoryMethod categoryMethod(const analysis::Facts& f)
{
    const CategoryCounts counts = countCategoryMethod(f);
    CategoryMethod out;
    for (const auto& [key, c] : counts.cells) {
        const auto& [gpu, round, category] = key;
        auto emit = [&](const CategoryCounts::Counts& n, const std::string& method) {
            CategoryMethodCell& cell = out.cells.emplace_back();
            cell.gpu = f.gpus[std::size_t(gpu)];
            cell.round = round;
            cell.category = f.categories[std::size_t(category)];
            cell.method = method;
            cell.call = n.call;
            cell.exe = n.exe;
        };
        for (std::size_t m = 0; m < c.byMethod.size(); ++m)
            if (c.byMethod[m].call.n > 0)
                emit(c.byMethod[m], f.methods[m]);
        if (counts.methods.at({gpu, round}).count > 1)
            emit(c.all, kAllMethods);
    }
    out.failures = allMethodFailures(f, counts);
    return out;
}

// ---- deviance ----------------------------------------------------------------------------------------

std::vector<DevianceGroup> deviance(const std::vector<Row>& rows)
{
    return deviance(analysis::factsOf(rows));
}

std::vector<DevianceGroup> deviance(const analysis::Facts& f)
{
    // Per (GPU, round), the outcomes grouped by covariate pattern (category, method): the GLM fits
    // the patterns, so the counts are all it needs.
    std::map<std::pair<std::int32_t, int>, std::map<std::pair<std::int32_t, std::int32_t>, std::pair<int, int>>> groups;
    for (const auto& r : f.rows) {
        auto& kn = groups[{r.gpu, r.round}][{r.category, r.method}];
        kn.first += r.exeOk;
        kn.second += 1;
    }
    std::vector<DevianceGroup> out;
    std::vector<std::vector<glm::Pattern>> inputs;
    for (const auto& [key, patterns] : groups) {
        std::vector<glm::Pattern> p;
        p.reserve(patterns.size());
        for (const auto& [levels, kn] : patterns)
            p.push_back({{f.categories[std::size_t(levels.first)], f.methods[std::size_t(levels.second)]}, kn.first, kn.second});
        out.push_back({f.gpus[std::size_t(key.first)], key.second, {}});
        inputs.push_back(std::move(p));
    }
    // The fits are independent (one per GPU and round: thousands in a database of many rounds), so
    // they are spread over the cores; each result lands in its own group, in the order above.
    const std::vector<std::string> factors = {"category", "method"};
    const unsigned cores = std::max(1u, std::thread::hardware_concurrency());
    const auto threads = std::min<std::size_t>({inputs.size() / 16, std::size_t(cores), 16});
    if (threads <= 1) {
        for (std::size_t i = 0; i < inputs.size(); ++i)
            out[i].analysis = glm::devianceAnalysisOfPatterns(factors, inputs[i]);
        return out;
    }
    std::atomic<std::size_t> next{0};
    std::vector<std::exception_ptr> errors(threads);
    auto worker = [&](std::size_t t) {
        try {
            for (std::size_t k = next++; k < inputs.size(); k = next++)
                out[k].analysis = glm::devianceAnalysisOfPatterns(factors, inputs[k]);
        } catch (...) {
            errors[t] = std::current_exception();
            next = inputs.size();
        }
    };
    std::vector<std::thread> pool;
    for (std::size_t t = 1; t < threads; ++t)
        pool.emplace_back(worker, t);
    worker(0);
    for (auto& th : pool)
        th.join();
    for (auto& e : errors)
        if (e)
            std::rethrow_exception(e);
    return out;
}

// ---- rescued vs persistent -------------------------------------------------------------------------------

Rescued rescued(const std::vector<Row>& rows)
{
    return rescued(analysis::factsOf(rows));
}

Rescued rescued(const analysis::Facts& f)
{
    Rescued out;
    // (gpu, method, task) -> round -> latest row
    using Key = std::tuple<std::int32_t, std::int32_t, std::int32_t>;
    std::map<Key, std::map<int, std::uint32_t>> series;
    for (std::size_t i = 0; i < f.rows.size(); ++i) {
        const auto& r = f.rows[i];
        auto [slot, fresh] = series[{r.gpu, r.method, r.task}].try_emplace(r.round, std::uint32_t(i));
        if (!fresh && f.rows[slot->second].id < r.id)
            slot->second = std::uint32_t(i);
    }
    // (gpu, method name) -> cohort -> last rows; the pooled rows under the name "all methods", in
    // the order of the names as the strings sort.
    std::map<std::pair<std::int32_t, std::string>, std::map<std::string, std::vector<std::uint32_t>>> cohorts;
    // gpu -> task -> cohort -> (method, row)
    std::map<std::int32_t, std::map<std::int32_t, std::map<std::string, std::vector<std::pair<std::int32_t, std::uint32_t>>>>> byTask;
    for (const auto& [key, byRound] : series) {
        if (byRound.size() < 2)
            continue;
        out.seriesWithRounds++;
        const auto& [gpu, method, task] = key;
        const auto& first = f.rows[byRound.begin()->second];
        const auto last = byRound.rbegin()->second;
        std::string cohort;
        if (!first.exeOk && f.rows[last].exeOk)
            cohort = "rescued";
        else if (std::all_of(byRound.begin(), byRound.end(), [&](const auto& kv) { return f.rows[kv.second].exeOk; }))
            cohort = "persistent";
        else
            continue;
        cohorts[{gpu, f.methods[std::size_t(method)]}][cohort].push_back(last);
        cohorts[{gpu, kAllMethods}][cohort].push_back(last);
        byTask[gpu][task][cohort].push_back({method, last});
    }
    std::map<std::int32_t, std::set<std::string>> methodsPerGpu;
    for (const auto& [key, _] : cohorts)
        if (key.second != kAllMethods)
            methodsPerGpu[key.first].insert(key.second);
    std::vector<BootstrapJob> jobs;
    std::vector<std::vector<double>> values;
    for (const auto& [key, byCohort] : cohorts) {
        if (key.second == kAllMethods && methodsPerGpu[key.first].size() < 2)
            continue;  // one method: the pooled rows would repeat it
        for (const char* c : {"rescued", "persistent"}) {
            CohortStats s;
            s.gpu = f.gpus[std::size_t(key.first)];
            s.method = key.second;
            s.cohort = c;
            auto it = byCohort.find(c);
            std::vector<double> v;
            if (it != byCohort.end()) {
                s.kernels = int(it->second.size());
                auto t = timedOf(f, it->second);
                s.speedup = speedupStatsWithoutCI(t.speedups, t.baseline, t.candidate);
                v = std::move(t.speedups);
            }
            out.cohorts.push_back(std::move(s));
            values.push_back(std::move(v));
        }
    }
    for (std::size_t i = 0; i < out.cohorts.size(); ++i)
        if (!values[i].empty())
            jobs.push_back({std::move(values[i]), &out.cohorts[i].speedup.geomeanCI});
    for (const auto& [gpu, tasks] : byTask) {
        PairedCohorts p;
        p.gpu = f.gpus[std::size_t(gpu)];
        std::vector<double> ratios;
        for (const auto& [task, byCohort] : tasks) {
            auto r = byCohort.find("rescued");
            auto q = byCohort.find("persistent");
            if (r == byCohort.end() || q == byCohort.end())
                continue;
            bool any = false;
            for (const auto& [m1, ai] : r->second)
                for (const auto& [m2, bi] : q->second) {
                    const auto& a = f.rows[ai];
                    const auto& b = f.rows[bi];
                    if (a.pass && a.timed && b.pass && b.timed) {
                        ratios.push_back(a.speedup / b.speedup);
                        p.rescuedFaster += a.speedup > b.speedup;
                        any = true;
                    }
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
    bootstrapGeomeanCIs(jobs);
    return out;
}

// ---- cross-hardware --------------------------------------------------------------------------------------

std::vector<SlowFraction> slowFraction(const std::vector<Row>& rows)
{
    return slowFraction(analysis::factsOf(rows));
}

std::vector<SlowFraction> slowFraction(const analysis::Facts& f)
{
    // (gpu, method) and (gpu, pooled) rates; listed per GPU with the pooled row "all methods" where
    // the strings sort it among the methods.
    std::map<std::pair<std::int32_t, std::int32_t>, Rate> by;
    std::map<std::int32_t, Rate> pooled;
    std::map<std::int32_t, std::set<std::int32_t>> methods;
    for (const auto& r : f.rows) {
        if (!r.pass || !r.timed)
            continue;
        for (Rate* rate : {&by[{r.gpu, r.method}], &pooled[r.gpu]}) {
            rate->n++;
            rate->k += r.speedup < 1.0;
        }
        methods[r.gpu].insert(r.method);
    }
    std::map<std::pair<std::int32_t, std::string>, Rate> named;
    for (const auto& [key, rate] : by)
        named[{key.first, f.methods[std::size_t(key.second)]}] = rate;
    for (const auto& [gpu, rate] : pooled)
        if (methods[gpu].size() >= 2)  // one method: the pooled row would repeat it
            named[{gpu, kAllMethods}] = rate;
    std::vector<SlowFraction> out;
    for (const auto& [key, rate] : named)
        out.push_back({f.gpus[std::size_t(key.first)], key.second, rate});
    return out;
}

CrossHardware crossHardware(const std::vector<Row>& rows)
{
    return crossHardware(analysis::factsOf(rows));
}

CrossHardware crossHardware(const analysis::Facts& f)
{
    CrossHardware out;
    std::set<std::int32_t> gpus;
    struct Kernel {
        std::int32_t task = 0;
        std::map<std::int32_t, double> speedups;  // by GPU
    };
    std::map<std::tuple<std::int32_t, int, std::int64_t>, Kernel> kernels;
    for (const auto& r : f.rows) {
        if (!r.pass || !r.timed)
            continue;
        gpus.insert(r.gpu);
        auto& k = kernels[{r.method, r.round, r.candidateId}];
        k.task = r.task;
        k.speedups[r.gpu] = r.speedup;
    }
    for (auto g : gpus)
        out.gpus.push_back(f.gpus[std::size_t(g)]);
    std::vector<double> spreads;
    for (const auto& [key, k] : kernels) {
        if (k.speedups.size() < 2)
            continue;
        auto [lo, hi] = std::minmax_element(k.speedups.begin(), k.speedups.end(),
                                            [](const auto& a, const auto& b) { return a.second < b.second; });
        CrossKernel c;
        c.method = f.methods[std::size_t(std::get<0>(key))];
        c.round = std::get<1>(key);
        c.taskId = f.tasks[std::size_t(k.task)];
        for (const auto& [g, s] : k.speedups)
            c.speedups[f.gpus[std::size_t(g)]] = s;
        c.spread = hi->second / lo->second;
        c.fastestGpu = f.gpus[std::size_t(hi->first)];
        c.slowestGpu = f.gpus[std::size_t(lo->first)];
        spreads.push_back(c.spread);
        out.kernels.push_back(std::move(c));
    }
    std::stable_sort(out.kernels.begin(), out.kernels.end(), [](const CrossKernel& a, const CrossKernel& b) { return a.spread > b.spread; });
    if (!spreads.empty()) {
        out.spreadMedian = medianOf(spreads);
        out.spreadMax = *std::max_element(spreads.begin(), spreads.end());
    }
    out.slow = slowFraction(f);
    return out;
}

void addGolden(CrossHardware& out, const Store& store, const Filters& filters)
{
    // task -> gpu -> (idx, input_size) -> ms
    std::map<std::string, std::map<std::string, std::map<std::pair<int, std::string>, double>>> byTask;
    std::map<std::string, std::string> taskIds;
    std::set<std::string> gpus;
    for (const auto& g : query::positiveGoldenTimings(store)) {
        const auto& gpu = g.gpu;
        if (!allowed(filters.gpus, gpu))
            continue;
        const auto& task = g.task;
        const std::string& taskId = g.taskId;
        if (!filters.categories.empty() && !allowed(filters.categories, taskId.substr(0, taskId.find('/'))))
            continue;
        taskIds[task] = taskId;
        byTask[task][gpu][{g.index, g.inputSize}] = g.ms;
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

Bundle computeBundle(const Store& store, const Filters& filters)
{
    return computeBundle(store, filters, analysis::loadFacts(store, filters));
}

Bundle computeBundle(const Store& store, const Filters& filters, const std::vector<Row>& rows)
{
    return computeBundle(store, filters, analysis::factsOf(rows));
}

Bundle computeBundle(const Store& store, const Filters& filters, const analysis::Facts& facts)
{
    return computeBundle(store, filters, facts, BundleAll);
}

Bundle computeBundle(const Store& store, const Filters& filters, const analysis::Facts& facts, unsigned parts)
{
    Bundle b;
    if (parts & BundleMethods)
        b.methods = methodSummary(facts);
    if (parts & BundleDeviance)
        b.deviance = deviance(facts);
    if (parts & BundleRescued)
        b.rescued = rescued(facts);
    if (parts & BundleCross) {
        b.cross = crossHardware(facts);
        addGolden(b.cross, store, filters);
    }
    return b;
}

}  // namespace kbx::stats
