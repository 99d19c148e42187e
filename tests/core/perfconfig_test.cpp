// SPDX-License-Identifier: MIT
// The perf stage's configuration (core/perfconfig.h): defaults per device, overrides, unknown keys
// and wrongly typed values refused with a message naming the key, the complete JSON round trip, and
// the worker's fallback and the documentation agreeing with it.
#include "perfconfig.h"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

using kbx::PerfConfig;
using kbx::PerfConfigError;

namespace {

std::string readFile(const char* path)
{
    std::ifstream in(path);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

/// The message fromJson throws for these overrides ("" when it accepts them).
std::string errorOf(const nlohmann::json& overrides)
{
    try {
        PerfConfig::fromJson(overrides, kbx::Device::Cuda);
    } catch (const PerfConfigError& e) {
        return e.what();
    }
    return {};
}

}  // namespace

TEST(PerfConfig, DefaultsPerDevice)
{
    const auto gpu = PerfConfig::defaults(kbx::Device::Cuda);
    EXPECT_EQ(gpu.processes, 3);
    EXPECT_EQ(gpu.maxProcesses, 4);
    EXPECT_DOUBLE_EQ(gpu.targetWidth, 0.02);  // the precision target: one more process while wider
    EXPECT_EQ(gpu.maxProcessesForWidth, 5);
    const auto cpu = PerfConfig::defaults(kbx::Device::Cpu);
    EXPECT_EQ(cpu.processes, 1);
    EXPECT_EQ(cpu.maxProcesses, 1);
    EXPECT_DOUBLE_EQ(cpu.targetWidth, 0.0);
    EXPECT_EQ(cpu.maxProcessesForWidth, 1);
    for (const auto& c : {gpu, cpu}) {
        EXPECT_DOUBLE_EQ(c.extraProcessThreshold, 0.005);
        EXPECT_DOUBLE_EQ(c.betweenProcessPrior, 0.0065);
        EXPECT_DOUBLE_EQ(c.betweenProcessPriorDf, 4.0);
        EXPECT_TRUE(c.shapeSpreadFloor);
        EXPECT_TRUE(c.precompile);
        EXPECT_TRUE(c.baselines.empty());
        EXPECT_TRUE(c.shapes.empty());
        EXPECT_EQ(c.rotations, 3);
        EXPECT_EQ(c.minReps, 10);
        EXPECT_EQ(c.maxReps, 300);
        EXPECT_EQ(c.block, 10);
        EXPECT_DOUBLE_EQ(c.targetRelCi, 0.005);
        EXPECT_DOUBLE_EQ(c.maxSeconds, 0.6);
        EXPECT_EQ(c.maxWarmup, 20);
        EXPECT_DOUBLE_EQ(c.maxWarmupSeconds, 0.3);
        EXPECT_EQ(c.minRepsSlow, 3);
        EXPECT_DOUBLE_EQ(c.minGapUs, 20);
        EXPECT_DOUBLE_EQ(c.maxGapUs, 2000);
        EXPECT_DOUBLE_EQ(c.probeMaxMs, 10.0);
        EXPECT_EQ(c.recheckDriveMaxElements, std::int64_t{1} << 25);
        EXPECT_DOUBLE_EQ(c.recheckDriveMaxSeconds, 2.0);
        EXPECT_EQ(c.compileBackend, "inductor");
        EXPECT_DOUBLE_EQ(c.maxShapeSeconds, 60.0);
    }
    // No overrides (an empty object, or none at all) are the defaults.
    EXPECT_EQ(PerfConfig::fromJson(nlohmann::json::object(), kbx::Device::Cuda), gpu);
    EXPECT_EQ(PerfConfig::fromJson(nlohmann::json(), kbx::Device::Cpu), cpu);
}

TEST(PerfConfig, OverridesApplyToTheDevicesDefaults)
{
    const auto c = PerfConfig::fromJson(
        {{"processes", 2}, {"between_process_prior", 0.005}, {"min_reps", 3}, {"max_seconds", 0.05}, {"max_warmup_seconds", 0},
         {"target_rel_ci", -1}, {"precompile", false}, {"shapes", {"1M_f32"}}, {"baselines", {"compile", "tf32"}},
         {"compile_backend", "aot_eager"}, {"rotations", 2.0}, {"placement_gap_mb", 1024}, {"history_flip", 1},
         {"parity_balance", 1}},
        kbx::Device::Cuda);
    EXPECT_EQ(c.processes, 2);
    EXPECT_EQ(c.maxProcesses, 4);  // not overridden: the cuda default
    EXPECT_DOUBLE_EQ(c.betweenProcessPrior, 0.005);
    EXPECT_EQ(c.minReps, 3);
    EXPECT_DOUBLE_EQ(c.maxSeconds, 0.05);
    EXPECT_DOUBLE_EQ(c.maxWarmupSeconds, 0.0);  // an integer is a number
    EXPECT_DOUBLE_EQ(c.targetRelCi, -1.0);
    EXPECT_FALSE(c.precompile);
    EXPECT_EQ(c.shapes, std::vector<std::string>{"1M_f32"});
    EXPECT_EQ(c.baselines, (std::vector<std::string>{"compile", "tf32"}));
    EXPECT_EQ(c.compileBackend, "aot_eager");
    EXPECT_EQ(c.rotations, 2);  // an integral number is an integer
    EXPECT_EQ(c.placementGapMb, 1024);
    EXPECT_EQ(PerfConfig::defaults(kbx::Device::Cuda).placementGapMb, 0);  // the experiment is off unless asked for
    EXPECT_EQ(c.historyFlip, 1);
    EXPECT_EQ(PerfConfig::defaults(kbx::Device::Cuda).historyFlip, 0);  // so is this one
    EXPECT_EQ(c.parityBalance, 1);
    EXPECT_EQ(PerfConfig::defaults(kbx::Device::Cuda).parityBalance, 2);  // the four-group medians on a GPU
    EXPECT_EQ(PerfConfig::defaults(kbx::Device::Cpu).parityBalance, 0);   // none on the CPU's wall clock
    EXPECT_EQ(PerfConfig::fromJson({{"parity_balance", 0}}, kbx::Device::Cuda).parityBalance, 0);  // and off when asked
    EXPECT_EQ(PerfConfig::fromJson({{"max_processes", 2}}, kbx::Device::Cpu).processes, 1);
}

TEST(PerfConfig, UnknownKeyIsRefusedNamingItAndTheKnownOnes)
{
    const auto msg = errorOf({{"min_rep", 3}});
    ASSERT_FALSE(msg.empty());
    EXPECT_NE(msg.find("unknown key 'min_rep'"), std::string::npos) << msg;
    for (const auto& k : PerfConfig::knownKeys())
        EXPECT_NE(msg.find(k), std::string::npos) << k << " missing from: " << msg;
    EXPECT_NE(errorOf({{"max_seconds", 0.5}, {"Processes", 2}}).find("'Processes'"), std::string::npos);
}

TEST(PerfConfig, WrongTypeIsRefusedNamingTheKey)
{
    struct Case {
        nlohmann::json overrides;
        std::string key, want;
    };
    const std::vector<Case> cases = {
        {{{"min_reps", "10"}}, "min_reps", "an integer"},
        {{{"min_reps", 2.5}}, "min_reps", "an integer"},
        {{{"processes", true}}, "processes", "an integer"},
        {{{"max_seconds", "0.5"}}, "max_seconds", "a number"},
        {{{"precompile", "yes"}}, "precompile", "true or false"},
        {{{"precompile", 0}}, "precompile", "true or false"},
        {{{"shapes", "1M_f32"}}, "shapes", "an array of strings"},
        {{{"shapes", {1, 2}}}, "shapes", "an array of strings"},
        {{{"compile_backend", 3}}, "compile_backend", "a string"},
        {{{"recheck_drive_max_elements", 1e30}}, "recheck_drive_max_elements", "an integer"},
        {{{"block", 1e12}}, "block", "an integer"},
    };
    for (const auto& c : cases) {
        const auto msg = errorOf(c.overrides);
        EXPECT_NE(msg.find("'" + c.key + "'"), std::string::npos) << c.overrides.dump() << ": " << msg;
        EXPECT_NE(msg.find(c.want), std::string::npos) << c.overrides.dump() << ": " << msg;
    }
    EXPECT_NE(errorOf({{"baselines", {"compile", "eager"}}}).find("unknown baseline 'eager'"), std::string::npos);
    // The gap is a size in MiB that the worker allocates: a negative one or one past 64 GiB is refused.
    for (const int mb : {-2, 65538})
        EXPECT_NE(errorOf({{"placement_gap_mb", mb}}).find("'placement_gap_mb' must lie in 0..65536"), std::string::npos) << mb;
    EXPECT_TRUE(errorOf({{"placement_gap_mb", 65536}}).empty());
    for (const int f : {-1, 2})
        EXPECT_NE(errorOf({{"history_flip", f}}).find("'history_flip' must be 0 (off) or 1 (on)"), std::string::npos) << f;
    EXPECT_NE(errorOf({{"history_flip", true}}).find("history_flip"), std::string::npos);  // an integer, not a boolean
    for (const int f : {-1, 3})
        EXPECT_NE(errorOf({{"parity_balance", f}}).find("'parity_balance' must be 0 (off), 1 (groups recorded"), std::string::npos) << f;
    EXPECT_TRUE(errorOf({{"parity_balance", 2}}).empty());
    EXPECT_NE(errorOf(nlohmann::json::array({1})).find("JSON object"), std::string::npos);
    EXPECT_NE(errorOf("text").find("JSON object"), std::string::npos);
}

TEST(PerfConfig, ToJsonHoldsEveryKeyAndRoundTrips)
{
    const auto c = PerfConfig::fromJson({{"processes", 3}, {"shapes", {"a", "b"}}, {"precompile", false}, {"max_gap_us", 200}}, kbx::Device::Cuda);
    const auto j = c.toJson();
    EXPECT_EQ(j.size(), PerfConfig::knownKeys().size());
    for (const auto& k : PerfConfig::knownKeys())
        EXPECT_TRUE(j.contains(k)) << k;
    EXPECT_EQ(j["processes"], 3);
    EXPECT_EQ(j["max_processes"], 4);
    EXPECT_EQ(j["max_processes_for_width"], 5);
    EXPECT_TRUE(j["target_width"].is_number_float());
    EXPECT_EQ(j["min_reps"], 10);
    EXPECT_TRUE(j["min_reps"].is_number_integer());  // the worker uses it as a range's bound
    EXPECT_EQ(j["recheck_drive_max_elements"], 33554432);
    // The complete configuration reads back as itself, on either device (every key is explicit).
    EXPECT_EQ(PerfConfig::fromJson(j, kbx::Device::Cuda), c);
    EXPECT_EQ(PerfConfig::fromJson(j, kbx::Device::Cpu), c);
    EXPECT_EQ(PerfConfig::fromJson(PerfConfig::defaults(kbx::Device::Cpu).toJson(), kbx::Device::Cuda), PerfConfig::defaults(kbx::Device::Cpu));
    EXPECT_EQ(nlohmann::json::parse(j.dump()), j);
}

TEST(PerfConfig, WorkerFallbackAgreesWithTheDefaults)
{
    // kbx_harness/perf.py keeps FALLBACK_CONFIG (JSON literals) for a request without a config:
    // each of its values must be PerfConfig's default, on cuda, but for parity_balance: a request
    // without the key comes from a kbx that reads no groups, so the worker records none (0, the
    // CPU's default; kbx sends 2 on cuda).
    const auto py = readFile(KBX_TEST_PERF_PY);
    const auto at = py.find("FALLBACK_CONFIG = {");
    ASSERT_NE(at, std::string::npos);
    const auto open = py.find('{', at), close = py.find('}', open);
    ASSERT_NE(close, std::string::npos);
    const auto fallback = nlohmann::json::parse(py.substr(open, close - open + 1), nullptr, false);
    ASSERT_TRUE(fallback.is_object()) << py.substr(open, close - open + 1);
    EXPECT_GE(fallback.size(), 15u);
    const auto cuda = PerfConfig::defaults(kbx::Device::Cuda).toJson();
    const auto cpu = PerfConfig::defaults(kbx::Device::Cpu).toJson();
    for (const auto& [k, v] : fallback.items()) {
        ASSERT_TRUE(cuda.contains(k)) << "perf.py's fallback has a key PerfConfig lacks: " << k;
        const auto& defaults = k == "parity_balance" ? cpu : cuda;
        if (v.is_number())
            EXPECT_DOUBLE_EQ(v.get<double>(), defaults[k].get<double>()) << k;
        else
            EXPECT_EQ(v, defaults[k]) << k;
    }
}

TEST(PerfConfig, DocumentedInThePerfProtocol)
{
    const auto doc = readFile(KBX_TEST_PERF_PROTOCOL_DOC);
    ASSERT_FALSE(doc.empty());
    for (const auto& k : PerfConfig::knownKeys())
        EXPECT_NE(doc.find("| `" + k + "` |"), std::string::npos) << k << " has no row in docs/PERF_PROTOCOL.md";
}
