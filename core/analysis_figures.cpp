// SPDX-License-Identifier: MIT
// The datasets of the analysis (core/analysis.h) computed from loaded facts: the correctness matrix,
// compile vs correct, speedups and fast_p, the failure taxonomy, round trajectories, box statistics,
// Wilson intervals. Loading and filtering the facts: analysis.cpp.
#include "analysis.h"
#include "perfstats.h"

#include "stats_tables.h"
#include "store.h"
#include "store_derived.h"
#include "taxonomy.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <deque>
#include <map>
#include <numeric>
#include <set>
#include <string_view>
#include <unordered_map>

namespace kbx::analysis {
namespace {

int classRank(const std::string& id)
{
    const auto& all = failureClasses();
    for (std::size_t i = 0; i < all.size(); ++i)
        if (all[i].id == id)
            return int(i);
    return int(all.size()) + 1;  // unknown ids (a newer taxonomy) after the known ones
}

/// A grouping of the rows by method: per row the index of its method in `names` (sorted). The
/// figures facet "method · rN" where a method has several rounds.
struct MethodView {
    std::vector<std::int32_t> of;
    std::vector<std::string> names;
};

MethodView plainMethods(const Facts& f)
{
    MethodView v;
    v.names = f.methods;
    v.of.reserve(f.rows.size());
    for (const auto& r : f.rows)
        v.of.push_back(r.method);
    return v;
}

MethodView facetedMethods(const Facts& f)
{
    // Rounds are never pooled: a method evaluated in several rounds is one series per round, named
    // "method · r1", so a task is never counted once per round in one bar or cell (the round
    // trajectories keep the rounds apart themselves). Filter one round (--round) for one series.
    std::vector<std::set<int>> roundsOf(f.methods.size());
    for (const auto& r : f.rows)
        roundsOf[std::size_t(r.method)].insert(r.round);
    std::map<std::pair<std::int32_t, int>, std::string> facet;  // (method, round) -> name
    for (std::size_t m = 0; m < roundsOf.size(); ++m)
        for (int round : roundsOf[m])
            facet[{std::int32_t(m), round}] = roundsOf[m].size() > 1 ? fmt::format("{} · r{}", f.methods[m], round) : f.methods[m];
    std::set<std::string> names;
    for (const auto& [_, n] : facet)
        names.insert(n);
    MethodView v;
    v.names.assign(names.begin(), names.end());
    std::map<std::pair<std::int32_t, int>, std::int32_t> index;
    for (const auto& [key, n] : facet)
        index[key] = std::int32_t(std::lower_bound(v.names.begin(), v.names.end(), n) - v.names.begin());
    v.of.reserve(f.rows.size());
    std::pair<std::int32_t, int> lastKey{-1, 0};
    std::int32_t last = 0;
    for (const auto& r : f.rows) {
        if (lastKey.first != r.method || lastKey.second != r.round) {
            lastKey = {r.method, r.round};
            last = index.at(lastKey);
        }
        v.of.push_back(last);
    }
    return v;
}

/// The entries of a dictionary that occur (present[i]), in its order, and each one's place among them.
std::pair<std::vector<std::string>, std::vector<std::int32_t>> present(const std::vector<std::string>& names, const std::vector<char>& seen)
{
    std::vector<std::string> out;
    std::vector<std::int32_t> place(names.size(), -1);
    for (std::size_t i = 0; i < names.size(); ++i)
        if (seen[i]) {
            place[i] = std::int32_t(out.size());
            out.push_back(names[i]);
        }
    return {std::move(out), std::move(place)};
}

CorrectnessMatrix correctnessMatrixOf(const Facts& f, const MethodView& mv)
{
    CorrectnessMatrix m;
    std::vector<char> cats(f.categories.size(), 0), meths(mv.names.size(), 0);
    for (std::size_t i = 0; i < f.rows.size(); ++i) {
        cats[std::size_t(f.rows[i].category)] = 1;
        meths[std::size_t(mv.of[i])] = 1;
    }
    auto [categories, cp] = present(f.categories, cats);
    auto [methods, mp] = present(mv.names, meths);
    m.categories = std::move(categories);
    m.methods = std::move(methods);
    m.cells.assign(m.categories.size(), std::vector<CorrectnessCell>(m.methods.size()));
    m.totals.assign(m.methods.size(), {});
    for (std::size_t i = 0; i < f.rows.size(); ++i) {
        const auto& r = f.rows[i];
        const auto ci = std::size_t(cp[std::size_t(r.category)]);
        const auto mi = std::size_t(mp[std::size_t(mv.of[i])]);
        for (CorrectnessCell* c : {&m.cells[ci][mi], &m.totals[mi]}) {
            c->call.n++;
            c->exe.n++;
            c->call.k += r.callOk;
            c->exe.k += r.exeOk;
        }
    }
    return m;
}

/// One T per method of the view that has rows, in the view's order: `add(t, row)` for each row,
/// then the method's name set and `finish(t)`.
template <class T, class Add, class Finish>
std::vector<T> perMethod(const Facts& f, const MethodView& mv, Add add, Finish finish)
{
    std::vector<T> by(mv.names.size());
    std::vector<char> seen(mv.names.size(), 0);
    for (std::size_t i = 0; i < f.rows.size(); ++i) {
        const auto mi = std::size_t(mv.of[i]);
        seen[mi] = 1;
        add(by[mi], f.rows[i]);
    }
    std::vector<T> out;
    for (std::size_t i = 0; i < by.size(); ++i)
        if (seen[i]) {
            by[i].method = mv.names[i];
            finish(by[i]);
            out.push_back(std::move(by[i]));
        }
    return out;
}

std::vector<MethodRates> compileVsCorrectOf(const Facts& f, const MethodView& mv)
{
    return perMethod<MethodRates>(
        f, mv,
        [](MethodRates& m, const auto& r) {
            m.call.n++;
            m.exe.n++;
            m.call.k += r.callOk;
            m.exe.k += r.exeOk;
        },
        [](MethodRates&) {});
}

std::vector<SpeedupSeries> speedupsOf(const Facts& f, const MethodView& mv)
{
    return perMethod<SpeedupSeries>(
        f, mv,
        [](SpeedupSeries& s, const auto& r) {
            s.total++;
            s.correct += r.pass;
            if (r.timed)
                s.speedups.push_back(r.speedup);
        },
        [](SpeedupSeries& s) { std::sort(s.speedups.begin(), s.speedups.end()); });
}

std::vector<FastPCurve> fastPOf(const std::vector<SpeedupSeries>& series, const std::vector<double>& grid)
{
    std::vector<FastPCurve> out;
    for (const auto& s : series) {
        FastPCurve c;
        c.method = s.method;
        c.n = s.total;
        c.p = grid;
        for (double p : grid) {
            // speedups is sorted: count strictly greater than p.
            const auto above = s.speedups.end() - std::upper_bound(s.speedups.begin(), s.speedups.end(), p);
            c.fraction.push_back(s.total > 0 ? double(above) / double(s.total) : 0.0);
        }
        out.push_back(std::move(c));
    }
    return out;
}

Taxonomy taxonomyOf(const Facts& f, const MethodView& mv, GroupBy by)
{
    Taxonomy t;
    const bool byCategory = by == GroupBy::Category;
    const auto& groupNames = byCategory ? f.categories : mv.names;
    auto groupOf = [&](std::size_t i) { return std::size_t(byCategory ? f.rows[i].category : mv.of[i]); };
    std::vector<char> seenGroup(groupNames.size(), 0);
    bool anyManual = false;
    for (std::size_t i = 0; i < f.rows.size(); ++i) {
        seenGroup[groupOf(i)] = 1;
        anyManual = anyManual || f.rows[i].manualClass >= 0;
    }
    auto [groups, gp] = present(groupNames, seenGroup);
    t.groups = std::move(groups);
    const auto passLabel = std::lower_bound(f.classes.begin(), f.classes.end(), std::string("pass"));
    const std::int32_t passIndex = passLabel != f.classes.end() && *passLabel == "pass" ? std::int32_t(passLabel - f.classes.begin()) : -2;
    auto reviewedClass = [&](const Facts::Fact& r) -> std::int32_t {
        if (r.manualClass >= 0)
            return r.manualClass == passIndex ? -1 : r.manualClass;
        return r.pass ? -1 : r.failureClass;
    };
    std::vector<char> seenClass(f.classes.size(), 0);
    for (const auto& r : f.rows) {
        if (!r.pass && r.failureClass >= 0)
            seenClass[std::size_t(r.failureClass)] = 1;
        if (anyManual)
            if (auto c = reviewedClass(r); c >= 0)
                seenClass[std::size_t(c)] = 1;
    }
    std::vector<std::int32_t> classes;  // dictionary (alphabetical) order, then by rank: stable
    for (std::size_t i = 0; i < seenClass.size(); ++i)
        if (seenClass[i])
            classes.push_back(std::int32_t(i));
    std::vector<int> rank(f.classes.size(), 0);
    for (auto c : classes)
        rank[std::size_t(c)] = classRank(f.classes[std::size_t(c)]);
    std::stable_sort(classes.begin(), classes.end(), [&](std::int32_t a, std::int32_t b) { return rank[std::size_t(a)] < rank[std::size_t(b)]; });
    std::vector<std::int32_t> cp(f.classes.size(), -1);
    for (std::size_t i = 0; i < classes.size(); ++i) {
        cp[std::size_t(classes[i])] = std::int32_t(i);
        t.classes.push_back(f.classes[std::size_t(classes[i])]);
    }
    t.automatic.assign(t.groups.size(), std::vector<int>(t.classes.size(), 0));
    t.evaluations.assign(t.groups.size(), 0);
    if (anyManual)
        t.reviewed = t.automatic;
    for (std::size_t i = 0; i < f.rows.size(); ++i) {
        const auto& r = f.rows[i];
        const auto g = std::size_t(gp[groupOf(i)]);
        t.evaluations[g]++;
        if (!r.pass && r.failureClass >= 0)
            t.automatic[g][std::size_t(cp[std::size_t(r.failureClass)])]++;
        if (anyManual)
            if (auto c = reviewedClass(r); c >= 0)
                (*t.reviewed)[g][std::size_t(cp[std::size_t(c)])]++;
    }
    return t;
}

std::vector<Trajectory> roundTrajectoriesOf(const Facts& f)
{
    struct Acc {
        RoundPoint p;
        double logSum = 0;
    };
    std::vector<std::map<int, Acc>> by(f.methods.size());
    std::vector<std::set<std::int32_t>> gpus(f.methods.size());
    std::vector<char> seen(f.methods.size(), 0);
    for (const auto& r : f.rows) {
        const auto m = std::size_t(r.method);
        seen[m] = 1;
        gpus[m].insert(r.gpu);
        auto& a = by[m][r.round];
        a.p.round = r.round;
        a.p.pass.n++;
        a.p.pass.k += r.pass;
        a.p.compile.n++;
        a.p.compile.k += r.callOk;
        if (r.pass && r.timed && r.speedup > 0) {
            a.p.timed++;
            a.logSum += std::log(r.speedup);
        }
    }
    std::vector<Trajectory> out;
    for (std::size_t m = 0; m < by.size(); ++m) {
        if (!seen[m])
            continue;
        Trajectory t;
        t.method = f.methods[m];
        t.gpu = gpus[m].size() == 1 ? f.gpus[std::size_t(*gpus[m].begin())] : std::string();
        for (auto& [round, a] : by[m]) {
            if (a.p.timed)
                a.p.geomeanSpeedup = std::exp(a.logSum / a.p.timed);
            t.points.push_back(a.p);
        }
        out.push_back(std::move(t));
    }
    return out;
}

}  // namespace

CorrectnessMatrix correctnessMatrix(const std::vector<Row>& rows)
{
    const auto f = factsOf(rows);
    return correctnessMatrixOf(f, plainMethods(f));
}

std::vector<MethodRates> compileVsCorrect(const std::vector<Row>& rows)
{
    const auto f = factsOf(rows);
    return compileVsCorrectOf(f, plainMethods(f));
}

double quantile(const std::vector<double>& s, double q)
{
    return s.empty() ? 0.0 : perf::quantileSorted(s, q);
}

BoxStats boxStats(std::vector<double> v)
{
    BoxStats b;
    if (v.empty())
        return b;
    std::sort(v.begin(), v.end());
    b.min = v.front();
    b.max = v.back();
    b.q1 = quantile(v, 0.25);
    b.median = quantile(v, 0.5);
    b.q3 = quantile(v, 0.75);
    const double iqr = b.q3 - b.q1;
    const double loFence = b.q1 - 1.5 * iqr;
    const double hiFence = b.q3 + 1.5 * iqr;
    b.lowerWhisker = b.q1;
    b.upperWhisker = b.q3;
    for (double x : v) {
        if (x < loFence || x > hiFence)
            b.outliers.push_back(x);
        else {
            b.lowerWhisker = std::min(b.lowerWhisker, x);
            b.upperWhisker = std::max(b.upperWhisker, x);
        }
    }
    return b;
}

std::vector<SpeedupSeries> speedups(const std::vector<Row>& rows)
{
    const auto f = factsOf(rows);
    return speedupsOf(f, plainMethods(f));
}

bool hasTimings(const std::vector<SpeedupSeries>& s)
{
    return std::any_of(s.begin(), s.end(), [](const SpeedupSeries& x) { return !x.speedups.empty(); });
}

std::vector<double> logGrid(double lo, double hi, int points)
{
    std::vector<double> g;
    if (points < 2 || lo <= 0 || hi <= lo)
        return {lo};
    const double a = std::log10(lo), b = std::log10(hi);
    const int last = points - 1;
    for (int i = 0; i < points; ++i) {
        // Written as (i*(b-a))/last + a so that grid points on decades (and 1) come out exactly.
        const double e = a + (double(i) * (b - a)) / double(last);
        g.push_back(std::pow(10.0, std::round(e * 1e12) / 1e12));
    }
    return g;
}

std::vector<FastPCurve> fastP(const std::vector<Row>& rows, const std::vector<double>& grid)
{
    return fastPOf(speedups(rows), grid);
}

bool Taxonomy::empty() const
{
    return classes.empty();
}

Taxonomy taxonomy(const std::vector<Row>& rows, GroupBy by)
{
    const auto f = factsOf(rows);
    return taxonomyOf(f, plainMethods(f), by);
}

Taxonomy taxonomy(const Facts& f, GroupBy by)
{
    return taxonomyOf(f, plainMethods(f), by);
}

std::vector<Trajectory> roundTrajectories(const std::vector<Row>& rows)
{
    return roundTrajectoriesOf(factsOf(rows));
}

Datasets compute(const std::vector<Row>& rows, const Filters& filters)
{
    return compute(factsOf(rows), filters);
}

Datasets compute(const Facts& f, const Filters& filters)
{
    Datasets d;
    d.filters = filters;
    d.rowCount = f.rows.size();
    std::vector<std::int64_t> runs;
    runs.reserve(f.rows.size());
    for (const auto& r : f.rows)
        runs.push_back(r.runId);
    std::sort(runs.begin(), runs.end());
    runs.erase(std::unique(runs.begin(), runs.end()), runs.end());
    d.runs = std::move(runs);
    const auto faceted = facetedMethods(f);
    d.correctness = correctnessMatrixOf(f, faceted);
    d.compile = compileVsCorrectOf(f, faceted);
    d.speedup = speedupsOf(f, faceted);
    d.fastp = fastPOf(d.speedup, logGrid());
    d.taxonomyByCategory = taxonomyOf(f, faceted, GroupBy::Category);
    d.taxonomyByMethod = taxonomyOf(f, faceted, GroupBy::Method);
    d.rounds = roundTrajectoriesOf(f);
    return d;
}

Datasets compute(const Store& store, const Filters& filters, bool statistics)
{
    return compute(store, loadFacts(store, filters), filters, statistics);
}

Datasets compute(const Store& store, const Facts& facts, const Filters& filters, bool statistics)
{
    // One set of rows (the counting rule) behind every figure: the datasets, the statistics and the
    // runs listed in the provenance.
    auto d = compute(facts, filters);
    if (statistics)
        d.stats = std::make_shared<const stats::Bundle>(stats::computeBundle(store, filters, facts));
    d.storedCount = facts.stored;
    return d;
}

}  // namespace kbx::analysis
