// SPDX-License-Identifier: MIT
#include "analysis.h"

#include "derived.h"
#include "stats_tables.h"
#include "store.h"
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

int classRank(const std::string& id)
{
    const auto& all = failureClasses();
    for (std::size_t i = 0; i < all.size(); ++i)
        if (all[i].id == id)
            return int(i);
    return int(all.size()) + 1;  // unknown ids (a newer taxonomy) after the known ones
}

/// Strings to provisional indices; sorted() gives the dictionary and the map old -> sorted index.
class Interner {
public:
    std::int32_t operator()(std::string_view s)
    {
        auto it = m_index.find(s);
        if (it != m_index.end())
            return it->second;
        const auto i = static_cast<std::int32_t>(m_names.size());
        m_names.emplace_back(s);
        m_index.emplace(m_names.back(), i);
        return i;
    }
    /// The names sorted (std::string order) and, per provisional index, its place among them.
    std::pair<std::vector<std::string>, std::vector<std::int32_t>> sorted() const
    {
        std::vector<std::int32_t> order(m_names.size());
        std::iota(order.begin(), order.end(), 0);
        std::sort(order.begin(), order.end(), [&](std::int32_t a, std::int32_t b) { return m_names[std::size_t(a)] < m_names[std::size_t(b)]; });
        std::vector<std::string> names;
        names.reserve(order.size());
        std::vector<std::int32_t> place(order.size());
        for (std::size_t i = 0; i < order.size(); ++i) {
            names.push_back(m_names[std::size_t(order[i])]);
            place[std::size_t(order[i])] = static_cast<std::int32_t>(i);
        }
        return {std::move(names), std::move(place)};
    }

private:
    struct Hash {
        using is_transparent = void;
        std::size_t operator()(std::string_view s) const { return std::hash<std::string_view>()(s); }
    };
    std::deque<std::string> m_names;  // stable addresses: the map's keys view them
    std::unordered_map<std::string_view, std::int32_t, Hash, std::equal_to<>> m_index;
};

/// Interned dictionaries being built, then sorted into a Facts.
struct Builder {
    Interner tasks, categories, methods, gpus, classes;
    void finish(Facts& f)
    {
        auto [t, tp] = tasks.sorted();
        auto [c, cp] = categories.sorted();
        auto [m, mp] = methods.sorted();
        auto [g, gp] = gpus.sorted();
        auto [k, kp] = classes.sorted();
        for (auto& r : f.rows) {
            r.task = tp[std::size_t(r.task)];
            r.category = cp[std::size_t(r.category)];
            r.method = mp[std::size_t(r.method)];
            r.gpu = gp[std::size_t(r.gpu)];
            if (r.failureClass >= 0)
                r.failureClass = kp[std::size_t(r.failureClass)];
            if (r.manualClass >= 0)
                r.manualClass = kp[std::size_t(r.manualClass)];
        }
        if (!f.storedPerTask.empty()) {
            std::vector<std::int64_t> perTask(t.size(), 0);
            for (std::size_t i = 0; i < f.storedPerTask.size(); ++i)
                perTask[std::size_t(tp[i])] = f.storedPerTask[i];
            f.storedPerTask = std::move(perTask);
        }
        f.tasks = std::move(t);
        f.categories = std::move(c);
        f.methods = std::move(m);
        f.gpus = std::move(g);
        f.classes = std::move(k);
    }
};

std::string_view categoryOf(std::string_view task)
{
    // The view's substr(task_id, 1, instr(task_id, '/') - 1): empty without a '/'.
    const auto slash = task.find('/');
    return slash == std::string_view::npos ? std::string_view() : task.substr(0, slash);
}

/// Per dictionary entry: whether the filter lets it through (all when the filter is empty).
std::vector<char> allowedNames(const std::vector<std::string>& names, const std::vector<std::string>& filter)
{
    std::vector<char> ok(names.size(), filter.empty() ? 1 : 0);
    for (const auto& v : filter) {
        auto it = std::lower_bound(names.begin(), names.end(), v);
        if (it != names.end() && *it == v)
            ok[std::size_t(it - names.begin())] = 1;
    }
    return ok;
}

bool keep(const Facts::Fact& r, const std::vector<char>& methods, const std::vector<char>& gpus, const std::vector<char>& tasks,
          const std::vector<char>& categories, const std::vector<int>& rounds)
{
    return methods[std::size_t(r.method)] && gpus[std::size_t(r.gpu)] && tasks[std::size_t(r.task)] &&
           categories[std::size_t(r.category)] && (rounds.empty() || std::find(rounds.begin(), rounds.end(), r.round) != rounds.end());
}

/// The rows of facts that pass the filters (in their order); `stored` the sum of their keys'
/// evaluations (the view's count under the filters).
void applyFilters(Facts& f, const Filters& filters)
{
    if (filters.empty())
        return;
    const auto m = allowedNames(f.methods, filters.methods), g = allowedNames(f.gpus, filters.gpus),
               t = allowedNames(f.tasks, filters.tasks), c = allowedNames(f.categories, filters.categories);
    std::size_t out = 0, stored = 0;
    for (std::size_t i = 0; i < f.rows.size(); ++i)
        if (keep(f.rows[i], m, g, t, c, filters.rounds)) {
            stored += std::size_t(f.rows[i].evaluations);
            f.rows[out++] = f.rows[i];
        }
    f.rows.resize(out);
    f.stored = stored;
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

std::vector<MethodRates> compileVsCorrectOf(const Facts& f, const MethodView& mv)
{
    std::vector<MethodRates> by(mv.names.size());
    std::vector<char> seen(mv.names.size(), 0);
    for (std::size_t i = 0; i < f.rows.size(); ++i) {
        const auto& r = f.rows[i];
        const auto mi = std::size_t(mv.of[i]);
        seen[mi] = 1;
        auto& m = by[mi];
        m.call.n++;
        m.exe.n++;
        m.call.k += r.callOk;
        m.exe.k += r.exeOk;
    }
    std::vector<MethodRates> out;
    for (std::size_t i = 0; i < by.size(); ++i)
        if (seen[i]) {
            by[i].method = mv.names[i];
            out.push_back(std::move(by[i]));
        }
    return out;
}

std::vector<SpeedupSeries> speedupsOf(const Facts& f, const MethodView& mv)
{
    std::vector<SpeedupSeries> by(mv.names.size());
    std::vector<char> seen(mv.names.size(), 0);
    for (std::size_t i = 0; i < f.rows.size(); ++i) {
        const auto& r = f.rows[i];
        const auto mi = std::size_t(mv.of[i]);
        seen[mi] = 1;
        auto& s = by[mi];
        s.total++;
        s.correct += r.pass;
        if (r.timed)
            s.speedups.push_back(r.speedup);
    }
    std::vector<SpeedupSeries> out;
    for (std::size_t i = 0; i < by.size(); ++i)
        if (seen[i]) {
            by[i].method = mv.names[i];
            std::sort(by[i].speedups.begin(), by[i].speedups.end());
            out.push_back(std::move(by[i]));
        }
    return out;
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
    return choices(store, loadFacts(store, {}));
}

Choices choices(const Store& store, const Facts& all)
{
    // The values of the view evaluation_rows (every evaluation): each is also a value of the counted
    // evaluation of its submission and device, so the dictionaries of the facts hold exactly these.
    Choices c;
    c.methods = all.methods;
    c.gpus = all.gpus;
    c.categories = all.categories;
    std::set<int> rounds;
    for (const auto& r : all.rows)
        rounds.insert(r.round);
    c.rounds.assign(rounds.begin(), rounds.end());
    // Runs with an evaluation in the view: one index probe per run, not a pass over the evaluations.
    store.each("SELECT r.id FROM runs r WHERE EXISTS (SELECT 1 FROM evaluations e JOIN submissions s ON s.id = e.submission_id "
               "JOIN methods m ON m.id = s.method_id WHERE e.run_id = r.id) ORDER BY r.id",
               [&](const Store::Cursor& cur) { c.runs.push_back(cur.i64(0)); });
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

Facts loadFacts(const Store& store, const Filters& filters)
{
    // The counting rule kept by the database (core/derived.h: counted_evaluations, one row per
    // submission and device with its latest evaluation and how many it has), or computed now into a
    // TEMP table where the file has none (a read-only open of an older database). One pass over
    // those narrow rows, strings interned; the filters (constant within a submission on one device)
    // applied to them here.
    derived::prepare(store);
    Facts f;
    Builder b;
    std::unordered_map<std::int64_t, std::string> methodName;
    store.each("SELECT id, name FROM methods", [&](const Store::Cursor& c) { methodName[c.i64(0)] = c.text(1); });
    std::unordered_map<std::int64_t, std::int32_t> methodIndex;  // method id -> provisional index
    std::size_t count = 0;
    store.each("SELECT count(*) FROM counted_evaluations", [&](const Store::Cursor& c) { count = std::size_t(c.i64(0)); });
    f.rows.reserve(count);
    std::vector<std::int64_t> perTask;
    store.each("SELECT evaluation_id, run_id, submission_id, candidate_id, method_id, round, task_id, gpu, verdict, call_ok, exe_ok, "
               "failure_class, ext_cases, ext_passed, evaluations, perf_ok FROM counted_evaluations",
               [&](const Store::Cursor& c) {
                   if (!c.isText(6))
                       return;  // not in the view
                   auto mi = methodIndex.find(c.i64(4));
                   if (mi == methodIndex.end()) {
                       auto name = methodName.find(c.i64(4));
                       if (name == methodName.end())
                           return;  // not in the view
                       mi = methodIndex.emplace(c.i64(4), b.methods(name->second)).first;
                   }
                   Facts::Fact& r = f.rows.emplace_back();
                   r.id = c.i64(0);
                   r.runId = c.i64(1);
                   r.submissionId = c.i64(2);
                   r.candidateId = c.i64(3);
                   r.method = mi->second;
                   r.round = int(c.i64(5));
                   const auto task = c.text(6);
                   r.task = b.tasks(task);
                   r.category = b.categories(categoryOf(task));
                   r.gpu = b.gpus(c.isText(7) ? c.text(7) : std::string());
                   r.pass = c.isText(8) && c.text(8) == "pass";
                   r.callOk = c.i64(9) != 0;
                   r.exeOk = c.i64(10) != 0;
                   if (c.isText(11))
                       r.failureClass = b.classes(c.text(11));
                   if (c.isNumber(12) && c.isNumber(13))
                       r.extOk = c.i64(13) == c.i64(12) ? 1 : 0;
                   r.evaluations = std::int32_t(c.i64(14));
                   if (!c.isNull(15))
                       r.perfOk = c.isNumber(15) && c.f64(15) != 0 ? 1 : 0;
                   if (std::size_t(r.task) >= perTask.size())
                       perTask.resize(std::size_t(r.task) + 1, 0);
                   perTask[std::size_t(r.task)] += r.evaluations;
               });
    if (!std::is_sorted(f.rows.begin(), f.rows.end(), [](const Facts::Fact& a, const Facts::Fact& x) { return a.id < x.id; }))
        std::sort(f.rows.begin(), f.rows.end(), [](const Facts::Fact& a, const Facts::Fact& x) { return a.id < x.id; });
    // Manual labels (few): by evaluation id.
    store.each("SELECT evaluation_id, failure_class FROM manual_labels", [&](const Store::Cursor& c) {
        const auto id = c.i64(0);
        auto it = std::lower_bound(f.rows.begin(), f.rows.end(), id, [](const Facts::Fact& r, std::int64_t v) { return r.id < v; });
        if (it != f.rows.end() && it->id == id && c.isText(1))
            it->manualClass = b.classes(c.text(1));
    });
    f.storedPerTask = std::move(perTask);
    b.finish(f);
    if (filters.empty())
        store.each("SELECT count(*) FROM evaluations", [&](const Store::Cursor& c) { f.stored = std::size_t(c.i64(0)); });
    else
        applyFilters(f, filters);
    if (f.rows.empty())
        return f;
    // Speedup: geometric mean over shapes of baseline/candidate, correct evaluations only. The
    // shapes of an evaluation in the order of their ids (as stored), so the sums are the same
    // floating-point numbers whichever index SQLite reads them by.
    std::size_t at = 0;  // rows are sorted by id, timings come by evaluation id: a merge
    Facts::Fact* row = nullptr;
    double logSum = 0, first = 0, baseSum = 0, candSum = 0;
    int n = 0;
    auto flush = [&] {
        if (row && n > 0) {  // one shape: the ratio itself (exact), else the geometric mean
            row->timed = true;
            row->speedup = n == 1 ? first : std::exp(logSum / n);
            row->baselineMsSum = baseSum;
            row->candidateMsSum = candSum;
        }
        row = nullptr;
        logSum = first = baseSum = candSum = 0;
        n = 0;
    };
    store.each("SELECT evaluation_id, candidate_ms, baseline_ms FROM timings WHERE candidate_ms > 0 AND baseline_ms > 0 "
               "ORDER BY evaluation_id, id",
               [&](const Store::Cursor& c) {
                   const auto id = c.i64(0);
                   if (!row || row->id != id) {
                       flush();
                       while (at < f.rows.size() && f.rows[at].id < id)
                           ++at;
                       if (at == f.rows.size() || f.rows[at].id != id || !f.rows[at].pass)
                           return;
                       row = &f.rows[at];
                   }
                   const double base = c.f64(2), cand = c.f64(1);
                   const double s = base / cand;
                   if (!std::isfinite(s) || s <= 0)
                       return;
                   logSum += std::log(s);
                   first = n == 0 ? s : first;
                   baseSum += base;
                   candSum += cand;
                   n += 1;
               });
    flush();
    return f;
}

Facts filtered(const Facts& facts, const Filters& filters)
{
    Facts f = facts;
    applyFilters(f, filters);
    return f;
}

Facts filtered(Facts&& facts, const Filters& filters)
{
    applyFilters(facts, filters);
    return std::move(facts);
}

std::vector<Row> rowsOf(const Facts& f)
{
    std::vector<Row> rows;
    rows.reserve(f.rows.size());
    for (const auto& x : f.rows) {
        Row& r = rows.emplace_back();
        r.id = x.id;
        r.runId = x.runId;
        r.submissionId = x.submissionId;
        r.candidateId = x.candidateId;
        r.taskId = f.tasks[std::size_t(x.task)];
        r.category = f.categories[std::size_t(x.category)];
        r.method = f.methods[std::size_t(x.method)];
        r.round = x.round;
        r.gpu = f.gpus[std::size_t(x.gpu)];
        r.pass = x.pass;
        r.callOk = x.callOk;
        r.exeOk = x.exeOk;
        if (x.failureClass >= 0)
            r.failureClass = f.classes[std::size_t(x.failureClass)];
        if (x.manualClass >= 0)
            r.manualClass = f.classes[std::size_t(x.manualClass)];
        if (x.extOk >= 0)
            r.extOk = x.extOk != 0;
        if (x.timed) {
            r.speedup = x.speedup;
            r.baselineMsSum = x.baselineMsSum;
            r.candidateMsSum = x.candidateMsSum;
        }
    }
    return rows;
}

Facts factsOf(const std::vector<Row>& rows)
{
    Facts f;
    Builder b;
    f.rows.reserve(rows.size());
    for (const auto& r : rows) {
        Facts::Fact& x = f.rows.emplace_back();
        x.id = r.id;
        x.runId = r.runId;
        x.submissionId = r.submissionId;
        x.candidateId = r.candidateId;
        x.task = b.tasks(r.taskId);
        x.category = b.categories(r.category);
        x.method = b.methods(r.method);
        x.gpu = b.gpus(r.gpu);
        x.round = r.round;
        x.pass = r.pass;
        x.callOk = r.callOk;
        x.exeOk = r.exeOk;
        if (r.failureClass)
            x.failureClass = b.classes(*r.failureClass);
        if (r.manualClass)
            x.manualClass = b.classes(*r.manualClass);
        if (r.extOk)
            x.extOk = *r.extOk ? 1 : 0;
        if (r.speedup) {
            x.timed = true;
            x.speedup = *r.speedup;
            x.baselineMsSum = r.baselineMsSum;
            x.candidateMsSum = r.candidateMsSum;
        }
    }
    b.finish(f);
    return f;
}

std::vector<Row> loadRows(const Store& store, const Filters& f)
{
    return rowsOf(loadFacts(store, f));
}

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
