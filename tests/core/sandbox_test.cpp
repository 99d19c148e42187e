// SPDX-License-Identifier: MIT
// The candidate sandbox (core/sandbox): mode resolution, the bwrap command line, and what a
// sandboxed process can and cannot do under rlimit and (where it can start here) bwrap.
#include "process.h"
#include "sandbox.h"

#include <gtest/gtest.h>

#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <fstream>
#include <sstream>
#include <thread>

using namespace kbx;
namespace fs = std::filesystem;

namespace {

fs::path tempDir(const std::string& name)
{
    auto p = fs::temp_directory_path() / ("kbx-sandbox-test-" + std::to_string(getpid()) + "-" + name);
    fs::remove_all(p);
    fs::create_directories(p);
    return p;
}

std::size_t indexOf(const std::vector<std::string>& v, const std::vector<std::string>& seq)
{
    for (std::size_t i = 0; i + seq.size() <= v.size(); ++i)
        if (std::equal(seq.begin(), seq.end(), v.begin() + static_cast<long>(i)))
            return i;
    return std::string::npos;
}

/// The value of one line of /proc/self/limits as the sandboxed process saw it ("Max open files").
std::string limitLine(const std::string& limits, const std::string& name)
{
    std::istringstream in(limits);
    for (std::string line; std::getline(in, line);)
        if (line.rfind(name, 0) == 0)
            return line;
    return {};
}

ProcessResult runSandboxed(const SandboxInfo& info, SandboxRequest req, const std::string& script, double timeout = 30)
{
    ProcessSpec spec;
    spec.argv = {"/bin/sh", "-c", script};
    spec.cwd = req.workDir;
    spec.timeoutSeconds = timeout;
    auto lease = applySandbox(info, req, spec);
    auto r = runProcess(spec);
    lease.reset();
    return r;
}

bool bwrapWorks()
{
    try {
        return resolveSandbox("bwrap").kind == SandboxKind::Bwrap;
    } catch (const std::exception&) {
        return false;
    }
}

}  // namespace

TEST(Sandbox, ModesResolve)
{
    for (const char* m : {"auto", "bwrap", "rlimit", "none"})
        EXPECT_TRUE(isSandboxMode(m)) << m;
    EXPECT_FALSE(isSandboxMode("chroot"));
    EXPECT_THROW(resolveSandbox("chroot"), std::invalid_argument);
    EXPECT_EQ(resolveSandbox("none").kind, SandboxKind::None);
    EXPECT_EQ(resolveSandbox("rlimit").kind, SandboxKind::Rlimit);
    auto a = resolveSandbox("auto");
    EXPECT_NE(a.kind, SandboxKind::None) << "auto never means no sandbox";
    EXPECT_EQ(a.kind == SandboxKind::Bwrap, bwrapWorks());
    auto j = a.toJson();
    EXPECT_EQ(j["kind"], a.name());
    EXPECT_EQ(j["requested"], "auto");
    EXPECT_FALSE(a.describe().empty());
}

TEST(Sandbox, EnvironmentAllowList)
{
    for (const char* keep : {"PATH", "LANG", "LC_ALL", "TRITON_INTERPRET", "CUDA_VISIBLE_DEVICES", "PYTHONDONTWRITEBYTECODE",
                             "OMP_NUM_THREADS", "KBX_PYTHON", "LD_LIBRARY_PATH"})
        EXPECT_TRUE(candidateEnvAllowed(keep)) << keep;
    for (const char* drop : {"KBX_DB", "SSH_AUTH_SOCK", "GITHUB_TOKEN", "AWS_SECRET_ACCESS_KEY", "HOME", "LD_PRELOAD", "KBX_WORKER"})
        EXPECT_FALSE(candidateEnvAllowed(drop)) << drop;
}

TEST(Sandbox, BwrapCommandIsAnAllowListInDepthOrder)
{
    auto root = tempDir("args");
    fs::create_directories(root / "scratch" / "reference" / "relu");
    fs::create_directories(root / "scratch" / "candidates" / "00001");
    fs::create_directories(root / "tree" / "tests");
    std::ofstream(root / "scratch" / "reference" / "relu" / "inputs.pt") << "x";
    std::ofstream(root / "db.sqlite") << "x";
    SandboxInfo info;
    info.kind = SandboxKind::Bwrap;
    info.bwrap = "/usr/bin/bwrap";
    SandboxRequest req;
    req.workDir = root / "scratch" / "candidates" / "00001";
    req.readOnly = {root / "scratch" / "reference" / "relu" / "inputs.pt", root / "does-not-exist", root / "tree"};
    req.hidden = {root / "scratch", root / "db.sqlite", root / "tree" / "tests"};
    auto a = bwrapArguments(info, req);
    const auto s = [](const fs::path& p) { return fs::weakly_canonical(p).string(); };
    for (const char* flag : {"--unshare-user", "--unshare-pid", "--unshare-net", "--die-with-parent"})
        EXPECT_NE(std::find(a.begin(), a.end(), flag), a.end()) << flag;
    // Issue 20: nothing of the host's tree but what is listed (no "--ro-bind / /").
    EXPECT_EQ(indexOf(a, {"--ro-bind", "/", "/"}), std::string::npos);
    EXPECT_NE(indexOf(a, {"--ro-bind-try", "/usr", "/usr"}), std::string::npos);
    EXPECT_NE(indexOf(a, {"--remount-ro", "/"}), std::string::npos);
    const auto inputs = indexOf(a, {"--ro-bind", s(req.readOnly[0]), s(req.readOnly[0])});
    const auto work = indexOf(a, {"--bind", s(req.workDir), s(req.workDir)});
    const auto tree = indexOf(a, {"--ro-bind", s(root / "tree"), s(root / "tree")});
    const auto treeTests = indexOf(a, {"--tmpfs", s(root / "tree" / "tests")});
    ASSERT_NE(inputs, std::string::npos);
    ASSERT_NE(work, std::string::npos);
    ASSERT_NE(tree, std::string::npos);
    ASSERT_NE(treeTests, std::string::npos) << "a hidden directory inside a shown one is emptied";
    EXPECT_LT(tree, treeTests);
    // The scratch root and the database are simply not there: no bind, no need to hide them.
    EXPECT_EQ(std::find(a.begin(), a.end(), s(root / "scratch")), a.end());
    EXPECT_EQ(std::find(a.begin(), a.end(), s(root / "db.sqlite")), a.end());
    EXPECT_EQ(indexOf(a, {s(root / "does-not-exist")}), std::string::npos) << "missing paths are left out";
    EXPECT_EQ(std::find(a.begin(), a.end(), "/dev/nvidiactl"), a.end()) << "no GPU nodes unless asked";
    // Private scratch and run directories, sized.
    for (const char* d : {"/tmp", "/var/tmp", "/dev/shm", "/run"})
        EXPECT_NE(std::find(a.begin(), a.end(), d), a.end()) << d;
    fs::remove_all(root);
}

TEST(Sandbox, ViewShowsSystemLinksAndLeavesOutTheHome)
{
    SandboxRequest req;
    auto v = sandboxView(req);
    auto has = [&](MountOp::Kind k, const std::string& dst) {
        return std::any_of(v.begin(), v.end(), [&](const MountOp& m) { return m.kind == k && m.dst == dst; });
    };
    EXPECT_TRUE(has(MountOp::RoBind, "/usr"));
    EXPECT_TRUE(has(MountOp::Proc, "/proc"));
    EXPECT_TRUE(has(MountOp::Dev, "/dev"));
    EXPECT_TRUE(has(MountOp::Tmpfs, "/tmp"));
    EXPECT_TRUE(has(MountOp::Tmpfs, "/run"));
    if (fs::is_symlink("/lib")) {
        EXPECT_TRUE(has(MountOp::Symlink, "/lib"));
    }
    for (const auto& m : v) {
        EXPECT_NE(m.dst, "/home");
        EXPECT_NE(m.dst, "/root");
        EXPECT_NE(m.dst, "/work");
    }
    // By depth: /dev before /dev/shm.
    std::size_t dev = v.size(), shm = v.size();
    for (std::size_t i = 0; i < v.size(); ++i) {
        if (v[i].dst == "/dev")
            dev = i;
        if (v[i].dst == "/dev/shm")
            shm = i;
    }
    EXPECT_LT(dev, shm);
}

TEST(Sandbox, RlimitModeSetsLimitsAndCleansTheEnvironment)
{
    auto info = resolveSandbox("rlimit");
    auto dir = tempDir("rlimit");
    setenv("KBX_SANDBOX_TEST_SECRET", "hunter2", 1);
    SandboxRequest req;
    req.workDir = dir;
    req.traverseRoot = dir.parent_path();
    req.limits.cpuSeconds = 77;
    req.limits.openFiles = 123;
    req.limits.fileSize = 1 << 20;
    auto r = runSandboxed(info, req, "cat /proc/self/limits; echo HOME=$HOME; echo SECRET=${KBX_SANDBOX_TEST_SECRET:-unset}; id -u");
    unsetenv("KBX_SANDBOX_TEST_SECRET");
    ASSERT_EQ(r.exitCode, 0) << r.stderrText;
    EXPECT_NE(limitLine(r.stdoutText, "Max cpu time").find("77"), std::string::npos) << r.stdoutText;
    EXPECT_NE(limitLine(r.stdoutText, "Max open files").find("123"), std::string::npos) << r.stdoutText;
    EXPECT_NE(limitLine(r.stdoutText, "Max file size").find("1048576"), std::string::npos) << r.stdoutText;
    EXPECT_NE(limitLine(r.stdoutText, "Max core file size").find(" 0 "), std::string::npos) << r.stdoutText;
    EXPECT_NE(r.stdoutText.find("HOME=" + fs::weakly_canonical(dir).string()), std::string::npos) << r.stdoutText;
    EXPECT_NE(r.stdoutText.find("SECRET=unset"), std::string::npos) << "the candidate does not inherit our environment";
    if (info.separateUid) {
        EXPECT_EQ(r.stdoutText.find("\n0\n"), std::string::npos) << "as root, candidates do not run as root: " << r.stdoutText;
    }
    fs::remove_all(dir);
}

TEST(Sandbox, RlimitModeIsolatesTheNetworkWherePermitted)
{
    auto info = resolveSandbox("rlimit");
    if (!info.networkIsolated) {
        GTEST_SKIP() << "this kernel/user cannot create a network namespace";
    }
    auto dir = tempDir("net");
    SandboxRequest req;
    req.workDir = dir;
    req.traverseRoot = dir.parent_path();
    // Only the loopback interface exists in a fresh network namespace (and it is down).
    auto r = runSandboxed(info, req, "tail -n +3 /proc/net/dev | cut -d: -f1 | tr -d ' '");
    ASSERT_EQ(r.exitCode, 0) << r.stderrText;
    EXPECT_EQ(r.stdoutText, "lo\n");
    fs::remove_all(dir);
}

TEST(Sandbox, FileSizeLimitStopsAHugeWrite)
{
    auto info = resolveSandbox("rlimit");
    auto dir = tempDir("fsize");
    SandboxRequest req;
    req.workDir = dir;
    req.traverseRoot = dir.parent_path();
    req.limits.fileSize = 1 << 20;
    // A sparse write far past the limit: SIGXFSZ, no disk used.
    auto r = runSandboxed(info, req, "exec dd if=/dev/zero of=big bs=1 count=1 seek=100M 2>/dev/null");
    EXPECT_EQ(r.signal, SIGXFSZ) << r.exitCode << " " << r.stderrText;
    fs::remove_all(dir);
}

TEST(Sandbox, ProcessLimitContainsAForkBombAndLeftoversAreKilled)
{
    auto info = resolveSandbox("rlimit");
    if (!info.nprocLimited) {
        GTEST_SKIP() << "RLIMIT_NPROC is not safe here (not root, no user namespace)";
    }
    auto dir = tempDir("nproc");
    SandboxRequest req;
    req.workDir = dir;
    req.traverseRoot = dir.parent_path();
    req.limits.processes = 24;
    // 60 background sleepers (one escaping the process group with setsid): at most ~24 start.
    auto r = runSandboxed(info, req,
                          "setsid sleep 3017 & echo $! > escaped; i=0; while [ $i -lt 60 ]; do sleep 300 2>/dev/null & i=$((i+1)); done; "
                          "echo started; exit 0",
                          30);
    EXPECT_FALSE(r.timedOut);
    EXPECT_NE(r.stderrText.find("fork"), std::string::npos) << "the shell was refused processes: " << r.stderrText;
    std::ifstream in(dir / "escaped");
    int pid = 0;
    in >> pid;
    ASSERT_GT(pid, 0);
    // The escapee, found by its command line from here ($! is a pid of its own pid namespace under
    // the namespace sandbox).
    const auto escapees = [] {
        std::vector<int> v;
        std::error_code ec;
        for (auto it = fs::directory_iterator("/proc", ec); !ec && it != fs::directory_iterator(); it.increment(ec)) {
            const auto name = it->path().filename().string();
            if (name.find_first_not_of("0123456789") != std::string::npos)
                continue;
            std::ifstream c(it->path() / "cmdline");
            std::string cmd((std::istreambuf_iterator<char>(c)), std::istreambuf_iterator<char>());
            std::ifstream st(it->path() / "status");
            std::string status((std::istreambuf_iterator<char>(st)), std::istreambuf_iterator<char>());
            if (cmd == std::string("sleep\0003017\000", 11) && status.find("State:\tZ") == std::string::npos)
                v.push_back(std::stoi(name));
        }
        return v;
    };
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    if (!info.separateUid && !info.namespaces) {
        // Not root, no namespaces: nothing reaches a process that left the group (the fallback's
        // documented gap).
        for (int p : escapees())
            kill(p, SIGKILL);
    } else {
        // The lease killed everything left under the candidate's uid (or the pid namespace ended
        // with its init), the setsid escapee too.
        const auto left = escapees();
        EXPECT_TRUE(left.empty()) << "still alive: pid " << left.front();
        for (int p : left)
            kill(p, SIGKILL);
    }
    fs::remove_all(dir);
}

TEST(Sandbox, BwrapHidesTheRestAndKeepsTheResultChannel)
{
    if (!bwrapWorks()) {
        GTEST_SKIP() << "bwrap cannot start a sandbox here";
    }
    auto info = resolveSandbox("bwrap");
    auto root = tempDir("bwrap");
    fs::create_directories(root / "reference");
    fs::create_directories(root / "candidates" / "c1");
    fs::create_directories(root / "candidates" / "c2");
    std::ofstream(root / "reference" / "inputs.pt") << "INPUTS";
    std::ofstream(root / "reference" / "reference.pt") << "SECRET";
    std::ofstream(root / "candidates" / "c2" / "outputs.pt") << "OTHER";
    SandboxRequest req;
    req.workDir = root / "candidates" / "c1";
    req.traverseRoot = root;
    req.readOnly = {root / "reference" / "inputs.pt"};
    req.hidden = {root};
    const std::string R = fs::weakly_canonical(root).string();
    auto r = runSandboxed(info, req,
                          "cat " + R + "/reference/inputs.pt; echo; "
                          "cat " + R + "/reference/reference.pt 2>/dev/null || echo no-reference; "
                          "cat " + R + "/candidates/c2/outputs.pt 2>/dev/null || echo no-other; "
                          "echo mine > out.txt && echo wrote-own; "
                          "touch /usr/kbx-sandbox-test 2>/dev/null && echo wrote-usr || echo usr-ro; "
                          "echo $$; "
                          "printf '\\017\\000\\000\\000{\"type\":\"ping\"}' >&3");
    ASSERT_EQ(r.exitCode, 0) << r.stderrText;
    EXPECT_NE(r.stdoutText.find("INPUTS"), std::string::npos) << r.stdoutText;
    EXPECT_NE(r.stdoutText.find("no-reference"), std::string::npos) << r.stdoutText;
    EXPECT_NE(r.stdoutText.find("no-other"), std::string::npos) << r.stdoutText;
    EXPECT_NE(r.stdoutText.find("wrote-own"), std::string::npos) << r.stdoutText;
    EXPECT_NE(r.stdoutText.find("usr-ro"), std::string::npos) << r.stdoutText;
    EXPECT_FALSE(fs::exists("/usr/kbx-sandbox-test"));
    EXPECT_TRUE(fs::exists(root / "candidates" / "c1" / "out.txt"));
    ASSERT_EQ(r.frames.size(), 1u) << "fd 3 reaches us through bwrap";
    EXPECT_EQ(r.frames[0]["type"], "ping");
    fs::remove_all(root);
}

TEST(Sandbox, BwrapTimeoutKillsTheWholeSandbox)
{
    if (!bwrapWorks()) {
        GTEST_SKIP() << "bwrap cannot start a sandbox here";
    }
    auto info = resolveSandbox("bwrap");
    auto dir = tempDir("bwrap-timeout");
    SandboxRequest req;
    req.workDir = dir;
    req.traverseRoot = dir.parent_path();
    auto r = runSandboxed(info, req, "setsid sh -c 'sleep 300' & sleep 300", 1.0);
    EXPECT_TRUE(r.timedOut);
    EXPECT_LT(r.seconds, 10.0);
    fs::remove_all(dir);
}

TEST(Sandbox, NamespaceSandboxHidesTheHostAndKeepsTheResultChannel)
{
    auto info = resolveSandbox("rlimit");
    if (!info.namespaces) {
        GTEST_SKIP() << "no namespace sandbox here: " << info.note;
    }
    EXPECT_NE(info.describe().find("namespaces"), std::string::npos) << info.describe();
    EXPECT_TRUE(info.toJson()["namespaces"].get<bool>());
    EXPECT_TRUE(info.networkIsolated);
    auto root = tempDir("ns");
    fs::create_directories(root / "reference");
    fs::create_directories(root / "candidates" / "c1");
    fs::create_directories(root / "candidates" / "c2");
    std::ofstream(root / "reference" / "inputs.pt") << "INPUTS";
    std::ofstream(root / "reference" / "reference.pt") << "SECRET";
    std::ofstream(root / "candidates" / "c2" / "outputs.pt") << "OTHER";
    std::ofstream(root / "db.sqlite") << "SQLite format 3";
    const auto hostMarker = fs::temp_directory_path() / ("kbx-ns-host-" + std::to_string(getpid()));
    std::ofstream(hostMarker) << "host";
    SandboxRequest req;
    req.workDir = root / "candidates" / "c1";
    req.traverseRoot = root;
    req.readOnly = {root / "reference" / "inputs.pt"};
    req.hidden = {root};
    const std::string R = fs::weakly_canonical(root).string();
    auto r = runSandboxed(info, req,
                          "cat " + R + "/reference/inputs.pt; echo; "
                          "cat " + R + "/reference/reference.pt 2>/dev/null || echo no-reference; "
                          "cat " + R + "/candidates/c2/outputs.pt 2>/dev/null || echo no-other; "
                          "cat " + R + "/db.sqlite 2>/dev/null || echo no-db; "
                          "cat " + hostMarker.string() + " 2>/dev/null || echo no-host-tmp; "
                          "ls /run | wc -l | sed 's/^/run-entries=/'; "
                          "ls /home /root 2>/dev/null | wc -l | sed 's/^/home-entries=/'; "
                          "echo mine > out.txt && echo wrote-own; "
                          "touch /usr/kbx-sandbox-test 2>/dev/null && echo wrote-usr || echo usr-ro; "
                          "touch /kbx-sandbox-test 2>/dev/null && echo wrote-root || echo root-ro; "
                          "echo pid=$$; ls /proc | grep -c '^[0-9]' | sed 's/^/procs=/'; "
                          "umount /tmp 2>/dev/null && echo unmounted || echo umount-refused; "
                          "printf '\\017\\000\\000\\000{\"type\":\"ping\"}' >&3");
    fs::remove(hostMarker);
    ASSERT_EQ(r.exitCode, 0) << r.stderrText;
    for (const char* want : {"INPUTS", "no-reference", "no-other", "no-db", "no-host-tmp", "run-entries=0", "home-entries=0", "wrote-own",
                             "usr-ro", "root-ro", "pid=2", "umount-refused"})
        EXPECT_NE(r.stdoutText.find(want), std::string::npos) << want << " in\n" << r.stdoutText << r.stderrText;
    // Its own pid namespace: the init, the shell and a few of its pipeline, nothing of the host.
    auto procs = r.stdoutText.find("procs=");
    ASSERT_NE(procs, std::string::npos);
    EXPECT_LT(std::stoi(r.stdoutText.substr(procs + 6)), 10) << r.stdoutText;
    EXPECT_FALSE(fs::exists("/usr/kbx-sandbox-test"));
    EXPECT_TRUE(fs::exists(root / "candidates" / "c1" / "out.txt"));
    ASSERT_EQ(r.frames.size(), 1u) << "fd 3 reaches us through the namespaces";
    EXPECT_EQ(r.frames[0]["type"], "ping");
    fs::remove_all(root);
}

TEST(Sandbox, NamespaceSandboxRelaysExitAndSignalAndTimeout)
{
    auto info = resolveSandbox("rlimit");
    if (!info.namespaces) {
        GTEST_SKIP() << "no namespace sandbox here: " << info.note;
    }
    auto dir = tempDir("ns-relay");
    SandboxRequest req;
    req.workDir = dir;
    req.traverseRoot = dir.parent_path();
    // kbx eval runs with umask 077: the sandbox's root must still be traversable by a uid of its own.
    const mode_t before = umask(077);
    auto r = runSandboxed(info, req, "cd " + fs::weakly_canonical(dir).string() + " && echo in > in.txt && exit 7");
    umask(before);
    EXPECT_EQ(r.exitCode, 7) << r.stderrText;
    EXPECT_TRUE(fs::exists(dir / "in.txt"));
    r = runSandboxed(info, req, "kill -SEGV $$");
    EXPECT_EQ(r.signal, SIGSEGV) << r.exitCode << " " << r.stderrText;
    r = runSandboxed(info, req, "setsid sh -c 'sleep 300' & sleep 300", 1.0);
    EXPECT_TRUE(r.timedOut);
    EXPECT_LT(r.seconds, 10.0);
    fs::remove_all(dir);
}

TEST(Sandbox, FirstUntraversableFindsAPrivateDirectoryOnTheWay)
{
    // A candidate under a uid of its own cannot reach what lies below a 0700 directory: kbx refuses
    // such a scratch (or worker) before the run instead of every candidate failing to start.
    auto base = fs::temp_directory_path() / ("kbx-untraversable-" + std::to_string(getpid()));
    fs::remove_all(base);
    fs::create_directories(base / "private" / "deeper" / "scratch");
    fs::permissions(base, fs::perms::owner_all | fs::perms::group_read | fs::perms::group_exec | fs::perms::others_read |
                              fs::perms::others_exec);
    EXPECT_EQ(kbx::firstUntraversable(base / "private" / "deeper" / "scratch"), fs::path());
    fs::permissions(base / "private", fs::perms::owner_all);
    EXPECT_EQ(kbx::firstUntraversable(base / "private" / "deeper" / "scratch"), base / "private");
    EXPECT_EQ(kbx::firstUntraversable(base / "private"), base / "private");  // the directory itself counts
    EXPECT_EQ(kbx::firstUntraversable(base), fs::path());
    // A path that does not exist yet: its existing ancestors decide.
    EXPECT_EQ(kbx::firstUntraversable(base / "private" / "not-yet" / "x"), base / "private");
    fs::permissions(base / "private", fs::perms::owner_all | fs::perms::others_exec);
    EXPECT_EQ(kbx::firstUntraversable(base / "private" / "not-yet" / "x"), fs::path());
    fs::remove_all(base);
}
