// SPDX-License-Identifier: MIT
#pragma once
// The reference stage: once per task and run, a clean kbx-worker reference process draws the
// inputs (public seeds and the run's secret one) and computes the reference outputs, per tier
// (kbx_harness/contract.py). Every candidate of the task reads them.
#include "catalogue.h"

#include <nlohmann/json.hpp>

#include <condition_variable>
#include <cstddef>
#include <filesystem>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace kbx {

struct DeviceSlot;
struct EvalOptions;
class WorkerLauncher;
class ReferenceServer;
struct ProcessResult;

/// One task's reference files, or why there are none.
struct RefBundle {
    bool ok = false;
    std::string error;
    int cases = 0;
    double seconds = 0;  ///< the reference stage's process wall time (the perf queue's cost hint)
    nlohmann::json phases;  ///< where that time went (load_task, draw_inputs, reference_calls, save)
    /// The cases of one tier (kbx_harness/contract.py): their own inputs and reference files, and
    /// the indices of their cases among all of the task's cases.
    struct Tier {
        std::filesystem::path inputs;
        std::filesystem::path ref;
        std::vector<int> indices;
        std::vector<std::vector<std::string>> dtypes;  ///< per case of this tier: its input tensors' dtypes
    };
    std::map<std::string, Tier> tiers;    ///< "contract", "extended" (a tier without cases is absent)
    std::vector<std::string> tierReasons; ///< per case: why it is extended ("" for contract cases)
    std::string contractNote;             ///< what the contract came from (the seed file, or none)
};

/// The references of a run, computed once per task (one at a time per task; other tasks' at once).
class ReferenceCache {
public:
    ReferenceCache(const TaskCatalogue& catalogue, const WorkerLauncher& launcher, const EvalOptions& opt);
    ~ReferenceCache();
    /// The seeds every reference of the run draws its inputs with ({label, seed} objects).
    void setSeeds(std::vector<nlohmann::json> seeds) { m_seeds = std::move(seeds); }
    /// The task's reference, computed on first use through `slot` (index `slotIndex`).
    const RefBundle& get(const TaskInfo& task, std::size_t slotIndex, const DeviceSlot& slot);
    /// Stops the run's reference servers (core/reference_server.h); called at the run's end.
    void endRun();
    /// Reference servers per device slot: EvalOptions::referenceServers, or (-1) one per four jobs, 1..4.
    int serversPerSlot() const;

private:
    /// Runs the reference process and reads what it reported.
    std::unique_ptr<RefBundle> compute(const TaskInfo& task, std::size_t slotIndex, const DeviceSlot& slot);
    /// One task's reference through a server of the slot; false: none could answer (the caller runs
    /// a process of its own).
    bool serve(const nlohmann::json& req, const std::filesystem::path& dir, std::size_t slotIndex, const DeviceSlot& slot,
               ProcessResult& res);
    ReferenceServer* acquire(std::size_t slotIndex, const DeviceSlot& slot);
    void release(ReferenceServer* server);

    const TaskCatalogue& m_catalogue;
    const WorkerLauncher& m_launcher;
    const EvalOptions& m_opt;
    std::vector<nlohmann::json> m_seeds;
    std::mutex m_refMutex;
    std::map<std::string, std::unique_ptr<RefBundle>> m_refs;
    std::map<std::string, std::unique_ptr<std::mutex>> m_refLocks;
    struct PoolEntry {
        std::unique_ptr<ReferenceServer> server;
        std::size_t slot = 0;
        bool busy = false;
    };
    std::mutex m_poolMutex;
    std::condition_variable m_poolCv;
    std::vector<std::unique_ptr<PoolEntry>> m_pool;
    int m_serversStarted = 0;
};

}  // namespace kbx
