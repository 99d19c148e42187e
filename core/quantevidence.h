// SPDX-License-Identifier: MIT
#pragma once
// The quantization contract's runtime half (issue 20): evidence that low-precision data reached a
// launched Triton kernel, from what the candidate harness records per kernel (result frame
// "launch_dtypes": {kernel: {"args": [dtypes of tensor arguments], "values": [element types the kernel
// computed with: CPU interpreter, every value it made; GPU, the types in its TTIR]}} and "launches":
// {kernel: count}). The static half is kbx_harness/static_checks.py (names and operators, never
// strings). Like the launch counter, this evidence is recorded in the candidate's own process: code
// that forges it is the known hole of tests/fixtures/exploits/TABLE.md ("a token Triton launch").
#include <nlohmann/json.hpp>

#include <set>
#include <string>

namespace kbx {

/// Element types that count as quantized data: 8-bit (and smaller) integers and 8-bit floats.
const std::set<std::string>& quantizedDtypes();

/// Empty when some launched kernel (launches > 0) had a quantized dtype among its arguments or its
/// values; otherwise why not, in words (for the quant_contract_violated detail). Missing or
/// malformed evidence is no evidence.
std::string quantEvidenceProblem(const nlohmann::json& launchDtypes, const nlohmann::json& launches);

}  // namespace kbx
