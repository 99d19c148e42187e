// SPDX-License-Identifier: MIT
// kbx::makeRunScratch (core/evaluator.h): a run's scratch is a new directory of its own under the
// root it is given, never the root itself (the run removes its scratch at the end).
#include "evaluator.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fstream>

namespace fs = std::filesystem;

TEST(RunScratch, IsANewPrivateDirectoryUnderTheRootNeverTheRoot)
{
    const auto root = fs::temp_directory_path() / ("kbx-scratch-root-" + std::to_string(getpid())) / "made";
    fs::remove_all(root.parent_path());
    const auto a = kbx::makeRunScratch(root);  // the root is made when missing
    const auto b = kbx::makeRunScratch(root);
    EXPECT_NE(a, b);
    for (const auto& d : {a, b}) {
        EXPECT_EQ(d.parent_path(), fs::absolute(root));
        EXPECT_EQ(d.filename().string().rfind("kbx-run-" + std::to_string(getpid()) + "-", 0), 0u) << d;
        EXPECT_TRUE(fs::is_empty(d));
        struct stat st {};
        ASSERT_EQ(::stat(d.c_str(), &st), 0);
        EXPECT_EQ(st.st_mode & 0777, 0700u) << "other users never see into a run's scratch";
    }
    const auto def = kbx::makeRunScratch({});
    EXPECT_EQ(def.parent_path(), fs::absolute(fs::temp_directory_path()));
    fs::remove(def);
    fs::remove_all(root.parent_path());
}

TEST(RunScratch, ARootThatIsAFileIsAClearError)
{
    const auto file = fs::temp_directory_path() / ("kbx-scratch-file-" + std::to_string(getpid()));
    std::ofstream(file) << "not a directory\n";
    try {
        kbx::makeRunScratch(file);
        ADD_FAILURE() << "a file as the scratch root was accepted";
    } catch (const std::runtime_error& e) {
        EXPECT_NE(std::string(e.what()).find(file.string()), std::string::npos) << e.what();
    }
    fs::remove(file);
}
