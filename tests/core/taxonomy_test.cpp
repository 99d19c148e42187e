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
