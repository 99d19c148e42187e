// SPDX-License-Identifier: MIT
#pragma once
// Gaps of Triton's CPU interpreter, as found by the trusted canary role (kbx-worker canary,
// kbx_harness/canary.py: our own small Triton kernels per dtype and operation, compared with PyTorch;
// never candidate code). Triton 3.6's interpreter returns NaN for some bfloat16 sums and products, has
// no bfloat16 constants and computes bfloat16 tl.dot wrongly: a correct bf16 kernel fails on the CPU.
// A case whose *input* dtypes (known from the reference side) hit a reported gap is not judged on the
// CPU: neither a candidate failure nor a pass. The candidate's exception text never decides this.
#include <nlohmann/json.hpp>

#include <string>
#include <string_view>
#include <vector>

namespace kbx {

struct InterpGap {
    std::string dtype;  ///< canonical dtype name (canonicalDtype), e.g. "bfloat16"
    std::string op;     ///< the canary's operation, e.g. "multiply", "constant", "dot"
    std::string what;   ///< what went wrong, in words
};

struct InterpGaps {
    bool known = false;      ///< the canary ran and reported; false: unknown (see error)
    bool interpret = false;  ///< it ran under TRITON_INTERPRET=1 (on a GPU nothing is reported)
    std::vector<InterpGap> gaps;
    std::string error;       ///< why the report is unknown
};

/// "torch.bfloat16", "BFloat16", "bf16", "c10::BFloat16" -> "bfloat16"; "Half", "fp16" -> "float16";
/// "Float", "fp32", "float" -> "float32"; "Double" -> "float64"; "Char" -> "int8"; "Byte" -> "uint8";
/// "Int" -> "int32"; "Long" -> "int64"; "Bool" -> "bool"; others lower-cased without "torch.".
std::string canonicalDtype(std::string_view name);

/// Reads the canary role's result frame ({"type":"result","interpret":..,"gaps":[{dtype,op,what}]}).
/// Anything malformed gives known=false with the reason.
InterpGaps parseCanaryResult(const nlohmann::json& result);
/// The canary did not report (crashed, timed out, no result): known=false with this reason.
InterpGaps unknownInterpGaps(std::string why);

/// The gaps that hit a case whose input tensors have these dtypes (any spelling; duplicates allowed).
/// Empty: the case is judged as usual. With an unknown report, every reduced-precision float input
/// (float16, bfloat16, float8*) is hit by a gap {dtype, "unknown", why}: not known to be safe.
std::vector<InterpGap> gapsForCase(const InterpGaps& gaps, const std::vector<std::string>& inputDtypes);

/// One line for an evaluation's reason, e.g. "not judged on the CPU: Triton's interpreter gets
/// bfloat16 wrong (multiply: returns NaN for 6 of 1000 elements; constant: raises ...)".
std::string describeGaps(const std::vector<InterpGap>& hit);

/// For the run's provenance: {"known", "interpret", "gaps": [...], "error"?}.
nlohmann::json toJson(const InterpGaps& gaps);

}  // namespace kbx
