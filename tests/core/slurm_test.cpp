// SPDX-License-Identifier: MIT
// Sharding and the Slurm backend's pure parts (core/slurm.h): shard partition, array script (also
// run with bash against a stand-in kbx), command lines and the parsers of squeue/sacct/sbatch output.
#include "slurm.h"
#include "source.h"

#include <gtest/gtest.h>

#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <map>
#include <random>
#include <set>
#include <sstream>

namespace fs = std::filesystem;
using kbx::Submission;

namespace {

std::vector<Submission> makeSubs(int m)
{
    std::vector<Submission> subs;
    for (int i = 0; i < m; ++i) {
        Submission s;
        s.taskId = "Cat/task" + std::to_string(i % 4);
        s.code = "def f():\n    return " + std::to_string(i) + "\n";
        s.origin = "file.jsonl:" + std::to_string(i + 1);
        if (i % 5 == 0)
            s.method = "other";
        subs.push_back(s);
    }
    return subs;
}

std::string identity(const Submission& s) { return kbx::shardKey(s, "default", 0); }

std::string readFile(const fs::path& p)
{
    std::ifstream in(p);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

fs::path tempDir(const std::string& name)
{
    auto d = fs::temp_directory_path() / ("kbx-slurm-test-" + name + "-" + std::to_string(getpid()));
    fs::remove_all(d);
    fs::create_directories(d);
    return d;
}

}  // namespace

TEST(Shard, ParsesAndRejects)
{
    auto s = kbx::parseShard("2/5");
    EXPECT_EQ(s.index, 2);
    EXPECT_EQ(s.count, 5);
    EXPECT_EQ(s.str(), "2/5");
    EXPECT_EQ(kbx::parseShard("0/1").count, 1);
    for (const char* bad : {"", "3", "5/5", "-1/4", "1/0", "a/b", "1/2/3", "1 /2", "1/100001"})
        EXPECT_THROW(kbx::parseShard(bad), std::invalid_argument) << bad;
    try {
        kbx::parseShard("4/4");
        FAIL();
    } catch (const std::invalid_argument& e) {
        EXPECT_NE(std::string(e.what()).find("between 0 and N-1 = 3"), std::string::npos) << e.what();
    }
}

TEST(Shard, CoversEverySubmissionExactlyOnceAndBalanced)
{
    for (int m : {0, 1, 2, 5, 6, 7, 23}) {
        auto subs = makeSubs(m);
        for (int n = 1; n <= 8; ++n) {
            std::vector<int> seen(static_cast<std::size_t>(m), 0);
            std::size_t smallest = subs.size() + 1, largest = 0;
            for (int i = 0; i < n; ++i) {
                auto idx = kbx::shardIndices(subs, {i, n}, "default", 0);
                EXPECT_TRUE(std::is_sorted(idx.begin(), idx.end()));
                for (auto k : idx)
                    ++seen[k];
                smallest = std::min(smallest, idx.size());
                largest = std::max(largest, idx.size());
            }
            for (int k = 0; k < m; ++k)
                EXPECT_EQ(seen[static_cast<std::size_t>(k)], 1) << "m=" << m << " n=" << n << " k=" << k;
            EXPECT_LE(largest - smallest, 1u) << "m=" << m << " n=" << n;
        }
    }
}

TEST(Shard, DependsOnContentNotFileOrder)
{
    auto subs = makeSubs(23);
    auto shuffled = subs;
    std::mt19937 rng(7);
    std::shuffle(shuffled.begin(), shuffled.end(), rng);
    ASSERT_NE(identity(subs[0]), identity(shuffled[0]));
    for (int i = 0; i < 4; ++i) {
        std::multiset<std::string> a, b;
        for (auto k : kbx::shardIndices(subs, {i, 4}, "default", 0))
            a.insert(identity(subs[k]));
        for (auto k : kbx::shardIndices(shuffled, {i, 4}, "default", 0))
            b.insert(identity(shuffled[k]));
        EXPECT_EQ(a, b) << "shard " << i;
        EXPECT_FALSE(a.empty());
    }
}

TEST(Shard, KeyUsesTaskCodeMethodAndRound)
{
    Submission a{"Cat/x", "code", "o", std::nullopt, std::nullopt};
    Submission b = a;
    b.origin = "elsewhere:9";  // the origin does not matter
    EXPECT_EQ(kbx::shardKey(a, "m", 0), kbx::shardKey(b, "m", 0));
    b.round = 1;
    EXPECT_NE(kbx::shardKey(a, "m", 0), kbx::shardKey(b, "m", 0));
    EXPECT_EQ(kbx::shardKey(a, "m", 1), kbx::shardKey(b, "m", 0));  // default round = own round
    EXPECT_NE(kbx::shardKey(a, "m", 0), kbx::shardKey(a, "n", 0));
    Submission c = a;
    c.code = "code2";
    EXPECT_NE(kbx::shardKey(a, "m", 0), kbx::shardKey(c, "m", 0));
    EXPECT_NE(kbx::shardKey(a, "m", 0).find(kbx::sha256Hex("code")), std::string::npos);
}

TEST(Shard, CandidatesOfOneTaskStayTogether)
{
    // 12 submissions, 3 tasks x 4: with 3 shards every shard holds exactly one task.
    std::vector<Submission> subs;
    for (int i = 0; i < 12; ++i)
        subs.push_back({"Cat/t" + std::to_string(i % 3), "v" + std::to_string(i), "o", std::nullopt, std::nullopt});
    for (int s = 0; s < 3; ++s) {
        std::set<std::string> tasks;
        for (auto k : kbx::shardIndices(subs, {s, 3}, "default", 0))
            tasks.insert(subs[k].taskId);
        EXPECT_EQ(tasks.size(), 1u) << "shard " << s;
    }
}

TEST(Shard, GroupNamesOneShardedRun)
{
    const auto g = kbx::shardGroup("/a.jsonl", "m", 0, "cpu", {0, 1}, 42, 3);
    EXPECT_EQ(g.size(), 64u);
    EXPECT_EQ(g, kbx::shardGroup("/a.jsonl", "m", 0, "cpu", {0, 1}, 42, 3));
    EXPECT_NE(g, kbx::shardGroup("/a.jsonl", "m", 0, "cpu", {0, 1}, 43, 3));
    EXPECT_NE(g, kbx::shardGroup("/a.jsonl", "m", 0, "cpu", {0, 1}, 42, 4));
    EXPECT_NE(g, kbx::shardGroup("/a.jsonl", "m", 0, "cuda", {0, 1}, 42, 3));
    EXPECT_NE(g, kbx::shardGroup("/b.jsonl", "m", 0, "cpu", {0, 1}, 42, 3));
}

TEST(Slurm, ArraySpecAndSbatch)
{
    EXPECT_EQ(kbx::arraySpec(3, 0), "0-2");
    EXPECT_EQ(kbx::arraySpec(1, 0), "0");
    EXPECT_EQ(kbx::arraySpec(10, 4), "0-9%4");
    EXPECT_EQ(kbx::arraySpec(10, 2, {7, 1, 7}), "1,7%2");
    EXPECT_THROW(kbx::arraySpec(3, 0, {3}), std::invalid_argument);
    auto argv = kbx::sbatchCommand("/w/kbx-array.sh", 3, 2, {1});
    EXPECT_EQ(argv, (std::vector<std::string>{"sbatch", "--parsable", "--array=1%2", "/w/kbx-array.sh"}));
    EXPECT_EQ(kbx::sbatchCommand("/w/s.sh", 3, 0), (std::vector<std::string>{"sbatch", "--parsable", "/w/s.sh"}));
    EXPECT_EQ(kbx::scancelCommand("77", 2), (std::vector<std::string>{"scancel", "77_2"}));
    EXPECT_EQ(kbx::scancelCommand("77"), (std::vector<std::string>{"scancel", "77"}));
    auto sq = kbx::squeueCommand("77");
    EXPECT_NE(std::find(sq.begin(), sq.end(), "--jobs=77"), sq.end());
    EXPECT_NE(std::find(sq.begin(), sq.end(), "--states=all"), sq.end());
    auto sa = kbx::sacctCommand({"77", "80"});
    EXPECT_NE(std::find(sa.begin(), sa.end(), "--jobs=77,80"), sa.end());
}

TEST(Slurm, SbatchJobId)
{
    EXPECT_EQ(kbx::parseSbatchJobId("1234\n"), "1234");
    EXPECT_EQ(kbx::parseSbatchJobId("1234;cluster\n"), "1234");
    EXPECT_EQ(kbx::parseSbatchJobId("sbatch: warning: something\n99\n"), "99");
    EXPECT_FALSE(kbx::parseSbatchJobId(""));
    EXPECT_FALSE(kbx::parseSbatchJobId("sbatch: error: Batch job submission failed\n"));
}

TEST(Slurm, ParsesSacct)
{
    const std::string out =
        "500_0|COMPLETED|0:0|node1\n"
        "500_0.batch|COMPLETED|0:0|node1\n"
        "500_1|CANCELLED by 0|0:15|node2\n"
        "500_2|RUNNING|0:0|node1\n"
        "500_[3-5,8%2]|PENDING|0:0|None assigned\n"
        "501_0|FAILED|2:0|node3\n";
    auto t = kbx::parseJobTable(out, "500");
    ASSERT_EQ(t.size(), 7u);
    EXPECT_EQ(t[0].state, "COMPLETED");
    EXPECT_EQ(t[0].nodes, "node1");
    EXPECT_EQ(t[1].state, "CANCELLED");
    EXPECT_EQ(t[1].exitCode, "0:15");
    EXPECT_EQ(t[2].state, "RUNNING");
    for (int k : {3, 4, 5, 8}) {
        ASSERT_TRUE(t.count(k)) << k;
        EXPECT_EQ(t[k].state, "PENDING");
        EXPECT_EQ(t[k].nodes, "");
        EXPECT_EQ(t[k].jobId, "500");
    }
    EXPECT_FALSE(t.count(6));
    auto other = kbx::parseJobTable(out, "501");
    ASSERT_EQ(other.size(), 1u);
    EXPECT_EQ(other[0].state, "FAILED");
    EXPECT_EQ(other[0].exitCode, "2:0");
    EXPECT_TRUE(kbx::parseJobTable("", "500").empty());
    EXPECT_TRUE(kbx::parseJobTable("garbage line\n|||\n", "500").empty());
}

TEST(Slurm, ParsesSqueue)
{
    auto t = kbx::parseJobTable("42_1|RUNNING|-|localhost\n42_0|COMPLETED|-|localhost\n42_2|PENDING|-|\n", "42");
    ASSERT_EQ(t.size(), 3u);
    EXPECT_EQ(t[1].state, "RUNNING");
    EXPECT_EQ(t[1].exitCode, "-");
    EXPECT_EQ(t[2].nodes, "");
}

TEST(Slurm, Phases)
{
    using P = kbx::TaskPhase;
    EXPECT_EQ(kbx::taskPhase("PENDING"), P::Pending);
    EXPECT_EQ(kbx::taskPhase("REQUEUED"), P::Pending);
    EXPECT_EQ(kbx::taskPhase("RUNNING"), P::Running);
    EXPECT_EQ(kbx::taskPhase("COMPLETING"), P::Running);
    EXPECT_EQ(kbx::taskPhase("COMPLETED"), P::Succeeded);
    for (const char* s : {"FAILED", "CANCELLED", "TIMEOUT", "NODE_FAIL", "OUT_OF_MEMORY", "PREEMPTED", "BOOT_FAIL"})
        EXPECT_EQ(kbx::taskPhase(s), P::Failed) << s;
    EXPECT_EQ(kbx::phaseName(P::Failed), "failed");
}

TEST(Slurm, PlacementFromEnvironment)
{
    std::map<std::string, std::string> env = {{"SLURM_JOB_ID", "501"}, {"SLURM_ARRAY_JOB_ID", "500"}, {"SLURM_ARRAY_TASK_ID", "1"},
                                              {"SLURMD_NODENAME", "gpu07"}, {"CUDA_VISIBLE_DEVICES", "2,3"}};
    auto get = [&](const char* k) -> const char* {
        auto it = env.find(k);
        return it == env.end() ? nullptr : it->second.c_str();
    };
    auto j = kbx::slurmPlacement(get);
    ASSERT_TRUE(j.is_object());
    EXPECT_EQ(j["node"], "gpu07");
    EXPECT_EQ(j["cuda_visible_devices"], "2,3");
    EXPECT_EQ(j["array_task_id"], "1");
    EXPECT_TRUE(j["partition"].is_null());
    env.clear();
    EXPECT_TRUE(kbx::slurmPlacement(get).is_null());
}

TEST(Slurm, ShellQuoteSurvivesBash)
{
    const auto dir = tempDir("quote");
    for (std::string w : {"plain", "with space", "it's", "$HOME", "a\"b", "", "--perf-config={\"max_seconds\": 0.5}"}) {
        const auto out = dir / "out";
        const auto cmd = "printf %s " + kbx::shellQuote(w) + " > " + out.string();
        ASSERT_EQ(std::system(("bash -c " + kbx::shellQuote(cmd)).c_str()), 0) << w;
        EXPECT_EQ(readFile(out), w);
    }
    fs::remove_all(dir);
}

TEST(Slurm, ArrayScriptRunsOneShardFromScratch)
{
    const auto dir = tempDir("script");
    // A stand-in for kbx: records its arguments and exits with $FAKE_RC.
    const auto fake = dir / "fake kbx";
    {
        std::ofstream f(fake);
        f << "#!/bin/bash\nprintf '%s\\n' \"$@\" > \"$(dirname \"$0\")/args-$SLURM_ARRAY_TASK_ID\"\nexit ${FAKE_RC:-0}\n";
    }
    fs::permissions(fake, fs::perms::owner_all);
    kbx::SlurmJobSpec spec;
    spec.kbx = fake;
    spec.workDir = dir;
    spec.source = "/data/my subs.jsonl";
    spec.shards = 3;
    spec.maxJobs = 2;
    spec.partition = "gpu";
    spec.gpusPerTask = 1;
    spec.evalArgs = {"--device", "cpu", "--secret-seed", "12345", "--perf-config", "{\"a\": 1}"};
    const auto script = kbx::arrayScript(spec);
    EXPECT_NE(script.find("#SBATCH --array=0-2%2\n"), std::string::npos) << script;
    EXPECT_NE(script.find("#SBATCH --partition=gpu\n"), std::string::npos);
    EXPECT_NE(script.find("#SBATCH --gres=gpu:1\n"), std::string::npos);
    EXPECT_EQ(script.find("--cpus-per-task"), std::string::npos);
    const auto path = dir / "kbx-array.sh";
    {
        std::ofstream f(path);
        f << script;
    }
    // A leftover partial database of shard 1 must be gone before kbx starts.
    {
        std::ofstream(kbx::shardDatabase(dir, 1)) << "partial";
        std::ofstream(dir / "shard-1.sqlite-wal") << "partial";
    }
    auto runShard = [&](int i, int rc) {
        const auto cmd = "SLURM_ARRAY_TASK_ID=" + std::to_string(i) + " FAKE_RC=" + std::to_string(rc) + " bash " + kbx::shellQuote(path.string());
        int st = std::system(cmd.c_str());
        return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
    };
    EXPECT_EQ(runShard(1, 0), 0);
    EXPECT_FALSE(fs::exists(kbx::shardDatabase(dir, 1)));
    EXPECT_FALSE(fs::exists(dir / "shard-1.sqlite-wal"));
    EXPECT_EQ(readFile(kbx::shardExitFile(dir, 1)), "0\n");
    EXPECT_EQ(readFile(dir / "args-1"), "eval\n/data/my subs.jsonl\n--shard\n1/3\n--db\n" + kbx::shardDatabase(dir, 1).string() +
                                            "\n--device\ncpu\n--secret-seed\n12345\n--perf-config\n{\"a\": 1}\n");
    EXPECT_EQ(runShard(2, 1), 0);  // finished, some candidates not judged: the task succeeds
    EXPECT_EQ(readFile(kbx::shardExitFile(dir, 2)), "1\n");
    EXPECT_EQ(runShard(0, 4), 4);  // environment error: the task fails
    EXPECT_EQ(readFile(kbx::shardExitFile(dir, 0)), "4\n");
    const auto bare = "env -u SLURM_ARRAY_TASK_ID bash " + kbx::shellQuote(path.string()) + " 2>/dev/null";
    EXPECT_NE(std::system(bare.c_str()), 0);  // not an array task: refused
    spec.shards = 0;
    EXPECT_THROW(kbx::arrayScript(spec), std::invalid_argument);
    fs::remove_all(dir);
}
