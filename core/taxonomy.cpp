// SPDX-License-Identifier: MIT
#include "taxonomy.h"

namespace kbx {

const std::vector<FailureClassInfo>& failureClasses()
{
    static const std::vector<FailureClassInfo> k = {
        {FailureClass::Empty, "empty", "call", "empty submission (no code after cleaning)"},
        {FailureClass::SyntaxError, "syntax_error", "call", "Python syntax error"},
        {FailureClass::NoEntryPoint, "no_entry_point", "call", "neither kernel_function nor the task's entry point is defined"},
        {FailureClass::ImportError, "import_error", "call", "an import failed (missing module or name)"},
        {FailureClass::QuantContractViolated, "quant_contract_violated", "call", "quantization contract violated (banned API or no scale/rounding/int evidence)"},
        {FailureClass::TritonCompileError, "triton_compile_error", "call", "Triton failed to compile the kernel"},
        {FailureClass::RuntimeError, "runtime_error", "call", "launch or Python runtime error"},
        {FailureClass::CudaError, "cuda_error", "call", "CUDA error (illegal address, device assert, launch failure)"},
        {FailureClass::Crash, "crash", "call", "the worker process died (signal or early exit)"},
        {FailureClass::Timeout, "timeout", "call", "exceeded the stage's time limit"},
        {FailureClass::OutOfMemory, "out_of_memory", "call", "host or device out of memory"},
        {FailureClass::ShapeMismatch, "shape_mismatch", "exe", "output structure or shape differs from the reference"},
        {FailureClass::DtypeMismatch, "dtype_mismatch", "exe", "output dtype differs from the reference"},
        {FailureClass::NanInfMismatch, "nan_inf_mismatch", "exe", "NaN or ±Inf at different positions than the reference"},
        {FailureClass::ValueMismatch, "value_mismatch", "exe", "values outside the task's precision contract"},
        {FailureClass::InputMutated, "input_mutated", "exe", "an input the op must not modify was modified"},
        {FailureClass::NotTritonKernel, "not_triton_kernel", "exe", "no @triton.jit kernel ran (the entry only calls torch)"},
    };
    return k;
}

std::string_view toString(FailureClass c)
{
    for (const auto& i : failureClasses())
        if (i.cls == c)
            return i.id;
    return "unknown";
}

std::optional<FailureClass> failureClassFromString(std::string_view id)
{
    for (const auto& i : failureClasses())
        if (i.id == id)
            return i.cls;
    return std::nullopt;
}

bool isCallFailure(FailureClass c)
{
    for (const auto& i : failureClasses())
        if (i.cls == c)
            return i.stage == "call";
    return true;
}

}  // namespace kbx
