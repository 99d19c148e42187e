// SPDX-License-Identifier: MIT
// The analysis's facts (core/analysis.h): the counted evaluations loaded from the store in named steps
// (their reads: core/query_reports.h), interned and filtered; rows and facts converted; the choices.
// The datasets computed from them: analysis_figures.cpp.
#include "analysis.h"

#include "query.h"
#include "query_reports.h"
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

std::string joined(const std::vector<std::string>& v)
{
    if (v.empty())
        return "all";
    std::string s;
    for (std::size_t i = 0; i < v.size(); ++i)
        s += (i ? "," : "") + v[i];
    return s;
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
    c.runs = query::runsWithEvaluations(store);
    return c;
}

const std::string& countingRule()
{
    static const std::string rule = "latest evaluation of every submission (task code, method, round) per device";
    return rule;
}

namespace {

/// The counted evaluations (one row per submission and device, in the view) into f.rows, strings
/// interned in `b`, sorted by evaluation id. Returns the evaluations stored per (provisional) task.
std::vector<std::int64_t> readCountedRows(const Store& store, Facts& f, Builder& b)
{
    const auto methodName = query::methodNamesById(store);
    std::unordered_map<std::int64_t, std::int32_t> methodIndex;  // method id -> provisional index
    f.rows.reserve(query::countedEvaluationCount(store));
    std::vector<std::int64_t> perTask;
    query::eachCountedEvaluation(store, [&](const query::CountedEvaluation& c) {
        if (!c.taskId)
            return;  // not in the view
        auto mi = methodIndex.find(c.methodId);
        if (mi == methodIndex.end()) {
            auto name = methodName.find(c.methodId);
            if (name == methodName.end())
                return;  // not in the view
            mi = methodIndex.emplace(c.methodId, b.methods(name->second)).first;
        }
        Facts::Fact& r = f.rows.emplace_back();
        r.id = c.evaluationId;
        r.runId = c.runId;
        r.submissionId = c.submissionId;
        r.candidateId = c.candidateId;
        r.method = mi->second;
        r.round = int(c.round);
        const auto& task = *c.taskId;
        r.task = b.tasks(task);
        r.category = b.categories(categoryOf(task));
        r.gpu = b.gpus(c.gpu);
        r.pass = c.verdict == "pass";
        r.callOk = c.callOk;
        r.exeOk = c.exeOk;
        if (c.failureClass)
            r.failureClass = b.classes(*c.failureClass);
        if (c.extCases && c.extPassed)
            r.extOk = *c.extPassed == *c.extCases ? 1 : 0;
        r.evaluations = std::int32_t(c.evaluations);
        if (c.perfOk)
            r.perfOk = *c.perfOk ? 1 : 0;
        if (std::size_t(r.task) >= perTask.size())
            perTask.resize(std::size_t(r.task) + 1, 0);
        perTask[std::size_t(r.task)] += r.evaluations;
    });
    if (!std::is_sorted(f.rows.begin(), f.rows.end(), [](const Facts::Fact& a, const Facts::Fact& x) { return a.id < x.id; }))
        std::sort(f.rows.begin(), f.rows.end(), [](const Facts::Fact& a, const Facts::Fact& x) { return a.id < x.id; });
    return perTask;
}

/// The manual labels (few) of the rows, by evaluation id (f.rows sorted by id).
void addManualLabels(const Store& store, Facts& f, Builder& b)
{
    for (const auto& label : query::manualLabelClasses(store)) {
        const auto id = label.evaluationId;
        auto it = std::lower_bound(f.rows.begin(), f.rows.end(), id, [](const Facts::Fact& r, std::int64_t v) { return r.id < v; });
        if (it != f.rows.end() && it->id == id && label.failureClass)
            it->manualClass = b.classes(*label.failureClass);
    }
}

/// Each correct row's speedup from its timings (f.rows sorted by id).
void addSpeedups(const Store& store, Facts& f)
{
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
    query::eachPositiveTiming(store, [&](std::int64_t id, double cand, double base) {
        if (!row || row->id != id) {
            flush();
            while (at < f.rows.size() && f.rows[at].id < id)
                ++at;
            if (at == f.rows.size() || f.rows[at].id != id || !f.rows[at].pass)
                return;
            row = &f.rows[at];
        }
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
}

}  // namespace

Facts loadFacts(const Store& store, const Filters& filters)
{
    // The counting rule kept by the database (core/store_derived.h: counted_evaluations, one row per
    // submission and device with its latest evaluation and how many it has), or computed now into a
    // TEMP table where the file has none (a read-only open of an older database). One pass over
    // those narrow rows, strings interned; the filters (constant within a submission on one device)
    // applied to them here.
    derived::prepare(store);
    Facts f;
    Builder b;
    std::vector<std::int64_t> perTask = readCountedRows(store, f, b);
    addManualLabels(store, f, b);
    f.storedPerTask = std::move(perTask);
    b.finish(f);
    if (filters.empty())
        f.stored = std::size_t(query::evaluationCount(store));
    else
        applyFilters(f, filters);
    if (f.rows.empty())
        return f;
    addSpeedups(store, f);
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

}  // namespace kbx::analysis
