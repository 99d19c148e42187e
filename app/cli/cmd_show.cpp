// SPDX-License-Identifier: MIT
#include "cmd_show.h"
#include "exitcodes.h"

#include "paths.h"
#include "perfdescribe.h"
#include "query.h"
#include "store.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <iostream>

namespace kbxcli {

namespace {

using kbx::perf::formatMs;
using nlohmann::json;

template <class T>
json orNull(const std::optional<T>& v)
{
    return v ? json(*v) : json();
}

/// A JSON column as the store returns it (text), parsed; an object or array, else null.
json parsed(const json& v)
{
    if (!v.is_string())
        return v.is_object() || v.is_array() ? v : json();
    auto j = json::parse(v.get<std::string>(), nullptr, false);
    return j.is_discarded() ? json() : j;
}

std::string str(const json& o, const char* key)
{
    if (!o.is_object() || !o.contains(key) || o[key].is_null())
        return {};
    return o[key].is_string() ? o[key].get<std::string>() : o[key].dump();
}

double num(const json& o, const char* key, double fallback = 0.0)
{
    return o.is_object() && o.contains(key) && o[key].is_number() ? o[key].get<double>() : fallback;
}

/// Candidate-written text on one line: control characters (escape sequences included) become '?'.
std::string oneLine(std::string s)
{
    for (auto& ch : s)
        if (static_cast<unsigned char>(ch) < 0x20 || ch == 0x7f)
            ch = '?';
    return s;
}

std::string interval(const json& i)
{
    return fmt::format("{:.3f}x [{:.3f}, {:.3f}]", num(i, "estimate"), num(i, "lo"), num(i, "hi"));
}

void printPerf(const json& perf, const json& timings)
{
    std::cout << "\nPerf stage";
    if (perf.contains("gpu"))
        std::cout << " on " << str(perf["gpu"], "name");
    if (perf.contains("seconds"))
        std::cout << fmt::format(" ({:.1f} s)", num(perf, "seconds"));
    std::cout << "\n";
    if (perf.contains("geomean_speedup")) {
        std::cout << fmt::format("  speedup against eager {} over {} shape(s)", interval(perf["geomean_speedup"]), timings.size());
        if (perf.contains("vs_eager")) {
            const auto band = perf.value("noise_band", json::object());
            std::cout << fmt::format(": {} (noise band [{:.3f}, {:.3f}], {})", str(perf, "vs_eager"), num(band, "lo", 0.98),
                                     num(band, "hi", 1.02), str(band, "from"));
        }
        if (perf.contains("sum_time_ratio"))
            std::cout << fmt::format("; sum-time ratio {:.3f}", num(perf, "sum_time_ratio"));
        std::cout << "\n";
        // kbx-perf-2: the interval is where a repeat would land (the processes' spread included).
        if (const auto& g = perf["geomean_speedup"]; g.is_object() && str(g, "interval") == "repeat") {
            std::string per;
            for (const auto& p : perf.value("geomean_speedup_per_process", json::array()))
                if (p.is_object())
                    per += (per.empty() ? "" : ", ") + fmt::format("{:.3f}", num(p, "estimate"));
            // The shapes' floor (perf::shapeSpreadVariance), where the run computed it.
            const std::string shapesPart =
                g.contains("shape_spread_rel")
                    ? fmt::format(", shapes {:.2f} %{}", 100.0 * num(g, "shape_spread_rel"),
                                  str(g, "sd_from") == "shapes" ? " (the shapes' spread decided)" : "")
                    : std::string();
            std::cout << fmt::format("  95% repeat interval over {} fresh process(es) ({}): between processes {:.2f} %, within "
                                     "{:.2f} %, prior {:.2f} % x {:g} df{}\n",
                                     num(g, "processes"), per.empty() ? "-" : per, 100.0 * num(g, "between_process_rel"),
                                     100.0 * num(g, "within_process_rel"), 100.0 * num(g, "prior_rel"), num(g, "prior_df"), shapesPart);
            if (const auto& x = perf.value("extra_processes", json::object()); x.is_object() && !x.empty())
                std::cout << "  " << kbx::perf::extraProcessesText(x) << "\n";
        }
    } else {
        std::cout << "  no speedup: the samples cannot be trusted as a comparison with eager (see the flags)\n";
    }
    const auto att = perf.value("attribution", json::object());
    if (att.value("available", false))
        std::cout << fmt::format("  Triton kernels launched by the candidate: {:.1f} % of {} of GPU time in one profiled call{}\n",
                                 100.0 * num(att, "triton_share"), formatMs(num(att, "gpu_us") / 1e3),
                                 str(att, "shape").empty() ? "" : " (shape " + str(att, "shape") + ")");
    else if (!att.empty())
        std::cout << "  no kernel attribution: " << str(att, "reason") << "\n";
    if (const auto nv = perf.value("nvml_before", json::object()); !nv.empty())
        std::cout << fmt::format("  before timing: SM {} MHz, memory {} MHz, {} C, {:.0f} W\n", str(nv, "sm_clock_mhz"), str(nv, "mem_clock_mhz"),
                                 str(nv, "temperature_c"), num(nv, "power_w"));
    const auto flags = perf.value("flags", json::array());
    std::string flagWords;
    for (const auto& f : flags)
        flagWords += (flagWords.empty() ? "" : "; ") + kbx::perf::flagText(f.is_string() ? f.get<std::string>() : f.dump());
    std::cout << "  flags: " << (flags.empty() ? "none" : flagWords) << "\n";
    if (!timings.empty()) {
        std::cout << fmt::format("\n  {:<22} {:>11} {:>11} {:>26} {:>16} {:>10} {:>14}  {}\n", "shape", "candidate", "eager", "speedup [95% interval]",
                                 "pairs (stop)", "GB/s", "launch gap", "notes");
        for (const auto& t : timings) {
            const auto s = parsed(t.value("samples", json()));
            const std::string shape = str(t, "shape");
            if (s.contains("error") || !(num(t, "candidate_ms") > 0)) {
                std::cout << fmt::format("  {:<22} {}: {}\n", shape, str(s, "error"), str(s, "message").substr(0, 200));
                continue;
            }
            const auto rl = s.value("roofline", json::object());
            std::cout << fmt::format("  {:<22} {:>11} {:>11} {:>26} {:>16} {:>10} {:>14}  {}\n", shape, formatMs(num(t, "candidate_ms")),
                                     formatMs(num(t, "baseline_ms")), s.contains("speedup") ? interval(s["speedup"]) : "-",
                                     fmt::format("{} ({})", s.value("reps", 0), str(s, "stop")),
                                     rl.empty() ? "-" : fmt::format("{:.0f}", num(rl, "gbs")), kbx::perf::launchGapText(s),
                                     kbx::perf::shapeNotes(s));
        }
    }
    // What the candidate's @triton.autotune chose for each timed shape (issue 22): a second run that
    // chose otherwise timed another kernel.
    bool autotuneHeader = false;
    for (const auto& t : timings) {
        const auto s = parsed(t.value("samples", json()));
        const auto at = s.value("autotune", json::array());
        if (!at.is_array())
            continue;
        for (const auto& k : at) {
            if (!k.is_object() || !k.contains("config"))
                continue;
            if (!autotuneHeader)
                std::cout << "\n  autotune (the config the candidate's autotuner chose per shape):\n";
            autotuneHeader = true;
            std::string bench;
            if (k.contains("bench_s"))
                bench = fmt::format(" (benchmarked {} config(s) in {:.2f} s)", k.value("timings_ms", json::object()).size(), num(k, "bench_s"));
            std::cout << fmt::format("  {:<22} {}: {}{}\n", str(t, "shape"), oneLine(str(k, "kernel")).substr(0, 60),
                                     oneLine(str(k, "config")).substr(0, 200), bench);
        }
    }
    const auto kernels = att.value("kernels", json::array());
    if (!kernels.empty()) {
        std::cout << "\n  kernels of the profiled call:\n";
        const double total = num(att, "gpu_us");
        for (const auto& k : kernels)
            std::cout << fmt::format("  {:>10} {:>6.1f} %  {:>3}x  {}  {}\n", formatMs(num(k, "us") / 1e3), total > 0 ? 100.0 * num(k, "us") / total : 0.0,
                                     k.value("calls", 0), k.value("triton", false) ? "triton" : "      ", str(k, "name").substr(0, 120));
    }
}

/// The evaluation's row of the view with its evidence and stage seconds (parsed), the candidate's
/// hash, the submission's origin and the run's seeds (text), as `kbx show --json` prints it.
json evaluationJson(const kbx::query::Evaluation& e)
{
    json ev = kbx::query::toJson(e.row);
    ev["evidence"] = parsed(e.evidence);
    ev["stage_seconds"] = parsed(e.stageSeconds);
    ev["code_hash"] = e.codeHash;
    ev["origin"] = orNull(e.origin);
    ev["public_seeds"] = e.publicSeeds;
    ev["secret_seed"] = e.secretSeed;
    return ev;
}

/// The evaluation for people: verdict, class and label, seeds, the two tiers' cases, the autotune
/// sweep, the first failure's numeric evidence and the perf stage.
void printText(const json& ev, const json& cases, const json& timings, std::int64_t id)
{
    std::cout << fmt::format("{} · evaluation {} · method {}, round {} · run {} on {}\n", str(ev, "task_id"), id, str(ev, "method"),
                             str(ev, "round"), str(ev, "run_id"), str(ev, "gpu"));
    std::cout << fmt::format("verdict {} (stage {}){}{}\n", str(ev, "verdict"), str(ev, "stage"),
                             str(ev, "failure_class").empty() ? "" : ", class " + str(ev, "failure_class"),
                             str(ev, "manual_class").empty() ? "" : ", manual label " + str(ev, "manual_class") + " (" + str(ev, "manual_note") + ")");
    if (!str(ev, "failure_detail").empty())
        std::cout << "detail: " << str(ev, "failure_detail").substr(0, 600) << "\n";
    std::cout << fmt::format("seeds: public {}, secret {}; candidate {} ({})\n", str(ev, "public_seeds"), str(ev, "secret_seed"),
                             str(ev, "code_hash").substr(0, 12), str(ev, "origin"));
    // Two tiers (issue 21): the contract cases (the seed's own call patterns) decide the verdict
    // unless the evaluation ran under --protocol strict; the extended cases are reported beside.
    const std::string protocol = str(ev, "protocol");
    std::cout << fmt::format("protocol: {}\n", protocol.empty() ? "(before tiers: every case decided)"
                                               : protocol == "strict" ? "strict (every case decides)"
                                                                      : "contract (the seed's call patterns decide; extended cases beside)");
    int sweepFail = 0;  // cases failed under another autotune config (the sweep), counted apart
    for (const auto& c : cases)
        sweepFail += str(c, "name").find(" [autotune config ") != std::string::npos;
    for (const char* tier : {"contract", "extended"}) {
        int pass = 0, fail = 0;
        std::string firstFail;
        for (const auto& c : cases) {
            if ((str(c, "tier").empty() ? std::string("contract") : str(c, "tier")) != tier)
                continue;
            if (str(c, "name").find(" [autotune config ") != std::string::npos)
                continue;
            if (str(c, "status") == "pass")
                ++pass;
            else {
                ++fail;
                if (firstFail.empty())
                    firstFail = str(c, "name") + (str(c, "failure_class").empty() ? "" : " (" + str(c, "failure_class") + ")");
            }
        }
        if (std::string(tier) == "extended" && pass + fail == 0) {
            const auto x = ev["evidence"].is_object() ? ev["evidence"].value("extended", json::object()) : json::object();
            if (x.contains("cases"))
                std::cout << fmt::format("extended cases: {} not run ({})\n", str(x, "cases"), str(x, "why"));
            continue;
        }
        std::cout << fmt::format("{} cases: {} pass, {} failed{}{}\n", tier, pass, fail, firstFail.empty() ? "" : "; first: " + firstFail,
                                 std::string(tier) == "contract" && sweepFail
                                     ? fmt::format("; {} failed under another autotune config (below)", sweepFail)
                                     : std::string());
    }
    if (!str(ev, "correct_ext").empty())
        std::cout << fmt::format("correct incl. extended: {}\n", str(ev, "correct_ext") == "1" ? "yes" : "no");
    const auto& evidence = ev["evidence"];
    // The autotune sweep (issue 22): the contract cases under each config of the candidate's
    // @triton.autotune, first config first.
    if (evidence.is_object() && evidence.contains("autotune_sweep") && evidence["autotune_sweep"].is_object()) {
        const auto& sw = evidence["autotune_sweep"];
        std::cout << fmt::format("autotune sweep: contract cases under each of {} config(s){}\n", str(sw, "configs"),
                                 sw.contains("not_swept") ? fmt::format(" (of {} declared; not swept: {})", str(sw, "declared"),
                                                                        oneLine(str(sw, "not_swept")).substr(0, 200))
                                                          : std::string());
        for (const auto& r : sw.value("runs", json::array())) {
            if (!r.is_object())
                continue;
            const std::string what = r.contains("not_judged") ? "not judged: " + oneLine(str(r, "not_judged")).substr(0, 200)
                                     : r.value("pass", false) ? std::string("pass")
                                                              : "FAIL (" + str(r, "failure_class") + ")";
            std::cout << fmt::format("  config {}: {}  {}\n", static_cast<int>(num(r, "pin")) + 1, what,
                                     oneLine(str(r, "config")).substr(0, 200));
        }
    }
    if (evidence.is_object() && evidence.contains("first_failure")) {
        const auto e = evidence["first_failure"].value("evidence", json::object());
        for (const char* k : {"max_abs_err", "max_rel_err", "mismatch_fraction", "passing_rtol_at_atol", "message"})
            if (e.contains(k))
                std::cout << fmt::format("  {}: {}\n", k, str(e, k).substr(0, 300));
    }
    if (evidence.is_object() && evidence.contains("perf"))
        printPerf(evidence["perf"], timings);
    else
        std::cout << (str(ev, "verdict") == "pass" ? "\nnot timed: evaluated without --perf\n"
                                                    : "\nnot timed: only candidates that pass are timed\n");
}

}  // namespace

CLI::App* addShowCommand(CLI::App& app, ShowArgs& a)
{
    auto* cmd = app.add_subcommand("show", "One evaluation in detail: verdict, cases, evidence, manual label, and its perf stage per shape");
    cmd->add_option("EVALUATION", a.evaluation, "Evaluation id (kbx eval --json prints it; the workbench shows it)")->required();
    cmd->add_option("--db", a.db, "Database (default: $KBX_DB or ~/.local/share/kbx/kbx.sqlite)");
    cmd->add_flag("--json", a.json, "One JSON document: the evaluation row, its evidence, cases and timings (raw samples included)");
    return cmd;
}

int runShow(const ShowArgs& a)
{
    const std::filesystem::path dbPath = a.db.empty() ? kbx::defaultDatabasePath() : std::filesystem::path(a.db);
    if (!std::filesystem::exists(dbPath)) {
        std::cerr << fmt::format("kbx: no database at {}\n", dbPath.string());
        return ExitInput;
    }
    try {
        kbx::Store store(dbPath, kbx::OpenMode::Auto);  // as kbx report: a copy of an older schema is migrated
        const auto loaded = kbx::query::loadEvaluation(store, a.evaluation);
        if (!loaded) {
            std::cerr << fmt::format("kbx: no evaluation {} in {}\n", a.evaluation, dbPath.string());
            return ExitInput;
        }
        json ev = evaluationJson(*loaded);
        json cases = json::array(), timings = json::array();
        for (const auto& c : loaded->cases)
            cases.push_back({{"idx", c.index}, {"name", c.name}, {"status", c.status}, {"failure_class", orNull(c.failureClass)},
                             {"evidence", orNull(c.evidence)}, {"tier", c.tier}});
        for (const auto& t : loaded->timings)
            timings.push_back({{"shape", t.shape}, {"candidate_ms", orNull(t.candidateMs)}, {"baseline_ms", orNull(t.baselineMs)},
                               {"samples", orNull(t.samples)}});
        if (a.json) {
            for (auto& c : cases)
                c["evidence"] = parsed(c["evidence"]);
            for (auto& t : timings)
                t["samples"] = parsed(t["samples"]);
            ev["cases"] = cases;
            ev["timings"] = timings;
            std::cout << ev.dump() << std::endl;
            return ExitOk;
        }
        printText(ev, cases, timings, a.evaluation);
        return ExitOk;
    } catch (const std::exception& e) {
        std::cerr << "kbx show: " << e.what() << "\n";
        return ExitDatabase;
    }
}

}  // namespace kbxcli
