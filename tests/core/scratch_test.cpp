// SPDX-License-Identifier: MIT
// kbx::makeRunScratch (core/run_scratch.h): a run's scratch is a new directory of its own under the
// root it is given, never the root itself (the run removes its scratch at the end).
#include "run_scratch.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/wait.h>
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
        EXPECT_EQ(d.filename().string().rfind(kbx::runScratchPrefix(), 0), 0u) << d;
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

TEST(RunScratch, WhatKilledRunsOfThisHostLeftIsRemovedAndNothingElse)
{
    // A run killed before removing its scratch (SIGKILL, the OOM killer, a Slurm time limit) leaves
    // kbx-run-<host>-<pid>-XXXXXX behind; the next run under the same root removes it once that pid
    // no longer runs. A live run's, another host's (a shared file system), an older name, a file of
    // that name, a link to a dead run's name and a kept run's (--keep-scratch) stay.
    const auto root = fs::temp_directory_path() / ("kbx-scratch-sweep-" + std::to_string(getpid()));
    fs::remove_all(root);
    fs::create_directories(root);
    const pid_t child = fork();
    if (child == 0)
        _exit(0);
    ASSERT_GT(child, 0);
    ASSERT_EQ(waitpid(child, nullptr, 0), child);  // a pid that no longer runs
    const std::string prefix = kbx::runScratchPrefix();
    const std::string host = prefix.substr(0, prefix.size() - std::to_string(getpid()).size() - 1);  // "kbx-run-<host>-"
    const auto dead = root / (host + std::to_string(child) + "-a1B2c3");
    fs::create_directories(dead / "Math__abs");
    std::ofstream(dead / "Math__abs" / "inputs-contract.pt") << "tensor bytes\n";
    const auto live = root / (prefix + "d4E5f6");
    const auto parentsRun = root / (host + std::to_string(getppid()) + "-g7H8i9");
    const auto otherHost = root / ("kbx-run-some.other.host-" + std::to_string(child) + "-j1K2l3");
    const auto older = root / ("kbx-run-" + std::to_string(child) + "-m4N5o6");
    const auto notADir = root / (host + std::to_string(child) + "-p7Q8r9");
    const auto link = root / (host + std::to_string(child) + "-s1T2u3");
    const auto kept = root / (host + std::to_string(child) + "-v4W5x6");  // --keep-scratch
    for (const auto& d : {live, parentsRun, otherHost, older, kept})
        fs::create_directories(d);
    std::ofstream(kept / kbx::kKeptScratchMarker) << "";
    std::ofstream(notADir) << "a file\n";
    fs::create_directory_symlink(live, link);

    const auto made = kbx::makeRunScratch(root);
    EXPECT_FALSE(fs::exists(dead)) << "a killed run's scratch stays";
    for (const auto& stays : {live, parentsRun, otherHost, older, notADir, link, kept, made})
        EXPECT_TRUE(fs::exists(fs::symlink_status(stays))) << stays << " was removed";
    // A kept run's directory says so from the start (a run killed under --keep-scratch is kept too).
    const auto keptRun = kbx::makeRunScratch(root, true);
    EXPECT_TRUE(fs::exists(keptRun / kbx::kKeptScratchMarker));
    EXPECT_FALSE(fs::exists(made / kbx::kKeptScratchMarker));
    EXPECT_TRUE(kbx::sweepStaleRunScratch(root).empty()) << "the second sweep finds nothing";
    fs::remove_all(root);
}
