// SPDX-License-Identifier: MIT
#include "reference_cache.h"

#include "evalutil.h"
#include "evaluator.h"
#include "reference_server.h"
#include "worker_launch.h"

#include <fmt/format.h>

#include <algorithm>
#include <iostream>

namespace kbx {
namespace fs = std::filesystem;
using evalutil::findFrame;
using evalutil::printableStrings;
using evalutil::tail;

ReferenceCache::ReferenceCache(const TaskCatalogue& catalogue, const WorkerLauncher& launcher, const EvalOptions& opt)
    : m_catalogue(catalogue), m_launcher(launcher), m_opt(opt)
{
}

ReferenceCache::~ReferenceCache()
{
    endRun();
}

int ReferenceCache::serversPerSlot() const
{
    if (m_opt.referenceServers >= 0)
        return m_opt.referenceServers;
    // One server per four jobs: the first wave of candidates (one task each) waits for its
    // references in turn, and each server computes one task at a time.
    return std::clamp((m_opt.jobs + 3) / 4, 1, 4);
}

void ReferenceCache::endRun()
{
    std::vector<std::unique_ptr<PoolEntry>> pool;
    {
        std::lock_guard g(m_poolMutex);
        pool.swap(m_pool);
    }
    pool.clear();  // each server stops (asked, or killed mid-request) and is waited for
}

ReferenceServer* ReferenceCache::acquire(std::size_t slotIndex, const DeviceSlot& slot)
{
    const int perSlot = serversPerSlot();
    if (perSlot <= 0)
        return nullptr;
    std::unique_lock lock(m_poolMutex);
    for (;;) {
        if (m_launcher.cancelled())
            return nullptr;
        int live = 0;
        for (auto it = m_pool.begin(); it != m_pool.end();) {
            auto& e = **it;
            if (e.slot == slotIndex && !e.busy && !e.server->usable()) {
                it = m_pool.erase(it);  // ended or full: waited for (it asked to stop or was killed)
                continue;
            }
            if (e.slot == slotIndex) {
                ++live;
                if (!e.busy) {
                    e.busy = true;
                    return e.server.get();
                }
            }
            ++it;
        }
        if (live < perSlot) {
            auto e = std::make_unique<PoolEntry>();
            e->slot = slotIndex;
            e->busy = true;
            e->server = std::make_unique<ReferenceServer>(m_launcher, slot, m_opt.device,
                                                          m_launcher.scratch() / "reference" /
                                                              fmt::format("server-{}-{}", slotIndex, m_serversStarted++),
                                                          m_opt.referenceTimeout);
            m_pool.push_back(std::move(e));
            return m_pool.back()->server.get();
        }
        m_poolCv.wait(lock);
    }
}

void ReferenceCache::release(ReferenceServer* server)
{
    std::lock_guard g(m_poolMutex);
    for (auto& e : m_pool)
        if (e->server.get() == server)
            e->busy = false;
    m_poolCv.notify_all();
}

bool ReferenceCache::serve(const nlohmann::json& req, const fs::path& dir, std::size_t slotIndex, const DeviceSlot& slot,
                           ProcessResult& res)
{
    auto* server = acquire(slotIndex, slot);
    if (!server)
        return false;
    std::error_code ec;
    fs::create_directories(dir, ec);
    auto answer = server->call(req);
    release(server);
    if (answer && !answer->frames.empty() && answer->frames.back().value("type", std::string()) == "result") {
        res.frames = std::move(answer->frames);
        res.exitCode = 0;
        res.seconds = answer->seconds;
        return true;
    }
    if (!m_launcher.cancelled()) {
        std::string why = !answer ? "no answer" : "an error";
        if (answer && !answer->frames.empty())
            why += ": " + answer->frames.back().value("message", std::string()).substr(0, 300);
        std::cerr << fmt::format("kbx: the reference server gave {} for {}; it runs in a process of its own\n", why,
                                 req.value("task_id", std::string("?")));
    }
    return false;
}

const RefBundle& ReferenceCache::get(const TaskInfo& task, std::size_t slotIndex, const DeviceSlot& slot)
{
    std::mutex* lock;
    {
        std::lock_guard g(m_refMutex);
        auto& l = m_refLocks[task.id];
        if (!l)
            l = std::make_unique<std::mutex>();
        lock = l.get();
    }
    std::lock_guard g(*lock);
    // A working reference serves every slot; a failed one only the slot it failed on (another GPU
    // tries again: the failure may be that device's, not the task's).
    const std::string failKey = fmt::format("{}@{}", task.id, slotIndex);
    {
        std::lock_guard g2(m_refMutex);
        if (auto it = m_refs.find(task.id); it != m_refs.end())
            return *it->second;
        if (auto it = m_refs.find(failKey); it != m_refs.end())
            return *it->second;
    }
    auto bundle = compute(task, slotIndex, slot);
    std::lock_guard g2(m_refMutex);
    return *(m_refs[bundle->ok ? task.id : failKey] = std::move(bundle));
}

namespace {
/// The tiers our own reference process reported (which cases fall in which tier, their dtypes).
void readTiers(RefBundle& bundle, const nlohmann::json& result, const nlohmann::json& req)
{
    const auto tc = result.value("tier_cases", nlohmann::json::object());
    for (const char* tier : {"contract", "extended"}) {
        if (!tc.is_object() || !tc.contains(tier) || !tc[tier].is_array() || tc[tier].empty())
            continue;
        RefBundle::Tier t{req["tier_out"][tier]["inputs_out"].get<std::string>(),
                          req["tier_out"][tier]["ref_out"].get<std::string>(), {}, {}};
        const auto cd = result.value("case_dtypes", nlohmann::json::array());
        for (const auto& i : tc[tier]) {
            t.indices.push_back(i.get<int>());
            std::vector<std::string> d;
            if (cd.is_array() && i.get<int>() >= 0 && i.get<int>() < static_cast<int>(cd.size()) && cd[i.get<int>()].is_array())
                for (const auto& x : cd[i.get<int>()])
                    if (x.is_string())
                        d.push_back(x.get<std::string>());
            t.dtypes.push_back(std::move(d));
        }
        bundle.tiers[tier] = std::move(t);
    }
}
}  // namespace

std::unique_ptr<RefBundle> ReferenceCache::compute(const TaskInfo& task, std::size_t slotIndex, const DeviceSlot& slot)
{
    auto bundle = std::make_unique<RefBundle>();
    auto dir = m_launcher.scratch() / "reference" / fmt::format("{}__{}", task.category, task.stem);
    // Only the per-tier files (each tier is judged in a process of its own); the whole set is not
    // written a second time.
    nlohmann::json req = {{"task_id", task.id},
                          {"task_file", m_catalogue.taskFile(task).string()},
                          {"device", m_opt.device},
                          {"seeds", m_seeds}};
    for (const char* tier : {"contract", "extended"})
        req["tier_out"][tier] = {{"inputs_out", (dir / fmt::format("inputs-{}.pt", tier)).string()},
                                 {"ref_out", (dir / fmt::format("reference-{}.pt", tier)).string()}};
    // A server of this slot if one answers (its CUDA context made once), else a process of its own.
    ProcessResult res;
    if (!serve(req, dir, slotIndex, slot, res))
        res = m_launcher.run("reference", req, dir, m_opt.referenceTimeout, slot);
    auto* result = findFrame(res, "result");
    if (res.exitCode == 0 && result && res.protocolError.empty()) {
        bundle->ok = true;
        bundle->cases = result->value("cases", 0);
        bundle->seconds = res.seconds;
        if (const auto ph = result->value("phases", nlohmann::json()); ph.is_object())
            bundle->phases = printableStrings(ph);
        // Our own reference process says which cases fall in which tier (kbx_harness/contract.py).
        readTiers(*bundle, *result, req);
        if (bundle->tiers.empty()) {
            bundle->ok = false;
            bundle->error = fmt::format("reference for {} reported no tier files", task.id);
        }
        if (const auto r = result->value("case_tier_reasons", nlohmann::json::array()); r.is_array())
            for (const auto& w : r)
                bundle->tierReasons.push_back(w.is_string() ? w.get<std::string>() : std::string());
        bundle->contractNote = result->value("contract", std::string());
    } else {
        std::string msg;
        if (auto* e = findFrame(res, "error"))
            msg = e->value("message", "");
        if (res.timedOut)
            msg = "reference timed out";
        if (msg.empty())
            msg = fmt::format("exit {} signal {} {}", res.exitCode, res.signal, res.protocolError);
        bundle->error = fmt::format("reference for {} failed: {} | {}", task.id, msg, tail(res.stderrText, 1500));
    }
    return bundle;
}

}  // namespace kbx
