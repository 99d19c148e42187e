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
    const mode_t oldMask = ::umask(077);  // kbx eval's
    const auto a = kbx::makeRunScratch(root);  // the root is made when missing
    const auto b = kbx::makeRunScratch(root);
    ::umask(oldMask);
    EXPECT_NE(a, b);
    for (const auto& d : {a, b}) {
        EXPECT_EQ(d.parent_path(), fs::absolute(root));
        EXPECT_EQ(d.filename().string().rfind("kbx-run-" + std::to_string(getpid()) + "-", 0), 0u) << d;
        EXPECT_TRUE(fs::is_empty(d));
        struct stat st {};
        ASSERT_EQ(::stat(d.c_str(), &st), 0);
        EXPECT_EQ(st.st_mode & 0777, 0700u) << "other users never see into a run's scratch";
    }
    // The directories made for the root can be traversed (a candidate under a uid of its own gets
    // through them to its run's directory) but not listed; an existing root keeps its mode.
    for (const auto& d : {root, root.parent_path()}) {
        struct stat st {};
        ASSERT_EQ(::stat(d.c_str(), &st), 0);
        EXPECT_EQ(st.st_mode & 0777, 0711u) << d;
    }
    const auto existing = fs::temp_directory_path() / ("kbx-scratch-existing-" + std::to_string(getpid()));
    fs::remove_all(existing);
    fs::create_directory(existing);
    fs::permissions(existing, fs::perms::owner_all);
    fs::remove(kbx::makeRunScratch(existing));
    EXPECT_EQ(fs::status(existing).permissions(), fs::perms::owner_all) << "a root that existed keeps its mode";
    fs::remove_all(existing);

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
