// SPDX-License-Identifier: MIT
// The tables of `kbx report --table NAME` built from the statistics (stats_tables), and buildReport.
#include "stats_tables.h"

#include "query_reports.h"
#include "report_detail.h"
#include "quality.h"
#include "rounds.h"
#include "store.h"
#include "taxonomy.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <optional>
#include <set>
#include <stdexcept>
#include <string_view>
#include <tuple>
#include <unordered_map>

namespace kbx::stats {

using namespace detail;

namespace {

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
    return query::codeQualityAmong(store, ids);
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
    rep.tables = tablesOf(std::move(t), std::move(f));
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
    const auto corpusRuns = query::corpusRunIds(store);  // the runs first (few), then only their evaluations
    if (!corpusRuns.empty())
        for (const auto& gm : query::gpuMethodsOfRuns(store, corpusRuns))
            if (keep(gm.gpu, gm.method))
                corpusRows.insert(fmt::format("{} / {}", gm.gpu, gm.method));
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
    rep.tables = tablesOf(std::move(t), std::move(x));
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
    rep.tables = tablesOf(std::move(t), std::move(p));
    return rep;
}

}  // namespace

namespace detail {

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

}  // namespace detail

namespace {

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

}  // namespace

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

}  // namespace kbx::stats
