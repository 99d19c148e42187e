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

namespace {

bool has(std::string_view text, std::string_view needle) { return text.find(needle) != std::string_view::npos; }

/// The last line that names a Python exception ("triton.compiler.errors.CompilationError: ..."), or "".
std::string_view lastExceptionLine(std::string_view text)
{
    std::string_view best;
    std::size_t pos = 0;
    while (pos < text.size()) {
        auto end = text.find('\n', pos);
        if (end == std::string_view::npos)
            end = text.size();
        auto line = text.substr(pos, end - pos);
        pos = end + 1;
        const auto colon = line.find(':');
        const auto head = line.substr(0, colon);
        if (colon != std::string_view::npos && !head.empty() && head.find(' ') == std::string_view::npos &&
            (head.ends_with("Error") || head.ends_with("Exception") || head.ends_with("Failure") || head.ends_with("Interrupt")))
            best = line;
    }
    return best;
}

}  // namespace

std::optional<FailureClass> inferFailureClassFromText(std::string_view text, bool callOk)
{
    const auto last = lastExceptionLine(text);
    const auto in = [&](std::string_view needle) { return has(last, needle) || (last.empty() && has(text, needle)); };
    if (callOk) {
        // The candidate ran; the seed judged its results wrong.
        if (in("shape") || in("size mismatch") || in("must match the size"))
            return FailureClass::ShapeMismatch;
        if (in("dtype"))
            return FailureClass::DtypeMismatch;
        if (in("nan") || in("NaN") || in("inf"))
            return FailureClass::NanInfMismatch;
        return FailureClass::ValueMismatch;
    }
    if (has(text, "out of memory") || has(text, "OutOfMemoryError") || has(text, "OutOfResources"))
        return FailureClass::OutOfMemory;
    if (has(text, "illegal memory access") || has(text, "CUDA error") || has(text, "device-side assert") || has(text, "misaligned address"))
        return FailureClass::CudaError;
    if (has(text, "Segmentation fault") || has(text, "core dumped") || has(text, "SIGSEGV") || has(text, "SIGABRT"))
        return FailureClass::Crash;
    if (has(last, "TimeoutError") || has(text, "timed out"))
        return FailureClass::Timeout;
    if (has(last, "SyntaxError") || has(last, "IndentationError") || has(last, "TabError"))
        return FailureClass::SyntaxError;
    if (has(last, "CompilationError") || has(last, "CompileTimeAssertionFailure") || has(text, "triton.compiler.errors") ||
        has(text, "triton/language/") || has(last, "UnsupportedLanguageConstruct"))
        return FailureClass::TritonCompileError;
    if (has(last, "ModuleNotFoundError") || has(last, "ImportError") || has(last, "cannot import name"))
        return FailureClass::ImportError;
    if (!last.empty())
        return FailureClass::RuntimeError;
    return std::nullopt;
}

}  // namespace kbx
