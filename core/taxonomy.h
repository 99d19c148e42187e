// SPDX-License-Identifier: MIT
#pragma once
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace kbx {

/// Failure taxonomy v1. The string ids are stored in the database and printed by `kbx eval --json`;
/// they never change meaning (new classes get new ids). Order = precedence when several apply
/// to one evaluation (earlier = reported).
enum class FailureClass {
    Empty,
    SyntaxError,
    NoEntryPoint,
    ImportError,
    QuantContractViolated,
    TritonCompileError,
    RuntimeError,
    CudaError,
    Crash,
    Timeout,
    OutOfMemory,
    ShapeMismatch,
    DtypeMismatch,
    NanInfMismatch,
    ValueMismatch,
    InputMutated,
    NotTritonKernel,
};

inline constexpr int kTaxonomyVersion = 1;

struct FailureClassInfo {
    FailureClass cls;
    std::string_view id;     ///< stable id, e.g. "value_mismatch"
    std::string_view stage;  ///< "call" (never produced a result) or "exe" (ran, judged wrong)
    std::string_view title;  ///< one line for people
};

const std::vector<FailureClassInfo>& failureClasses();
std::string_view toString(FailureClass c);
std::optional<FailureClass> failureClassFromString(std::string_view id);
/// True when the class means the candidate did not even run to completion (the seed's "call" stage).
bool isCallFailure(FailureClass c);

/// The class of an imported failure, inferred from the text the seed kept (its Python traceback or
/// message) and the stage that failed (callOk false: call; true: exe). An inference from text, never
/// a kbx verdict: callers mark it as such. nullopt when the text says nothing recognisable about a
/// call failure; an exe failure is at least a value_mismatch.
std::optional<FailureClass> inferFailureClassFromText(std::string_view errorText, bool callOk);

}  // namespace kbx
