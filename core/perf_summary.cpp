// SPDX-License-Identifier: MIT
#include "perf_summary.h"

#include "evalutil.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace kbx {
using evalutil::printable;
using evalutil::printableStrings;

namespace {
// The repeat interval's prior and the extra processes: PerfConfig (core/perfconfig.h) holds their
// values and why.

nlohmann::json summaryJson(const perf::Summary& s)
{
    return {{"n", s.n}, {"median", s.median}, {"q1", s.q1}, {"q3", s.q3}, {"iqr", s.iqr}, {"min", s.min},
            {"max", s.max}, {"cv", s.cv}};
}
std::vector<double> concat(std::vector<double> a, const std::vector<double>& b)
{
    a.insert(a.end(), b.begin(), b.end());
    return a;
}
double gmean(const std::vector<double>& xs)
{
    double l = 0;
    for (double x : xs)
        l += std::log(x);
    return std::exp(l / static_cast<double>(xs.size()));
}
/// The compute peak a shape is held against (issue 22): the arithmetic of what ran, as the perf
/// worker reports it from the actual inputs (`compute_dtype`: int8 for quantization tasks, else the
/// floating dtype of most input elements), the params' dtype only for an older worker's frame;
/// TF32 where the task allows it for fp32 (docs/PERF_PROTOCOL.md). A peak the calibration lacks
/// (int8 on a GPU without int8 tensor cores) falls back to the nearest one it has. Returns
/// {peak, dtype}.
std::pair<double, std::string> computePeak(const nlohmann::json& peaks, const nlohmann::json& frame, bool tf32)
{
    std::string dt = frame.value("compute_dtype", std::string());
    if (dt.empty()) {
        const auto& params = frame.contains("params") ? frame["params"] : nlohmann::json::object();
        dt = params.is_object() ? params.value("dtype", std::string("float32")) : std::string("float32");
    }
    auto peak = [&](const char* key, const char* fallback) {
        const double v = peaks.value(key, 0.0);
        return v > 0 ? v : peaks.value(fallback, 0.0);
    };
    if (dt == "int8")
        return {peak("int8_tops", "bf16_tflops"), dt};
    if (dt == "float16")
        return {peak("fp16_tflops", "bf16_tflops"), dt};
    if (dt == "bfloat16")
        return {peaks.value("bf16_tflops", 0.0), dt};
    if (dt == "float64")
        return {peak("fp64_tflops", "fp32_tflops"), dt};
    return {tf32 ? peaks.value("tf32_tflops", 0.0) : peaks.value("fp32_tflops", 0.0), tf32 ? std::string("tf32") : std::string("float32")};
}

/// The parity-balance experiment (perf config parity_balance; kbx_harness/parity.py): one side's raw
/// samples and their groups from a process's frame, one to one; false when the frame has none or
/// they do not match.
bool frameGroups(const nlohmann::json& frame, const char* side, std::vector<double>& xs, std::vector<int>& gs)
{
    xs.clear();
    gs.clear();
    const auto pg = frame.find("parity_groups");
    const auto sm = frame.find("samples_ms");
    if (pg == frame.end() || sm == frame.end() || !pg->is_object() || !sm->is_object())
        return false;
    const auto g = pg->find(side);
    const auto x = sm->find(side);
    if (g == pg->end() || x == sm->end() || !g->is_array() || !x->is_array() || g->size() != x->size() || x->empty())
        return false;
    for (std::size_t i = 0; i < x->size(); ++i) {
        if (!(*x)[i].is_number() || !(*g)[i].is_number_integer())
            return false;
        xs.push_back((*x)[i].get<double>());
        gs.push_back((*g)[i].get<int>());
    }
    return true;
}

/// One perf shape over the processes: the frames, samples and statistics its checks read.
struct Shape {
    std::size_t k = 0;
    const nlohmann::json* f = nullptr;  ///< the first process's frame
    TimingRow row;
    std::vector<const nlohmann::json*> fp;  ///< per process: its frame of this shape
    std::vector<std::vector<double>> cp, rp;  ///< per process: candidate and reference samples
    std::vector<double> c, r;                 ///< all processes' samples
    std::vector<double> cMedP, rMedP;         ///< per process: medians
    /// parity_balance 2: per process, the plain medians of the raw samples where cp/rp hold the
    /// samples aligned by group (null where the process's groups did not allow it).
    std::vector<nlohmann::json> plainP;
    std::vector<double> cRaw, rRaw;  ///< parity_balance 2: all processes' raw samples
    double cMs = 0, rMs = 0;
    double speedup = 0;  ///< the repeat interval's estimate
    nlohmann::json smp;
};

class ShapeSummarizer {
public:
    ShapeSummarizer(const std::vector<PerfProcess>& procs, std::size_t P, const nlohmann::json& ev, const nlohmann::json& peaks,
                    bool tf32, std::uint64_t seed, const PerfConfig& config, PerfShapes& out, perf::BootstrapMemo* memo)
        : m_procs(procs), m_P(P), m_ev(ev), m_peaks(peaks), m_tf32(tf32), m_seed(seed), m_config(config), m_out(out), m_memo(memo)
    {
    }
    void shape(std::size_t k, const nlohmann::json& f);

private:
    /// The same shape in every process; false (the row stored) when one of them failed or has no samples.
    bool gather(Shape& s);
    /// Per-process medians and speedups, the pooled summaries and the repeat interval; the samples JSON.
    void statistics(Shape& s);
    /// The parity-balance experiment's per-process estimate (perf config parity_balance).
    void parityBalance(const Shape& s, std::size_t p, nlohmann::json& out) const;
    /// parity_balance 2: the samples aligned by group in place of the raw ones.
    void alignByGroup(Shape& s) const;
    void starvedAndAttribution(Shape& s);
    /// Flags a candidate whose call waits for the device inside (host time in its samples), with the host's share.
    void hostInTiming(Shape& s);
    void roofline(Shape& s);
    void recheckAndAutotune(Shape& s);
    void baselines(Shape& s);
    void flag(const std::string& what, const Shape& s) { m_out.flags.push_back(what + ":" + s.row.shape); }
    perf::Interval speedupCI(const std::vector<double>& c, const std::vector<double>& r, std::uint64_t seed) const
    {
        return m_memo ? m_memo->speedupCI(c, r, seed) : perf::speedupCI(c, r, seed);
    }

    const std::vector<PerfProcess>& m_procs;
    std::size_t m_P;
    const nlohmann::json& m_ev;
    const nlohmann::json& m_peaks;
    bool m_tf32;
    std::uint64_t m_seed;
    const PerfConfig& m_config;
    PerfShapes& m_out;
    perf::BootstrapMemo* m_memo;  ///< null: every interval bootstrapped here
};

void ShapeSummarizer::parityBalance(const Shape& s, std::size_t p, nlohmann::json& out) const
{
    // The parity-balance experiment (perf config parity_balance; kbx_harness/parity.py): each kept
    // sample's group as the worker recorded it. Each side's four-group median, computed here from the
    // samples, and their ratio, beside the process's plain medians; groups that do not match the
    // samples one to one give nothing.
    nlohmann::json side = nlohmann::json::object();
    std::vector<double> xs;
    std::vector<int> gs;
    for (const char* name : {"candidate", "reference"}) {
        if (!frameGroups(*s.fp[p], name, xs, gs))
            return;
        const double m = perf::groupMedianGeomean(xs, gs);
        if (!(m > 0))
            return;
        side[std::string(name) + "_ms"] = m;
    }
    side["speedup"] = side["reference_ms"].get<double>() / side["candidate_ms"].get<double>();
    out["parity_balance"] = side;
}

bool ShapeSummarizer::gather(Shape& s)
{
    const auto& f = *s.f;
    // The same shape in every process (the same perf shapes in the same order).
    const nlohmann::json* failed = nullptr;
    for (std::size_t p = 0; p < m_P; ++p) {
        const nlohmann::json* hit = nullptr;
        for (const auto& g : m_procs[p].shapes)
            if (g.value("shape", std::string()) == f.value("shape", std::string()))
                hit = &g;
        if (!hit) {
            static const nlohmann::json missing = {{"error", "missing"}, {"message", "this shape was not timed in every perf process"}};
            hit = &missing;
        }
        if (!failed && hit->contains("error"))
            failed = hit;
        s.fp.push_back(hit);
    }
    if (failed) {
        s.row.samples = {{"error", failed->value("error", "")}, {"message", failed->value("message", "")}};
        m_out.rows.push_back(s.row);
        flag("shape_failed", s);
        return false;
    }
    bool empty = false;
    for (std::size_t p = 0; p < m_P; ++p) {
        const auto& sm = (*s.fp[p]).value("samples_ms", nlohmann::json::object());
        s.cp.push_back(evalutil::positiveNumbers(sm.is_object() ? sm.value("candidate", nlohmann::json::array()) : nlohmann::json::array()));
        s.rp.push_back(evalutil::positiveNumbers(sm.is_object() ? sm.value("reference", nlohmann::json::array()) : nlohmann::json::array()));
        empty = empty || s.cp.back().empty() || s.rp.back().empty();
    }
    if (empty) {
        s.row.samples = {{"error", "no samples"}};
        m_out.rows.push_back(s.row);
        return false;
    }
    if (m_config.parityBalance == 2)
        alignByGroup(s);
    return true;
}

void ShapeSummarizer::alignByGroup(Shape& s) const
{
    // parity_balance 2: each process's samples with its groups' levels taken out (perf::alignGroups),
    // so that every statistic below reads one level whichever launch parity the process started at.
    // The raw samples and the plain medians stay in the record; a process whose groups do not allow
    // it keeps its raw samples.
    s.plainP.assign(m_P, nlohmann::json());
    std::vector<double> cx, rx;
    std::vector<int> cg, rg;
    for (std::size_t p = 0; p < m_P; ++p) {
        s.cRaw = concat(std::move(s.cRaw), s.cp[p]);
        s.rRaw = concat(std::move(s.rRaw), s.rp[p]);
        if (!frameGroups(*s.fp[p], "candidate", cx, cg) || !frameGroups(*s.fp[p], "reference", rx, rg))
            continue;
        auto ca = perf::alignGroups(cx, cg), ra = perf::alignGroups(rx, rg);
        if (ca.empty() || ra.empty())
            continue;
        const double cm = perf::quantile(s.cp[p], 0.5), rm = perf::quantile(s.rp[p], 0.5);
        s.plainP[p] = {{"candidate_ms", cm}, {"reference_ms", rm}, {"speedup", rm / cm}};
        s.cp[p] = std::move(ca);
        s.rp[p] = std::move(ra);
    }
}

void ShapeSummarizer::statistics(Shape& s)
{
    const auto& f = *s.f;
    std::vector<perf::Interval> spP;
    nlohmann::json perProcess = nlohmann::json::array();
    for (std::size_t p = 0; p < m_P; ++p) {
        s.c = concat(std::move(s.c), s.cp[p]);
        s.r = concat(std::move(s.r), s.rp[p]);
        const auto sp = speedupCI(s.cp[p], s.rp[p], m_seed + s.k + 1000003u * p);
        spP.push_back(sp);
        s.cMedP.push_back(perf::quantile(s.cp[p], 0.5));
        s.rMedP.push_back(perf::quantile(s.rp[p], 0.5));
        perProcess.push_back({{"candidate_ms", s.cMedP.back()}, {"reference_ms", s.rMedP.back()},
                              {"speedup", {{"estimate", sp.estimate}, {"lo", sp.lo}, {"hi", sp.hi}}},
                              {"reps", (*s.fp[p]).value("reps", 0)}});
        // Where this process drew its inputs (kbx_harness/perf.py placement_offset; absent on the CPU).
        if (const auto mb = (*s.fp[p]).find("placement_offset_mb"); mb != (*s.fp[p]).end() && mb->is_number() && mb->get<double>() > 0)
            perProcess.back()["placement_offset_mb"] = *mb;
        // The gap this process drew before the shape's outputs (perf config placement_gap_mb; 0 is a draw).
        if (const auto gap = (*s.fp[p]).find("placement_gap_mb"); gap != (*s.fp[p]).end() && gap->is_number_integer())
            perProcess.back()["placement_gap_mb"] = *gap;
        // The bit this process drew for the shape (perf config history_flip; kbx_harness/history.py).
        if (const auto flip = (*s.fp[p]).find("history_flip"); flip != (*s.fp[p]).end() && flip->is_number_integer())
            perProcess.back()["history_flip"] = *flip;
        parityBalance(s, p, perProcess.back());
        if (p < s.plainP.size() && !s.plainP[p].is_null()) {
            perProcess.back()["estimator"] = "four_groups";  // its medians and speedup from the aligned samples
            perProcess.back()["plain"] = s.plainP[p];
        }
    }
    auto cs = perf::summarize(s.c), rs = perf::summarize(s.r);
    const auto rep = perf::repeatInterval(spP, m_config.betweenProcessPrior, m_config.betweenProcessPriorDf);
    const auto& sp = rep.interval;
    // The per-process medians' geometric means: the timing a reader sees, consistent with the
    // speedup (their ratio).
    s.speedup = sp.estimate;
    s.cMs = gmean(s.cMedP);
    s.rMs = gmean(s.rMedP);
    s.row.candidateMs = s.cMs;
    s.row.baselineMs = s.rMs;
    s.smp = {{"candidate_ms", s.c}, {"reference_ms", s.r}, {"candidate", summaryJson(cs)},
             {"reference", summaryJson(rs)},
             {"speedup", {{"estimate", sp.estimate}, {"lo", sp.lo}, {"hi", sp.hi}, {"interval", "repeat"}}},
             {"per_process", perProcess},
             {"params", f.value("params", nlohmann::json::object())},
             {"first_call_s", f.value("first_call_s", nlohmann::json::object())},
             {"warmup_calls", f.value("warmup_calls", nlohmann::json::object())},
             {"reps", f.value("reps", 0)}, {"min_reps", f.value("min_reps", 0)}, {"stop", f.value("stop", "")},
             {"rotations", f.value("rotations", 0)}, {"recheck", f.value("recheck", nlohmann::json())},
             {"inputs_restored", f.value("inputs_restored", nlohmann::json())},
             {"host_enqueue_us", f.value("host_enqueue_us", nlohmann::json::object())},
             {"launch_gap_us", f.value("launch_gap_us", 0.0)},
             {"launch_gap_start_us", f.value("launch_gap_start_us", 0.0)},
             {"host_sync", f.value("host_sync", nlohmann::json::object())},
             {"starved", f.value("starved", nlohmann::json::object())}};
    if (std::any_of(s.plainP.begin(), s.plainP.end(), [](const nlohmann::json& x) { return !x.is_null(); })) {
        // parity_balance 2: candidate_ms/reference_ms above are the samples aligned by group; the raw ones too.
        s.smp["samples_aligned"] = "four_groups";
        s.smp["candidate_ms_raw"] = s.cRaw;
        s.smp["reference_ms_raw"] = s.rRaw;
    }
    m_out.shapeSummaries.push_back({{"shape", s.row.shape}, {"candidate_ms", s.cMs}, {"reference_ms", s.rMs},
                                    {"speedup", sp.estimate}, {"lo", sp.lo}, {"hi", sp.hi}, {"cv_candidate", cs.cv},
                                    {"cv_reference", rs.cv}, {"reps", f.value("reps", 0)}, {"between_process_rel", rep.betweenRel}});
}

void ShapeSummarizer::starvedAndAttribution(Shape& s)
{
    // Samples in which the device may have waited for the host's launch (the longest launch gap
    // was not enough, too few clean samples): kept, and said so.
    bool starvedKept = false;
    for (std::size_t p = 0; p < m_P; ++p)
        if (auto sk = (*s.fp[p]).value("starved_kept", nlohmann::json::array()); sk.is_array() && !sk.empty()) {
            if (!s.smp.contains("starved_kept"))
                s.smp["starved_kept"] = sk;
            starvedKept = true;
        }
    if (starvedKept)
        flag("host_latency_in_samples", s);
    // The samples dropped as starved, per side, summed over every process (the kept samples are
    // every process's): kept plus dropped is the number of ABAB pairs on each side.
    nlohmann::json starved = nlohmann::json::object();
    for (std::size_t p = 0; p < m_P; ++p)
        if (const auto st = (*s.fp[p]).value("starved", nlohmann::json::object()); st.is_object())
            for (const auto& [side, n] : st.items())
                if (n.is_number_integer())
                    starved[side] = starved.value(side, 0) + n.get<int>();
    s.smp["starved"] = starved;
    hostInTiming(s);
    // The profiled call's kernels against the events: device work far beyond what the events saw
    // ran outside them (a side stream left unsynchronised): the samples cannot be trusted.
    if (const auto& att = m_ev.value("attribution", nlohmann::json::object());
        att.is_object() && att.value("available", false) && att.value("shape", "") == s.row.shape) {
        const double profiledMs = att.value("gpu_us", 0.0) / 1e3;
        s.smp["profiled_gpu_ms"] = profiledMs;
        if (profiledMs > 2.0 * s.cMedP.front() + 0.01)
            flag("device_work_outside_events", s);
    }
}

void ShapeSummarizer::hostInTiming(Shape& s)
{
    // A call that waits for the device inside (a pageable copy, a .item(), a host-side loop over
    // launches; the timer's host_sync probe) has the host's time inside its events by nature: its
    // timing moves with the host's load and speed (issue 22: determinant_lu 26 % and low_rank_svd
    // 5.5 % run to run). A side too slow to probe (host_sync null) counts when the host spent at least
    // half of the device time in the call. Flagged per side with the measured host share (the host's
    // median time inside one call, from the warm-up's enqueue time, over the call's device time): the
    // candidate as host_in_timing, eager as baseline_host_in_timing (then the speedup's denominator
    // moves with the host: eager Lion over eight tensors, 2.9 ms of host for 1.0 ms of device time).
    struct Side {
        const char* key;
        const char* flagName;
        const std::vector<double>& medians;
    };
    for (const Side side : {Side{"candidate", "host_in_timing", s.cMedP}, Side{"reference", "baseline_host_in_timing", s.rMedP}}) {
        double share = 0;
        bool sync = false, probed = true;
        for (std::size_t p = 0; p < m_P; ++p) {
            const auto& f = *s.fp[p];
            const auto hs = f.value("host_sync", nlohmann::json::object());
            const auto enq = f.value("host_enqueue_us", nlohmann::json::object());
            const double devUs = p < side.medians.size() ? 1e3 * side.medians[p] : 0.0;
            if (!hs.is_object() || !enq.is_object() || !(devUs > 0) || !enq.contains(side.key) || !enq[side.key].is_number())
                continue;
            share = std::max(share, enq[side.key].get<double>() / devUs);
            if (hs.contains(side.key)) {
                sync = sync || (hs[side.key].is_boolean() && hs[side.key].get<bool>());
                probed = probed && !hs[side.key].is_null();
            }
        }
        if (sync || (!probed && share >= 0.5)) {
            s.smp[side.flagName] = {{"host_share", share}, {"waits_for_device", sync}, {"probed", probed}};
            flag(side.flagName, s);
        }
    }
}

void ShapeSummarizer::roofline(Shape& s)
{
    const auto& f = *s.f;
    if (!f.contains("cost") || !f["cost"].is_object())
        return;
    const double bytes = f["cost"].value("bytes", 0.0), flops = f["cost"].value("flops", 0.0);
    s.smp["bytes"] = bytes;
    s.smp["flops"] = flops;
    if (!m_peaks.is_null()) {
        const auto [peak, peakDtype] = computePeak(m_peaks, f, m_tf32);
        auto rl = perf::roofline(s.cMs, bytes, flops, m_peaks.value("copy_gbs", 0.0), peak);
        s.smp["roofline"] = {{"gbs", rl.gbs}, {"tflops", rl.tflops}, {"bandwidth_util", rl.bandwidthUtil},
                             {"compute_util", rl.computeUtil}, {"bound_ms", rl.boundMs},
                             {"faster_than_bound", rl.fasterThanBound}, {"peak_dtype", peakDtype},
                             {"peak_tflops", peak}};
        if (rl.fasterThanBound)
            flag("faster_than_roofline", s);
    } else {
        s.smp["roofline"] = {{"gbs", bytes / (s.cMs * 1e-3) / 1e9}, {"tflops", flops / (s.cMs * 1e-3) / 1e12}};
    }
}

void ShapeSummarizer::recheckAndAutotune(Shape& s)
{
    bool recheckFailed = false;
    for (std::size_t p = 0; p < m_P; ++p)
        if (auto rc = (*s.fp[p]).value("recheck", nlohmann::json()); rc.is_object() && !rc.value("ok", true)) {
            recheckFailed = true;
            s.smp["recheck"] = rc;
        }
    if (recheckFailed)
        flag("output_recheck_failed", s);
    // The config(s) the candidate's autotuner chose for this shape and, where it benchmarked
    // here, each config's time (issue 22): evidence, bounded, shown by kbx show and reports.
    // Processes whose autotuners chose differently time different kernels: flagged, with each
    // process's choice (the interval already holds the spread it caused).
    auto chosen = [](const nlohmann::json& at) {
        std::string out;
        if (at.is_array())
            for (const auto& e : at)
                if (e.is_object())
                    out += e.value("kernel", std::string()) + "=" + e.value("config", std::string()) + ";";
        return out;
    };
    auto at = s.f->value("autotune", nlohmann::json::array());
    if (!at.is_array() || at.empty())
        return;
    for (std::size_t p = 0; p < m_P; ++p) {
        bool missed = false;
        for (const auto& e : (*s.fp[p]).value("autotune", nlohmann::json::array()))
            missed = missed || (e.is_object() && e.contains("replayed") && e["replayed"].is_boolean() && !e["replayed"].get<bool>());
        if (missed) {
            flag("autotune_replay_missed", s);
            break;
        }
    }
    s.smp["autotune"] = at.dump().size() <= 8192 ? printableStrings(at) : nlohmann::json{{{"truncated_bytes", at.dump().size()}}};
    nlohmann::json choices = nlohmann::json::array();
    bool differs = false;
    for (std::size_t p = 0; p < m_P; ++p) {
        const auto atp = (*s.fp[p]).value("autotune", nlohmann::json::array());
        const auto ch = chosen(atp);
        differs = differs || ch != chosen(at);
        choices.push_back(printable(ch.substr(0, 2048)));
    }
    if (differs) {
        s.smp["autotune_per_process"] = choices;
        flag("autotune_choice_differs", s);
    }
}

void ShapeSummarizer::baselines(Shape& s)
{
    const auto& f = *s.f;
    if (f["samples_ms"].is_object()) {
        for (const auto& [name, xs0] : f["samples_ms"].items()) {
            if (name == "candidate" || name == "reference")
                continue;
            std::vector<double> x;
            for (std::size_t p = 0; p < m_P; ++p)
                if (const auto& sm = (*s.fp[p]).value("samples_ms", nlohmann::json::object()); sm.is_object() && sm.contains(name))
                    x = concat(std::move(x), evalutil::positiveNumbers(sm[name]));
            if (x.empty())
                continue;
            auto xsum = perf::summarize(x);
            auto xsp = speedupCI(s.c, x, m_seed + s.k + 7919);
            s.smp["baselines"][name] = {{"ms", x}, {"summary", summaryJson(xsum)}, {"median_ms", xsum.median},
                                        {"speedup", {{"estimate", xsp.estimate}, {"lo", xsp.lo}, {"hi", xsp.hi}}},
                                        {"first_call_s", f.value("first_call_s", nlohmann::json::object()).value(name, 0.0)}};
            m_out.extraAll[name].first.push_back(s.c);
            m_out.extraAll[name].second.push_back(std::move(x));
        }
    }
    if (auto be = f.value("baseline_errors", nlohmann::json::object()); be.is_object() && !be.empty())
        s.smp["baseline_errors"] = be;
}

void ShapeSummarizer::shape(std::size_t k, const nlohmann::json& f)
{
    Shape s;
    s.k = k;
    s.f = &f;
    s.row.shape = f.value("shape", fmt::format("shape{}", k));
    if (!gather(s))
        return;
    statistics(s);
    starvedAndAttribution(s);
    roofline(s);
    recheckAndAutotune(s);
    if (s.speedup > 10)
        flag("speedup_over_10x", s);
    baselines(s);
    s.row.samples = s.smp;
    m_out.rows.push_back(std::move(s.row));
    for (std::size_t p = 0; p < m_P; ++p) {
        m_out.cAllP[p].push_back(std::move(s.cp[p]));
        m_out.rAllP[p].push_back(std::move(s.rp[p]));
    }
    m_out.cMed.push_back(s.cMs);
    m_out.rMed.push_back(s.rMs);
}
}  // namespace

PerfShapes summarizeShapes(const std::vector<PerfProcess>& procs, std::size_t P, const nlohmann::json& ev, const nlohmann::json& peaks,
                           bool tf32, std::uint64_t seed, const PerfConfig& config, perf::BootstrapMemo* memo)
{
    PerfShapes out;
    out.cAllP.resize(P);
    out.rAllP.resize(P);
    if (P == 0)
        return out;
    ShapeSummarizer summarizer(procs, P, ev, peaks, tf32, seed, config, out, memo);
    const auto& shapes0 = procs.front().shapes;
    for (std::size_t k = 0; k < shapes0.size(); ++k)
        summarizer.shape(k, shapes0[k]);
    return out;
}

void geomeanSummary(nlohmann::json& ev, PerfShapes& shapes, std::size_t P, std::uint64_t seed, const PerfConfig& config,
                    const std::function<std::pair<perf::Interval, std::string>()>& noiseBand, perf::BootstrapMemo* memo)
{
    auto geomeanCI = [memo](const std::vector<std::vector<double>>& c, const std::vector<std::vector<double>>& r, std::uint64_t s) {
        return memo ? memo->geomeanSpeedupCI(c, r, s) : perf::geomeanSpeedupCI(c, r, s);
    };
    auto& flags = shapes.flags;
    ev["shapes"] = shapes.shapeSummaries;
    const bool tampered = ev.contains("torch_modified") && ev["torch_modified"].is_array() && !ev["torch_modified"].empty();
    if (tampered)
        flags.push_back("torch_modified");
    // Samples that missed the candidate's device work give no speedup either (flagged above).
    bool evaded = false;
    for (const auto& f : flags)
        evaded = evaded || f.get<std::string>().starts_with("device_work_outside_events:");
    if (P && !shapes.cAllP.front().empty() && !tampered && !evaded) {
        const double priorRel = config.betweenProcessPrior, priorDf = config.betweenProcessPriorDf;
        // Per process, the geomean over its shapes with its within-process bootstrap interval; then
        // the repeat interval over the processes (perf::repeatInterval).
        std::vector<perf::Interval> gP;
        nlohmann::json gPer = nlohmann::json::array();
        for (std::size_t p = 0; p < P; ++p) {
            gP.push_back(geomeanCI(shapes.cAllP[p], shapes.rAllP[p], seed + 1000003u * p));
            gPer.push_back({{"estimate", gP.back().estimate}, {"lo", gP.back().lo}, {"hi", gP.back().hi}});
        }
        // Each shape's log speedup per process: the floor the shapes give the variance.
        double shapeVar = 0;
        if (config.shapeSpreadFloor) {
            std::vector<std::vector<double>> x(shapes.cAllP.front().size());
            for (std::size_t k = 0; k < x.size(); ++k)
                for (std::size_t p = 0; p < P; ++p)
                    x[k].push_back(std::log(perf::quantile(shapes.rAllP[p][k], 0.5) / perf::quantile(shapes.cAllP[p][k], 0.5)));
            shapeVar = perf::shapeSpreadVariance(x);
        }
        const auto rep = perf::repeatInterval(gP, priorRel, priorDf, 1.959964, shapeVar);
        const auto& g = rep.interval;
        ev["geomean_speedup"] = {{"estimate", g.estimate}, {"lo", g.lo}, {"hi", g.hi}, {"interval", "repeat"},
                                 {"processes", rep.processes}, {"between_process_rel", rep.betweenRel},
                                 {"within_process_rel", rep.withinRel}, {"sd_rel", rep.sdRel},
                                 {"prior_rel", priorRel}, {"prior_df", priorDf}};
        if (config.shapeSpreadFloor)
            ev["geomean_speedup"]["shape_spread_rel"] = rep.shapeRel;
        if (rep.fromShapes)
            ev["geomean_speedup"]["sd_from"] = "shapes";
        ev["geomean_speedup_per_process"] = gPer;
        ev["sum_time_ratio"] = perf::sumTimeRatio(shapes.cMed, shapes.rMed);
        const auto [noise, noiseFrom] = noiseBand();
        const perf::Interval gi{g.estimate, g.lo, g.hi};
        ev["vs_eager"] = perf::isTie(gi, noise) ? "tie" : (g.lo > 1.0 ? "faster" : "slower");
        ev["noise_band"] = {{"lo", noise.lo}, {"hi", noise.hi}, {"from", noiseFrom}};
        for (const auto& [name, cx] : shapes.extraAll) {
            auto gx = geomeanCI(cx.first, cx.second, seed + 104729);  // within the pooled samples
            ev["baselines"][name] = {{"geomean_speedup", {{"estimate", gx.estimate}, {"lo", gx.lo}, {"hi", gx.hi}}},
                                     {"shapes", cx.first.size()}};
        }
    }
    ev["flags"] = flags;
}

}  // namespace kbx
