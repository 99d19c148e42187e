// SPDX-License-Identifier: MIT
#include "quantevidence.h"

#include <gtest/gtest.h>

using kbx::quantEvidenceProblem;

TEST(QuantEvidence, Int8InArgumentsOrValuesOfALaunchedKernelCounts)
{
    // matmul_w8a8's known-good solution: int8 tensors between its kernels.
    const nlohmann::json args = {{"_quant_rows_kernel", {{"args", {"float32", "int8"}}, {"values", {"float32", "int32"}}}},
                                 {"_int8_gemm_kernel", {{"args", {"float32", "int8"}}, {"values", {"int32"}}}}};
    EXPECT_EQ(quantEvidenceProblem(args, {{"_quant_rows_kernel", 3}, {"_int8_gemm_kernel", 3}}), "");
    // layernorm_w8a8's: int8 only in registers (values), float32 tensors.
    const nlohmann::json values = {{"_ln_w8a8_kernel", {{"args", {"float32"}}, {"values", {"float32", "int32", "int8"}}}}};
    EXPECT_EQ(quantEvidenceProblem(values, {{"_ln_w8a8_kernel", 2}}), "");
    // Spellings from torch or TTIR alike.
    EXPECT_EQ(quantEvidenceProblem({{"k", {{"args", {"torch.uint8"}}}}}, {{"k", 1}}), "");
    EXPECT_EQ(quantEvidenceProblem({{"k", {{"values", {"float8_e4m3fn"}}}}}, {{"k", 1}}), "");
}

TEST(QuantEvidence, AFloatOnlyPipelineOrAKernelThatNeverRanIsNoEvidence)
{
    const nlohmann::json fp32 = {{"_mm_kernel", {{"args", {"float32"}}, {"values", {"float32", "int32", "int64"}}}}};
    const auto why = quantEvidenceProblem(fp32, {{"_mm_kernel", 4}});
    EXPECT_NE(why.find("no int8/uint8/float8 data"), std::string::npos) << why;
    EXPECT_NE(why.find("float32"), std::string::npos) << why;
    // int8 only in a kernel that was never launched
    const nlohmann::json idle = {{"_mm_kernel", {{"args", {"float32"}}}}, {"_q", {{"args", {"int8"}}}}};
    EXPECT_NE(quantEvidenceProblem(idle, {{"_mm_kernel", 4}, {"_q", 0}}), "");
    EXPECT_NE(quantEvidenceProblem(idle, {{"_mm_kernel", 4}}), "");
    // missing or malformed evidence
    EXPECT_NE(quantEvidenceProblem(nlohmann::json(), {{"k", 1}}), "");
    EXPECT_NE(quantEvidenceProblem({{"k", "int8"}}, {{"k", 1}}), "");
    EXPECT_NE(quantEvidenceProblem({{"k", {{"args", "int8"}}}}, {{"k", 1}}), "");
    EXPECT_NE(quantEvidenceProblem({{"k", {{"args", {"int8"}}}}}, {{"k", "1"}}), "");
}
