// SPDX-License-Identifier: MIT
#include "taxonomy.h"

#include <gtest/gtest.h>

#include <set>

TEST(Taxonomy, IdsAreUniqueAndRoundTrip)
{
    std::set<std::string_view> ids;
    for (const auto& c : kbx::failureClasses()) {
        EXPECT_TRUE(ids.insert(c.id).second) << c.id;
        EXPECT_EQ(kbx::failureClassFromString(c.id), c.cls);
        EXPECT_EQ(kbx::toString(c.cls), c.id);
    }
    EXPECT_EQ(ids.size(), 17u);
    EXPECT_FALSE(kbx::failureClassFromString("no_such_class").has_value());
}

TEST(Taxonomy, StagesSeparateCallFromExe)
{
    EXPECT_TRUE(kbx::isCallFailure(kbx::FailureClass::Timeout));
    EXPECT_TRUE(kbx::isCallFailure(kbx::FailureClass::SyntaxError));
    EXPECT_FALSE(kbx::isCallFailure(kbx::FailureClass::ValueMismatch));
    EXPECT_FALSE(kbx::isCallFailure(kbx::FailureClass::InputMutated));
}

// Imported failures (issue 23): the seed keeps its error text; the class is inferred from its last
// exception line and the stage, and warnings above it decide nothing.
TEST(Taxonomy, ImportedFailuresAreClassifiedFromTheSeedsText)
{
    using kbx::FailureClass;
    auto call = [](const char* text) { return kbx::inferFailureClassFromText(text, false); };
    const std::string warn = "/x/functional_tensor.py:283: UserWarning: Failed to initialize NumPy\n  cpu = _conversion(...)\n";
    EXPECT_EQ(call((warn + "Traceback (most recent call last):\n  File \"k.py\", line 3\n    def f(:\nSyntaxError: invalid syntax\n").c_str()),
              FailureClass::SyntaxError);
    EXPECT_EQ(call((warn + "Traceback (most recent call last):\ntriton.compiler.errors.CompilationError: at 12:8:\n").c_str()),
              FailureClass::TritonCompileError);
    EXPECT_EQ(call("Traceback:\nModuleNotFoundError: No module named 'foo'\n"), FailureClass::ImportError);
    EXPECT_EQ(call("RuntimeError: CUDA error: an illegal memory access was encountered\n"), FailureClass::CudaError);
    EXPECT_EQ(call("torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB\n"), FailureClass::OutOfMemory);
    EXPECT_EQ(call("Traceback:\nTypeError: f() got an unexpected keyword argument 'dim'\n"), FailureClass::RuntimeError);
    EXPECT_EQ(call("Segmentation fault (core dumped)\n"), FailureClass::Crash);
    EXPECT_EQ(call((warn).c_str()), std::nullopt);  // warnings only: nothing to infer
    EXPECT_EQ(call(""), std::nullopt);
    // exe stage: it ran; the text may say how the results were wrong, else value_mismatch
    EXPECT_EQ(kbx::inferFailureClassFromText("AssertionError: shape mismatch (3, 4) vs (4, 3)", true), FailureClass::ShapeMismatch);
    EXPECT_EQ(kbx::inferFailureClassFromText("value mismatch at test_case_1", true), FailureClass::ValueMismatch);
    EXPECT_EQ(kbx::inferFailureClassFromText("", true), FailureClass::ValueMismatch);
}
