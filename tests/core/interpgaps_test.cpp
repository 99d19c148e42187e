// SPDX-License-Identifier: MIT
#include "interpgaps.h"

#include <gtest/gtest.h>

using kbx::canonicalDtype;
using kbx::gapsForCase;
using kbx::parseCanaryResult;

namespace {

// What kbx-worker canary reported under Triton 3.6's interpreter (abridged).
const nlohmann::json kReport = {
    {"type", "result"},
    {"interpret", true},
    {"gaps",
     {{{"dtype", "bfloat16"}, {"op", "multiply"}, {"what", "returns NaN for 6 of 1000 elements"}},
      {{"dtype", "bfloat16"}, {"op", "constant"}, {"what", "raises InterpreterError: AttributeError(\"'InterpreterBuilder' object has no attribute 'get_bf16'\")"}}}},
    {"probes", nlohmann::json::array()}};

}  // namespace

TEST(InterpGaps, CanonicalDtypeNamesAgreeAcrossSpellings)
{
    for (const char* s : {"torch.bfloat16", "BFloat16", "bf16", "c10::BFloat16", "bfloat16", "tl.bfloat16"})
        EXPECT_EQ(canonicalDtype(s), "bfloat16") << s;
    for (const char* s : {"torch.float16", "Half", "fp16", "half"})
        EXPECT_EQ(canonicalDtype(s), "float16") << s;
    for (const char* s : {"torch.float32", "Float", "fp32", "float"})
        EXPECT_EQ(canonicalDtype(s), "float32") << s;
    EXPECT_EQ(canonicalDtype("Double"), "float64");
    EXPECT_EQ(canonicalDtype("Char"), "int8");
    EXPECT_EQ(canonicalDtype("Byte"), "uint8");
    EXPECT_EQ(canonicalDtype("Int"), "int32");
    EXPECT_EQ(canonicalDtype("torch.int64"), "int64");
    EXPECT_EQ(canonicalDtype("Bool"), "bool");
}

TEST(InterpGaps, ACaseIsHitOnlyWhenAnInputDtypeHasAGap)
{
    auto gaps = parseCanaryResult(kReport);
    ASSERT_TRUE(gaps.known);
    EXPECT_TRUE(gaps.interpret);
    ASSERT_EQ(gaps.gaps.size(), 2u);

    EXPECT_TRUE(gapsForCase(gaps, {"torch.float32", "torch.float32"}).empty());
    EXPECT_TRUE(gapsForCase(gaps, {"torch.float16"}).empty());
    EXPECT_TRUE(gapsForCase(gaps, {}).empty()) << "a case without tensor inputs is judged";
    auto hit = gapsForCase(gaps, {"torch.float32", "torch.bfloat16", "BFloat16"});
    ASSERT_EQ(hit.size(), 2u) << "both bf16 gaps, once each";
    EXPECT_EQ(hit[0].op, "multiply");
    const auto why = kbx::describeGaps(hit);
    EXPECT_NE(why.find("not judged on the CPU"), std::string::npos) << why;
    EXPECT_NE(why.find("bfloat16"), std::string::npos) << why;
    EXPECT_NE(why.find("multiply: returns NaN"), std::string::npos) << why;
    EXPECT_EQ(kbx::describeGaps({}), "");
}

TEST(InterpGaps, NoGapsOnAGpuOrACleanInterpreter)
{
    auto gpu = parseCanaryResult({{"type", "result"}, {"interpret", false}, {"gaps", nlohmann::json::array()}});
    ASSERT_TRUE(gpu.known);
    EXPECT_FALSE(gpu.interpret);
    EXPECT_TRUE(gapsForCase(gpu, {"torch.bfloat16", "torch.float16"}).empty());
}

TEST(InterpGaps, AnUnknownReportLeavesReducedPrecisionUnjudged)
{
    for (const auto& bad : {nlohmann::json(), nlohmann::json{{"type", "error"}}, nlohmann::json{{"type", "result"}},
                            nlohmann::json{{"type", "result"}, {"gaps", "bfloat16"}},
                            nlohmann::json{{"type", "result"}, {"gaps", {{{"op", "multiply"}}}}}}) {
        auto g = parseCanaryResult(bad);
        EXPECT_FALSE(g.known) << bad.dump();
        EXPECT_FALSE(g.error.empty()) << bad.dump();
    }
    auto g = kbx::unknownInterpGaps("the canary timed out");
    EXPECT_TRUE(gapsForCase(g, {"torch.float32", "torch.int8"}).empty()) << "full precision and integers are safe";
    auto hit = gapsForCase(g, {"torch.float32", "torch.float16", "torch.bfloat16", "torch.bfloat16"});
    ASSERT_EQ(hit.size(), 2u);
    EXPECT_EQ(hit[0].op, "unknown");
    EXPECT_NE(kbx::describeGaps(hit).find("the canary timed out"), std::string::npos);
    auto j = kbx::toJson(g);
    EXPECT_FALSE(j["known"].get<bool>());
    EXPECT_EQ(j["error"], "the canary timed out");
    EXPECT_EQ(kbx::toJson(parseCanaryResult(kReport))["gaps"].size(), 2u);
}
