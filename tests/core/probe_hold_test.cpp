// SPDX-License-Identifier: MIT
// The probe whose process holds the device open (core/probe_hold.h), with a stand-in worker: a
// shell script that speaks the frame protocol on fd 3 as kbx_harness/probe.py does.
#include "probe_hold.h"

#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <thread>

using namespace kbx;
namespace fs = std::filesystem;

namespace {
/// A stand-in `kbx-worker probe`: `body` runs under /bin/sh with $MARK the file it writes on exit.
struct FakeWorker {
    fs::path dir;
    WorkerConfig config;
    explicit FakeWorker(const std::string& body)
    {
        dir = fs::temp_directory_path() / ("kbx-probe-hold-" + std::to_string(::getpid()) + "-" +
                                           std::to_string(std::chrono::steady_clock::now().time_since_epoch().count()));
        fs::create_directories(dir);
        const auto script = dir / "kbx-worker";
        std::ofstream(script) << "#!/bin/sh\nMARK='" << (dir / "ended").string() << "'\n" << body << "\n";
        fs::permissions(script, fs::perms::owner_all);
        config.worker = script;
    }
    ~FakeWorker() { fs::remove_all(dir); }
    bool ended() const { return fs::exists(dir / "ended"); }
};

// printf with octal escapes: one frame each (4-byte little-endian length, then the JSON).
const char* kResult = R"(printf '\036\000\000\000{"type":"result","devices":[]}' >&3)";
const char* kHold = R"(printf '\017\000\000\000{"type":"hold"}' >&3)";

bool waitFor(const std::function<bool()>& cond, double seconds)
{
    const auto end = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
    while (std::chrono::steady_clock::now() < end) {
        if (cond())
            return true;
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    return cond();
}
}  // namespace

TEST(HeldProbe, KeepsItsProcessUntilReleasedThenLetsItEnd)
{
    // As probe.py: with KBX_PROBE_HOLD=1 it says "hold" after its result and waits for a line.
    FakeWorker w(std::string(kResult) + "\n[ \"$KBX_PROBE_HOLD\" = 1 ] && { " + kHold + "; read line; echo \"$line\" > \"$MARK\"; exit 0; }\ntouch \"$MARK\"");
    HeldProbe p(w.config, true);
    EXPECT_EQ(p.result().value("type", ""), "result");
    ASSERT_TRUE(waitFor([&] { return p.holding(); }, 10));
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    EXPECT_FALSE(w.ended()) << "the process must stay until released";
    EXPECT_EQ(p.heldSeconds(), 0.0);
    p.release();
    ASSERT_TRUE(waitFor([&] { return w.ended(); }, 10)) << "released, it ends";
    std::ifstream in(w.dir / "ended");
    std::string line;
    std::getline(in, line);
    EXPECT_EQ(line, "stop");
    EXPECT_GT(p.heldSeconds(), 0.2);
    EXPECT_FALSE(p.holding());
    p.release();  // idempotent
}

TEST(HeldProbe, NotAskedToHoldItEndsAfterItsAnswer)
{
    FakeWorker w(std::string(kResult) + "\n[ \"$KBX_PROBE_HOLD\" = 1 ] && { " + kHold + "; read line; }\ntouch \"$MARK\"");
    HeldProbe p(w.config, false);
    EXPECT_EQ(p.result().value("type", ""), "result");
    ASSERT_TRUE(waitFor([&] { return w.ended(); }, 10));
    EXPECT_FALSE(p.holding());
}

TEST(HeldProbe, DestructionReleasesAHoldingProcess)
{
    FakeWorker w(std::string(kResult) + "\n" + kHold + "\nread line\ntouch \"$MARK\"");
    {
        HeldProbe p(w.config, true);
        ASSERT_TRUE(waitFor([&] { return p.holding(); }, 10));
    }
    EXPECT_TRUE(waitFor([&] { return w.ended(); }, 10));
}

TEST(HeldProbe, AProbeWithoutAnAnswerIsAnErrorWithItsStderr)
{
    FakeWorker w("echo 'no torch here' >&2\nexit 3");
    try {
        HeldProbe p(w.config, true);
        FAIL() << "a probe that gave no result must throw";
    } catch (const std::runtime_error& e) {
        EXPECT_NE(std::string(e.what()).find("probe failed (exit 3"), std::string::npos) << e.what();
        EXPECT_NE(std::string(e.what()).find("no torch here"), std::string::npos) << e.what();
    }
}

TEST(HeldProbe, ACudaRunHoldsUnlessTheEnvironmentSaysNo)
{
    ::unsetenv("KBX_PROBE_HOLD");
    EXPECT_TRUE(HeldProbe::wanted(true));
    EXPECT_FALSE(HeldProbe::wanted(false));
    ::setenv("KBX_PROBE_HOLD", "0", 1);
    EXPECT_FALSE(HeldProbe::wanted(true));
    ::unsetenv("KBX_PROBE_HOLD");
}
