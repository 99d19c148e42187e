// SPDX-License-Identifier: MIT
#include "source.h"

#include <gtest/gtest.h>

using namespace kbx;

TEST(Source, StripsFenceAndKeepsFirstBlock)
{
    EXPECT_EQ(stripMarkdownFences("Here:\n```python\nx = 1\n```\nand\n```\ny\n```\n"), "x = 1\n");
    EXPECT_EQ(stripMarkdownFences("x = 1\n"), "x = 1\n");
    EXPECT_EQ(stripMarkdownFences("```\nunterminated\n"), "unterminated\n\n");
}

TEST(Source, CutsAtSeparatorOnly146Hashes)
{
    const std::string sep(146, '#');
    EXPECT_EQ(stripSeparatorSection("a\n" + sep + "\ntest()\n"), "a\n");
    const std::string shortLine(40, '#');
    EXPECT_EQ(stripSeparatorSection("a\n" + shortLine + "\nb"), "a\n" + shortLine + "\nb\n");
}

TEST(Source, CleanSubmissionCombines)
{
    const std::string sep(146, '#');
    EXPECT_EQ(cleanSubmission("```python\ndef f():\n    pass\n" + sep + "\nimport x\n```"), "def f():\n    pass\n");
    EXPECT_EQ(cleanSubmission("   \n\n"), "");
}

TEST(Source, Sha256KnownVector)
{
    EXPECT_EQ(sha256Hex("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    EXPECT_EQ(sha256Hex(""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
}
