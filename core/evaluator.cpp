// SPDX-License-Identifier: MIT
// The evaluator: a run from its seeds, scratch and provenance to its finished row, through the
// rooms that do the work (worker_launch, reference_cache, tier_judge, correctness_stage,
// perf_stage with perf_summary, scheduler, result_sink).
#include "evaluator.h"

#include "correctness_stage.h"
#include "evalutil.h"
#include "option_words.h"
#include "perf_stage.h"
#include "reference_cache.h"
#include "resume.h"
#include "result_sink.h"
#include "sandbox.h"
#include "scheduler.h"
#include "scratch_removal.h"
#include "taxonomy.h"
#include "tier_judge.h"
#include "worker_launch.h"

#include <fmt/format.h>

#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>

#include <algorithm>
#include <chrono>
#include <random>
#include <tuple>

namespace kbx {
namespace fs = std::filesystem;

namespace {
constexpr std::pair<ExtendedStart, const char*> kExtendedStarts[] = {
    {ExtendedStart::Auto, "auto"}, {ExtendedStart::AfterContract, "after-contract"}, {ExtendedStart::Early, "early"}};
constexpr std::pair<Protocol, const char*> kProtocols[] = {{Protocol::Contract, "contract"}, {Protocol::Strict, "strict"}};
constexpr std::pair<WarmWorkers, const char*> kWarmWorkers[] = {{WarmWorkers::Auto, "auto"}, {WarmWorkers::On, "on"}, {WarmWorkers::Off, "off"}};
}  // namespace

const char* extendedStartName(ExtendedStart s) { return wordOf(kExtendedStarts, s); }
std::optional<ExtendedStart> parseExtendedStart(std::string_view word) { return valueOf(kExtendedStarts, word); }
const char* protocolName(Protocol p) { return wordOf(kProtocols, p); }
std::optional<Protocol> parseProtocol(std::string_view word) { return valueOf(kProtocols, word); }
const char* warmWorkersName(WarmWorkers w) { return wordOf(kWarmWorkers, w); }
std::optional<WarmWorkers> parseWarmWorkers(std::string_view word) { return valueOf(kWarmWorkers, word); }
std::vector<std::string> extendedStartWords() { return wordsOf(kExtendedStarts); }
std::vector<std::string> protocolWords() { return wordsOf(kProtocols); }
std::vector<std::string> warmWorkersWords() { return wordsOf(kWarmWorkers); }

Evaluator::Evaluator(const TaskCatalogue& catalogue, Store& store, WorkerConfig worker, EvalOptions options)
    : m_catalogue(catalogue), m_store(store), m_worker(std::move(worker)), m_opt(std::move(options)),
      m_perf(PerfConfig::fromJson(m_opt.perfConfig, m_opt.device))
{
    if (m_opt.jobs < 1)
        m_opt.jobs = 1;
    if (m_opt.deviceSlots.empty())
        m_opt.deviceSlots.push_back({});
    for (std::size_t k = 0; k < m_opt.deviceSlots.size(); ++k)
        m_slots.push_back(std::make_unique<Slot>(k, m_opt.deviceSlots[k]));
    m_sink = std::make_unique<ResultSink>(m_store);
    m_launcher = std::make_unique<WorkerLauncher>(m_worker, m_opt, m_store.path());
    m_refs = std::make_unique<ReferenceCache>(m_catalogue, *m_launcher, m_opt);
    m_judge = std::make_unique<TierJudge>(m_catalogue, m_opt, *m_launcher, [this] { return interpreterGaps(); });
    m_perfStage = std::make_unique<PerfStage>(m_catalogue, m_opt, m_perf, *m_launcher, *m_sink);
    m_correctness = std::make_unique<CorrectnessStage>(m_catalogue, m_opt, *m_launcher, *m_refs, *m_judge, *m_perfStage, *m_sink);
}

Evaluator::~Evaluator() = default;

InterpGaps Evaluator::runCanary() const
{
    try {
        auto res = m_launcher->run("canary", nlohmann::json::object(), m_launcher->scratch() / "canary", 300, m_slots.front()->device, {},
                                   /*allowWarm=*/false);
        if (res.timedOut)
            return unknownInterpGaps("the canary timed out");
        if (res.cancelled)
            return unknownInterpGaps("cancelled");
        auto* r = evalutil::findFrame(res, "result");
        if (!r || res.exitCode != 0 || !res.protocolError.empty())
            return unknownInterpGaps(fmt::format("the canary failed (exit {}, signal {}{}): {}", res.exitCode, res.signal,
                                                 res.protocolError.empty() ? "" : ", " + res.protocolError,
                                                 evalutil::tail(res.stderrText, 800)));
        return parseCanaryResult(*r);
    } catch (const std::exception& e) {
        return unknownInterpGaps(std::string("the canary could not start: ") + e.what());
    }
}

InterpGaps Evaluator::interpreterGaps() const
{
    if (!m_interpGaps.valid()) {
        InterpGaps g;
        g.known = true;
        return g;
    }
    return m_interpGaps.get();
}

std::int64_t Evaluator::drawSeeds()
{
    std::int64_t secret = 0;
    if (m_opt.secretSeed) {
        secret = *m_opt.secretSeed;
    } else {
        std::random_device rd;
        secret = static_cast<std::int64_t>((static_cast<std::uint64_t>(rd()) << 31) ^ rd()) & 0x7fffffffffffLL;
    }
    std::vector<nlohmann::json> seeds;
    for (auto s : m_opt.publicSeeds)
        seeds.push_back({{"label", fmt::format("seed{}", s)}, {"seed", s}});
    seeds.push_back({{"label", "secret"}, {"seed", secret}});
    m_refs->setSeeds(std::move(seeds));
    return secret;
}

void Evaluator::prepareScratch(const fs::path& scratch, const std::atomic<bool>* cancel)
{
    fs::create_directories(scratch);
    m_launcher->beginRun(scratch, cancel);
    if (!resolveSandbox(m_opt.sandbox).separateUid)
        return;
    // Candidates run under a uid of their own: what they must reach has to be traversable by
    // others from / down (kbx opens the way below the scratch root itself, never above it).
    // Refused before any work, instead of every candidate failing to start.
    std::vector<std::pair<std::string, fs::path>> need = {{"the scratch directory", scratch.parent_path()},
                                                          {"the task suite", m_catalogue.dir()},
                                                          {"kbx-worker", m_worker.worker.parent_path()}};
    for (const auto& p : workerRuntimePaths())
        need.emplace_back("the worker's Python runtime", p);
    for (const auto& [what, p] : need)
        if (auto bad = firstUntraversable(p); !bad.empty())
            throw std::runtime_error(fmt::format(
                "the sandbox runs every candidate under a uid of its own, which cannot reach {} ({}): {} is not "
                "searchable by others (mode lacks o+x). Put it under a directory others can traverse (for the "
                "scratch: --scratch under /tmp), or `chmod o+x {}`",
                what, p.string(), bad.string(), bad.string()));
}

Evaluator::WarmStart Evaluator::startRunWorkers()
{
    // The warm worker (core/warm.h) starts now, so its imports overlap the probes that follow, unless
    // the caller started it already (Evaluator::startWarm before its own probe) for this device and scratch.
    const auto& scratch = m_launcher->scratch();
    m_launcher->setWarm(nullptr);
    WarmStart ws = std::move(m_prestarted);
    m_prestarted = {};
    if (!(ws.device == m_opt.device && ws.scratch == scratch && (ws.worker || !ws.coldWhy.empty())))
        ws = startWarm(m_worker, m_opt, scratch);
    else
        ws.prestarted = true;
    m_launcher->setWarm(ws.worker);
    // The CPU interpreter's gaps (core/interpgaps.h), found by our own kernels beside the other work.
    if (m_opt.device == Device::Cpu) {
        m_interpGaps = std::async(std::launch::async, [this] { return runCanary(); }).share();
    } else {
        std::promise<InterpGaps> none;
        InterpGaps g;
        g.known = true;
        none.set_value(g);
        m_interpGaps = none.get_future().share();
    }
    return ws;
}

nlohmann::json Evaluator::provenance(const std::string& coldWhy, bool multi)
{
    nlohmann::json prov = m_probe.is_null() ? probe() : m_probe;
    prov.erase("type");
    prov["host"] = thisHost();  // core/resume.h: the name --resume and the scratch sweep match
    prov["host_cpu"] = hostCpu();  // what bounds the correctness stage's wall, beside the GPU
    prov["device"] = m_opt.device;
    prov["kbx_version"] = "0.1.0";
    prov["taxonomy_version"] = kTaxonomyVersion;
    prov["protocol"] = protocolName(m_opt.protocol);  // which tier decided the verdicts (issue 21)
    prov["extended_start"] = extendedStartName(m_opt.extendedStart);  // when the extended tier's process started (what is stored does not depend on it)
    prov["worker_start"] = m_launcher->warm() ? nlohmann::json{{"mode", "warm"}} : nlohmann::json{{"mode", "cold"}, {"why", coldWhy}};
    // Every slot is probed through its own environment before work starts: its GPU's name and UUID
    // go into the provenance, and a slot that cannot run anything is out of the pool from the start.
    for (auto& s : m_slots)
        s->alive = true;
    if (!multi)
        return prov;
    const auto why = probeSlots(m_slots, [this](const Slot& s, nlohmann::json* p) { return m_launcher->slotHealth(s.device, p); });
    nlohmann::json slotsProv = nlohmann::json::array();
    for (std::size_t k = 0; k < m_slots.size(); ++k) {
        auto& s = *m_slots[k];
        nlohmann::json e = {{"slot", s.device.name}, {"env", s.device.env}};
        if (s.probe.is_object() && s.probe.contains("devices"))
            e["devices"] = s.probe["devices"];
        if (!why[k].empty()) {
            s.alive = false;
            e["unhealthy"] = why[k];
        }
        slotsProv.push_back(e);
    }
    prov["slots"] = slotsProv;
    return prov;
}

void Evaluator::finishRun(RunSummary& sum, nlohmann::json& prov, bool startedBeforeProbe, const std::atomic<bool>* cancel)
{
    sum.cancelled = cancel && cancel->load();
    if (const auto warm = m_launcher->warm()) {
        // How it went: children forked, start-up seconds, and why it stopped being used if it did.
        prov["worker_start"] = warm->describe();
        prov["worker_start"]["mode"] = "warm";
        prov["worker_start"]["started_before_probe"] = startedBeforeProbe;
    }
    m_refs->endRun();              // the reference servers: every worker thread has ended
    m_launcher->setWarm(nullptr);  // stops it (nothing of it runs any more: every worker thread has ended)
    if (m_opt.device == Device::Cpu && m_interpGaps.valid())
        prov["interpreter_gaps"] = toJson(m_interpGaps.get());
    m_sink->finishRun(sum.runId, sum.cancelled ? "cancelled" : (sum.harnessErrors ? "finished_with_errors" : "finished"), prov);
}

RunSummary Evaluator::run(const std::vector<Submission>& subs, const ProgressFn& progress, const std::atomic<bool>* cancel,
                          const nlohmann::json& args)
{
    const auto t0 = std::chrono::steady_clock::now();
    RunSummary sum;
    sum.total = static_cast<int>(subs.size());
    if (m_worker.worker.empty() || !fs::exists(m_worker.worker))
        throw std::runtime_error("kbx-worker not found (build with KBX_BUILD_WORKER=ON or set KBX_WORKER)");
    const std::int64_t secret = drawSeeds();
    // Only the run's own directory is ever removed, never --scratch's root; its removal is declared
    // before the warm worker, which ends first.
    const ScratchRemoval scratch{m_opt.scratchDir.empty() ? makeRunScratch(m_opt.scratchRoot, m_opt.keepScratch) : m_opt.scratchDir, m_opt.keepScratch};
    prepareScratch(scratch.dir, cancel);
    sum.scratch = scratch.dir;
    const WarmStart ws = startRunWorkers();  // held to the end of the run, as its warm worker
    m_perfStage->loadAutotuneReplay();
    const bool multi = m_slots.size() > 1 || !m_slots.front()->device.name.empty();
    nlohmann::json prov = provenance(ws.coldWhy, multi);
    std::vector<double> expected;
    auto queue = correctnessQueue(subs, m_catalogue, m_sink->store(), multi || m_opt.jobs > 1, &expected);
    // The evaluations expected to end the stage run as at its tail (CorrectnessStage), unless
    // --extended-start after-contract; how many, in the provenance (each one's evidence says so).
    auto critical = m_opt.extendedStart == ExtendedStart::AfterContract ? std::vector<bool>{}
                                                            : criticalPath(expected, m_opt.jobs * static_cast<int>(m_slots.size()));
    prov["critical_path"] = std::count(critical.begin(), critical.end(), true);
    m_correctness->setCriticalPath(std::move(expected), std::move(critical));
    sum.provenance = prov;
    const auto methodId = m_sink->ensureMethod(m_opt.method);
    sum.runId = m_sink->beginRun(deviceName(m_opt.device), prov, m_opt.publicSeeds, secret, args);

    RunTally tally(sum, subs.size(), progress);
    runCorrectnessPool(
        subs, std::move(queue), m_slots, m_opt.jobs, multi,
        [&](std::size_t i, Slot& s) { return m_correctness->evaluateOne(subs[i], sum.runId, methodId, static_cast<int>(i), s); },
        [this](const Slot& s, nlohmann::json* p) { return m_launcher->slotHealth(s.device, p); }, tally, cancel,
        [this](Slot& s) { return m_correctness->runPendingPrecompile(s); });
    sum.correctnessSeconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    std::tie(sum.tailPrecompiles, sum.tailPrecompileSeconds) = m_correctness->pendingPrecompilesDone();
    if (m_correctnessEnd)
        m_correctnessEnd(sum);
    if (multi) {
        for (std::size_t k = 0; k < m_slots.size(); ++k)
            if (!m_slots[k]->alive)
                prov["slots"][k]["left_pool"] = true;
    }
    // Perf stage: only after all correctness work, one timing at a time per device (each GPU alone).
    if (m_opt.perf && !(cancel && cancel->load()))
        runPerfPool(
            subs, m_slots, m_opt,
            [&](std::size_t i, Slot& s) { return m_perfStage->runPerf(tally.outcomes()[i], subs[i], sum.runId, static_cast<int>(i), s); },
            tally, m_perfProgress, cancel);
    finishRun(sum, prov, ws.prestarted, cancel);
    sum.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    return sum;
}

}  // namespace kbx
