// SPDX-License-Identifier: MIT
// The run plan (core/runplan.h): one resolution of device, GPUs, jobs, timeouts and the perf
// settings for kbx eval, kbx tasks --check and the workbench.
#include "runplan.h"

#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>

namespace {

using kbx::Device;
using kbx::HostFacts;
using kbx::PlanRequest;
using kbx::RunPlanError;
using Code = kbx::RunPlanError::Code;

HostFacts cpuHost(int cores = 16, double mem = 120)
{
    HostFacts h;
    h.cudaAvailable = false;
    h.visibleGpus = 0;
    h.cores = cores;
    h.memAvailableGiB = mem;
    return h;
}

HostFacts gpuHost(int gpus, std::string parentVisible = {}, int cores = 32, double mem = 240)
{
    HostFacts h;
    h.cudaAvailable = true;
    h.visibleGpus = gpus;
    h.parentVisibleDevices = std::move(parentVisible);
    h.cores = cores;
    h.memAvailableGiB = mem;
    return h;
}

/// The error code resolvePlan throws for `r` on `h` (fails the test when it throws none).
Code errorOf(const PlanRequest& r, const HostFacts& h)
{
    try {
        kbx::resolvePlan(r, h);
    } catch (const RunPlanError& e) {
        return e.code();
    }
    ADD_FAILURE() << "no RunPlanError";
    return Code::BadValue;
}

TEST(RunPlan, DeviceNamesRoundTripAndAutoIsNotADevice)
{
    EXPECT_EQ(kbx::deviceName(Device::Cpu), "cpu");
    EXPECT_EQ(kbx::deviceName(Device::Cuda), "cuda");
    EXPECT_EQ(kbx::parseDevice("cpu"), Device::Cpu);
    EXPECT_EQ(kbx::parseDevice("cuda"), Device::Cuda);
    EXPECT_FALSE(kbx::parseDevice("auto"));
    EXPECT_FALSE(kbx::parseDevice("CUDA"));
    EXPECT_FALSE(kbx::parseDevice(""));
}

TEST(RunPlan, AutoWithoutAGpuIsCpuAndWithOneIsCuda)
{
    PlanRequest r;  // device auto
    r.jobs = 2;
    auto p = kbx::resolvePlan(r, cpuHost());
    EXPECT_EQ(p.device, Device::Cpu);
    EXPECT_EQ(p.deviceName(), "cpu");
    EXPECT_TRUE(p.gpus.empty());
    p = kbx::resolvePlan(r, gpuHost(1));
    EXPECT_EQ(p.device, Device::Cuda);
    EXPECT_TRUE(p.gpus.empty());  // no --gpus: one implicit slot, the inherited environment
    // An explicit cpu stays cpu on a GPU machine.
    r.device = "cpu";
    EXPECT_EQ(kbx::resolvePlan(r, gpuHost(2)).device, Device::Cpu);
}

TEST(RunPlan, CudaWithoutAGpuIsAnErrorOfTheEnvironment)
{
    PlanRequest r;
    r.device = "cuda";
    try {
        kbx::resolvePlan(r, cpuHost());
        FAIL() << "cuda without a GPU was planned";
    } catch (const RunPlanError& e) {
        EXPECT_EQ(e.code(), Code::NoCuda);
        EXPECT_TRUE(e.environment());  // kbx's exit code 4, not 2
        EXPECT_STREQ(e.what(), "--device cuda asked for, but the worker's torch sees no CUDA device");
        EXPECT_EQ(e.detail(), "device cuda asked for, but the worker's torch sees no CUDA device");
    }
    EXPECT_EQ(kbx::resolvePlan(r, gpuHost(1)).device, Device::Cuda);
}

TEST(RunPlan, GpusNeedCuda)
{
    PlanRequest r;
    r.gpus = {"0"};
    // auto on a machine without GPUs resolves to cpu: then the GPUs are refused (a usage error).
    EXPECT_EQ(errorOf(r, cpuHost()), Code::GpusNeedCuda);
    // An explicit cpu is refused before the host is looked at.
    r.device = "cpu";
    try {
        kbx::checkRequest(r);
        FAIL() << "--device cpu --gpus 0 passed the check";
    } catch (const RunPlanError& e) {
        EXPECT_EQ(e.code(), Code::GpusNeedCuda);
        EXPECT_FALSE(e.environment());
        EXPECT_STREQ(e.what(), "--gpus needs CUDA (--device cuda or auto on a machine with GPUs)");
    }
    // Blank entries are no GPUs at all.
    r.gpus = {"", " "};
    EXPECT_EQ(kbx::resolvePlan(r, cpuHost()).device, Device::Cpu);
}

TEST(RunPlan, GpuListsBecomeSlotsWithTheirCudaVisibleDevices)
{
    PlanRequest r;
    r.gpus = {" 1", "GPU-1a2b ", ""};
    r.jobs = 3;
    auto p = kbx::resolvePlan(r, gpuHost(4));
    EXPECT_EQ(p.device, Device::Cuda);
    ASSERT_EQ(p.gpus.size(), 2u);
    EXPECT_EQ(p.gpus[0].name, "1");
    EXPECT_EQ(p.gpus[0].env.at("CUDA_VISIBLE_DEVICES"), "1");
    EXPECT_EQ(p.gpus[1].name, "GPU-1a2b");
    EXPECT_EQ(p.gpus[1].env.at("CUDA_VISIBLE_DEVICES"), "GPU-1a2b");
    r.gpus = {"1", "1"};
    EXPECT_EQ(errorOf(r, gpuHost(4)), Code::BadGpus);
}

TEST(RunPlan, AllIsEveryVisibleGpuMappedThroughTheParentsCudaVisibleDevices)
{
    PlanRequest r;
    r.gpus = {"all"};
    auto p = kbx::resolvePlan(r, gpuHost(3));
    ASSERT_EQ(p.gpus.size(), 3u);
    for (int i = 0; i < 3; ++i) {
        EXPECT_EQ(p.gpus[i].name, std::to_string(i));
        EXPECT_EQ(p.gpus[i].env.at("CUDA_VISIBLE_DEVICES"), std::to_string(i));
    }
    // kbx itself started with CUDA_VISIBLE_DEVICES=2,3: the worker's cuda:0 and cuda:1 are the
    // parent's GPUs 2 and 3, and that is what each slot must set.
    p = kbx::resolvePlan(r, gpuHost(2, "2,3"));
    ASSERT_EQ(p.gpus.size(), 2u);
    EXPECT_EQ(p.gpus[0].env.at("CUDA_VISIBLE_DEVICES"), "2");
    EXPECT_EQ(p.gpus[1].env.at("CUDA_VISIBLE_DEVICES"), "3");
    // UUIDs pass through as they were given.
    p = kbx::resolvePlan(r, gpuHost(2, "GPU-aaaa,GPU-bbbb"));
    EXPECT_EQ(p.gpus[0].name, "GPU-aaaa");
    EXPECT_EQ(p.gpus[1].env.at("CUDA_VISIBLE_DEVICES"), "GPU-bbbb");
    // A parent list shorter than what the worker sees: the rest by index.
    EXPECT_EQ(kbx::expandGpus({"all"}, 3, "5"), (std::vector<std::string>{"5", "1", "2"}));
    EXPECT_EQ(kbx::expandGpus({" all "}, 0, ""), std::vector<std::string>{});
    // "all" goes alone.
    r.gpus = {"all", "0"};
    EXPECT_EQ(errorOf(r, gpuHost(2)), Code::BadGpus);
    // Without CUDA, "all" is refused like any GPU list.
    r.gpus = {"all"};
    EXPECT_EQ(errorOf(r, cpuHost()), Code::GpusNeedCuda);
}

TEST(RunPlan, JobsDefaultFromTheHostPerGpuSlot)
{
    PlanRequest r;
    // cpu: min(cores / 2, memory / 3 GiB)
    auto p = kbx::resolvePlan(r, cpuHost(16, 120));
    EXPECT_EQ(p.jobs, 8);
    EXPECT_NE(p.jobsWhy.find("16 core(s)"), std::string::npos) << p.jobsWhy;
    EXPECT_EQ(kbx::resolvePlan(r, cpuHost(16, 7)).jobs, 2);
    EXPECT_EQ(kbx::resolvePlan(r, cpuHost(1, 0)).jobs, 1);
    // cuda: min(cores - 2, memory / 2.5 GiB) split over the GPU slots, 1..16 per slot
    EXPECT_EQ(kbx::resolvePlan(r, gpuHost(1, "", 16, 120)).jobs, 14);
    r.gpus = {"all"};
    p = kbx::resolvePlan(r, gpuHost(2, "", 32, 240));
    EXPECT_EQ(p.gpus.size(), 2u);
    EXPECT_EQ(p.jobs, 15);
    EXPECT_NE(p.jobsWhy.find("2 GPUs"), std::string::npos) << p.jobsWhy;
    // Given: taken as it is, nothing said.
    r.jobs = 5;
    p = kbx::resolvePlan(r, gpuHost(2, "", 32, 240));
    EXPECT_EQ(p.jobs, 5);
    EXPECT_TRUE(p.jobsWhy.empty());
    r.jobs = -1;
    EXPECT_EQ(errorOf(r, gpuHost(2)), Code::BadValue);
}

TEST(RunPlan, CandidateTimeoutDefaultsPerDevice)
{
    PlanRequest r;
    r.jobs = 1;
    EXPECT_EQ(kbx::resolvePlan(r, cpuHost()).candidateTimeout, 300);
    EXPECT_EQ(kbx::resolvePlan(r, gpuHost(1)).candidateTimeout, 120);
    r.timeout = 42.5;
    EXPECT_EQ(kbx::resolvePlan(r, cpuHost()).candidateTimeout, 42.5);
    EXPECT_EQ(kbx::resolvePlan(r, gpuHost(1)).candidateTimeout, 42.5);
    r.timeout = -3;  // not a limit: the default
    EXPECT_EQ(kbx::resolvePlan(r, gpuHost(1)).candidateTimeout, 120);
}

TEST(RunPlan, PerfConfigIsTypedAndUnknownKeysAreRefused)
{
    PlanRequest r;
    r.jobs = 1;
    r.perf = true;
    r.perfConfig = R"({"max_seconds": 0.25})";
    r.perfBaselines = {"compile"};
    auto p = kbx::resolvePlan(r, gpuHost(1));
    EXPECT_EQ(p.perfOverrides, (nlohmann::json{{"max_seconds", 0.25}, {"baselines", {"compile"}}}));
    EXPECT_DOUBLE_EQ(p.perfConfig.maxSeconds, 0.25);
    EXPECT_EQ(p.perfConfig.baselines, std::vector<std::string>{"compile"});
    EXPECT_EQ(p.perfConfig.processes, kbx::PerfConfig::defaults(Device::Cuda).processes);  // the device's defaults under the overrides
    EXPECT_EQ(kbx::resolvePlan(r, cpuHost()).perfConfig.processes, kbx::PerfConfig::defaults(Device::Cpu).processes);
    r.perfConfig = R"({"max_secondz": 0.25})";
    EXPECT_EQ(errorOf(r, gpuHost(1)), Code::BadPerfConfig);
    r.perfConfig = R"({"max_seconds": "fast"})";
    EXPECT_EQ(errorOf(r, gpuHost(1)), Code::BadPerfConfig);
    r.perfConfig = "[1]";
    try {
        kbx::perfOverrides(r.perfConfig, {});
        FAIL() << "a JSON array was taken as overrides";
    } catch (const RunPlanError& e) {
        EXPECT_EQ(e.code(), Code::BadPerfConfig);
        EXPECT_FALSE(e.environment());
        EXPECT_STREQ(e.what(), "--perf-config must be a JSON object, e.g. '{\"max_seconds\": 0.5}'");
    }
    EXPECT_EQ(kbx::perfOverrides("", {}), nlohmann::json::object());
}

TEST(RunPlan, AutotuneReplayNeedsPerfAndValuesAreChecked)
{
    PlanRequest r;
    r.autotuneReplay = "/some/earlier.sqlite";
    EXPECT_EQ(errorOf(r, gpuHost(1)), Code::ReplayNeedsPerf);
    r.perf = true;
    EXPECT_EQ(kbx::resolvePlan(r, gpuHost(1)).autotuneReplay, std::filesystem::path("/some/earlier.sqlite"));
    for (auto bad : {&PlanRequest::device, &PlanRequest::sandbox, &PlanRequest::warmWorkers, &PlanRequest::protocol,
                     &PlanRequest::extendedStart}) {
        PlanRequest b;
        b.*bad = "bogus";
        EXPECT_EQ(errorOf(b, gpuHost(1)), Code::BadValue);
    }
    // --extended-start: the command line's words and the typed option, each to the other.
    for (auto e : {kbx::ExtendedStart::Auto, kbx::ExtendedStart::AfterContract, kbx::ExtendedStart::Early}) {
        PlanRequest w;
        w.extendedStart = kbx::extendedStartName(e);
        EXPECT_EQ(kbx::resolvePlan(w, gpuHost(1)).extendedStart, e) << w.extendedStart;
    }
    EXPECT_EQ(std::string(kbx::extendedStartName(kbx::ExtendedStart::AfterContract)), "after-contract");
    EXPECT_FALSE(kbx::parseExtendedStart("Early").has_value());
    for (auto p : {kbx::Protocol::Contract, kbx::Protocol::Strict}) {
        PlanRequest w;
        w.protocol = kbx::protocolName(p);
        EXPECT_EQ(kbx::resolvePlan(w, gpuHost(1)).protocol, p) << w.protocol;
    }
    for (auto m : {kbx::WarmWorkers::Auto, kbx::WarmWorkers::On, kbx::WarmWorkers::Off}) {
        PlanRequest w;
        w.warmWorkers = kbx::warmWorkersName(m);
        EXPECT_EQ(kbx::resolvePlan(w, gpuHost(1)).warmWorkers, m) << w.warmWorkers;
    }
    EXPECT_EQ(std::string(kbx::protocolName(kbx::Protocol::Strict)), "strict");
    EXPECT_EQ(std::string(kbx::warmWorkersName(kbx::WarmWorkers::Off)), "off");
    for (auto m : {kbx::SandboxMode::Auto, kbx::SandboxMode::Bwrap, kbx::SandboxMode::Rlimit, kbx::SandboxMode::None}) {
        PlanRequest w;
        w.sandbox = kbx::sandboxModeName(m);
        EXPECT_EQ(kbx::resolvePlan(w, gpuHost(1)).sandbox, m) << w.sandbox;
    }
}

TEST(RunPlan, EachWordOptionListsTheWordsItsParserTakesAndTheRefusalNamesThem)
{
    // One table per option: the command line's choices (CLI::IsMember), the parser and the run
    // plan's refusal all read it.
    using Words = std::vector<std::string>;
    EXPECT_EQ(kbx::sandboxModeWords(), (Words{"auto", "bwrap", "rlimit", "none"}));
    EXPECT_EQ(kbx::warmWorkersWords(), (Words{"auto", "on", "off"}));
    EXPECT_EQ(kbx::protocolWords(), (Words{"contract", "strict"}));
    EXPECT_EQ(kbx::extendedStartWords(), (Words{"auto", "after-contract", "early"}));
    for (const auto& w : kbx::sandboxModeWords())
        EXPECT_EQ(kbx::sandboxModeName(*kbx::parseSandboxMode(w)), w);
    for (const auto& w : kbx::warmWorkersWords())
        EXPECT_EQ(kbx::warmWorkersName(*kbx::parseWarmWorkers(w)), w);
    for (const auto& w : kbx::protocolWords())
        EXPECT_EQ(kbx::protocolName(*kbx::parseProtocol(w)), w);
    for (const auto& w : kbx::extendedStartWords())
        EXPECT_EQ(kbx::extendedStartName(*kbx::parseExtendedStart(w)), w);
    PlanRequest r;
    r.sandbox = "docker";
    try {
        kbx::resolvePlan(r, gpuHost(1));
        ADD_FAILURE() << "--sandbox docker accepted";
    } catch (const RunPlanError& e) {
        EXPECT_EQ(std::string(e.what()), "--sandbox: 'docker' is not one of auto, bwrap, rlimit, none");
    }
}

TEST(RunPlan, TheEvaluatorsOptionsCarryThePlan)
{
    PlanRequest r;
    r.gpus = {"all"};
    r.jobs = 3;
    r.timeout = 77;
    r.sandbox = "rlimit";
    r.warmWorkers = "off";
    r.protocol = "strict";
    r.extendedStart = "early";
    r.perf = true;
    r.perfWorkers = 4;
    r.perfConfig = R"({"min_reps": 20})";
    r.autotuneReplay = "/x.sqlite";
    const auto p = kbx::resolvePlan(r, gpuHost(2, "6,7"));
    const auto o = kbx::toEvalOptions(p);
    EXPECT_EQ(o.device, Device::Cuda);
    EXPECT_EQ(o.jobs, 3);
    ASSERT_EQ(o.deviceSlots.size(), 2u);
    EXPECT_EQ(o.deviceSlots[1].env.at("CUDA_VISIBLE_DEVICES"), "7");
    EXPECT_EQ(o.candidateTimeout, 77);
    EXPECT_EQ(o.referenceTimeout, kbx::EvalOptions{}.referenceTimeout);
    EXPECT_EQ(o.perfTimeout, kbx::EvalOptions{}.perfTimeout);
    EXPECT_EQ(o.sandbox, kbx::SandboxMode::Rlimit);
    EXPECT_EQ(o.warmWorkers, kbx::WarmWorkers::Off);
    EXPECT_EQ(o.protocol, kbx::Protocol::Strict);
    EXPECT_EQ(o.extendedStart, kbx::ExtendedStart::Early);
    EXPECT_EQ(kbx::toEvalOptions(kbx::resolvePlan(PlanRequest{}, gpuHost(1))).extendedStart, kbx::ExtendedStart::Auto);
    EXPECT_TRUE(o.perf);
    EXPECT_EQ(o.perfPipeline, 4);
    EXPECT_EQ(o.perfConfig, (nlohmann::json{{"min_reps", 20}}));  // the overrides; the Evaluator applies them
    EXPECT_EQ(o.autotuneReplay, std::filesystem::path("/x.sqlite"));
    // The Evaluator's view of those overrides is the plan's typed configuration.
    EXPECT_EQ(kbx::PerfConfig::fromJson(o.perfConfig, o.device), p.perfConfig);
    EXPECT_EQ(kbx::toEvalOptions(kbx::resolvePlan(PlanRequest{}, cpuHost())).device, Device::Cpu);
}

TEST(RunPlan, TheLikelyDeviceBeforeTheProbe)
{
    PlanRequest r;
    r.device = "cpu";
    EXPECT_EQ(kbx::likelyDevice(r, "/nonexistent/nvidiactl"), Device::Cpu);
    r.device = "cuda";
    EXPECT_EQ(kbx::likelyDevice(r, "/nonexistent/nvidiactl"), Device::Cuda);
    r.device = "auto";
    EXPECT_EQ(kbx::likelyDevice(r, "/nonexistent/nvidiactl"), Device::Cpu);
    const auto fake = std::filesystem::temp_directory_path() / ("kbx-runplan-nvidiactl-" + std::to_string(::getpid()));
    std::ofstream(fake).put('\n');
    EXPECT_EQ(kbx::likelyDevice(r, fake), Device::Cuda);
    std::filesystem::remove(fake);
}

TEST(RunPlan, HostFactsFromAProbe)
{
    const auto h = HostFacts::fromProbe({{"cuda_available", true}, {"devices", {{{"name", "H200"}}, {{"name", "H200"}}}}});
    EXPECT_TRUE(h.cudaAvailable);
    EXPECT_EQ(h.visibleGpus, 2);
    EXPECT_GE(h.cores, 1);
    const auto c = HostFacts::fromProbe({{"cuda_available", false}});
    EXPECT_FALSE(c.cudaAvailable);
    EXPECT_EQ(c.visibleGpus, 0);
}

}  // namespace

// The device is an enum inside the engine; JSON (requests, evidence, provenance) writes its name,
// as the store and the worker protocol read it.
TEST(RunPlan, TheDeviceIsWrittenToJsonByItsName)
{
    EXPECT_EQ(nlohmann::json(Device::Cuda), nlohmann::json("cuda"));
    EXPECT_EQ(nlohmann::json(Device::Cpu), nlohmann::json("cpu"));
    EXPECT_EQ(nlohmann::json("cuda").get<Device>(), Device::Cuda);
    EXPECT_EQ(nlohmann::json({{"device", Device::Cuda}}).dump(), R"({"device":"cuda"})");
    kbx::EvalOptions o;
    EXPECT_EQ(o.device, Device::Cpu);  // the Evaluator's default: the CPU
}
