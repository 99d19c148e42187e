// SPDX-License-Identifier: MIT
#include "scheduler.h"

#include "query_engine.h"

#include "catalogue.h"
#include "result_sink.h"
#include "source.h"
#include "store.h"

#include <fmt/format.h>

#include <sched.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <map>
#include <thread>

namespace kbx {

std::vector<DeviceSlot> gpuSlots(const std::vector<std::string>& gpus)
{
    std::vector<DeviceSlot> slots;
    for (const auto& g : gpus) {
        if (g.empty())
            continue;
        for (const auto& s : slots)
            if (s.name == g)
                throw std::invalid_argument("GPU " + g + " given twice");
        slots.push_back({g, {{"CUDA_VISIBLE_DEVICES", g}}});
    }
    return slots;
}

AutoJobs autoJobs(Device device, int gpuSlots, int cores, double memGiB)
{
    cores = std::max(1, cores);
    const bool knownMem = memGiB > 0;
    AutoJobs a;
    if (device == Device::Cuda) {
        const int slots = std::max(1, gpuSlots);
        int total = std::max(1, cores - 2);
        if (knownMem)
            total = std::min(total, std::max(1, static_cast<int>(memGiB / 2.5)));
        a.jobs = std::clamp(total / slots, 1, 16);
        a.why = fmt::format("picked from {} core(s){}{}; --jobs to choose", cores, knownMem ? fmt::format(", {:.0f} GiB available", memGiB) : std::string(),
                            slots > 1 ? fmt::format(", {} GPUs", slots) : "");
    } else {
        int total = std::max(1, cores / 2);
        if (knownMem)
            total = std::min(total, std::max(1, static_cast<int>(memGiB / 3.0)));
        a.jobs = total;
        a.why = fmt::format("picked from {} core(s){}; --jobs to choose", cores,
                            knownMem ? fmt::format(", {:.0f} GiB available", memGiB) : std::string());
    }
    return a;
}

std::pair<int, double> hostResources()
{
    int cores = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
    cpu_set_t set;
    CPU_ZERO(&set);
    if (sched_getaffinity(0, sizeof set, &set) == 0)
        cores = std::max(1, CPU_COUNT(&set));
    double mem = 0;
    std::ifstream in("/proc/meminfo");
    for (std::string line; std::getline(in, line);)
        if (line.rfind("MemAvailable:", 0) == 0) {
            mem = std::strtod(line.c_str() + 13, nullptr) / (1024.0 * 1024.0);  // kB -> GiB
            break;
        }
    return {cores, mem};
}

nlohmann::json hostCpu(const std::filesystem::path& cpuinfo)
{
    const auto [cores, mem] = hostResources();
    nlohmann::json h = {{"cores", cores}};
    if (mem > 0)
        h["mem_available_gib"] = std::round(mem * 10) / 10;
    std::ifstream in(cpuinfo);
    for (std::string line; std::getline(in, line);)
        if (line.rfind("model name", 0) == 0) {
            if (const auto colon = line.find(':'); colon != std::string::npos)
                if (const auto model = trimSpace(std::string_view(line).substr(colon + 1)); !model.empty())
                    h["model"] = std::string(model.substr(0, 200));
            break;
        }
    return h;
}

nlohmann::json Slot::describeForEvidence() const
{
    if (device.name.empty())
        return nullptr;
    nlohmann::json d = {{"slot", device.name}};
    if (probe.is_object() && probe.contains("devices") && probe["devices"].is_array() && !probe["devices"].empty())
        d["gpu"] = probe["devices"][0];
    return d;
}

std::map<std::string, double> queuePrior(const std::filesystem::path& tasksDir)
{
    std::map<std::string, double> out;
    std::ifstream in(tasksDir / "queue_prior.json");
    if (!in)
        return out;
    try {
        const auto j = nlohmann::json::parse(in);
        if (j.contains("seconds") && j["seconds"].is_object())
            for (const auto& [task, v] : j["seconds"].items())
                if (v.is_number() && v.get<double>() >= 0)
                    out[task] = v.get<double>();
    } catch (const std::exception&) {
        return {};  // a broken prior orders nothing: the queue falls back to the task's difficulty
    }
    return out;
}

std::deque<std::size_t> correctnessQueue(const std::vector<Submission>& subs, const TaskCatalogue& catalogue, const Store& store,
                                         bool ordered, std::vector<double>* expected)
{
    // One shared queue, longest expected work first (the tail of a run is then short jobs spread
    // over every worker): seconds this database has seen per task (a whole evaluation's wall time
    // where recorded, else its contract tier's candidate process), else the task's difficulty.
    std::vector<std::size_t> order(subs.size());
    for (std::size_t i = 0; i < order.size(); ++i)
        order[i] = i;
    if (ordered) {
        std::map<std::string, double> seen;
        try {
            const auto rows = query::secondsSeenPerTask(store);
            for (const auto& r : rows)
                if (r["t"].is_string() && r["s"].is_number())
                    seen[r["t"].get<std::string>()] = r["s"].get<double>();
        } catch (const std::exception&) {
            // an older database without these columns: difficulty alone
        }
        // A task this database has not seen: the seconds its own reference and known-good solution
        // took in `kbx tasks --check` on a GPU (tasks/queue_prior.json, scripts/queue_prior.py): a
        // fresh database's run on the H200 ended with one kernel (fused_conv2d_add, 33 s, started 19 s
        // in) that this prior puts first; the task's difficulty did not predict it.
        const auto prior = queuePrior(catalogue.dir());
        // A candidate that autotunes compiles every config for every new key in its correctness stage
        // (44 s of a 63 s candidate on the H200): its configs, counted in its source (~2 s each
        // there), put it ahead, so that it is not the run's tail.
        auto autotuneHint = [&](std::size_t i) {
            const auto& code = subs[i].code;
            if (code.find("autotune") == std::string::npos)
                return 0.0;
            int n = 0;
            for (std::size_t at = code.find("Config("); at != std::string::npos && n < 64; at = code.find("Config(", at + 7))
                ++n;
            return 2.0 * n;
        };
        auto cost = [&](std::size_t i) {
            const auto& id = subs[i].taskId;
            if (auto it = seen.find(id); it != seen.end())
                return it->second + autotuneHint(i);
            if (auto it = prior.find(id); it != prior.end())
                return it->second + autotuneHint(i);
            const TaskInfo* t = catalogue.find(id);
            return 1.0 + (t ? t->difficulty : 0) + autotuneHint(i);
        };
        std::vector<double> c(subs.size());
        for (std::size_t i = 0; i < subs.size(); ++i)
            c[i] = cost(i);
        std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return c[a] > c[b]; });
        if (expected)
            *expected = std::move(c);
    }
    return std::deque<std::size_t>(order.begin(), order.end());
}

std::vector<bool> criticalPath(const std::vector<double>& expected, int workers)
{
    // On the H200 (50 real generated kernels, 14 jobs) the stage ended with one evaluation that
    // started first: its contract tier (17 s incl. waiting for the warm worker), then its extended
    // tier (24 s, new shapes it recompiles for) and its precompile (7 s), one after the other, while
    // every other evaluation had ended 8 s earlier. A third: the share above which an evaluation
    // started at once outlasts the others' work spread over the threads; a candidate selected by
    // mistake costs at most an extended-tier process thrown away when its contract tier fails.
    std::vector<bool> out(expected.size(), false);
    if (expected.empty())
        return out;
    double sum = 0, longest = 0;
    for (double c : expected) {
        sum += c;
        longest = std::max(longest, c);
    }
    const double wall = std::max(sum / std::max(1, workers), longest);
    for (std::size_t i = 0; i < expected.size(); ++i)
        out[i] = expected[i] >= wall / 3.0;
    return out;
}

namespace {
/// The correctness queue shared by every worker thread of a run.
struct CorrectnessPool {
    const std::vector<Submission>& subs;
    std::deque<std::size_t> queue;
    Slots& slots;
    bool multi;
    const EvaluateFn& evaluate;
    const HealthFn& health;
    RunTally& tally;
    const std::atomic<bool>* cancel;
    const TailFn& tail;
    std::vector<int> attempts = std::vector<int>(subs.size(), 0);
    std::mutex queueMutex{};

    bool cancelled() const { return cancel && cancel->load(); }
    bool anyOtherAlive(std::size_t self) const
    {
        for (std::size_t k = 0; k < slots.size(); ++k)
            if (k != self && slots[k]->alive)
                return true;
        return false;
    }
    /// One worker thread of `slot`: takes the next submission until the queue is empty, then tail
    /// work until none is left.
    void workerLoop(std::size_t slot);
};

void CorrectnessPool::workerLoop(std::size_t slot)
{
    Slot& s = *slots[slot];
    for (;;) {
        if (!s.alive || cancelled())
            return;
        std::size_t i = 0;
        bool empty = false;
        {
            std::lock_guard g(queueMutex);
            empty = queue.empty();
            if (!empty) {
                i = queue.front();
                queue.pop_front();
                ++attempts[i];
                if (queue.empty())
                    for (auto& other : slots)
                        other->queueDrained = true;
            }
        }
        if (empty) {
            // A submission put back by an unhealthy slot may still arrive: the tail's work is short
            // (a precompile), so the thread looks at the queue again after each piece.
            if (tail && tail(s))
                continue;
            return;
        }
        Outcome o;
        try {
            o = evaluate(i, s);
        } catch (const std::exception& e) {
            o.taskId = subs[i].taskId;
            o.origin = subs[i].origin;
            o.harnessError = true;
            o.harnessMessage = e.what();
        }
        if (multi && o.harnessError && !cancelled()) {
            // Ours or the device's? Probe the slot: if it cannot run anything, it leaves the pool
            // and the submission goes back to the queue for the other devices.
            std::string why = s.alive ? health(s, nullptr) : "taken out of the pool";
            if (!why.empty()) {
                s.alive = false;
                std::lock_guard g(queueMutex);
                if (attempts[i] < 3 && anyOtherAlive(slot)) {
                    queue.push_front(i);
                    return;
                }
                o.harnessMessage += " | device " + s.device.name + " unhealthy: " + why;
            }
        }
        tally.record(i, std::move(o));
    }
}
}  // namespace

void runCorrectnessPool(const std::vector<Submission>& subs, std::deque<std::size_t> queue, Slots& slots, int jobs, bool multi,
                        const EvaluateFn& evaluate, const HealthFn& health, RunTally& tally, const std::atomic<bool>* cancel,
                        const TailFn& tail)
{
    CorrectnessPool pool{subs, std::move(queue), slots, multi, evaluate, health, tally, cancel, tail};
    std::vector<std::thread> threads;
    const int perSlot = std::min(jobs, std::max(1, static_cast<int>(subs.size())));
    for (std::size_t k = 0; k < slots.size(); ++k)
        for (int j = 0; j < perSlot; ++j)
            threads.emplace_back([&pool, k] { pool.workerLoop(k); });
    for (auto& t : threads)
        t.join();
    for (std::size_t i = 0; i < subs.size(); ++i)
        if (!tally.finished(i) && !pool.cancelled()) {
            Outcome o;
            o.taskId = subs[i].taskId;
            o.origin = subs[i].origin;
            o.harnessError = true;
            o.harnessMessage = "not judged: no healthy device left in the pool";
            tally.record(i, std::move(o));
        }
}

void runPerfPool(const std::vector<Submission>& subs, Slots& slots, const EvalOptions& opt, const PerfFn& perf, RunTally& tally,
                 const Evaluator::PerfProgressFn& progress, const std::atomic<bool>* cancel)
{
    auto& outcomes = tally.outcomes();
    std::deque<std::size_t> todo;
    for (std::size_t i = 0; i < outcomes.size(); ++i)
        if (!outcomes[i].harnessError && outcomes[i].evaluationId > 0 &&
            (outcomes[i].record.pass || (subs[i].selfCheckReference && outcomes[i].record.exeOk)))
            todo.push_back(i);
    // Longest first: a task whose reference takes seconds per call (an eigensolver) holds a GPU
    // for a minute or more; started last it would leave the other GPUs idle at the end, and the
    // workers started behind it on its GPU waiting (measured on 2 x H200). The reference stage's
    // time is the cost hint.
    orderLongestFirst(todo, [&](std::size_t i) { return outcomes[i].record.stageSeconds.value("reference", 0.0); });
    const int nTodo = static_cast<int>(todo.size());
    std::mutex todoMutex;
    auto perfLoop = [&](std::size_t slot) {
        Slot& s = *slots[slot];
        for (;;) {
            std::size_t i;
            {
                std::lock_guard g(todoMutex);
                if (todo.empty() || (cancel && cancel->load()) || !s.alive)
                    return;
                i = todo.front();
                todo.pop_front();
            }
            nlohmann::json p;
            const bool wasPass = outcomes[i].record.pass;
            try {
                p = perf(i, s);
            } catch (const std::exception& e) {
                p = {{"error", e.what()}};
            }
            tally.perfDone(i, wasPass, p, nTodo, progress);
        }
    };
    // Several perf workers per GPU: one times (it holds the GPU's timing lock) while the next
    // start up; on the CPU (tests) the same, the lock keeps timings apart there too.
    std::vector<std::thread> timers;
    // A perf worker's start-up (interpreter, torch, CUDA context, the modules it fingerprints)
    // takes ~10 s of host time against a median ~1.2 s of exclusive GPU time. On 2 x H200: 6 per
    // GPU kept the GPUs busy 55-75 % of the perf stage; 12 per GPU kept them 91 % busy, but each
    // timing's own host work (JIT, the warm-up's Python) got ~40 % slower beside 23 starting
    // workers and the stage took as long. Half the host's cores per GPU (8 there), 4-12.
    const int cores = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
    const int nSlots = static_cast<int>(slots.size());
    const int perSlot = opt.perfPipeline > 0 ? std::min(16, opt.perfPipeline)
                        : opt.device == Device::Cpu ? 2
                                               : std::clamp(cores / 2 / std::max(1, nSlots), 4, 12);
    for (std::size_t k = 0; k < slots.size(); ++k)
        if (slots[k]->alive)
            for (int j = 0; j < perSlot; ++j)
                timers.emplace_back(perfLoop, k);
    for (auto& t : timers)
        t.join();
}

std::vector<std::string> probeSlots(Slots& slots, const HealthFn& health)
{
    std::vector<std::thread> probes;
    std::vector<std::string> why(slots.size());
    for (std::size_t k = 0; k < slots.size(); ++k)
        probes.emplace_back([&, k] { why[k] = health(*slots[k], &slots[k]->probe); });
    for (auto& t : probes)
        t.join();
    return why;
}

}  // namespace kbx
