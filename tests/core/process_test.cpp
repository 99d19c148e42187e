// SPDX-License-Identifier: MIT
#include "process.h"
#include "protocol.h"
#include "warm.h"

#include <gtest/gtest.h>

#include <csignal>
#include <fstream>
#include <sys/resource.h>
#include <unistd.h>

using namespace kbx;

TEST(Process, CapturesStreamsApartAndFrames)
{
    ProcessSpec s;
    // printf with octal escapes writes one frame on fd 3: length 15, {"type":"ping"}
    s.argv = {"/bin/sh", "-c", "echo out; echo err >&2; printf '\\017\\000\\000\\000{\"type\":\"ping\"}' >&3; exit 7"};
    auto r = runProcess(s);
    EXPECT_EQ(r.exitCode, 7);
    EXPECT_EQ(r.stdoutText, "out\n");
    EXPECT_EQ(r.stderrText, "err\n");
    ASSERT_EQ(r.frames.size(), 1u);
    EXPECT_EQ(r.frames[0]["type"], "ping");
    EXPECT_TRUE(r.protocolError.empty());
}

TEST(Process, TimeoutKillsTheWholeGroup)
{
    ProcessSpec s;
    s.argv = {"/bin/sh", "-c", "sleep 100 & sleep 100; echo never"};
    s.timeoutSeconds = 0.5;
    auto r = runProcess(s);
    EXPECT_TRUE(r.timedOut);
    EXPECT_EQ(r.signal, SIGKILL);
    EXPECT_LT(r.seconds, 5.0);
}

TEST(Process, SignalIsReported)
{
    ProcessSpec s;
    s.argv = {"/bin/sh", "-c", "kill -SEGV $$"};
    auto r = runProcess(s);
    EXPECT_EQ(r.signal, SIGSEGV);
    EXPECT_FALSE(r.timedOut);
    EXPECT_NE(signalName(SIGSEGV).find("SEGV"), std::string::npos);
}

TEST(Process, LogsAreCappedButDrained)
{
    ProcessSpec s;
    s.argv = {"/bin/sh", "-c", "head -c 5000000 /dev/zero"};
    s.maxLogBytes = 1000;
    auto r = runProcess(s);
    EXPECT_EQ(r.exitCode, 0);
    EXPECT_EQ(r.stdoutText.size(), 1000u);
    EXPECT_EQ(r.droppedLogBytes, 5000000u - 1000u);
}

TEST(Process, BrokenFrameIsAProtocolError)
{
    ProcessSpec s;
    s.argv = {"/bin/sh", "-c", "printf '\\020\\000\\000\\000{\"ty' >&3"};
    auto r = runProcess(s);
    EXPECT_FALSE(r.protocolError.empty());
}

TEST(Process, FrameFloodIsBoundedInCount)
{
    // Issue 20: kbx's memory must stay bounded whatever a candidate sends on fd 3.
    ProcessSpec s;
    s.argv = {"/bin/sh", "-c", "i=0; while [ $i -lt 50 ]; do printf '\\017\\000\\000\\000{\"type\":\"ping\"}' >&3; i=$((i+1)); done; echo done"};
    s.maxFrames = 10;
    auto r = runProcess(s);
    EXPECT_EQ(r.exitCode, 0);
    EXPECT_EQ(r.stdoutText, "done\n");  // the rest was drained: the child was not blocked
    EXPECT_EQ(r.frames.size(), 10u);
    EXPECT_NE(r.protocolError.find("frames"), std::string::npos) << r.protocolError;
}

TEST(Process, FrameFloodIsBoundedInBytes)
{
    // Four frames of 512 KiB each against a bound of 1 MiB: at most two are taken, the stream is broken.
    ProcessSpec s;
    s.argv = {"/bin/sh", "-c",
              "i=0; while [ $i -lt 4 ]; do printf '\\000\\000\\010\\000{\"type\":\"p\",\"s\":\"' >&3; "
              "head -c 524269 /dev/zero | tr '\\000' a >&3; printf '\"}' >&3; i=$((i+1)); done; echo done"};
    s.maxFrameStreamBytes = 1u << 20;
    auto r = runProcess(s);
    EXPECT_EQ(r.exitCode, 0);
    EXPECT_EQ(r.stdoutText, "done\n");
    EXPECT_LE(r.frames.size(), 2u);
    EXPECT_NE(r.protocolError.find("MiB"), std::string::npos) << r.protocolError;
    // Below the bound the same stream is whole.
    s.maxFrameStreamBytes = 4u << 20;
    r = runProcess(s);
    EXPECT_EQ(r.frames.size(), 4u);
    EXPECT_TRUE(r.protocolError.empty()) << r.protocolError;
}

TEST(Process, MissingExecutable)
{
    ProcessSpec s;
    s.argv = {"/nonexistent/kbx-worker"};
    auto r = runProcess(s);
    EXPECT_EQ(r.exitCode, 127);
}

TEST(Process, RestrictionsSurviveTheTripToAWarmWorker)
{
    // The warm worker's child applies what kbx sent as JSON: every field must arrive.
    ChildRestrictions rx;
    rx.rlimits = {{RLIMIT_CPU, 30, 35}, {RLIMIT_NOFILE, 4096, 4096}, {RLIMIT_FSIZE, 4ull << 30, 4ull << 30}};
    rx.unshareNet = true;
    rx.uid = 1900000007;
    rx.gid = 1900000007;
    rx.noNewPrivs = true;
    rx.dieWithParent = true;
    rx.namespaces = true;
    rx.view = {{MountOp::RoBind, "/usr", "/usr", 0, true}, {MountOp::Tmpfs, "", "/tmp", 1234, false}, {MountOp::Symlink, "usr/lib", "/lib"}};
    const auto back = restrictionsFromJson(nlohmann::json::parse(toJson(rx).dump()));
    EXPECT_TRUE(back.namespaces);
    ASSERT_EQ(back.view.size(), 3u);
    for (size_t i = 0; i < 3; ++i) {
        EXPECT_EQ(back.view[i].kind, rx.view[i].kind);
        EXPECT_EQ(back.view[i].src, rx.view[i].src);
        EXPECT_EQ(back.view[i].dst, rx.view[i].dst);
        EXPECT_EQ(back.view[i].size, rx.view[i].size);
        EXPECT_EQ(back.view[i].optional, rx.view[i].optional);
    }
    ASSERT_EQ(back.rlimits.size(), 3u);
    for (size_t i = 0; i < 3; ++i) {
        EXPECT_EQ(back.rlimits[i].resource, rx.rlimits[i].resource);
        EXPECT_EQ(back.rlimits[i].soft, rx.rlimits[i].soft);
        EXPECT_EQ(back.rlimits[i].hard, rx.rlimits[i].hard);
    }
    EXPECT_TRUE(back.unshareNet);
    EXPECT_EQ(back.uid, rx.uid);
    EXPECT_EQ(back.gid, rx.gid);
    EXPECT_TRUE(back.noNewPrivs);
    EXPECT_TRUE(back.dieWithParent);
    const auto none = restrictionsFromJson(nlohmann::json::object());
    EXPECT_TRUE(none.rlimits.empty());
    EXPECT_EQ(none.uid, -1);
    EXPECT_FALSE(none.unshareNet);
    EXPECT_FALSE(none.namespaces);
    EXPECT_TRUE(none.view.empty());
}

TEST(Process, AWarmWorkerThatNeverGetsReadyMeansAColdStart)
{
    // A "warm worker" that exits at once: it is marked failed with a reason, and a process asked
    // of it starts with fork+exec instead, with the same result.
    const auto log = std::filesystem::temp_directory_path() / ("kbx-warm-test-" + std::to_string(getpid()) + ".log");
    auto warm = std::make_shared<WarmWorker>(std::vector<std::string>{"/bin/sh", "-c", "echo broken >&2; exit 3"},
                                             std::map<std::string, std::string>{{"PATH", "/usr/bin:/bin"}}, log);
    ProcessSpec s;
    s.argv = {"/bin/sh", "-c", "echo cold; exit 4"};
    s.warm = warm;
    auto r = runProcess(s);
    EXPECT_EQ(r.exitCode, 4);
    EXPECT_EQ(r.stdoutText, "cold\n");
    EXPECT_FALSE(r.warm);
    EXPECT_FALSE(r.warmLost);
    EXPECT_FALSE(warm->usable());
    const auto d = warm->describe();
    EXPECT_EQ(d["state"], "failed") << d.dump();
    EXPECT_FALSE(d.value("why_not", std::string()).empty()) << d.dump();
    EXPECT_EQ(d["children"], 0);
    std::ifstream in(log);
    std::string line;
    std::getline(in, line);
    EXPECT_EQ(line, "broken") << "its output goes to its log";
    std::filesystem::remove(log);
}
