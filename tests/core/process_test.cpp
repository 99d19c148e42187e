// SPDX-License-Identifier: MIT
#include "process.h"
#include "protocol.h"

#include <gtest/gtest.h>

#include <csignal>

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

TEST(Process, MissingExecutable)
{
    ProcessSpec s;
    s.argv = {"/nonexistent/kbx-worker"};
    auto r = runProcess(s);
    EXPECT_EQ(r.exitCode, 127);
}
