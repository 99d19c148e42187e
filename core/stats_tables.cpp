// SPDX-License-Identifier: MIT
#include "stats_tables.h"

#include "derived.h"
#include "perfstats.h"
#include "quality.h"
#include "rounds.h"
#include "store.h"
#include "taxonomy.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <optional>
#include <string_view>
#include <atomic>
#include <cctype>
#include <cstdlib>
#include <exception>
#include <random>
#include <set>
#include <stdexcept>
#include <thread>
#include <tuple>
#include <unordered_map>

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
    // analysis::quantile over the sorted statistics, from the two order statistics it reads (a
    // selection instead of a full sort: the same values, the same arithmetic).
    auto at = [&stats](double q) {
        if (stats.empty())
            return 0.0;
        const double h = (double(stats.size()) - 1.0) * q;
        const auto lo = static_cast<std::size_t>(std::floor(h));
        const auto hi = std::min(lo + 1, stats.size() - 1);
        std::nth_element(stats.begin(), stats.begin() + std::ptrdiff_t(lo), stats.end());
        const double a = stats[lo];
        const double b = hi == lo ? a : *std::min_element(stats.begin() + std::ptrdiff_t(lo) + 1, stats.end());
        return a + (h - double(lo)) * (b - a);
    };
    const double lower = at((1.0 - level) / 2.0);
    return {lower, at(1.0 - (1.0 - level) / 2.0)};
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

// ---- bootstrap over many groups --------------------------------------------------------------------

void bootstrapGeomeanCIs(std::vector<BootstrapJob>& jobs)
{
    // Each group's interval from its own generator (bootstrapGeomeanCI's seed): the groups are
    // independent, so they are spread over threads, largest first; the intervals are those of one
    // call per group. (At a million evaluations the resamples, 2,000 per group over every timed
    // kernel, are the largest part of the tables that show speedups.)
    std::vector<std::size_t> order;
    std::size_t work = 0;
    for (std::size_t i = 0; i < jobs.size(); ++i)
        if (jobs[i].out) {
            order.push_back(i);
            work += jobs[i].values.size();
        }
    std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return jobs[a].values.size() > jobs[b].values.size(); });
    const unsigned cores = std::max(1u, std::thread::hardware_concurrency());
    const auto threads = std::min<std::size_t>({order.size(), std::size_t(cores), 16});
    if (threads <= 1 || work < 20000) {
        for (auto i : order)
            *jobs[i].out = bootstrapGeomeanCI(jobs[i].values);
        return;
    }
    std::atomic<std::size_t> next{0};
    std::vector<std::exception_ptr> errors(threads);
    auto worker = [&](std::size_t t) {
        try {
            for (std::size_t k = next++; k < order.size(); k = next++)
                *jobs[order[k]].out = bootstrapGeomeanCI(jobs[order[k]].values);
        } catch (...) {
            errors[t] = std::current_exception();
            next = order.size();
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
}

namespace {

/// speedupStats() without its bootstrap CI: the values are handed back for bootstrapGeomeanCIs().
SpeedupStats speedupStatsWithoutCI(const std::vector<double>& speedups, const std::vector<double>& baselineMs,
                                   const std::vector<double>& candidateMs)
{
    SpeedupStats s;
    s.n = int(speedups.size());
    if (speedups.empty())
        return s;
    s.geomean = geomeanOf(speedups);
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

CategoryMethod categoryMethod(const analysis::Facts& f)
{
    CategoryMethod out;
    // (gpu, round, category) -> method -> cell, and the pooled cell of every method
    using Key = std::tuple<std::int32_t, int, std::int32_t>;
    struct Cells {
        std::map<std::int32_t, CategoryMethodCell> byMethod;
        CategoryMethodCell all;
        std::size_t index = 0;
    };
    std::map<Key, Cells> cells;
    // (gpu, round) -> methods
    std::map<std::pair<std::int32_t, int>, std::set<std::int32_t>> methods;
    auto count = [](CategoryMethodCell& c, const analysis::Facts::Fact& r) {
        c.call.n++;
        c.exe.n++;
        c.call.k += r.callOk;
        c.exe.k += r.exeOk;
    };
    Cells* last = nullptr;
    Key lastKey{};
    for (std::size_t i = 0; i < f.rows.size(); ++i) {
        const auto& r = f.rows[i];
        const Key key{r.gpu, r.round, r.category};
        if (!last || key != lastKey) {
            last = &cells[key];
            lastKey = key;
        }
        count(last->byMethod[r.method], r);
        count(last->all, r);
        methods[{r.gpu, r.round}].insert(r.method);
    }
    std::size_t index = 0;
    for (auto& [key, c] : cells) {
        c.index = index++;
        const auto& [gpu, round, category] = key;
        auto label = [&](CategoryMethodCell& cell, const std::string& method) {
            cell.gpu = f.gpus[std::size_t(gpu)];
            cell.round = round;
            cell.category = f.categories[std::size_t(category)];
            cell.method = method;
        };
        for (auto& [m, cell] : c.byMethod) {
            label(cell, f.methods[std::size_t(m)]);
            out.cells.push_back(cell);
        }
        if (methods[{gpu, round}].size() > 1) {
            label(c.all, kAllMethods);
            out.cells.push_back(c.all);
        }
    }
    // Tasks no method solves: per (gpu, round, category, task), the methods that evaluated it and
    // whether any solved it, from the rows sorted by that key.
    struct Attempt {
        std::uint32_t cell;
        std::int32_t task, method;
        bool exeOk;
    };
    std::vector<Attempt> attempts;
    attempts.reserve(f.rows.size());
    {
        const Cells* at = nullptr;
        Key atKey{};
        for (const auto& r : f.rows) {
            const Key key{r.gpu, r.round, r.category};
            if (!at || key != atKey) {
                at = &cells.at(key);
                atKey = key;
            }
            attempts.push_back({std::uint32_t(at->index), r.task, r.method, r.exeOk});
        }
    }
    std::sort(attempts.begin(), attempts.end(), [](const Attempt& a, const Attempt& b) {
        return std::tie(a.cell, a.task, a.method) < std::tie(b.cell, b.task, b.method);
    });
    std::size_t i = 0;
    for (const auto& [key, c] : cells) {
        const auto& [gpu, round, category] = key;
        const auto all = methods[{gpu, round}].size();
        AllMethodFailure fail;
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
        out.failures.push_back(std::move(fail));
    }
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
    return provenance(store, name, filters, analysis::factsOf(rows));
}

nlohmann::json provenance(const Store& store, const std::string& name, const Filters& filters, const analysis::Facts& f)
{
    std::set<std::int64_t> runIds;
    std::set<std::int32_t> gpuIndex, methodIndex;
    std::map<std::int64_t, std::string> runGpu;
    {
        std::int64_t lastRun = -1;
        std::int32_t lastGpu = -1, lastMethod = -1;
        for (const auto& r : f.rows) {
            if (r.runId != lastRun || r.gpu != lastGpu) {
                runIds.insert(r.runId);
                runGpu[r.runId] = f.gpus[std::size_t(r.gpu)];
                gpuIndex.insert(r.gpu);
                lastRun = r.runId;
                lastGpu = r.gpu;
            }
            if (r.method != lastMethod) {
                methodIndex.insert(r.method);
                lastMethod = r.method;
            }
        }
    }
    std::set<std::string> gpus, methods;
    for (auto g : gpuIndex)
        gpus.insert(f.gpus[std::size_t(g)]);
    for (auto m : methodIndex)
        methods.insert(f.methods[std::size_t(m)]);
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
        std::map<std::int64_t, std::string> device;
        store.each("SELECT id, device FROM runs WHERE id IN (" + list + ")", [&](const Store::Cursor& c) { device[c.i64(0)] = c.text(1); });
        // Every evaluation of these runs that has timings (counted or not): its run and perf protocol.
        // The counted ones from counted_evaluations (the protocol read from the evidence when it was
        // stored), the others (re-evaluated since; few) from their evidence; one probe each, by id
        // (issue 24: reading every timed evaluation's evidence JSON was most of a report at 1M).
        derived::prepare(store);
        const bool indexed = derived::current(store);  // evaluations_run_taxonomy is there
        auto timed = [&](std::int64_t run, const std::string& protocol) {
            auto d = device.find(run);
            if (d == device.end())
                return;
            if (d->second == "imported") {
                perf.insert("seed speedup (imported)");
                return;
            }
            timedRuns.insert(run);
            if (!protocol.empty())
                perf.insert(protocol);
        };
        {
            store.each("SELECT c.run_id, coalesce(c.perf_protocol, '') FROM (SELECT DISTINCT evaluation_id AS id FROM timings) t "
                       "CROSS JOIN counted_evaluations c ON c.evaluation_id = t.id",
                       [&](const Store::Cursor& c) { timed(c.i64(0), c.text(1)); });
            store.each("SELECT e.run_id, coalesce(json_extract(e.evidence, '$.perf.protocol'), '') FROM (SELECT DISTINCT evaluation_id AS id "
                       "FROM timings) t CROSS JOIN evaluations e ON e.id = t.id WHERE NOT EXISTS (SELECT 1 FROM counted_evaluations c "
                       "WHERE c.evaluation_id = t.id) AND e.run_id IN (" + list + ")",
                       [&](const Store::Cursor& c) { timed(c.i64(0), c.text(1)); });
        }
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
        if (indexed) {
            // Taxonomy versions of every evaluation of these runs: per run, the next larger version by
            // the index evaluations_run_taxonomy (a seek each, not a pass over the evaluations).
            for (auto id : runIds) {
                std::string above;
                for (;;) {
                    std::optional<int> v;
                    store.each(fmt::format("SELECT min(taxonomy_version) FROM evaluations WHERE run_id = {}{}", id, above),
                               [&](const Store::Cursor& c) {
                                   if (!c.isNull(0))
                                       v = int(c.i64(0));
                               });
                    if (!v)
                        break;
                    taxonomy.insert(*v);
                    above = fmt::format(" AND taxonomy_version > {}", *v);
                }
            }
        } else {
            // Taxonomy versions of every evaluation of these runs; perf protocols of the timed ones only.
            // One pass over timings each (a correlated count per evaluation made this quadratic on a
            // database without the timings index).
            store.each("SELECT DISTINCT e.taxonomy_version FROM evaluations e WHERE +e.run_id IN (" + list + ")",
                       [&](const Store::Cursor& c) { taxonomy.insert(int(c.i64(0))); });
        }
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

/// The code-quality cache's rows of these submissions (sorted ids): quality::cached(), or for many
/// ids one pass over the cache (at a million evaluations the ids are most submissions).
std::map<std::int64_t, CodeQualityRow> cachedQuality(const Store& store, const std::vector<std::int64_t>& ids)
{
    if (ids.size() < 5000)
        return quality::cached(store, ids);
    std::map<std::int64_t, CodeQualityRow> out;
    store.each("SELECT submission_id, mi, cc_mean, cc_max, sloc, tool_version, error FROM code_quality", [&](const Store::Cursor& c) {
        const auto id = c.i64(0);
        if (!std::binary_search(ids.begin(), ids.end(), id))
            return;
        CodeQualityRow r;
        r.submissionId = id;
        if (c.isNumber(1))
            r.mi = c.f64(1);
        if (c.isNumber(2))
            r.ccMean = c.f64(2);
        if (c.isNumber(3))
            r.ccMax = static_cast<int>(c.f64(3));
        if (c.isNumber(4))
            r.sloc = static_cast<int>(c.f64(4));
        r.toolVersion = c.text(5);
        r.error = c.text(6);
        out[id] = std::move(r);
    });
    return out;
}

Report methodSummaryReport(Store& store, const analysis::Facts& facts, const ReportOptions& opt)
{
    Report rep;
    std::map<std::int64_t, QualityValues> qv;
    bool available = true;
    std::vector<std::int64_t> ids;
    for (const auto& r : facts.rows)
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
        q = cachedQuality(store, ids);
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
    const auto ms = methodSummary(facts, qv);
    rep.tables.push_back(methodSummaryTable(ms, available));
    rep.tables.push_back(speedupTable(ms));
    if (!tools.empty())
        rep.provenance["quality_tool"] = std::vector<std::string>(tools.begin(), tools.end());
    return rep;
}

Report categoryMethodReport(const analysis::Facts& facts)
{
    Report rep;
    const auto cm = categoryMethod(facts);
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

Report devianceReport(const analysis::Facts& facts)
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
    for (const auto& g : deviance(facts)) {
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

Report roundsReport(const Store& store, const analysis::Facts& all, const Filters& f)
{
    Report rep;
    const auto ra = rounds::analyseRounds(store, all, f.tasks);
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
    std::string corpusRuns;  // the runs first (few), then only their evaluations
    store.each("SELECT id FROM runs WHERE json_extract(provenance, '$.format') = 'corpus'",
               [&](const Store::Cursor& c) { corpusRuns += (corpusRuns.empty() ? "" : ",") + std::to_string(c.i64(0)); });
    if (!corpusRuns.empty())
        for (const auto& j : store.query("SELECT DISTINCT v.gpu AS gpu, v.method AS method FROM evaluation_rows v WHERE v.run_id IN (" +
                                         corpusRuns + ")")) {
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

Report rescuedReport(const analysis::Facts& facts)
{
    Report rep;
    const auto r = rescued(facts);
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

/// What the utilisation table reads of a timing: its median ms and its roofline's bound, bandwidth
/// and compute utilisation and flag, as nlohmann::json's value(key, default) gives them.
struct Roofline {
    double ms = 0, bound = 0, bandwidth = 0, compute = 0;
    bool faster = false;
};

/// The roofline object's JSON text (SQLite's minified rendering of it) read without a JSON library
/// where it is a flat object of numbers, booleans, null and plain strings (what kbx stores; 276k of
/// them at a million evaluations); anything else through nlohmann::json as before (which throws
/// where a value has the wrong type, as the report did). nullopt: no object or no bound_ms. Numbers
/// through strtod, as nlohmann converts them (integers included: the same double either way).
std::optional<Roofline> roofline(const std::string& text, const Store::Cursor& c)
{
    auto slow = [&]() -> std::optional<Roofline> {
        auto rl = nlohmann::json::parse(text, nullptr, false);
        if (!rl.is_object() || !rl.contains("bound_ms"))
            return std::nullopt;
        rl["ms"] = c.json(1);
        return Roofline{rl.value("ms", 0.0), rl.value("bound_ms", 0.0), rl.value("bandwidth_util", 0.0), rl.value("compute_util", 0.0),
                        rl.value("faster_than_bound", false)};
    };
    if (!c.isNumber(1) || text.find('\\') != std::string::npos)
        return slow();
    Roofline out;
    out.ms = c.f64(1);
    bool bound = false;
    std::size_t i = 0;
    const std::size_t n = text.size();
    auto expect = [&](char ch) {
        if (i < n && text[i] == ch) {
            ++i;
            return true;
        }
        return false;
    };
    if (!expect('{'))
        return slow();
    if (expect('}'))
        return std::nullopt;  // an empty object: no bound_ms
    for (;;) {
        if (!expect('"'))
            return slow();
        const auto keyEnd = text.find('"', i);
        if (keyEnd == std::string::npos)
            return slow();
        const std::string_view key(text.data() + i, keyEnd - i);
        i = keyEnd + 1;
        if (!expect(':'))
            return slow();
        // The value: a number, true, false, null, or a string without escapes.
        const std::size_t start = i;
        enum { Number, True, False, Null, String } kind;
        if (i < n && text[i] == '"') {
            const auto end = text.find('"', i + 1);
            if (end == std::string::npos)
                return slow();
            i = end + 1;
            kind = String;
        } else if (text.compare(i, 4, "true") == 0) {
            i += 4;
            kind = True;
        } else if (text.compare(i, 5, "false") == 0) {
            i += 5;
            kind = False;
        } else if (text.compare(i, 4, "null") == 0) {
            i += 4;
            kind = Null;
        } else {
            while (i < n && (std::isdigit(static_cast<unsigned char>(text[i])) || text[i] == '-' || text[i] == '+' || text[i] == '.' ||
                             text[i] == 'e' || text[i] == 'E'))
                ++i;
            if (i == start)
                return slow();  // an object or array
            kind = Number;
        }
        const std::string token(text, start, i - start);
        auto number = [&](double& into) {
            if (kind != Number)
                return false;  // a value of another type: value() throws there, as before
            into = std::strtod(token.c_str(), nullptr);
            return true;
        };
        if (key == "bound_ms") {
            if (!number(out.bound))
                return slow();
            bound = true;
        } else if (key == "bandwidth_util") {
            if (!number(out.bandwidth))
                return slow();
        } else if (key == "compute_util") {
            if (!number(out.compute))
                return slow();
        } else if (key == "faster_than_bound") {
            if (kind != True && kind != False)
                return slow();
            out.faster = kind == True;
        } else if (key == "ms") {
            return slow();  // replaced by the timing's ms there
        }
        if (expect('}'))
            break;
        if (!expect(','))
            return slow();
    }
    if (i != n)
        return slow();
    if (!bound)
        return std::nullopt;
    return out;
}

Report utilisationReport(const Store& store, const analysis::Facts& facts)
{
    // Per GPU x method x round, over the correct kernels timed by kbx (their timings carry the
    // roofline of the device's measured peaks): how close they come to the roofline bound.
    struct Acc {
        int kernels = 0, flagged = 0;
        std::vector<double> frac, bw, comp;
    };
    std::map<std::tuple<std::int32_t, std::int32_t, int>, Acc> acc;
    // The correct counted rows by evaluation id.
    std::vector<std::pair<std::int64_t, std::uint32_t>> byId;
    for (std::size_t i = 0; i < facts.rows.size(); ++i)
        if (facts.rows[i].pass)
            byId.emplace_back(facts.rows[i].id, std::uint32_t(i));
    std::sort(byId.begin(), byId.end());
    auto rowOf = [&](std::int64_t id) -> std::int64_t {
        auto it = std::lower_bound(byId.begin(), byId.end(), std::make_pair(id, std::uint32_t(0)));
        return it != byId.end() && it->first == id ? std::int64_t(it->second) : -1;
    };
    if (!byId.empty()) {
        struct Shape {
            std::int64_t evaluation;
            std::uint32_t row;
            Roofline rl;
        };
        std::vector<Shape> shapes;
        // The roofline object of each timing that has one, from the derived table timing_rooflines
        // (core/derived.h: taken out of the samples when the timing was stored; the samples are ~6 KB
        // each, and reading them was this table's time at a million evaluations, issue 24), in the
        // order of the timings. Timings of evaluations that do not count are skipped here, by id.
        derived::prepare(store, true);
        store.each("SELECT evaluation_id, candidate_ms, roofline FROM timing_rooflines", [&](const Store::Cursor& c) {
            const auto id = c.i64(0);
            const auto row = rowOf(id);
            if (row < 0 || !c.isText(2))
                return;
            if (auto rl = roofline(c.text(2), c))
                shapes.push_back({id, std::uint32_t(row), *rl});
        });
        // Per evaluation (by id), its shapes in the order of their timings.
        std::stable_sort(shapes.begin(), shapes.end(), [](const Shape& x, const Shape& y) { return x.evaluation < y.evaluation; });
        for (std::size_t i = 0; i < shapes.size();) {
            const auto& r = facts.rows[shapes[i].row];
            auto& a = acc[{r.gpu, r.method, r.round}];
            std::vector<double> f, b, c;
            bool flag = false;
            const auto id = shapes[i].evaluation;
            for (; i < shapes.size() && shapes[i].evaluation == id; ++i) {
                const auto& rl = shapes[i].rl;
                if (rl.ms > 0 && rl.bound > 0)
                    f.push_back(rl.bound / rl.ms);
                b.push_back(rl.bandwidth);
                c.push_back(rl.compute);
                flag = flag || rl.faster;
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
        t.rows.push_back({facts.gpus[std::size_t(std::get<0>(k))], facts.methods[std::size_t(std::get<1>(k))], std::get<2>(k), a.kernels, quantileOf(a.frac, 0.5), quantileOf(a.frac, 0.9),
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

Report crossHardwareReport(const Store& store, const analysis::Facts& facts, const Filters& f)
{
    Report rep;
    auto x = crossHardware(facts);
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
Report protocolReport(const Store& store, const analysis::Facts& facts)
{
    Report rep;
    std::unordered_map<std::int64_t, const analysis::Facts::Fact*> byId;
    for (const auto& r : facts.rows)
        byId.emplace(r.id, &r);
    // What each counted evaluation stored with tiers says: its columns and evidence from
    // counted_evaluations, its cases from case_summaries (core/derived.h: kept as they were stored;
    // issue 24: reading every evaluation's evidence and cases made this table minutes at 1M), in the
    // order the SQL this replaces read them (by protocol, then id).
    struct Stored {
        std::int64_t id = 0;
        std::string protocol;
        bool cExe = false, cPass = false, notTriton = false, extAll = false;
        int aN = 0, aPass = 0;
        std::optional<std::string> cFirst, xFirst, extFailureClass;
    };
    std::vector<Stored> q;
    derived::prepare(store, false, true);
    auto flag = [](const Store::Cursor& c, int i) { return c.isNumber(i) && c.f64(i) != 0; };
    auto text = [](const Store::Cursor& c, int i) { return c.isText(i) ? std::optional<std::string>(c.text(i)) : std::nullopt; };
    store.each("SELECT c.evaluation_id, c.protocol, c.ext_cases, c.ext_passed, c.ext_failure_class, c.contract_exe_ok, c.contract_pass, "
               "c.contract_class, s.seed0_cases, s.seed0_passed, s.contract_first, s.extended_first FROM counted_evaluations c "
               "LEFT JOIN case_summaries s ON s.evaluation_id = c.evaluation_id WHERE c.protocol IS NOT NULL",
               [&](const Store::Cursor& c) {
                   if (!byId.count(c.i64(0)))
                       return;
                   Stored e;
                   e.id = c.i64(0);
                   e.protocol = c.text(1);
                   e.extAll = c.isNull(2) || (c.isNumber(3) && c.isNumber(2) && c.f64(3) == c.f64(2));
                   e.extFailureClass = text(c, 4);
                   e.cExe = flag(c, 5);
                   e.cPass = flag(c, 6);
                   e.notTriton = c.isText(7) && c.text(7) == "not_triton_kernel";
                   e.aN = c.isNull(8) ? 0 : int(c.i64(8));
                   e.aPass = c.isNull(9) ? 0 : int(c.i64(9));
                   e.cFirst = text(c, 10);
                   e.xFirst = text(c, 11);
                   q.push_back(std::move(e));
               });
    std::sort(q.begin(), q.end(), [](const Stored& x, const Stored& y) { return std::tie(x.protocol, x.id) < std::tie(y.protocol, y.id); });
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
    std::set<std::int64_t> seen;
    for (const auto& e : q) {
        const auto id = e.id;
        auto it = byId.find(id);
        if (it == byId.end())
            continue;
        seen.insert(id);
        const auto& r = *it->second;
        const auto& gpu = facts.gpus[std::size_t(r.gpu)];
        const auto& method = facts.methods[std::size_t(r.method)];
        const bool b = e.cPass;
        const bool cExe = e.cExe;
        const int aN = e.aN, aPass = e.aPass;
        // (a) the seed's cases ran and passed; a PyTorch-only kernel is only flagged there
        const bool a = aN > 0 && aPass == aN && (cExe || e.notTriton);
        const bool extAll = e.extAll;
        const bool c = b && extAll;
        for (const auto& cat : {facts.categories[std::size_t(r.category)], std::string("(all)")}) {
            auto& g = groups[{gpu, method, cat}];
            ++g.n;
            g.a += a;
            g.b += b;
            g.c += c;
        }
        if (a != b || b != c) {
            std::string why;
            if (a && !b)
                why = e.notTriton ? "no Triton kernel ran (the seed only flags this)"
                                  : "fails contract cases beyond the seed's one public seed: " + e.cFirst.value_or("?");
            else if (!a && b)
                why = "passes the contract tier but not its public-seed cases (should not happen)";
            if (b && !c)
                why += std::string(why.empty() ? "" : "; ") + "extended: " + (e.xFirst ? *e.xFirst : e.extFailureClass.value_or("?"));
            if (flips.rows.size() < 500)
                flips.rows.push_back({id, gpu, method, facts.tasks[std::size_t(r.task)], a ? "pass" : "fail", b ? "pass" : "fail", c ? "pass" : "fail", why});
        }
    }
    for (const auto& r : facts.rows)
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

Report taxonomyReport(const analysis::Facts& facts)
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
    // The rows of each GPU apart (a manual label on one GPU adds the reviewed column there only).
    std::map<std::string, analysis::Facts> byGpu;
    {
        std::vector<std::vector<analysis::Facts::Fact>> rowsOf(facts.gpus.size());
        for (const auto& r : facts.rows)
            rowsOf[std::size_t(r.gpu)].push_back(r);
        for (std::size_t g = 0; g < rowsOf.size(); ++g) {
            if (rowsOf[g].empty())
                continue;
            analysis::Facts part;
            part.tasks = facts.tasks;
            part.categories = facts.categories;
            part.methods = facts.methods;
            part.gpus = facts.gpus;
            part.classes = facts.classes;
            part.rows = std::move(rowsOf[g]);
            byGpu[facts.gpus[g]] = std::move(part);
        }
    }
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
    // The counted evaluations once, all of them (the rounds table and the note on what the task
    // filter leaves out read them unfiltered), then those under the filters.
    auto all = analysis::loadFacts(store, {});
    std::vector<std::int64_t> storedPerTask = all.storedPerTask;
    std::vector<std::string> allTasks = all.tasks;
    // The rounds table reads them unfiltered; every other table filters them in place (no copy of a
    // million rows).
    analysis::Facts some;
    if (name == "rounds" && !filters.empty())
        some = analysis::filtered(all, filters);
    else if (!filters.empty())
        all = analysis::filtered(std::move(all), filters);
    const auto& facts = name == "rounds" && !filters.empty() ? some : all;
    Report rep;
    if (name == "method-summary")
        rep = methodSummaryReport(store, facts, options);
    else if (name == "category-method")
        rep = categoryMethodReport(facts);
    else if (name == "deviance")
        rep = devianceReport(facts);
    else if (name == "rounds")
        rep = roundsReport(store, all, filters);
    else if (name == "rescued")
        rep = rescuedReport(facts);
    else if (name == "cross-hardware")
        rep = crossHardwareReport(store, facts, filters);
    else if (name == "slow-fraction")
        rep.tables.push_back(slowTable(slowFraction(facts)));
    else if (name == "utilisation")
        rep = utilisationReport(store, facts);
    else if (name == "protocol")
        rep = protocolReport(store, facts);
    else
        rep = taxonomyReport(facts);
    rep.name = name;
    auto prov = provenance(store, name, filters, facts);
    for (auto& [k, v] : rep.provenance.items())
        prov[k] = v;
    rep.provenance = std::move(prov);
    for (const auto& w : rep.provenance.value("warnings", nlohmann::json::array()))
        rep.notes.push_back("warning: " + w.get<std::string>());
    if (!filters.tasks.empty()) {
        // What the task filter (the benchmark's own tasks, by default) left out, said once: the
        // evaluations stored per task (every re-evaluation), from the counted rows' counts.
        const std::set<std::string> in(filters.tasks.begin(), filters.tasks.end());
        std::vector<std::string> names;
        std::int64_t evaluations = 0;
        for (std::size_t t = 0; t < allTasks.size() && t < storedPerTask.size(); ++t)
            if (storedPerTask[t] > 0 && !in.count(allTasks[t])) {
                names.push_back(allTasks[t]);
                evaluations += storedPerTask[t];
            }
        if (!names.empty())
            rep.notes.push_back(fmt::format("left out: {} evaluation(s) of {} task(s) outside {} ({}{}); --all-tasks includes them",
                                            evaluations, names.size(), filters.tasksLabel.empty() ? "the task filter" : filters.tasksLabel,
                                            fmt::join(names.begin(), names.begin() + std::min<std::size_t>(names.size(), 8), ", "),
                                            names.size() > 8 ? ", ..." : ""));
    }
    if (facts.rows.empty())
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
