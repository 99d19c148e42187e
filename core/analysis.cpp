// SPDX-License-Identifier: MIT
#include "analysis.h"

#include "stats_tables.h"
#include "store.h"
#include "taxonomy.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <set>
#include <unordered_map>
#include <unordered_set>

namespace kbx::analysis {
namespace {

template <typename T, typename F>
std::string inList(const std::string& column, const std::vector<T>& values, F&& fmtValue)
{
    std::string sql = fmt::format(" AND {} IN (", column);
    for (std::size_t i = 0; i < values.size(); ++i)
        sql += (i ? "," : "") + fmtValue(values[i]);
    return sql + ")";
}

std::string joined(const std::vector<std::string>& v)
{
    if (v.empty())
        return "all";
    std::string s;
    for (std::size_t i = 0; i < v.size(); ++i)
        s += (i ? "," : "") + v[i];
    return s;
}

std::optional<std::string> optText(const nlohmann::json& j)
{
    if (j.is_string())
        return j.get<std::string>();
    return std::nullopt;
}

template <typename K>
std::vector<K> sortedKeys(const std::vector<Row>& rows, K Row::*member)
{
    std::set<K> s;
    for (const auto& r : rows)
        s.insert(r.*member);
    return {s.begin(), s.end()};
}

int classRank(const std::string& id)
{
    const auto& all = failureClasses();
    for (std::size_t i = 0; i < all.size(); ++i)
        if (all[i].id == id)
            return int(i);
    return int(all.size()) + 1;  // unknown ids (a newer taxonomy) after the known ones
}

}  // namespace

std::string Filters::describe() const
{
    std::vector<std::string> r;
    for (int x : rounds)
        r.push_back(std::to_string(x));
    auto out = fmt::format("method={}; round={}; gpu={}; category={}", joined(methods), joined(r), joined(gpus), joined(categories));
    if (!tasks.empty())
        out += fmt::format("; tasks={}", tasksLabel.empty() ? std::to_string(tasks.size()) : tasksLabel);
    return out;
}

Interval wilson(int k, int n, double z)
{
    if (n <= 0)
        return {0.0, 1.0};
    const double p = double(k) / n;
    const double z2 = z * z;
    const double denom = 1.0 + z2 / n;
    const double centre = (p + z2 / (2.0 * n)) / denom;
    const double half = z / denom * std::sqrt(p * (1.0 - p) / n + z2 / (4.0 * n * n));
    return {std::max(0.0, centre - half), std::min(1.0, centre + half)};
}

Choices choices(const Store& store)
{
    Choices c;
    for (const auto& r : store.query("SELECT DISTINCT method FROM evaluation_rows ORDER BY method"))
        c.methods.push_back(r["method"].get<std::string>());
    for (const auto& r : store.query("SELECT DISTINCT round FROM evaluation_rows ORDER BY round"))
        c.rounds.push_back(r["round"].get<int>());
    for (const auto& r : store.query("SELECT DISTINCT gpu FROM evaluation_rows ORDER BY gpu"))
        c.gpus.push_back(r["gpu"].get<std::string>());
    for (const auto& r : store.query("SELECT DISTINCT category FROM evaluation_rows ORDER BY category"))
        c.categories.push_back(r["category"].get<std::string>());
    for (const auto& r : store.query("SELECT DISTINCT run_id FROM evaluation_rows ORDER BY run_id"))
        c.runs.push_back(r["run_id"].get<std::int64_t>());
    return c;
}

const std::string& countingRule()
{
    static const std::string rule = "latest evaluation of every submission (task code, method, round) per device";
    return rule;
}

std::string countedEvaluationsSql(const std::string& where)
{
    return fmt::format("SELECT max(id) AS id FROM evaluation_rows{}{} GROUP BY submission_id, gpu", where.empty() ? "" : " WHERE ",
                       where);
}

std::string filterSql(const Filters& f)
{
    std::string where = "1";
    if (!f.methods.empty())
        where += inList("method", f.methods, sqlQuote);
    if (!f.rounds.empty())
        where += inList("round", f.rounds, [](int r) { return std::to_string(r); });
    if (!f.gpus.empty())
        where += inList("gpu", f.gpus, sqlQuote);
    if (!f.categories.empty())
        where += inList("category", f.categories, sqlQuote);
    if (!f.tasks.empty())
        where += inList("task_id", f.tasks, sqlQuote);
    return where;
}

std::vector<Row> loadRows(const Store& store, const Filters& f)
{
    // The counting rule (countedEvaluationsSql) in one pass, for a million evaluations (issue 24):
    // SQL picks the latest evaluation of every (submission, run) from the covering index
    // evaluations_counting, taking the other columns from that row (SQLite's bare columns beside
    // max()), and C++ keeps the latest of every (submission, GPU) among those: the same rows as the
    // max(id) per (submission_id, gpu) of the view evaluation_rows, without joining the view twice
    // nor evaluating its GPU expression (JSON in the run's provenance) for every evaluation. The
    // view's columns are taken from the tables it joins: method and GPU are read once per method and
    // run (the view's own expression), category is the task id before its '/'; an evaluation
    // whose submission, method or run is missing is not in the view and not here. The filters are
    // constant within a (submission, run), so they are applied to the groups.
    std::set<std::string> gpuNames;  // one string per GPU: rows of one GPU share its address
    std::unordered_map<std::int64_t, const std::string*> gpuOfRun;
    store.each("SELECT r.id, (SELECT v.gpu FROM evaluation_rows v WHERE v.run_id = r.id LIMIT 1) FROM runs r",
               [&](const Store::Cursor& c) { gpuOfRun[c.i64(0)] = &*gpuNames.insert(c.isText(1) ? c.text(1) : std::string()).first; });
    std::unordered_map<std::int64_t, std::string> methodName;
    store.each("SELECT id, name FROM methods", [&](const Store::Cursor& c) { methodName[c.i64(0)] = c.text(1); });
    const std::set<std::string> onlyMethods(f.methods.begin(), f.methods.end()), onlyGpus(f.gpus.begin(), f.gpus.end()),
        onlyCategories(f.categories.begin(), f.categories.end());
    const std::set<int> onlyRounds(f.rounds.begin(), f.rounds.end());
    const std::unordered_set<std::string> onlyTasks(f.tasks.begin(), f.tasks.end());
    const std::string sql =
        "SELECT max(e.id), e.run_id, e.submission_id, e.task_id, s.method_id, s.round, e.verdict, e.call_ok, e.exe_ok, "
        "e.failure_class, l.failure_class, s.candidate_id, e.ext_cases, e.ext_passed FROM evaluations e "
        "JOIN submissions s ON s.id = e.submission_id LEFT JOIN manual_labels l ON l.evaluation_id = e.id "
        "GROUP BY e.submission_id, e.run_id";
    std::size_t stored = 0;
    store.each("SELECT count(*) FROM evaluations", [&](const Store::Cursor& c) { stored = std::size_t(c.i64(0)); });
    std::vector<Row> rows;
    // (submission, GPU) -> index in rows of its latest evaluation so far; rows it no longer points
    // to (an earlier run's evaluation of the submission on the same GPU) are dropped below.
    struct KeyHash {
        std::size_t operator()(const std::pair<std::int64_t, const std::string*>& k) const
        {
            return std::hash<std::int64_t>()(k.first) * 1000003u ^ std::hash<const void*>()(k.second);
        }
    };
    std::unordered_map<std::pair<std::int64_t, const std::string*>, std::size_t, KeyHash> latest;
    rows.reserve(stored);
    latest.reserve(stored);
    store.each(sql, [&](const Store::Cursor& c) {
        const auto id = c.i64(0);
        const auto runId = c.i64(1);
        const auto submissionId = c.i64(2);
        auto g = gpuOfRun.find(runId);
        auto m = methodName.find(c.i64(4));
        if (g == gpuOfRun.end() || m == methodName.end() || !c.isText(3))
            return;  // not in the view (no such run or method)
        const std::string* gpu = g->second;
        const int round = int(c.i64(5));
        if ((!onlyMethods.empty() && !onlyMethods.count(m->second)) || (!onlyGpus.empty() && !onlyGpus.count(*gpu)) ||
            (!onlyRounds.empty() && !onlyRounds.count(round)))
            return;
        auto task = c.text(3);
        if (!onlyTasks.empty() && !onlyTasks.count(task))
            return;
        const auto slash = task.find('/');  // the view's substr(task_id, 1, instr(task_id, '/') - 1)
        auto category = slash == std::string::npos ? std::string() : task.substr(0, slash);
        if (!onlyCategories.empty() && !onlyCategories.count(category))
            return;
        auto [it, fresh] = latest.try_emplace({submissionId, gpu}, rows.size());
        if (!fresh) {
            if (rows[it->second].id > id)
                return;
            it->second = rows.size();
        }
        Row& r = rows.emplace_back();
        r.id = id;
        r.runId = runId;
        r.submissionId = submissionId;
        r.candidateId = c.i64(11);
        r.taskId = std::move(task);
        r.category = std::move(category);
        r.method = m->second;
        r.round = round;
        r.gpu = *gpu;
        r.pass = c.isText(6) && c.text(6) == "pass";
        r.callOk = c.i64(7) != 0;
        r.exeOk = c.i64(8) != 0;
        if (c.isText(9))
            r.failureClass = c.text(9);
        if (c.isText(10))
            r.manualClass = c.text(10);
        if (c.isNumber(12) && c.isNumber(13))
            r.extOk = c.i64(13) == c.i64(12);
    });
    if (rows.size() != latest.size()) {
        std::vector<bool> keep(rows.size(), false);
        for (const auto& [key, index] : latest)
            keep[index] = true;
        std::size_t out = 0;
        for (std::size_t i = 0; i < rows.size(); ++i)
            if (keep[i]) {
                if (out != i)  // never a self-move (it may empty the strings)
                    rows[out] = std::move(rows[i]);
                ++out;
            }
        rows.resize(out);
    }
    latest.clear();
    if (!std::is_sorted(rows.begin(), rows.end(), [](const Row& a, const Row& b) { return a.id < b.id; })) {
        // Sorted by id through a permutation: each row moved once, not by every swap of a sort.
        std::vector<std::pair<std::int64_t, std::size_t>> order(rows.size());
        for (std::size_t i = 0; i < rows.size(); ++i)
            order[i] = {rows[i].id, i};
        std::sort(order.begin(), order.end());
        std::vector<Row> sorted;
        sorted.reserve(rows.size());
        for (const auto& [id, i] : order)
            sorted.push_back(std::move(rows[i]));
        rows = std::move(sorted);
    }
    if (rows.empty())
        return rows;
    // Speedup: geometric mean over shapes of baseline/candidate, correct evaluations only. The
    // shapes of an evaluation in the order of their ids (as stored), so the sums are the same
    // floating-point numbers whichever index SQLite reads them by.
    std::size_t at = 0;  // rows are sorted by id, timings come by evaluation id: a merge
    Row* row = nullptr;
    double logSum = 0, first = 0, baseSum = 0, candSum = 0;
    int count = 0;
    auto flush = [&] {
        if (row && count > 0) {  // one shape: the ratio itself (exact), else the geometric mean
            row->speedup = count == 1 ? first : std::exp(logSum / count);
            row->baselineMsSum = baseSum;
            row->candidateMsSum = candSum;
        }
        row = nullptr;
        logSum = first = baseSum = candSum = 0;
        count = 0;
    };
    store.each("SELECT evaluation_id, candidate_ms, baseline_ms FROM timings WHERE candidate_ms > 0 AND baseline_ms > 0 "
               "ORDER BY evaluation_id, id",
               [&](const Store::Cursor& c) {
                   const auto id = c.i64(0);
                   if (!row || row->id != id) {
                       flush();
                       while (at < rows.size() && rows[at].id < id)
                           ++at;
                       if (at == rows.size() || rows[at].id != id || !rows[at].pass)
                           return;
                       row = &rows[at];
                   }
                   const double base = c.f64(2), cand = c.f64(1);
                   const double s = base / cand;
                   if (!std::isfinite(s) || s <= 0)
                       return;
                   logSum += std::log(s);
                   first = count == 0 ? s : first;
                   baseSum += base;
                   candSum += cand;
                   count += 1;
               });
    flush();
    return rows;
}

CorrectnessMatrix correctnessMatrix(const std::vector<Row>& rows)
{
    CorrectnessMatrix m;
    m.categories = sortedKeys(rows, &Row::category);
    m.methods = sortedKeys(rows, &Row::method);
    m.cells.assign(m.categories.size(), std::vector<CorrectnessCell>(m.methods.size()));
    m.totals.assign(m.methods.size(), {});
    for (const auto& r : rows) {
        auto ci = std::lower_bound(m.categories.begin(), m.categories.end(), r.category) - m.categories.begin();
        auto mi = std::lower_bound(m.methods.begin(), m.methods.end(), r.method) - m.methods.begin();
        for (CorrectnessCell* c : {&m.cells[ci][mi], &m.totals[mi]}) {
            c->call.n++;
            c->exe.n++;
            c->call.k += r.callOk;
            c->exe.k += r.exeOk;
        }
    }
    return m;
}

std::vector<MethodRates> compileVsCorrect(const std::vector<Row>& rows)
{
    std::map<std::string, MethodRates> by;
    for (const auto& r : rows) {
        auto& m = by[r.method];
        m.method = r.method;
        m.call.n++;
        m.exe.n++;
        m.call.k += r.callOk;
        m.exe.k += r.exeOk;
    }
    std::vector<MethodRates> out;
    for (auto& [_, m] : by)
        out.push_back(std::move(m));
    return out;
}

double quantile(const std::vector<double>& s, double q)
{
    if (s.empty())
        return 0.0;
    const double h = (double(s.size()) - 1.0) * q;
    const auto lo = static_cast<std::size_t>(std::floor(h));
    const auto hi = std::min(lo + 1, s.size() - 1);
    return s[lo] + (h - double(lo)) * (s[hi] - s[lo]);
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
    std::map<std::string, SpeedupSeries> by;
    for (const auto& r : rows) {
        auto& s = by[r.method];
        s.method = r.method;
        s.total++;
        s.correct += r.pass;
        if (r.speedup)
            s.speedups.push_back(*r.speedup);
    }
    std::vector<SpeedupSeries> out;
    for (auto& [_, s] : by) {
        std::sort(s.speedups.begin(), s.speedups.end());
        out.push_back(std::move(s));
    }
    return out;
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
    std::vector<FastPCurve> out;
    for (const auto& s : speedups(rows)) {
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

bool Taxonomy::empty() const
{
    return classes.empty();
}

Taxonomy taxonomy(const std::vector<Row>& rows, GroupBy by)
{
    Taxonomy t;
    t.groups = sortedKeys(rows, by == GroupBy::Category ? &Row::category : &Row::method);
    const bool anyManual = std::any_of(rows.begin(), rows.end(), [](const Row& r) { return r.manualClass.has_value(); });
    auto reviewedClass = [](const Row& r) -> std::optional<std::string> {
        if (r.manualClass)
            return *r.manualClass == "pass" ? std::nullopt : r.manualClass;
        return r.pass ? std::nullopt : r.failureClass;
    };
    std::set<std::string> seen;
    for (const auto& r : rows) {
        if (!r.pass && r.failureClass)
            seen.insert(*r.failureClass);
        if (anyManual)
            if (auto c = reviewedClass(r))
                seen.insert(*c);
    }
    t.classes.assign(seen.begin(), seen.end());
    std::stable_sort(t.classes.begin(), t.classes.end(),
                     [](const std::string& a, const std::string& b) { return classRank(a) < classRank(b); });
    auto index = [](const std::vector<std::string>& v, const std::string& x) {
        return std::size_t(std::find(v.begin(), v.end(), x) - v.begin());
    };
    t.automatic.assign(t.groups.size(), std::vector<int>(t.classes.size(), 0));
    t.evaluations.assign(t.groups.size(), 0);
    if (anyManual)
        t.reviewed = t.automatic;
    for (const auto& r : rows) {
        const auto g = index(t.groups, by == GroupBy::Category ? r.category : r.method);
        t.evaluations[g]++;
        if (!r.pass && r.failureClass)
            t.automatic[g][index(t.classes, *r.failureClass)]++;
        if (anyManual)
            if (auto c = reviewedClass(r))
                (*t.reviewed)[g][index(t.classes, *c)]++;
    }
    return t;
}

std::vector<Trajectory> roundTrajectories(const std::vector<Row>& rows)
{
    struct Acc {
        RoundPoint p;
        double logSum = 0;
    };
    std::map<std::string, std::map<int, Acc>> by;
    std::map<std::string, std::set<std::string>> gpus;
    for (const auto& r : rows) {
        gpus[r.method].insert(r.gpu);
        auto& a = by[r.method][r.round];
        a.p.round = r.round;
        a.p.pass.n++;
        a.p.pass.k += r.pass;
        a.p.compile.n++;
        a.p.compile.k += r.callOk;
        if (r.pass && r.speedup && *r.speedup > 0) {
            a.p.timed++;
            a.logSum += std::log(*r.speedup);
        }
    }
    std::vector<Trajectory> out;
    for (auto& [method, rounds] : by) {
        Trajectory t;
        t.method = method;
        t.gpu = gpus[method].size() == 1 ? *gpus[method].begin() : std::string();
        for (auto& [round, a] : rounds) {
            if (a.p.timed)
                a.p.geomeanSpeedup = std::exp(a.logSum / a.p.timed);
            t.points.push_back(a.p);
        }
        out.push_back(std::move(t));
    }
    return out;
}

Datasets compute(const std::vector<Row>& rows, const Filters& filters)
{
    Datasets d;
    d.filters = filters;
    d.rowCount = rows.size();
    d.runs = sortedKeys(rows, &Row::runId);
    // Rounds are never pooled: a method evaluated in several rounds is one series per round, named
    // "method · r1", so a task is never counted once per round in one bar or cell (the round
    // trajectories keep the rounds apart themselves). Filter one round (--round) for one series.
    std::map<std::string, std::set<int>> roundsOf;
    for (const auto& r : rows)
        roundsOf[r.method].insert(r.round);
    std::vector<Row> faceted = rows;
    for (auto& r : faceted)
        if (roundsOf[r.method].size() > 1)
            r.method = fmt::format("{} · r{}", r.method, r.round);
    d.correctness = correctnessMatrix(faceted);
    d.compile = compileVsCorrect(faceted);
    d.speedup = speedups(faceted);
    d.fastp = fastP(faceted);
    d.taxonomyByCategory = taxonomy(faceted, GroupBy::Category);
    d.taxonomyByMethod = taxonomy(faceted, GroupBy::Method);
    d.rounds = roundTrajectories(rows);
    return d;
}

Datasets compute(const Store& store, const Filters& filters)
{
    // One set of rows (the counting rule) behind every figure: the datasets, the statistics and the
    // runs listed in the provenance.
    const auto rows = loadRows(store, filters);
    auto d = compute(rows, filters);
    d.stats = std::make_shared<const stats::Bundle>(stats::computeBundle(store, filters, rows));
    const auto stored = store.query(filters.empty() ? std::string("SELECT count(*) AS n FROM evaluations")
                                                    : "SELECT count(*) AS n FROM evaluation_rows WHERE " + filterSql(filters));
    d.storedCount = stored.empty() ? 0 : stored.front()["n"].get<std::size_t>();
    return d;
}

}  // namespace kbx::analysis
