// SPDX-License-Identifier: MIT
#include "perf_stage.h"

#include "query_engine.h"

#include "evalutil.h"
#include "perf_summary.h"
#include "result_sink.h"
#include "scheduler.h"
#include "worker_launch.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <mutex>

namespace kbx {
namespace fs = std::filesystem;
using evalutil::findFrame;
using evalutil::tail;

PerfStage::PerfStage(const TaskCatalogue& catalogue, const EvalOptions& opt, const PerfConfig& config, const WorkerLauncher& launcher,
                     ResultSink& sink)
    : m_catalogue(catalogue), m_opt(opt), m_perf(config), m_launcher(launcher), m_sink(sink)
{
}

PerfStage::Precompiled PerfStage::precompile(const std::string& entry, const TaskInfo& task, const fs::path& dir,
                                             const DeviceSlot& slot) const
{
    // The perf shapes' Triton specialisations, compiled now (beside other correctness work) instead
    // of in the perf stage's exclusive window (kbx_harness/precompile.py). Best effort: whatever
    // happens here is kept as evidence and changes no verdict.
    nlohmann::json req = {{"task_id", task.id},
                          {"task_file", m_catalogue.taskFile(task).string()},
                          {"source_file", (dir / "candidate.py").string()},
                          {"entry", entry},
                          {"device", m_opt.device},
                          {"config", m_perf.toJson()}};
    Precompiled out;
    ProcessResult res;
    try {
        res = m_launcher.run("precompile", req, dir, m_opt.candidateTimeout, slot);
    } catch (const std::exception& e) {
        out.evidence = {{"error", e.what()}};
        return out;
    }
    out.seconds = res.seconds;
    nlohmann::json ev = {{"seconds", res.seconds}};
    const auto* r = findFrame(res, "result");
    if (r && r->value("ok", false)) {
        for (const char* k : {"shapes", "compiled", "inputs_seconds"})
            if (r->contains(k))
                ev[k] = (*r)[k];
    } else {
        ev["error"] = r ? r->value("message", std::string("precompile failed"))
                        : fmt::format("precompile worker ended without a result (exit {}, signal {}{})", res.exitCode, res.signal,
                                      res.timedOut ? ", timed out" : "");
    }
    out.evidence = std::move(ev);
    return out;
}

void PerfStage::Precompiled::applyTo(EvaluationRecord& rec) const
{
    if (seconds)
        rec.stageSeconds["precompile"] = *seconds;
    if (!evidence.is_null())
        rec.evidence["precompile"] = evidence;
}

void PerfStage::loadAutotuneReplay()
{
    // Autotune replay (EvalOptions::autotuneReplay): the latest recorded choice per shape of every
    // code that database timed on this device kind.
    m_autotuneReplay.clear();
    if (!m_opt.perf || m_opt.autotuneReplay.empty())
        return;
    nlohmann::json rows;
    try {
        Store from(m_opt.autotuneReplay, OpenMode::ReadOnly);
        rows = query::recordedAutotuneChoices(from, deviceName(m_opt.device));
    } catch (const std::exception& e) {
        throw std::runtime_error(fmt::format("--autotune-replay {}: {}", m_opt.autotuneReplay.string(), e.what()));
    }
    for (const auto& r : rows) {
        if (!r["task"].is_string() || !r["hash"].is_string() || !r["shape"].is_string() || !r["at"].is_string())
            continue;
        const auto at = nlohmann::json::parse(r["at"].get<std::string>(), nullptr, false);
        if (!at.is_array())
            continue;
        nlohmann::json keep = nlohmann::json::array();
        for (const auto& e : at)
            if (e.is_object() && e.contains("kernel") && e["kernel"].is_string() && e.contains("config") && e["config"].is_string())
                keep.push_back({{"kernel", e["kernel"]}, {"config", e["config"]}});
        if (!keep.empty())
            m_autotuneReplay[{r["task"].get<std::string>(), r["hash"].get<std::string>()}][r["shape"].get<std::string>()] = keep;
    }
}

namespace {

/// One process's geomean speedup from its shapes' medians (for the decision on extra processes;
/// the reported figures are computed from all samples).
std::optional<double> procGeomean(const PerfProcess& pr)
{
    double l = 0;
    int n = 0;
    for (const auto& f : pr.shapes) {
        const auto sm = f.value("samples_ms", nlohmann::json::object());
        if (!sm.is_object() || f.contains("error"))
            continue;
        const auto c = evalutil::positiveNumbers(sm.value("candidate", nlohmann::json::array()));
        const auto r = evalutil::positiveNumbers(sm.value("reference", nlohmann::json::array()));
        if (c.empty() || r.empty())
            continue;
        const double cm = perf::quantile(c, 0.5), rm = perf::quantile(r, 0.5);
        if (cm > 0 && rm > 0) {
            l += std::log(rm / cm);
            ++n;
        }
    }
    return n ? std::optional<double>(std::exp(l / n)) : std::nullopt;
}

/// The spread of the processes' geomeans (hi / lo - 1), or nullopt when one has none.
std::optional<double> geomeanSpread(const std::vector<PerfProcess>& procs)
{
    double lo = 0, hi = 0;
    bool all = true;
    for (const auto& q : procs) {
        const auto g = procGeomean(q);
        all = all && g.has_value();
        if (g) {
            lo = lo == 0 ? *g : std::min(lo, *g);
            hi = std::max(hi, *g);
        }
    }
    if (!all || lo <= 0)
        return std::nullopt;
    return hi / lo - 1.0;
}
}  // namespace

nlohmann::json calibratedPeaks(const std::vector<nlohmann::json>& frames)
{
    for (const auto& f : frames)
        if (f.is_object() && f.value("type", "") == "peaks")
            return f.contains("peaks") && f["peaks"].is_object() ? f["peaks"] : nlohmann::json();
    return nullptr;
}

void publishCalibration(Slot& slot, const nlohmann::json& frame)
{
    {
        std::lock_guard g(slot.peaksMutex);
        if (const auto measured = calibratedPeaks({frame}); measured.is_object() && !measured.empty())
            slot.peaks = measured;
        else
            slot.calibrating = false;  // none on this device (the CPU): the next worker is asked again
    }
    slot.peaksChanged.notify_all();
}

nlohmann::json awaitPeaks(Slot& slot, bool calibrated, bool sentPeaks, const std::function<bool()>& cancelled)
{
    std::unique_lock g(slot.peaksMutex);
    if (calibrated && !sentPeaks) {
        slot.calibrating = false;  // its worker ended before its peaks frame (died first): the next one calibrates
        slot.peaksChanged.notify_all();
    }
    // Another evaluation's worker is measuring them: wait for its frame (that worker needs the GPU's
    // turn, which no waiting evaluation holds), or until it ends without one, or the run is cancelled.
    while (slot.peaks.is_null() && slot.calibrating && !(cancelled && cancelled()))
        slot.peaksChanged.wait_for(g, std::chrono::milliseconds(200));
    return slot.peaks;
}

PerfProcess PerfStage::runProcess(const nlohmann::json& req, const fs::path& pdir, Slot& slot) const
{
    // One timing at a time per GPU: the worker starts (interpreter, torch, Triton, the task) while
    // another times, says "ready", and waits for "go" before it touches the GPU or the candidate.
    std::unique_lock<std::timed_mutex> gpu(slot.timing, std::defer_lock);
    PerfProcess pr;
    // The calibrating worker's peaks count as soon as they arrive (its first "peaks" frame, sent
    // before it imports the candidate: calibratedPeaks), not when its evaluation ends: timings of
    // other candidates that end first need them for their rooflines too (awaitPeaks).
    const bool calibrating = req.value("calibrate", false);
    auto reply = [&](const nlohmann::json& f) -> std::string {
        if (calibrating && !pr.sentPeaks && f.value("type", "") == "peaks") {
            pr.sentPeaks = true;
            publishCalibration(slot, f);
            return {};
        }
        if (f.value("type", "") != "ready" || gpu.owns_lock())
            return {};
        const auto w0 = std::chrono::steady_clock::now();
        while (!gpu.try_lock_for(std::chrono::milliseconds(100)))
            if (m_launcher.cancelled())
                return "stop\n";
        pr.waited += std::chrono::duration<double>(std::chrono::steady_clock::now() - w0).count();
        return "go\n";
    };
    pr.res = m_launcher.run("perf", req, pdir, m_opt.perfTimeout, slot.device, reply);
    pr.exclusive = gpu.owns_lock();
    if (gpu.owns_lock())
        gpu.unlock();
    for (const auto& f : pr.res.frames) {
        const auto type = f.value("type", "");
        if (type == "shape")
            pr.shapes.push_back(f);
        else if (type == "result" || type == "error")
            pr.result = f;
    }
    return pr;
}

std::vector<PerfProcess> PerfStage::runProcesses(nlohmann::json& req, const fs::path& dir, bool calibrate, Slot& slot, int& want,
                                                 nlohmann::json& extraWhy, bool tf32, perf::BootstrapMemo& memo) const
{
    // Each side is timed in `processes` fresh perf workers (default 3 on a GPU), one after the other,
    // each taking its turn on the GPU like any other timing (so other candidates' timings fall between
    // them): the interval then covers what changes between processes (allocations, clocks, autotune
    // choices), the measurement a reader would repeat (issue 22). Every process draws the same inputs.
    // (PerfConfig, core/perfconfig.h: the defaults per device, any --perf-config overrides applied)
    const int nProc = std::clamp(m_perf.processes, 1, 8);
    // A kernel whose first nProc processes disagree by more than extra_process_threshold (relative,
    // geomean speedup) is timed in max_processes: its interval then rests on its own spread rather
    // than on the prior (issue 22: the spread between processes is heavy-tailed). Then, while its
    // repeat interval is wider than target_width, one more process, up to max_processes_for_width.
    const int maxProc = std::clamp(m_perf.maxProcesses, nProc, 8);
    const int maxForWidth = std::clamp(m_perf.maxProcessesForWidth, maxProc, 8);
    const double extraThreshold = m_perf.extraProcessThreshold;
    std::vector<PerfProcess> procs;
    want = nProc;
    for (int p = 0; p < want; ++p) {
        if (p > 0 && m_launcher.cancelled())
            break;
        const auto pdir = dir / (p == 0 ? std::string("perf") : fmt::format("perf-{}", p + 1));
        // The Triton kernels this candidate compiled in its correctness stage (its own cache, in its
        // own directory): each perf worker starts from a copy, so only new specialisations compile.
        {
            std::error_code ec;
            const auto from = dir / ".cache" / "triton", to = pdir / ".cache" / "triton";
            if (fs::is_directory(fs::symlink_status(from, ec)) && !fs::exists(to, ec)) {
                fs::create_directories(to, ec);
                fs::copy(from, to, fs::copy_options::recursive | fs::copy_options::skip_symlinks, ec);  // best effort
            }
        }
        req["calibrate"] = calibrate && p == 0;
        auto pr = runProcess(req, pdir, slot);
        const bool ok = pr.result.is_object() && pr.result.value("type", "") != "error" && pr.result.value("ok", false);
        procs.push_back(std::move(pr));
        if (!ok)
            break;  // the first failure decides; no further process
        const int done = p + 1;
        if (done < want)
            continue;
        if (done == nProc && maxProc > nProc)
            if (const auto spread = geomeanSpread(procs); spread && *spread > extraThreshold) {
                want = maxProc;
                extraWhy = {{"spread", *spread}, {"threshold", extraThreshold}, {"processes", maxProc}};
                continue;
            }
        if (m_perf.targetWidth > 0 && done < maxForWidth)
            if (const auto width = repeatWidth(procs, tf32, req.value("seed", std::uint64_t{0}), memo); width && *width > m_perf.targetWidth) {
                want = done + 1;
                if (!extraWhy.is_object())
                    extraWhy = nlohmann::json::object();
                extraWhy["target_width"] = m_perf.targetWidth;
                extraWhy["widths"].push_back({{"processes", done}, {"width", *width}});
                extraWhy["processes"] = want;
            }
    }
    return procs;
}

std::optional<double> PerfStage::repeatWidth(const std::vector<PerfProcess>& procs, bool tf32, std::uint64_t seed,
                                             perf::BootstrapMemo& memo) const
{
    // Exactly what the summary would report for these processes (perf_summary.h), without the
    // device peaks (rooflines do not enter the interval) and against a placeholder noise band.
    nlohmann::json ev = processEvidence(procs, static_cast<int>(procs.size()));
    if (ev.contains("error"))
        return std::nullopt;
    auto shapes = summarizeShapes(procs, procs.size(), ev, nlohmann::json(), tf32, seed, m_perf, &memo);
    geomeanSummary(
        ev, shapes, procs.size(), seed, m_perf, [] { return std::make_pair(perf::Interval{1.0, 0.98, 1.02}, std::string()); }, &memo);
    if (!ev.contains("geomean_speedup"))
        return std::nullopt;
    const auto& g = ev["geomean_speedup"];
    const double e = g.value("estimate", 0.0), lo = g.value("lo", 0.0), hi = g.value("hi", 0.0);
    if (!(e > 0) || !std::isfinite(hi - lo))
        return std::nullopt;
    return (hi - lo) / e;
}

nlohmann::json PerfStage::processEvidence(const std::vector<PerfProcess>& procs, int want) const
{
    const PerfProcess& first = procs.front();
    nlohmann::json ev = {{"protocol", "kbx-perf-2"}, {"device", m_opt.device}, {"seconds", 0.0}, {"waited_for_gpu_s", 0.0},
                         {"exclusive", true}, {"processes", nlohmann::json::array()}};
    for (const auto& pr : procs) {
        ev["seconds"] = ev["seconds"].get<double>() + pr.res.seconds;
        ev["waited_for_gpu_s"] = ev["waited_for_gpu_s"].get<double>() + pr.waited;
        ev["exclusive"] = ev["exclusive"].get<bool>() && pr.exclusive;
        ev["processes"].push_back({{"seconds", pr.res.seconds}, {"waited_for_gpu_s", pr.waited}, {"exclusive", pr.exclusive},
                                   {"worker_start", pr.res.warm ? "warm" : "cold"},
                                   {"phases", pr.result.is_object() ? pr.result.value("phases", nlohmann::json()) : nlohmann::json()},
                                   {"window", pr.result.is_object() ? pr.result.value("window", nlohmann::json()) : nlohmann::json()}});
    }
    const PerfProcess& last = procs.back();
    if (!last.result.is_object() || last.result.value("type", "") == "error" || !last.result.value("ok", false)) {
        const auto& result = last.result;
        ev["error"] = result.is_object() ? result.value("message", std::string("perf worker failed"))
                                         : fmt::format("perf worker died (exit {}, signal {}{})", last.res.exitCode, last.res.signal,
                                                       last.res.timedOut ? ", timed out" : "");
        if (procs.size() > 1)
            ev["error"] = fmt::format("perf process {} of {}: {}", procs.size(), want, ev["error"].get<std::string>());
        ev["stderr_tail"] = tail(last.res.stderrText, 3000);
        return ev;
    }
    for (const char* k : {"attribution", "torch_modified", "launches", "nvml_before", "nvml_after", "config", "phases", "window",
                          "triton_compiles"})
        if (first.result.contains(k))
            ev[k] = first.result[k];
    // A torch function the candidate rebound in any process.
    for (std::size_t p = 1; p < procs.size(); ++p)
        if (auto tm = procs[p].result.value("torch_modified", nlohmann::json()); tm.is_array() && !tm.empty() &&
                                                                                !(ev.contains("torch_modified") && ev["torch_modified"].is_array() && !ev["torch_modified"].empty()))
            ev["torch_modified"] = tm;
    return ev;
}

std::pair<perf::Interval, std::string> PerfStage::noiseBand(const TaskInfo& task, bool selfCheck) const
{
    // Against eager: faster, slower or a tie. The noise band is this task's own self-speedup (its
    // reference timed against itself by `kbx tasks --check --perf`, the latest in this database
    // on this device kind) where one was measured, else +-2 % (the band every reference met on
    // the H200).
    perf::Interval noise{1.0, 0.98, 1.02};
    std::string noiseFrom = "default band +-2%";
    if (selfCheck)
        return {noise, noiseFrom};
    auto nf = query::latestReferenceSelfSpeedup(m_sink.store(), task.id, deviceName(m_opt.device));
    if (!nf.empty() && nf[0]["g"].is_string()) {
        auto g2 = nlohmann::json::parse(nf[0]["g"].get<std::string>(), nullptr, false);
        if (g2.is_object() && g2.contains("lo") && g2.contains("hi")) {
            noise = {g2.value("estimate", 1.0), std::min(g2.value("lo", 1.0), 2.0 - g2.value("hi", 1.0)),
                     std::max(g2.value("hi", 1.0), 2.0 - g2.value("lo", 1.0))};
            noiseFrom = fmt::format("self-check evaluation {}", nf[0]["id"].get<std::int64_t>());
        }
    }
    return {noise, noiseFrom};
}

std::optional<std::pair<std::string, std::string>> PerfStage::tritonShareFailure(const nlohmann::json& ev, bool selfCheck) const
{
    if (selfCheck || !ev.contains("attribution") || !ev["attribution"].value("available", false))
        return std::nullopt;
    const double share = ev["attribution"].value("triton_share", 0.0);
    if (share >= m_opt.minTritonShare)
        return std::nullopt;
    std::string top;
    for (const auto& k : ev["attribution"].value("kernels", nlohmann::json::array()))
        if (top.size() < 200)
            top += (top.empty() ? "" : ", ") + k.value("name", std::string("?")).substr(0, 60);
    return std::make_pair(std::string("not_triton_kernel"),
                          fmt::format("only {:.0f}% of the GPU time of a profiled call is in Triton kernels the candidate launched "
                                      "(kernels: {})", 100.0 * share, top.empty() ? "none" : top));
}

nlohmann::json PerfStage::runPerf(Outcome& o, const Submission& sub, std::int64_t runId, int index, Slot& slot)
{
    const TaskInfo* task = m_catalogue.find(o.taskId);
    if (!task)
        throw std::runtime_error("unknown task " + o.taskId);
    const auto dir = evalutil::candidateDir(m_launcher.scratch(), index, o.codeHash);
    const std::uint64_t seed = static_cast<std::uint64_t>(runId) * 100003u + static_cast<std::uint64_t>(index);
    bool calibrate = false;  // the slot's first perf worker measures its device peaks
    {
        std::lock_guard g(slot.peaksMutex);
        if (slot.peaks.is_null() && !slot.calibrating) {
            slot.calibrating = true;
            calibrate = true;
        }
    }
    nlohmann::json req = {{"task_id", task->id},
                          {"task_file", m_catalogue.taskFile(*task).string()},
                          {"source_file", (dir / "candidate.py").string()},
                          {"entry", evalutil::entryPoint(o.record, *task)},
                          {"device", m_opt.device},
                          {"seed", seed},
                          {"calibrate", calibrate},
                          {"config", m_perf.toJson()}};
    const auto replay = m_autotuneReplay.find({task->id, o.codeHash});
    if (replay != m_autotuneReplay.end())
        req["autotune_replay"] = replay->second;
    int want = 0;
    nlohmann::json extraWhy;
    const bool tf32 = task->contract().value("tf32", false);
    perf::BootstrapMemo memo;  // the extra-process decisions' intervals, reused by the summary below
    const auto procs = runProcesses(req, dir, calibrate, slot, want, extraWhy, tf32, memo);
    const PerfProcess& first = procs.front();
    nlohmann::json ev = processEvidence(procs, want);
    const nlohmann::json peaks = awaitPeaks(slot, calibrate, procs.front().sentPeaks, [this] { return m_launcher.cancelled(); });
    if (!peaks.is_null())
        ev["peaks"] = peaks;
    if (!extraWhy.is_null())
        ev["extra_processes"] = extraWhy;  // its first processes disagreed, or its interval was wide: timed in more
    if (replay != m_autotuneReplay.end())
        ev["autotune_replay"] = {{"from", m_opt.autotuneReplay.string()}, {"shapes", replay->second.size()}};
    ev["worker_start"] = first.res.warm ? "warm" : "cold";
    if (const auto d = slot.describeForEvidence(); !d.is_null()) {
        ev["device_slot"] = d["slot"];
        if (d.contains("gpu"))
            ev["gpu"] = d["gpu"];
    }
    // Timings only where every process ran to the end.
    const std::size_t P = ev.contains("error") ? 0 : procs.size();
    auto shapes = summarizeShapes(procs, P, ev, peaks, tf32, seed, m_perf, &memo);
    geomeanSummary(ev, shapes, P, seed, m_perf, [&] { return noiseBand(*task, sub.selfCheckReference); }, &memo);
    const auto failure = tritonShareFailure(ev, sub.selfCheckReference);
    m_sink.storePerf(o.evaluationId, shapes.rows, ev, failure);
    o.record.evidence["perf"] = ev;
    if (failure) {  // the verdict, not exe_ok (Store::addPerf)
        o.record.pass = false;
        o.record.failureClass = failure->first;
        o.record.failureDetail = failure->second;
    }
    return ev;
}

}  // namespace kbx
