// SPDX-License-Identifier: MIT
// End-to-end: kbx eval on the real Triton fixtures, through the worker, on the CPU (Triton's
// interpreter) or, with KBX_TEST_DEVICE=cuda, on a GPU (the test is labelled "gpu" and skips
// itself when the worker's torch sees no CUDA device).
#include "itest.h"
#include "store.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <signal.h>
#include <sys/wait.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <thread>

namespace fs = std::filesystem;

namespace {

using namespace kbx_it;

struct Fixture {
    fs::path file;
    std::string task;
    std::set<std::string> expect;
    std::set<std::string> devices{"cpu", "cuda"};
};

std::vector<Fixture> badFixtures()
{
    std::vector<Fixture> v;
    const std::regex header("# kbx-fixture: task=(\\S+) expect=(\\S+)(?: devices=(\\S+))?");
    for (const auto& e : fs::directory_iterator(kFixtures / "variants")) {
        if (e.path().extension() != ".py")
            continue;
        std::ifstream in(e.path());
        std::string first;
        std::getline(in, first);
        std::smatch m;
        if (!std::regex_search(first, m, header))
            ADD_FAILURE() << e.path() << ": no kbx-fixture header";
        Fixture f{e.path(), m[1], {}, {}};
        std::stringstream ex(m[2]);
        for (std::string s; std::getline(ex, s, '|');)
            f.expect.insert(s);
        if (m[3].matched) {
            std::stringstream dv(m[3]);
            for (std::string s; std::getline(dv, s, ',');)
                f.devices.insert(s);
        } else {
            f.devices = {"cpu", "cuda"};
        }
        v.push_back(f);
    }
    std::sort(v.begin(), v.end(), [](const auto& a, const auto& b) { return a.file < b.file; });
    return v;
}

}  // namespace

TEST(Eval, TasksJsonListsEveryTaskWithItsFields)
{
    auto r = run(kbxBin() + " tasks --json");
    ASSERT_EQ(r.rc, 0);
    auto j = nlohmann::json::parse(r.out);
    ASSERT_GE(j.size(), 32u);
    for (const auto& t : j) {
        EXPECT_EQ(t["id"].get<std::string>(), t["category"].get<std::string>() + "/" + t["stem"].get<std::string>());
        EXPECT_FALSE(t["signature"].get<std::string>().empty());
    }
}

TEST(Eval, EveryKnownGoodFixturePasses)
{
    REQUIRE_DEVICE();
    auto tasks = nlohmann::json::parse(run(kbxBin() + " tasks --json").out);
    std::set<std::string> known;
    for (const auto& t : tasks)
        known.insert(t["id"].get<std::string>());
    auto jsonl = tempPath("good.jsonl");
    std::ofstream out(jsonl);
    std::vector<std::string> ids;
    for (const auto& e : fs::recursive_directory_iterator(kFixtures / "good")) {
        if (e.path().extension() != ".py")
            continue;
        auto id = fs::relative(e.path(), kFixtures / "good").replace_extension().string();
        EXPECT_TRUE(known.count(id)) << "known-good fixture for a task the benchmark does not have: " << id;
        ids.push_back(id);
    }
    std::sort(ids.begin(), ids.end());
    // The evaluation spine's first tasks all have one; the benchmark needs >= 60 over every category.
    for (const char* id : {"Activation/relu", "Convolution/conv2d", "Fusion/attention", "LinearAlgebra/cholesky", "Quantization/matmul_w8a8",
                           "Random/rand", "SpatialOps/interpolate", "Optimizer/Adam"})
        EXPECT_TRUE(std::find(ids.begin(), ids.end(), id) != ids.end()) << id;
    ASSERT_GE(ids.size(), 60u);
    // On the CPU (Triton's interpreter, ~15 s a solution on CI's two cores) every category's first
    // three solutions; all of them on a GPU (and with KBX_TEST_ALL_GOOD=1), where the whole set is
    // also part of `kbx tasks --check` (bench/results).
    if (device() == "cpu" && !std::getenv("KBX_TEST_ALL_GOOD")) {
        std::map<std::string, int> perCategory;
        std::vector<std::string> subset;
        for (const auto& id : ids)
            if (++perCategory[id.substr(0, id.find('/'))] <= 3)
                subset.push_back(id);
        ids = subset;
    }
    for (const auto& id : ids)
        out << nlohmann::json{{"predict", readFile(kFixtures / "good" / (id + ".py"))}, {"file", id + ".py"}}.dump() << "\n";
    out.close();
    auto db = tempPath("good.sqlite");
    auto r = run(kbxBin() + " eval " + jsonl.string() + " --json --jobs 2 --method known-good --device " + device() + " --db " + db.string());
    EXPECT_EQ(r.rc, 0) << r.out;
    auto lines = jsonLines(r.out);
    EXPECT_EQ(lines.size(), ids.size());
    int pass = 0;
    for (const auto& l : lines) {
        EXPECT_EQ(l["verdict"], "pass") << l.dump(1);
        pass += l["verdict"] == "pass";
        EXPECT_TRUE(l["failure_class"].is_null());
    }
    std::cout << "known-good: " << pass << "/" << ids.size() << " pass on " << device() << "\n";
}

TEST(Eval, EveryKnownBadFixtureGetsItsClass)
{
    REQUIRE_DEVICE();
    auto fixtures = badFixtures();
    ASSERT_GE(fixtures.size(), 12u);
    auto jsonl = tempPath("bad.jsonl");
    std::ofstream out(jsonl);
    std::vector<Fixture> used;
    for (const auto& f : fixtures) {
        if (!f.devices.count(device()))
            continue;
        out << nlohmann::json{{"predict", readFile(f.file)}, {"file", f.task + ".py"}}.dump() << "\n";
        used.push_back(f);
    }
    out.close();
    auto db = tempPath("bad.sqlite");
    const int timeout = 30;
    // --protocol strict: every case decides, so each variant's mechanism is caught whichever tier its
    // failing case falls in (under the default protocol a failure confined to extended cases leaves
    // the verdict a pass, "not correct incl. extended").
    auto r = run(kbxBin() + " eval " + jsonl.string() + " --json --jobs 2 --method known-bad --protocol strict --timeout " + std::to_string(timeout) +
                 " --device " + device() + " --db " + db.string());
    // Exit code 1: the run finished but some candidates were not judged (CPU interpreter gaps).
    const bool anyUnjudged = std::any_of(used.begin(), used.end(), [](const Fixture& f) { return f.expect.count("not_judged") > 0; });
    EXPECT_EQ(r.rc, anyUnjudged ? 1 : 0) << r.out;
    auto lines = jsonLines(r.out);
    ASSERT_EQ(lines.size(), used.size());
    std::map<int, nlohmann::json> byLine;
    for (const auto& l : lines) {
        auto origin = l["origin"].get<std::string>();
        byLine[std::stoi(origin.substr(origin.rfind(':') + 1))] = l;
    }
    std::set<std::string> classes;
    for (size_t i = 0; i < used.size(); ++i) {
        const auto& l = byLine[static_cast<int>(i + 1)];
        const auto& f = used[i];
        std::string got = l["verdict"] == "pass"    ? "pass"
                          : l["verdict"] == "error" ? "not_judged"
                          : l["failure_class"].is_string() ? l["failure_class"].get<std::string>()
                                                           : "?";
        EXPECT_TRUE(f.expect.count(got)) << f.file.filename() << ": expected " << *f.expect.begin() << ", got " << got << "\n" << l.dump(1);
        classes.insert(got);
        if (got == "timeout") {
            EXPECT_LT(l["seconds"].get<double>(), timeout + 20.0) << "a hang must end within its limit";
        }
    }
    EXPECT_GE(classes.size(), 12u) << "the bad fixtures must cover at least 12 classes";
}

// A failure decided by the low-signal guard says the guard's rule (issue 24): the elementwise test it
// overrides passed, so "0 of N elements outside ... would pass with atol=..." named the wrong rule.
TEST(Eval, ALowSignalGuardFailureStatesTheGuardsRule)
{
    REQUIRE_DEVICE();
    const auto dir = tempPath("low-signal");
    fs::create_directories(dir / "Math");
    fs::copy_file(kFixtures / "exploits" / "low_magnitude_zeros.py", dir / "Math" / "log1p.py", fs::copy_options::overwrite_existing);
    auto r = run(kbxBin() + " eval " + dir.string() + " --json --protocol strict --device " + device() + " --db " +
                 (dir / "r.sqlite").string() + " 2>/dev/null");
    auto lines = jsonLines(r.out);
    ASSERT_EQ(lines.size(), 1u) << r.out;
    const auto& l = lines[0];
    EXPECT_EQ(l["failure_class"], "value_mismatch") << l.dump(1);
    const auto detail = l["detail"].get<std::string>();
    EXPECT_NE(detail.find("low-signal guard: the reference is about as small as atol"), std::string::npos) << detail;
    EXPECT_NE(detail.find("relative L2 error of at most"), std::string::npos) << detail;
    EXPECT_EQ(detail.find("would pass with"), std::string::npos) << detail;
}

TEST(Eval, SameSubmissionTwiceIsStoredOnceWithTwoEvaluations)
{
    REQUIRE_DEVICE();
    auto db = tempPath("twice.sqlite");
    auto src = kFixtures / "good" / "Activation" / "relu.py";
    for (int i = 0; i < 2; ++i) {
        auto r = run(kbxBin() + " eval " + src.string() + " --json --method twice --device " + device() + " --db " + db.string());
        ASSERT_EQ(r.rc, 0) << r.out;
        auto l = jsonLines(r.out);
        ASSERT_EQ(l.size(), 1u);
        EXPECT_EQ(l[0]["new_candidate"], i == 0);
    }
    kbx::Store s(db);
    EXPECT_EQ(s.query("SELECT count(*) AS n FROM candidates")[0]["n"], 1);
    EXPECT_EQ(s.query("SELECT count(*) AS n FROM evaluations")[0]["n"], 2);
    EXPECT_EQ(s.query("SELECT count(*) AS n FROM runs WHERE status='finished'")[0]["n"], 2);
    EXPECT_EQ(s.query("SELECT count(DISTINCT secret_seed) AS n FROM runs")[0]["n"], 2) << "one secret seed per run";
    // Where the candidate process's time went (bench/ reads it): every phase present, none
    // negative, and together not more than the supervisor's own clock of that stage.
    for (const auto& e : s.query("SELECT evidence, stage_seconds FROM evaluations")) {
        auto ev = nlohmann::json::parse(e["evidence"].get<std::string>());
        auto st = nlohmann::json::parse(e["stage_seconds"].get<std::string>());
        ASSERT_TRUE(ev.contains("candidate_phases")) << ev.dump();
        double sum = 0;
        for (const char* k : {"interpreter", "harness_import", "inputs_and_static", "candidate_import", "first_case", "save_outputs"}) {
            ASSERT_TRUE(ev["candidate_phases"].contains(k)) << k << " missing: " << ev["candidate_phases"].dump();
            EXPECT_GE(ev["candidate_phases"][k].get<double>(), 0.0) << k;
            sum += ev["candidate_phases"][k].get<double>();
        }
        EXPECT_LE(sum, st["candidate"].get<double>() + 0.05) << ev["candidate_phases"].dump() << " vs " << st.dump();
        ASSERT_TRUE(ev.contains("worker_start")) << ev.dump();
        if (ev["worker_start"] == "cold") {
            EXPECT_GT(ev["candidate_phases"]["harness_import"].get<double>(), 0.05) << "import torch takes longer than that";
        } else {
            // Forked from the warm worker: torch and the harness were imported before the fork.
            EXPECT_EQ(ev["worker_start"], "warm");
            EXPECT_LT(ev["candidate_phases"]["harness_import"].get<double>(), 0.05) << ev["candidate_phases"].dump();
        }
    }
    auto rep = run(kbxBin() + " report --json --db " + db.string());
    ASSERT_EQ(rep.rc, 0);
    auto rows = jsonLines(rep.out);
    ASSERT_EQ(rows.size(), 1u);
    EXPECT_EQ(rows[0]["total"], 1);
    EXPECT_EQ(rows[0]["exe_ok"], 1);
}

TEST(Eval, TheScratchGivenIsARootWhoseOtherContentStays)
{
    // --scratch names where the run makes its own directory; the run removes that one only (it once
    // removed the directory given, and everything in it).
    REQUIRE_DEVICE();
    const auto root = tempPath("scratch-root");
    fs::remove_all(root);
    fs::create_directories(root / "notes");
    std::ofstream(root / "notes" / "keep.txt") << "a user's file\n";
    auto r = run(kbxBin() + " eval " + (kFixtures / "good" / "Activation" / "relu.py").string() + " --json --device " + device() +
                 " --scratch " + root.string() + " --db " + tempPath("scratch-root.sqlite").string());
    ASSERT_EQ(r.rc, 0) << r.out;
    ASSERT_EQ(jsonLines(r.out).size(), 1u) << r.out;
    EXPECT_EQ(jsonLines(r.out)[0]["verdict"], "pass");
    ASSERT_TRUE(fs::is_directory(root));
    EXPECT_EQ(readFile(root / "notes" / "keep.txt"), "a user's file\n");
    std::vector<std::string> left;
    for (const auto& e : fs::directory_iterator(root))
        left.push_back(e.path().filename().string());
    EXPECT_EQ(left, std::vector<std::string>{"notes"}) << "the run's own directory is removed, nothing else";
    fs::remove_all(root);
}

TEST(Eval, BadSourcesFailCleanlyAndWriteNothing)
{
    auto dir = tempPath("badsrc");
    fs::create_directories(dir);
    auto db = dir / "db.sqlite";
    std::ofstream(dir / "broken.jsonl") << R"({"predict": "x", "file": "Activation/relu.py"})" << "\n{oops\n";
    auto r = run(kbxBin() + " eval " + (dir / "broken.jsonl").string() + " --db " + db.string() + " 2>&1");
    EXPECT_EQ(r.rc, 3) << r.out;
    EXPECT_NE(r.out.find("broken.jsonl:2: malformed JSON"), std::string::npos) << r.out;
    std::ofstream(dir / "unknown.jsonl") << R"({"predict": "x", "file": "Activation/no_such_task.py"})" << "\n";
    r = run(kbxBin() + " eval " + (dir / "unknown.jsonl").string() + " --db " + db.string() + " 2>&1");
    EXPECT_EQ(r.rc, 3);
    EXPECT_NE(r.out.find("unknown task"), std::string::npos) << r.out;
    r = run(kbxBin() + " eval " + (dir / "missing.jsonl").string() + " --db " + db.string() + " 2>&1");
    EXPECT_EQ(r.rc, 3);
    EXPECT_NE(r.out.find("no such file"), std::string::npos) << r.out;
    EXPECT_FALSE(fs::exists(db)) << "nothing is written for a bad source";
    r = run(kbxBin() + " eval --device tpu x.jsonl 2>&1");
    EXPECT_EQ(r.rc, 2);
    // The same checks on the Slurm path, on the submitting machine before anything is submitted
    // (before sbatch is even looked for): a misspelled option would otherwise fail in every array task.
    r = run("PATH=/nonexistent " + kbxBin() + " eval --backend slurm --protocol stirct x.jsonl 2>&1");
    EXPECT_EQ(r.rc, 2) << r.out;
    EXPECT_NE(r.out.find("--protocol"), std::string::npos) << r.out;
    EXPECT_EQ(r.out.find("sbatch"), std::string::npos) << r.out;
}

namespace {

/// Pids whose command line contains every one of `needles` (arguments joined by spaces).
std::vector<int> pidsWith(const std::vector<std::string>& needles)
{
    std::vector<int> found;
    std::error_code ec;
    for (auto it = fs::directory_iterator("/proc", ec); !ec && it != fs::directory_iterator(); it.increment(ec)) {
        const auto name = it->path().filename().string();
        if (name.find_first_not_of("0123456789") != std::string::npos)
            continue;
        std::string cmd = readFile(it->path() / "cmdline");
        std::replace(cmd.begin(), cmd.end(), '\0', ' ');
        if (std::all_of(needles.begin(), needles.end(), [&](const std::string& n) { return cmd.find(n) != std::string::npos; }))
            found.push_back(std::stoi(name));
    }
    return found;
}

int parentOf(int pid)
{
    const auto stat = readFile(fs::path("/proc") / std::to_string(pid) / "stat");
    const auto rp = stat.rfind(')');
    if (rp == std::string::npos)
        return -1;
    std::istringstream in(stat.substr(rp + 2));
    std::string state;
    int ppid = -1;
    in >> state >> ppid;
    return ppid;
}

}  // namespace

TEST(Eval, AWarmWorkerKilledMidRunLosesNothing)
{
    // Worker processes are forked from the run's warm worker (core/warm.h). Killed while a candidate
    // runs (the candidate dies with it), that candidate is evaluated again from a cold start and the
    // run finishes with every verdict; the provenance says what happened.
    if (device() != "cpu")
        GTEST_SKIP() << "CPU only: the warm worker's life cycle does not depend on the device";
    auto dir = tempPath("warmkill");
    fs::create_directories(dir / "src" / "Activation");
    fs::create_directories(dir / "src" / "Math");
    {
        // A correct add that checks what the warm worker must not leak into its children: our
        // temporary directory (Python caches it at import; Triton builds its launcher there).
        std::ofstream out(dir / "src" / "Math" / "add.py");
        out << readFile(kFixtures / "good" / "Math" / "add.py")
            << "\nimport os as _kbx_os, tempfile as _kbx_tf\n"
               "assert _kbx_tf.gettempdir() == _kbx_os.path.abspath(_kbx_os.environ['TMPDIR']), (_kbx_tf.gettempdir(), _kbx_os.environ['TMPDIR'])\n";
    }
    {
        // A correct ReLU that leaves a marker in its own directory and then takes its time.
        std::ofstream out(dir / "src" / "Activation" / "relu.py");
        out << readFile(kFixtures / "good" / "Activation" / "relu.py")
            << "\nimport time as _kbx_t\nopen('kbx-warm-test-sleeping', 'w').close()\n_kbx_t.sleep(6)\n";
    }
    const auto scratch = dir / "scratch";
    const auto db = dir / "db.sqlite";
    Cmd result;
    std::thread runner([&] {
        result = run(kbxBin() + " eval " + (dir / "src").string() + " --json --jobs 2 --device cpu --sandbox rlimit --warm-workers on" +
                     " --keep-scratch --scratch " + scratch.string() + " --db " + db.string() + " 2>" + (dir / "stderr.txt").string());
    });
    // Wait until the slow candidate runs, then kill the warm worker of this run (its parent is the kbx
    // whose command line has our scratch path).
    bool killed = false;
    for (int i = 0; i < 1200 && !killed; ++i) {
        std::error_code ec;
        bool sleeping = false;
        for (auto it = fs::recursive_directory_iterator(scratch, ec); !ec && it != fs::recursive_directory_iterator(); it.increment(ec))
            sleeping |= it->path().filename() == "kbx-warm-test-sleeping";
        if (sleeping) {
            const auto kbxPids = pidsWith({"eval", scratch.string()});
            for (int z : pidsWith({"kbx-worker", "zygote"}))
                if (std::find(kbxPids.begin(), kbxPids.end(), parentOf(z)) != kbxPids.end())
                    killed |= kill(z, SIGKILL) == 0;
        }
        if (!killed)
            std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    runner.join();
    const auto err = readFile(dir / "stderr.txt");
    ASSERT_TRUE(killed) << "never found the run's warm worker while the candidate ran\n" << err;
    EXPECT_EQ(result.rc, 0) << err;
    auto lines = jsonLines(result.out);
    ASSERT_EQ(lines.size(), 2u) << result.out << err;
    for (const auto& l : lines)
        EXPECT_EQ(l["verdict"], "pass") << l.dump();
    EXPECT_NE(err.find("the warm worker was lost"), std::string::npos) << err;
    {
        // The time before the run began, the worker probe's share of it, and that the warm worker
        // started beside the probe (the stage's own seconds start after all that).
        std::smatch m;
        const std::regex before(R"(kbx: before the run: ([0-9.]+) s, ([0-9.]+) s of them the worker probe \([^)]*; beside the warm worker's start\))");
        ASSERT_TRUE(std::regex_search(err, m, before)) << err;
        EXPECT_GT(std::stod(m[2].str()), 0.0) << m[0];
        EXPECT_GE(std::stod(m[1].str()) + 0.05, std::stod(m[2].str())) << m[0];
    }
    kbx::Store s(db);
    auto prov = nlohmann::json::parse(s.query("SELECT provenance FROM runs")[0]["provenance"].get<std::string>());
    EXPECT_EQ(prov["worker_start"]["mode"], "warm");
    EXPECT_EQ(prov["worker_start"]["state"], "failed") << prov["worker_start"].dump();
    EXPECT_FALSE(prov["worker_start"].value("why_not", std::string()).empty()) << prov["worker_start"].dump();
    auto ev = s.query("SELECT task_id AS task, evidence FROM evaluations");
    ASSERT_EQ(ev.size(), 2u);
    for (const auto& e : ev) {
        if (e["task"] == "Activation/relu") {
            EXPECT_EQ(nlohmann::json::parse(e["evidence"].get<std::string>())["worker_start"], "cold") << "evaluated again, cold";
        }
    }
    fs::remove_all(dir);
}

TEST(Eval, AnAutotunedKernelIsJudgedUnderEveryConfig)
{
    // Issue 22: the verdict of a kernel that autotunes must not depend on which config wins the
    // autotuner's timing race. Its contract cases run under its first config, then under each
    // other one (the autotune sweep): wrong under one config is a fail, naming it; right under all is
    // a pass with every run recorded.
    REQUIRE_DEVICE();
    const auto dir = tempPath("autotune-sweep");
    fs::create_directories(dir / "bad" / "Activation");
    fs::create_directories(dir / "good" / "Activation");
    fs::copy_file(kFixtures / "variants" / "autotune_one_config_wrong.py", dir / "bad" / "Activation" / "sigmoid.py");
    fs::copy_file(kFixtures / "variants" / "autotuned.py", dir / "good" / "Activation" / "sigmoid.py");
    for (const char* which : {"bad", "good"}) {
        const auto db = dir / (std::string(which) + ".sqlite");
        auto r = run(kbxBin() + " eval " + (dir / which).string() + " --json --device " + device() + " --db " + db.string() +
                     " 2>/dev/null");
        auto lines = jsonLines(r.out);
        ASSERT_EQ(lines.size(), 1u) << r.out;
        kbx::Store s(db);
        const auto ev = nlohmann::json::parse(s.query("SELECT evidence FROM evaluations")[0]["evidence"].get<std::string>());
        ASSERT_TRUE(ev.contains("autotune_sweep")) << ev.dump(1).substr(0, 3000);
        const auto& sweep = ev["autotune_sweep"];
        EXPECT_EQ(sweep["configs"], 2);
        ASSERT_EQ(sweep["runs"].size(), 2u) << sweep.dump();
        if (std::string(which) == "bad") {
            EXPECT_EQ(lines[0]["verdict"], "fail");
            EXPECT_EQ(lines[0]["failure_class"], "value_mismatch") << lines[0].dump(1);
            EXPECT_NE(lines[0]["detail"].get<std::string>().find("under autotune config 2 of 2"), std::string::npos)
                << lines[0]["detail"];
            EXPECT_NE(sweep["runs"][1]["config"].get<std::string>().find("BLOCK: 1024"), std::string::npos) << sweep.dump();
            EXPECT_FALSE(sweep["runs"][1]["pass"].get<bool>());
        } else {
            EXPECT_EQ(lines[0]["verdict"], "pass") << lines[0].dump(1);
            EXPECT_TRUE(sweep["runs"][1]["pass"].get<bool>()) << sweep.dump();
        }
    }
    // Four configs, wrong under the third and the fourth: the sweep's processes run at once, and the
    // lowest failing config decides whichever finishes first.
    {
        std::string src = readFile(kFixtures / "variants" / "autotune_one_config_wrong.py");
        const std::string two = "configs=[triton.Config({\"BLOCK\": 256}, num_warps=4), triton.Config({\"BLOCK\": 1024}, num_warps=8)]";
        const auto at = src.find(two);
        ASSERT_NE(at, std::string::npos);
        src.replace(at, two.size(),
                    "configs=[triton.Config({\"BLOCK\": 256}, num_warps=4), triton.Config({\"BLOCK\": 512}, num_warps=4), "
                    "triton.Config({\"BLOCK\": 1024}, num_warps=8), triton.Config({\"BLOCK\": 1024}, num_warps=4)]");
        fs::create_directories(dir / "bad4" / "Activation");
        std::ofstream(dir / "bad4" / "Activation" / "sigmoid.py") << src;
        const auto db = dir / "bad4.sqlite";
        auto r = run(kbxBin() + " eval " + (dir / "bad4").string() + " --json --device " + device() + " --db " + db.string() +
                     " 2>/dev/null");
        auto lines = jsonLines(r.out);
        ASSERT_EQ(lines.size(), 1u) << r.out;
        EXPECT_EQ(lines[0]["verdict"], "fail");
        EXPECT_NE(lines[0]["detail"].get<std::string>().find("under autotune config 3 of 4"), std::string::npos) << lines[0]["detail"];
        kbx::Store s(db);
        const auto ev = nlohmann::json::parse(s.query("SELECT evidence FROM evaluations")[0]["evidence"].get<std::string>());
        const auto& sweep = ev["autotune_sweep"];
        EXPECT_EQ(sweep["configs"], 4);
        ASSERT_EQ(sweep["runs"].size(), 4u) << sweep.dump();  // configs 2-4 ran together and are all recorded
        EXPECT_TRUE(sweep["runs"][1]["pass"].get<bool>()) << sweep.dump();
        EXPECT_FALSE(sweep["runs"][2]["pass"].get<bool>()) << sweep.dump();
        EXPECT_FALSE(sweep["runs"][3]["pass"].get<bool>()) << sweep.dump();
    }
    fs::remove_all(dir);
}

TEST(Eval, TheCriticalPathStartsItsExtendedTierWithItsContractTier)
{
    // Issue 22: on the H200 the correctness stage ended with one evaluation (expected to be the
    // longest, first in the queue) whose extended tier waited for its contract tier while every
    // other evaluation had ended. Under --extended-start auto an evaluation on the stage's expected
    // critical path (scheduler's criticalPath) starts it with the contract tier, as at the tail;
    // after-contract waits. The verdicts and cases stored are the same. The bundled prior
    // (tasks/queue_prior.json) expects fused_dropout_sigmoid_linear to take ~4x a leaky_relu: with
    // four of those on two jobs it is more than a third of the stage.
    REQUIRE_DEVICE();
    const auto dir = tempPath("critical-path");
    fs::create_directories(dir);
    const auto jsonl = dir / "subs.jsonl";
    {
        std::ofstream out(jsonl);
        out << nlohmann::json{{"predict", readFile(kFixtures / "good" / "Fusion" / "fused_dropout_sigmoid_linear.py")},
                              {"file", "Fusion/fused_dropout_sigmoid_linear.py"}}.dump() << "\n";
        for (int k = 0; k < 4; ++k)
            out << nlohmann::json{{"predict", readFile(kFixtures / "good" / "Activation" / "leaky_relu.py")}, {"file", "Activation/leaky_relu.py"}}.dump()
                << "\n";
    }
    std::map<std::string, std::vector<std::string>> stored;  // mode -> "task verdict cases" per evaluation
    for (const std::string mode : {"auto", "after-contract"}) {
        SCOPED_TRACE(mode);
        const auto db = dir / (mode + ".sqlite");
        auto r = run(kbxBin() + " eval " + jsonl.string() + " --json --jobs 2 --device " + device() + " --db " + db.string() +
                     " --extended-start " + mode + " 2>/dev/null");
        ASSERT_EQ(jsonLines(r.out).size(), 5u) << r.out;
        kbx::Store s(db);
        int critical = 0;
        for (const auto& row : s.query("SELECT id, task_id, verdict, evidence, stage_seconds FROM evaluations ORDER BY task_id, id")) {
            const auto ev = nlohmann::json::parse(row["evidence"].get<std::string>());
            const auto st = nlohmann::json::parse(row["stage_seconds"].get<std::string>());
            const auto task = row["task_id"].get<std::string>();
            std::string line = task + " " + row["verdict"].get<std::string>() + " " + ev["extended"].dump();
            for (const auto& cr : s.query("SELECT name, status, tier FROM case_results WHERE evaluation_id = " + row["id"].dump() + " ORDER BY idx"))
                line += " | " + cr["name"].get<std::string>() + " " + cr["status"].get<std::string>() + " " + cr["tier"].get<std::string>();
            stored[mode].push_back(line);
            EXPECT_EQ(row["verdict"], "pass") << line;
            if (task != "Fusion/fused_dropout_sigmoid_linear") {
                EXPECT_FALSE(ev.contains("schedule")) << ev["schedule"].dump();
                continue;
            }
            ASSERT_TRUE(st.contains("extended_started_after")) << st.dump();
            ASSERT_TRUE(st.contains("contract_started_after")) << st.dump();
            // Both on the evaluation's clock. (Not reference + candidate: the reference's seconds
            // leave out waiting for its server, 6 s on a loaded CI machine.)
            const double extStart = st["extended_started_after"].get<double>();
            const double contractStart = st["contract_started_after"].get<double>();
            if (mode == "auto") {
                ++critical;
                ASSERT_TRUE(ev.contains("schedule")) << ev.dump();
                EXPECT_TRUE(ev["schedule"]["critical_path"].get<bool>());
                EXPECT_GT(ev["schedule"]["expected_seconds"].get<double>(), 0.0);
                EXPECT_LE(extStart, contractStart) << st.dump();
            } else {
                EXPECT_FALSE(ev.contains("schedule")) << ev["schedule"].dump();
                EXPECT_GE(extStart, contractStart + st["candidate"].get<double>()) << st.dump();
            }
        }
        EXPECT_EQ(critical, mode == "auto" ? 1 : 0);
        const auto prov = nlohmann::json::parse(s.query("SELECT provenance FROM runs")[0]["provenance"].get<std::string>());
        EXPECT_EQ(prov.value("extended_start", ""), mode);
        EXPECT_EQ(prov.value("critical_path", -1), critical);
        // The host's CPU side beside the GPU (kbx::hostCpu): it bounds the correctness stage's wall.
        ASSERT_TRUE(prov.contains("host_cpu")) << prov.dump();
        EXPECT_GE(prov["host_cpu"].value("cores", 0), 1) << prov["host_cpu"].dump();
        EXPECT_GT(prov["host_cpu"].value("mem_available_gib", 0.0), 0.0) << prov["host_cpu"].dump();
    }
    EXPECT_EQ(stored["auto"], stored["after-contract"]);
    fs::remove_all(dir);
}

TEST(Eval, TheExtendedTierStoresTheSameWhenItStartsWithTheContractTier)
{
    // Issue 22 (the correctness stage's tail): the extended tier starts beside the contract tier's work
    // (with it at the run's tail or under --extended-start early; otherwise once the contract tier was
    // right, beside the autotune sweep). What is stored must not depend on when it ran. With one job,
    // the first of two identical submissions runs while the queue still holds the second (the extended
    // tier after the contract tier, or with it under "early"); the second is the tail (started with
    // it). A wrong kernel's speculative extended run is dropped unread.
    REQUIRE_DEVICE();
    const auto dir = tempPath("ext-early");
    fs::create_directories(dir);
    struct Case {
        const char* name;
        fs::path source;
        bool good;
        bool early;  // --extended-start early
    };
    for (const auto& c : {Case{"good", kFixtures / "good" / "Activation" / "leaky_relu.py", true, false},
                          Case{"good-early", kFixtures / "good" / "Activation" / "leaky_relu.py", true, true},
                          Case{"bad", kFixtures / "variants" / "value_mismatch.py", false, false}}) {
        SCOPED_TRACE(c.name);
        const auto jsonl = dir / (std::string(c.name) + ".jsonl");
        {
            std::ofstream out(jsonl);
            for (int k = 0; k < 2; ++k)
                out << nlohmann::json{{"predict", readFile(c.source)}, {"file", "Activation/leaky_relu.py"}}.dump() << "\n";
        }
        const auto db = dir / (std::string(c.name) + ".sqlite");
        auto r = run(kbxBin() + " eval " + jsonl.string() + " --json --jobs 1 --device " + device() + " --db " + db.string() +
                     (c.early ? " --extended-start early" : "") + " 2>/dev/null");
        ASSERT_EQ(jsonLines(r.out).size(), 2u) << r.out;
        kbx::Store s(db);
        const auto rows = s.query("SELECT id, verdict, failure_class, evidence, stage_seconds FROM evaluations ORDER BY id");
        ASSERT_EQ(rows.size(), 2u);
        std::array<nlohmann::json, 2> ev, st;
        std::array<std::vector<std::string>, 2> cases;
        for (std::size_t k = 0; k < 2; ++k) {
            ev[k] = nlohmann::json::parse(rows[k]["evidence"].get<std::string>());
            st[k] = nlohmann::json::parse(rows[k]["stage_seconds"].get<std::string>());
            for (const auto& cr : s.query("SELECT name, status, tier FROM case_results WHERE evaluation_id = " + rows[k]["id"].dump() +
                                          " ORDER BY idx"))
                cases[k].push_back(cr["name"].get<std::string>() + " " + cr["status"].get<std::string>() + " " +
                                   cr["tier"].get<std::string>());
        }
        EXPECT_EQ(rows[0]["verdict"], rows[1]["verdict"]);
        EXPECT_EQ(rows[0]["failure_class"], rows[1]["failure_class"]);
        EXPECT_EQ(ev[0]["extended"], ev[1]["extended"]);
        EXPECT_EQ(ev[0]["tiers"], ev[1]["tiers"]);
        EXPECT_EQ(cases[0], cases[1]);
        if (c.good) {
            EXPECT_EQ(rows[0]["verdict"], "pass");
            ASSERT_TRUE(ev[0]["extended"].value("ran", false)) << ev[0]["extended"].dump();
            EXPECT_GT(ev[0]["extended"]["cases"].get<int>(), 0);
            for (std::size_t k = 0; k < 2; ++k) {
                // the tier's own cost is recorded, and when it started
                ASSERT_TRUE(st[k].contains("candidate_extended")) << st[k].dump();
                ASSERT_TRUE(st[k].contains("extended_started_after")) << st[k].dump();
                ASSERT_TRUE(st[k].contains("evaluation")) << st[k].dump();
            }
            // The first starts after the contract tier's candidate process (with it under "early"), the
            // second (the tail) with it. (Seconds after the evaluation began, both on its clock: the
            // contract tier's candidate process ended no earlier than contract_started_after + candidate.)
            auto extStart = [&](std::size_t k) { return st[k]["extended_started_after"].get<double>(); };
            auto contractStart = [&](std::size_t k) {
                EXPECT_TRUE(st[k].contains("contract_started_after")) << st[k].dump();
                return st[k].value("contract_started_after", -1.0);
            };
            if (c.early) {
                EXPECT_LE(extStart(0), contractStart(0)) << st[0].dump();
            } else {
                EXPECT_GE(extStart(0), contractStart(0) + st[0]["candidate"].get<double>()) << st[0].dump();
            }
            EXPECT_LE(extStart(1), contractStart(1)) << st[1].dump();
            // the run says when its extended tiers started
            const auto prov = nlohmann::json::parse(s.query("SELECT provenance FROM runs")[0]["provenance"].get<std::string>());
            EXPECT_EQ(prov.value("extended_start", ""), c.early ? "early" : "auto");
        } else {
            EXPECT_EQ(rows[0]["verdict"], "fail");
            EXPECT_EQ(ev[1]["extended"], (nlohmann::json{{"cases", ev[1]["extended"]["cases"]}, {"ran", false}, {"why", "the contract tier failed"}}));
            for (const auto& line : cases[1])
                EXPECT_EQ(line.find(" extended"), std::string::npos) << line;
            EXPECT_FALSE(st[1].contains("candidate_extended")) << st[1].dump();
        }
    }
    fs::remove_all(dir);
}

TEST(Eval, AWrongKernelsSpeculativeExtendedTierIsKilledNotWaitedFor)
{
    // Issue 22: the extended tier starts with the contract tier at the run's tail (as here: one
    // submission). When the contract tier's outputs are wrong its result is dropped
    // unread, so its processes must be killed, not waited for. This kernel is wrong on every case and
    // sleeps far past the test's bound when it runs in the extended tier's directory (a fixture's
    // trick: the tier's process runs in `<candidate dir>-extended`).
    REQUIRE_DEVICE();
    const auto dir = tempPath("ext-abandon");
    fs::create_directories(dir);
    auto code = readFile(kFixtures / "variants" / "value_mismatch.py");
    code += "\n\nimport os as _os, time as _time\n"
            "if _os.getcwd().endswith('-extended'):\n"
            "    _time.sleep(240)\n";
    const auto jsonl = dir / "sleepy.jsonl";
    std::ofstream(jsonl) << nlohmann::json{{"predict", code}, {"file", "Activation/leaky_relu.py"}}.dump() << "\n";
    const auto db = dir / "sleepy.sqlite";
    const auto t0 = std::chrono::steady_clock::now();
    auto r = run(kbxBin() + " eval " + jsonl.string() + " --json --jobs 1 --timeout 280 --device " + device() + " --db " + db.string() +
                 " 2>/dev/null");
    const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    ASSERT_EQ(jsonLines(r.out).size(), 1u) << r.out;
    kbx::Store s(db);
    const auto rows = s.query("SELECT verdict, failure_class, evidence, stage_seconds FROM evaluations");
    ASSERT_EQ(rows.size(), 1u);
    EXPECT_EQ(rows[0]["verdict"], "fail");
    EXPECT_EQ(rows[0]["failure_class"], "value_mismatch");
    const auto ev = nlohmann::json::parse(rows[0]["evidence"].get<std::string>());
    EXPECT_EQ(ev["extended"], (nlohmann::json{{"cases", ev["extended"]["cases"]}, {"ran", false}, {"why", "the contract tier failed"}}));
    const auto st = nlohmann::json::parse(rows[0]["stage_seconds"].get<std::string>());
    EXPECT_LT(st["evaluation"].get<double>(), 120.0) << st.dump();
    EXPECT_LT(wall, 200.0) << "the extended tier's sleeping process was waited for";
    fs::remove_all(dir);
}

// Reference servers (core/reference_server.h): one process computes one task's references after
// another. The files a candidate is judged against must be exactly those a process of its own
// writes: same secret seed, byte for byte, and the same stored case evidence.
TEST(Eval, AReferenceServerWritesTheSameFilesAsAProcessPerTask)
{
    if (device() != "cpu")
        GTEST_SKIP() << "CPU only: the files' equality does not depend on the device (the gpu acceptance run uses servers)";
    auto dir = tempPath("refserver");
    fs::create_directories(dir / "src" / "Activation");
    fs::create_directories(dir / "src" / "Math");
    fs::copy_file(kFixtures / "good" / "Activation" / "relu.py", dir / "src" / "Activation" / "relu.py");
    fs::copy_file(kFixtures / "good" / "Activation" / "leaky_relu.py", dir / "src" / "Activation" / "leaky_relu.py");
    fs::copy_file(kFixtures / "good" / "Math" / "add.py", dir / "src" / "Math" / "add.py");
    auto evalWith = [&](const std::string& servers) {
        const auto scratch = dir / ("scratch" + servers);
        auto r = run(kbxBin() + " eval " + (dir / "src").string() + " --json --jobs 2 --device cpu --secret-seed 5 --reference-servers " +
                     servers + " --keep-scratch --scratch " + scratch.string() + " --db " + (dir / ("db" + servers + ".sqlite")).string() +
                     " 2>" + (dir / "stderr.txt").string());
        EXPECT_EQ(r.rc, 0) << r.out << readFile(dir / "stderr.txt");
        EXPECT_EQ(readFile(dir / "stderr.txt").find("reference server gave"), std::string::npos) << readFile(dir / "stderr.txt");
        kbx::Store s(dir / ("db" + servers + ".sqlite"));
        std::vector<std::string> cases;
        for (const auto& row : s.query("SELECT e.task_id AS task, e.verdict AS verdict, c.name AS name, c.status AS status, c.tier AS tier, "
                                       "c.evidence AS evidence FROM case_results c JOIN evaluations e ON e.id = c.evaluation_id "
                                       "ORDER BY e.task_id, c.idx")) {
            auto ev = nlohmann::json::parse(row["evidence"].get<std::string>());
            ev.erase("seconds");
            cases.push_back(row["task"].get<std::string>() + " " + row["verdict"].get<std::string>() + " " + row["name"].get<std::string>() +
                            " " + row["status"].get<std::string>() + " " + row["tier"].get<std::string>() + " " + ev.dump());
        }
        // --scratch is the root under which the run made its own directory, the one entry there.
        std::vector<fs::path> runDirs(fs::directory_iterator(scratch), fs::directory_iterator{});
        EXPECT_EQ(runDirs.size(), 1u);
        EXPECT_EQ(runDirs.empty() ? "" : runDirs.front().filename().string().substr(0, 8), "kbx-run-");
        if (!runDirs.empty())
            EXPECT_NE(readFile(dir / "stderr.txt").find("scratch directory is kept: " + runDirs.front().string()), std::string::npos)
                << "--keep-scratch says where\n" << readFile(dir / "stderr.txt");
        return std::make_pair((runDirs.empty() ? scratch : runDirs.front()) / "reference", cases);
    };
    const auto [served, servedCases] = evalWith("-1");
    const auto [own, ownCases] = evalWith("0");
    EXPECT_EQ(servedCases.size(), ownCases.size());
    EXPECT_GT(servedCases.size(), 60u);
    EXPECT_EQ(servedCases, ownCases);
    // One server (two jobs) computed all three tasks; a process per task wrote a request each.
    EXPECT_TRUE(fs::is_directory(served / "server-0-0"));
    EXPECT_FALSE(fs::exists(served / "server-0-1"));
    int files = 0;
    for (const char* task : {"Activation__relu", "Activation__leaky_relu", "Math__add"}) {
        EXPECT_FALSE(fs::exists(served / task / "reference-request.json")) << task;
        EXPECT_TRUE(fs::exists(own / task / "reference-request.json")) << task;
        for (const auto& e : fs::directory_iterator(own / task))
            if (e.path().extension() == ".pt") {
                EXPECT_EQ(readFile(e.path()), readFile(served / task / e.path().filename())) << e.path();
                ++files;
            }
    }
    EXPECT_EQ(files, 12) << "inputs and references of both tiers, three tasks";
    fs::remove_all(dir);
}
