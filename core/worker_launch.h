// SPDX-License-Identifier: MIT
#pragma once
// Starting kbx-worker for one stage of an evaluation (core/evaluator.h): the request file, the
// environment (the run's, the device slot's), the warm worker where it may serve, the sandbox for
// the roles that import candidate code, and the hello check of what came back.
#include "evaluator.h"
#include "process.h"

#include <nlohmann/json.hpp>

#include <atomic>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <string>

namespace kbx {

class WarmWorker;
struct SandboxRequest;  // core/sandbox.h

/// The environment every worker of a run on `device` gets (before its slot's).
std::map<std::string, std::string> workerEnvFor(const WorkerConfig& worker, Device device);

class WorkerLauncher {
public:
    using ReplyFn = std::function<std::string(const nlohmann::json&)>;
    /// `opt` and `storePath` must outlive the launcher (the Evaluator's own).
    WorkerLauncher(const WorkerConfig& worker, const EvalOptions& opt, std::filesystem::path storePath);

    /// Per run: its scratch directory, its cancel flag and its warm worker (null: every worker starts cold).
    void beginRun(std::filesystem::path scratch, const std::atomic<bool>* cancel);
    void setWarm(std::shared_ptr<WarmWorker> warm) { m_warm = std::move(warm); }
    const std::shared_ptr<WarmWorker>& warm() const { return m_warm; }
    const std::filesystem::path& scratch() const { return m_scratch; }
    const std::atomic<bool>* cancelFlag() const { return m_cancel; }
    bool cancelled() const { return m_cancel && m_cancel->load(); }

    /// Runs kbx-worker `role` on `request` (written to dir/<role>-request.json) through `slot`'s
    /// environment, killed with its process group after `timeout` seconds. `reply` answers the
    /// worker's frames (the perf stage's "ready"); allowWarm = false starts it cold. `abandon`: the
    /// caller's own flag beside the run's cancel flag (set: the process is killed, result cancelled).
    ProcessResult run(const std::string& role, const nlohmann::json& request, const std::filesystem::path& dir,
                      double timeout, const DeviceSlot& slot, ReplyFn reply = {}, bool allowWarm = true,
                      const std::atomic<bool>* abandon = nullptr) const;

    /// Health of a slot: a probe through its environment works and, on CUDA, runs a kernel. Empty
    /// string: healthy; otherwise why not.
    std::string slotHealth(const DeviceSlot& slot, nlohmann::json* probeOut = nullptr) const;

private:
    std::map<std::string, std::string> workerEnv() const;
    /// The request file, written so that nothing a sandboxed stage left in `dir` is followed.
    std::filesystem::path writeRequest(const std::string& role, const nlohmann::json& request,
                                       const std::filesystem::path& dir) const;
    /// The sandbox of a role that imports candidate code (core/sandbox.h).
    SandboxRequest sandboxRequest(const nlohmann::json& request, const std::filesystem::path& dir, double timeout) const;

    const WorkerConfig& m_worker;
    const EvalOptions& m_opt;
    std::filesystem::path m_storePath;
    std::filesystem::path m_scratch;
    const std::atomic<bool>* m_cancel = nullptr;
    std::shared_ptr<WarmWorker> m_warm;
};

}  // namespace kbx
