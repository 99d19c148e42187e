// SPDX-License-Identifier: MIT
// The Slurm driver (core/slurm_driver.h) on its own, without kbx: the fake Slurm client tools of
// the GUI tests (tests/gui/fake-slurm: sbatch, squeue, sacct, scancel as bash scripts driven by
// files) on PATH, the array tasks played by the test (it sets their states and writes the shard
// databases and exit files a real task would leave), everything the driver says collected from
// its event callback.
#include "slurm_driver.h"

#include "slurm.h"
#include "store.h"

#include <gtest/gtest.h>

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

std::string readText(const fs::path& p)
{
    std::ifstream in(p);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

void writeText(const fs::path& p, const std::string& text)
{
    std::ofstream out(p, std::ios::trunc);
    out << text;
}

/// A temporary directory with the fake tools' state (state/), a source of two submissions and the
/// Slurm run's work directory (work/); PATH and KBX_FAKE_SLURM set while it lives.
class SlurmDriver : public ::testing::Test {
protected:
    void SetUp() override
    {
        char tmpl[] = "/tmp/kbx-slurm-driver-XXXXXX";
        ASSERT_NE(::mkdtemp(tmpl), nullptr);
        m_dir = tmpl;
        fs::create_directories(state());
        m_oldPath = std::getenv("PATH") ? std::getenv("PATH") : "";
        ::setenv("PATH", (std::string(KBX_FAKE_SLURM_DIR) + ":" + m_oldPath).c_str(), 1);
        ::setenv("KBX_FAKE_SLURM", state().c_str(), 1);
        // Two known-good solutions, one per task: two shards of one submission each.
        std::ofstream subs(source());
        for (const char* t : {"Activation/relu", "Activation/sigmoid"})
            subs << json{{"predict", readText(fs::path(KBX_FIXTURES_DIR) / "good" / (std::string(t) + ".py"))},
                         {"file", std::string(t) + ".py"}}
                        .dump()
                 << "\n";
    }
    void TearDown() override
    {
        ::setenv("PATH", m_oldPath.c_str(), 1);
        ::unsetenv("KBX_FAKE_SLURM");
        std::error_code ec;
        fs::remove_all(m_dir, ec);
    }

    fs::path state() const { return m_dir / "state"; }
    fs::path work() const { return m_dir / "work"; }
    fs::path source() const { return m_dir / "subs.jsonl"; }
    fs::path target() const { return m_dir / "target.sqlite"; }

    kbx::SlurmDriverOptions options() const
    {
        kbx::SlurmDriverOptions o;
        o.source = source().string();
        o.db = target().string();
        o.secretSeed = 4242;
        o.kbx = "/opt/kbx/bin/kbx";
        o.evalArgs = {"--device", "cpu"};
        o.shards = 2;
        o.workDir = work().string();
        o.poll = 0.2;
        o.retries = 1;
        return o;
    }

    /// What squeue says of array task `task` of every job.
    void setState(int task, const std::string& s) { writeText(state() / ("state-" + std::to_string(task)), s + "\n"); }
    std::string calls() const { return readText(state() / "calls.log"); }

    /// What array task `shard` of `shards` leaves when its kbx eval finished: a database with one
    /// finished run of that shard holding one passing evaluation, and its exit status.
    void writeShard(int shard, int shards, const std::string& task)
    {
        fs::create_directories(work());
        {
            kbx::Store st(kbx::shardDatabase(work(), shard));
            const json args = {{"source", source().string()}, {"method", "default"}, {"device", "cpu"},
                               {"shard", std::to_string(shard) + "/" + std::to_string(shards)},
                               {"shard_group", "driver-test"}, {"shard_of", shards}, {"shard_size", 1}};
            const json prov = {{"host", "fake-host"}, {"slurm", {{"node", "fake-node" + std::to_string(shard)}}}};
            const auto run = st.beginRun("cpu", prov, {0, 1}, 4242, args);
            const auto [cand, fresh] = st.ensureCandidate(task, "def kernel(): pass  # " + task);
            (void)fresh;
            kbx::EvaluationRecord r;
            r.runId = run;
            r.submissionId = st.ensureSubmission(cand, st.ensureMethod("default"), 0, "subs.jsonl");
            r.taskId = task;
            r.pass = true;
            r.callOk = true;
            r.exeOk = true;
            r.startedAt = r.finishedAt = kbx::nowIso8601();
            r.cases = {{0, "case0", "pass", std::nullopt, json::object()}};
            st.addEvaluation(r);
            st.finishRun(run, "finished", prov);
        }
        writeText(kbx::shardExitFile(work(), shard), "0\n");
    }

    /// Runs the driver; its events land in `texts` and `events`. `onEvent` may look at each JSON event first.
    kbx::SlurmExit drive(const kbx::SlurmDriverOptions& o, const std::function<void(const json&)>& onEvent = {})
    {
        return kbx::runSlurmDriver(o, [&](const kbx::SlurmEvent& e) {
            if (!e.text.empty())
                texts.push_back(e.text);
            if (!e.json.is_null()) {
                events.push_back(e.json);
                if (onEvent)
                    onEvent(e.json);
            }
        }, &cancel);
    }

    /// The JSON events named `name`, in order.
    std::vector<json> eventsNamed(const std::string& name) const
    {
        std::vector<json> out;
        for (const auto& e : events)
            if (e.value("event", "") == name)
                out.push_back(e);
        return out;
    }
    bool said(const std::string& part) const
    {
        for (const auto& t : texts)
            if (t.find(part) != std::string::npos)
                return true;
        return false;
    }

    std::vector<std::string> texts;
    std::vector<json> events;
    std::atomic<bool> cancel{false};

private:
    fs::path m_dir;
    std::string m_oldPath;
};

TEST_F(SlurmDriver, WithoutTheSlurmToolsItIsAnErrorOfTheEnvironment)
{
    const auto empty = state() / "no-tools";
    fs::create_directories(empty);
    ::setenv("PATH", empty.c_str(), 1);
    EXPECT_EQ(drive(options()), kbx::SlurmExit::Environment);
    ASSERT_EQ(texts.size(), 1u);
    EXPECT_EQ(texts[0], "kbx: --backend slurm needs sbatch on PATH (Slurm client tools)");
    ASSERT_EQ(events.size(), 1u);
    EXPECT_EQ(events[0]["event"], "error");
    EXPECT_EQ(events[0]["exit"], 4);
    EXPECT_FALSE(fs::exists(work()));
}

TEST_F(SlurmDriver, ABadSourceIsRefusedBeforeAnythingIsSubmitted)
{
    auto o = options();
    o.source = (state() / "missing.jsonl").string();
    EXPECT_EQ(drive(o), kbx::SlurmExit::Input);
    ASSERT_EQ(eventsNamed("error").size(), 1u);
    EXPECT_EQ(eventsNamed("error")[0]["exit"], 3);
    EXPECT_TRUE(eventsNamed("submitted").empty());
    EXPECT_EQ(calls().find("sbatch"), std::string::npos);
    EXPECT_FALSE(fs::exists(work()));
}

TEST_F(SlurmDriver, SbatchRefusedLeavesNothingBehind)
{
    writeText(state() / "sbatch.fail", "sbatch: error: invalid partition\n");
    EXPECT_EQ(drive(options()), kbx::SlurmExit::Environment);
    ASSERT_EQ(eventsNamed("plan").size(), 1u);
    ASSERT_EQ(eventsNamed("sbatch_failed").size(), 1u);
    EXPECT_NE(eventsNamed("sbatch_failed")[0]["message"].get<std::string>().find("invalid partition"), std::string::npos);
    ASSERT_EQ(eventsNamed("error").size(), 1u);
    EXPECT_EQ(eventsNamed("error")[0]["exit"], 4);
    EXPECT_TRUE(said("kbx: sbatch refused the job array: sbatch failed (exit 1): sbatch: error: invalid partition"));
    EXPECT_FALSE(fs::exists(work())) << "a new run that could not be submitted leaves no work directory";
}

TEST_F(SlurmDriver, CancelledBeforeSubmittingItJustStops)
{
    cancel = true;
    EXPECT_EQ(drive(options()), kbx::SlurmExit::Interrupted);
    EXPECT_TRUE(said("kbx: interrupted before anything was submitted"));
    ASSERT_EQ(eventsNamed("end").size(), 1u);
    EXPECT_EQ(eventsNamed("end")[0]["exit"], 130);
    EXPECT_TRUE(eventsNamed("end")[0]["cancelled"].get<bool>());
    EXPECT_EQ(calls().find("sbatch"), std::string::npos);
    EXPECT_FALSE(fs::exists(work()));
}

TEST_F(SlurmDriver, CancelWhilePollingScancelsTheArrayTasks)
{
    // Cancelled as soon as the array is submitted (from the event callback: the driver looks at the
    // flag between polls).
    EXPECT_EQ(drive(options(), [&](const json& e) {
                  if (e["event"] == "submitted")
                      cancel = true;
              }),
              kbx::SlurmExit::Interrupted);
    const auto c = calls();
    EXPECT_NE(c.find("scancel 1001_0"), std::string::npos) << c;
    EXPECT_NE(c.find("scancel 1001_1"), std::string::npos) << c;
    ASSERT_EQ(eventsNamed("cancelled").size(), 1u);
    EXPECT_EQ(eventsNamed("cancelled")[0]["scancel"].size(), 2u);
    ASSERT_EQ(eventsNamed("end").size(), 1u);
    EXPECT_EQ(eventsNamed("end")[0]["exit"], 130);
    EXPECT_NE(eventsNamed("end")[0]["resubmit"].get<std::string>().find("--resubmit"), std::string::npos);
    EXPECT_TRUE(fs::exists(work() / "run.json")) << "a submitted run keeps its work directory (for --resubmit)";
}

TEST_F(SlurmDriver, CompleteShardsAreMergedFailedOnesRetriedAndResubmitFinishesTheRun)
{
    // Shard 0 finishes; shard 1's task fails every time it runs.
    writeShard(0, 2, "Activation/relu");
    setState(0, "COMPLETED");
    setState(1, "FAILED");
    EXPECT_EQ(drive(options()), kbx::SlurmExit::Unjudged);
    const auto plan = eventsNamed("plan");
    ASSERT_EQ(plan.size(), 1u);
    EXPECT_EQ(plan[0]["submissions"], 2);
    EXPECT_EQ(plan[0]["shards"], 2);
    EXPECT_EQ(plan[0]["secret_seed"], 4242);
    const auto submitted = eventsNamed("submitted");
    ASSERT_EQ(submitted.size(), 2u);  // the array, then shard 1 again (retries 1)
    EXPECT_EQ(submitted[0]["job_id"], "1001");
    EXPECT_EQ(submitted[1]["job_id"], "1002");
    EXPECT_EQ(submitted[1]["shards"], json::array({1}));
    ASSERT_EQ(eventsNamed("merged").size(), 1u);
    EXPECT_EQ(eventsNamed("merged")[0]["shard"], 0);
    EXPECT_EQ(eventsNamed("merged")[0]["node"], "fake-node0");
    const auto failed = eventsNamed("shard_failed");
    ASSERT_EQ(failed.size(), 2u);
    EXPECT_TRUE(failed[0]["retry"].get<bool>());
    EXPECT_FALSE(failed[1]["retry"].get<bool>());
    const auto end = eventsNamed("end");
    ASSERT_EQ(end.size(), 1u);
    EXPECT_EQ(end[0]["exit"], 1);
    EXPECT_EQ(end[0]["incomplete"], json::array({1}));
    EXPECT_EQ(end[0]["merged"], 1);
    EXPECT_TRUE(said("[slurm] shard 1/2 failed (its kbx eval did not end (no exit status written)): re-submitting it from scratch"));
    // The job-array script runs the kbx given, with the forwarded options and the secret seed's file.
    const auto script = readText(work() / "kbx-array.sh");
    EXPECT_NE(script.find("/opt/kbx/bin/kbx"), std::string::npos);
    EXPECT_NE(script.find("--secret-seed-file"), std::string::npos);
    EXPECT_EQ(script.find("4242"), std::string::npos) << "the secret seed is never on a command line";
    EXPECT_EQ(readText(work() / "secret-seed"), "4242\n");
    {
        kbx::Store st(target());
        EXPECT_EQ(st.query("SELECT count(*) AS n FROM evaluations")[0]["n"], 1);
    }

    // --resubmit: shard 0 is found complete, shard 1 is submitted again, finishes (its array task,
    // played here, once it is submitted) and is merged.
    texts.clear();
    events.clear();
    kbx::SlurmDriverOptions again;
    again.resubmit = work().string();
    again.poll = 0.2;
    EXPECT_EQ(drive(again, [&](const json& e) {
                  if (e["event"] == "submitted") {
                      writeShard(1, 2, "Activation/sigmoid");
                      setState(1, "COMPLETED");
                  }
              }),
              kbx::SlurmExit::Ok);
    const auto checked = eventsNamed("shard_checked");
    ASSERT_EQ(checked.size(), 2u);
    EXPECT_TRUE(checked[0]["complete"].get<bool>());
    EXPECT_FALSE(checked[1]["complete"].get<bool>());
    ASSERT_EQ(eventsNamed("submitted").size(), 1u);
    EXPECT_EQ(eventsNamed("submitted")[0]["shards"], json::array({1}));
    ASSERT_EQ(eventsNamed("end").size(), 1u);
    EXPECT_EQ(eventsNamed("end")[0]["exit"], 0);
    EXPECT_EQ(eventsNamed("end")[0]["incomplete"], json::array());
    EXPECT_EQ(eventsNamed("end")[0]["merged"], 2);
    kbx::Store st(target());
    EXPECT_EQ(st.query("SELECT count(*) AS n FROM evaluations")[0]["n"], 2);
}

TEST_F(SlurmDriver, AWorkDirectoryHoldingARunIsNotReused)
{
    fs::create_directories(work());
    writeText(work() / "run.json", "{}\n");
    EXPECT_EQ(drive(options()), kbx::SlurmExit::Usage);
    ASSERT_EQ(eventsNamed("error").size(), 1u);
    EXPECT_NE(eventsNamed("error")[0]["message"].get<std::string>().find("already holds a Slurm run"), std::string::npos);
    EXPECT_EQ(readText(work() / "run.json"), "{}\n");
}

}  // namespace
