// SPDX-License-Identifier: MIT
// The hardware-side tables of `kbx report`: utilisation (roofline), cross-hardware and protocol sensitivity.
#include "stats_tables.h"

#include "perfstats.h"
#include "query_reports.h"
#include "report_detail.h"
#include "store.h"
#include "store_derived.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <optional>
#include <set>
#include <string_view>
#include <tuple>
#include <unordered_map>
#include <variant>

namespace kbx::stats {
namespace detail {
namespace {


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
/// `ms`: the timing's candidate_ms as stored.
std::optional<Roofline> roofline(const std::string& text, const SqlValue& ms)
{
    const auto* msInt = std::get_if<std::int64_t>(&ms);
    const auto* msReal = std::get_if<double>(&ms);
    auto slow = [&]() -> std::optional<Roofline> {
        auto rl = nlohmann::json::parse(text, nullptr, false);
        if (!rl.is_object() || !rl.contains("bound_ms"))
            return std::nullopt;
        // The value as Store::query gives it (integer, real, text or null).
        const auto* msText = std::get_if<std::string>(&ms);
        rl["ms"] = msInt    ? nlohmann::json(*msInt)
                   : msReal ? nlohmann::json(*msReal)
                   : msText ? nlohmann::json(*msText)
                            : nlohmann::json();
        return Roofline{rl.value("ms", 0.0), rl.value("bound_ms", 0.0), rl.value("bandwidth_util", 0.0), rl.value("compute_util", 0.0),
                        rl.value("faster_than_bound", false)};
    };
    if (!(msInt || msReal) || text.find('\\') != std::string::npos)
        return slow();
    Roofline out;
    out.ms = msReal ? *msReal : double(*msInt);
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

std::optional<std::string> copied(const std::optional<std::string_view>& v)
{
    return v ? std::optional<std::string>(std::string(*v)) : std::nullopt;
}

// What each counted evaluation stored with tiers says: its columns and evidence from
// counted_evaluations, its cases from case_summaries (core/store_derived.h: kept as they were stored;
// issue 24: reading every evaluation's evidence and cases made this table minutes at 1M), in the
// order the SQL this replaces read them (by protocol, then id).
struct Stored {
    std::int64_t id = 0;
    std::string protocol;
    bool cExe = false, cPass = false, notTriton = false, extAll = false;
    int aN = 0, aPass = 0;
    std::optional<std::string> cFirst, xFirst, extFailureClass;
};
std::vector<Stored> storedProtocols(const Store& store, const std::unordered_map<std::int64_t, const analysis::Facts::Fact*>& byId)
{
    std::vector<Stored> q;
    derived::prepare(store, false, true);
    query::eachCountedProtocol(store, [&](const query::CountedProtocol& c) {
        if (!byId.count(c.evaluationId))
            return;
        Stored e;
        e.id = c.evaluationId;
        e.protocol = c.protocol;
        e.extAll = c.extendedAllPassed;
        e.extFailureClass = copied(c.extFailureClass);
        e.cExe = c.contractExeOk;
        e.cPass = c.contractPass;
        e.notTriton = c.contractClass && *c.contractClass == "not_triton_kernel";
        e.aN = c.seed0Cases;
        e.aPass = c.seed0Passed;
        e.cFirst = copied(c.contractFirst);
        e.xFirst = copied(c.extendedFirst);
        q.push_back(std::move(e));
    });
    std::sort(q.begin(), q.end(), [](const Stored& x, const Stored& y) { return std::tie(x.protocol, x.id) < std::tie(y.protocol, y.id); });
    return q;
}

}  // namespace

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
        // (core/store_derived.h: taken out of the samples when the timing was stored; the samples are ~6 KB
        // each, and reading them was this table's time at a million evaluations, issue 24), in the
        // order of the timings. Timings of evaluations that do not count are skipped here, by id.
        derived::prepare(store, true);
        query::eachTimingRoofline(store, [&](const query::TimingRoofline& t) {
            const auto id = t.evaluationId;
            const auto row = rowOf(id);
            if (row < 0 || !t.roofline)
                return;
            if (auto rl = roofline(std::string(*t.roofline), t.candidateMs))
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
    rep.tables = tablesOf(std::move(s), slowTable(x.slow), std::move(k), std::move(g), std::move(gt));
    return rep;
}

/// Protocol sensitivity (issue 21): every evaluation judged three ways from what was stored —
/// (a) seed: the cases the seed's own protocol makes (the contract tier's cases of the first public
/// seed, seed0; suspicious code flagged, not failed: not_triton_kernel does not count),
/// (b) contract: the verdict of the contract tier (and of the perf stage's kernel attribution where it
/// failed the kernel), (c) strict: contract and every extended case.
/// Evaluations stored before tiers existed (protocol NULL) cannot be split and are left out.
Report protocolReport(const Store& store, const analysis::Facts& facts)
{
    Report rep;
    std::unordered_map<std::int64_t, const analysis::Facts::Fact*> byId;
    for (const auto& r : facts.rows)
        byId.emplace(r.id, &r);
    const std::vector<Stored> q = storedProtocols(store, byId);
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
        // The perf stage's kernel attribution failed a kernel whose contract tier passed (under half of its
        // GPU time in its own Triton kernels, PerfStage::tritonShareFailure): the stored verdict, so the
        // contract column agrees with it; the seed's column still counts it, as the seed does not check this.
        const bool perfNotTriton = e.cPass && !r.pass && r.failureClass >= 0 &&
                                   facts.classes[std::size_t(r.failureClass)] == "not_triton_kernel";
        const bool b = e.cPass && !perfNotTriton;
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
                why = e.notTriton      ? "no Triton kernel ran (the seed only flags this)"
                      : perfNotTriton ? "under half of its profiled GPU time in its own Triton kernels (the perf stage's kernel "
                                        "attribution; the seed does not check this)"
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
                      "seeds, secret seed included), failed where the perf stage ran and found under half of the GPU time in "
                      "the candidate's own Triton kernels; strict: contract and every extended case (other dtypes, out=, 0-d, "
                      "None arguments, special values, other modes)");
    if (legacy)
        t.notes.push_back(fmt::format("{} evaluation(s) stored before tiers existed are left out (every case decided them)", legacy));
    flips.notes.push_back(fmt::format("{} evaluation(s) differ between protocols{}", flips.rows.size(),
                                      flips.rows.size() >= 500 ? " (the first 500 listed)" : ""));
    rep.tables.push_back(std::move(t));
    rep.tables.push_back(std::move(flips));
    return rep;
}

}  // namespace detail
}  // namespace kbx::stats
