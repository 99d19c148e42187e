// SPDX-License-Identifier: MIT
#include "process.h"

#include "protocol.h"
#include "warm.h"

#include <fcntl.h>
#include <grp.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstring>

extern char** environ;

namespace kbx {
namespace {

void setNonBlocking(int fd) { fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK); }

/// Reads what is available; returns false at EOF.
bool drain(int fd, std::string* sink, std::size_t cap, std::size_t& dropped)
{
    char buf[65536];
    for (;;) {
        ssize_t n = read(fd, buf, sizeof buf);
        if (n > 0) {
            std::size_t take = 0;
            if (sink && sink->size() < cap)
                take = std::min<std::size_t>(static_cast<std::size_t>(n), cap - sink->size());
            if (take)
                sink->append(buf, take);
            dropped += static_cast<std::size_t>(n) - take;
            continue;
        }
        if (n == 0)
            return false;
        if (errno == EINTR)
            continue;
        return errno == EAGAIN || errno == EWOULDBLOCK;
    }
}

/// Writes a whole string to a file from the forked child (async-signal-safe).
bool writeProcFile(const char* path, const char* text, std::size_t len)
{
    int fd = open(path, O_WRONLY | O_CLOEXEC);
    if (fd < 0)
        return false;
    bool ok = write(fd, text, len) == static_cast<ssize_t>(len);
    close(fd);
    return ok;
}

[[noreturn]] void childFail(const char* what)
{
    const char pre[] = "kbx: sandbox set-up failed: ";
    (void)!write(2, pre, sizeof pre - 1);
    (void)!write(2, what, strlen(what));
    (void)!write(2, "\n", 1);
    _exit(127);
}

}  // namespace

std::map<std::string, std::string> currentEnvironment()
{
    std::map<std::string, std::string> env;
    for (char** e = environ; *e; ++e) {
        const std::string kv(*e);
        const auto eq = kv.find('=');
        if (eq != std::string::npos)
            env[kv.substr(0, eq)] = kv.substr(eq + 1);
    }
    return env;
}

ExecStrings::ExecStrings(std::vector<std::string> strings) : m_strings(std::move(strings))
{
    for (auto& x : m_strings)
        m_ptrs.push_back(x.data());
    m_ptrs.push_back(nullptr);
}

ExecStrings::ExecStrings(const std::map<std::string, std::string>& env)
    : ExecStrings([&] {
          std::vector<std::string> v;
          for (const auto& [k, val] : env)
              v.push_back(k + "=" + val);
          return v;
      }())
{
}

nlohmann::json toJson(const ChildRestrictions& rx)
{
    nlohmann::json lim = nlohmann::json::array();
    for (const auto& l : rx.rlimits)
        lim.push_back({l.resource, l.soft, l.hard});
    return {{"rlimits", lim}, {"unshare_net", rx.unshareNet}, {"uid", rx.uid}, {"gid", rx.gid},
            {"no_new_privs", rx.noNewPrivs}, {"die_with_parent", rx.dieWithParent}};
}

ChildRestrictions restrictionsFromJson(const nlohmann::json& j)
{
    ChildRestrictions rx;
    for (const auto& l : j.value("rlimits", nlohmann::json::array()))
        rx.rlimits.push_back({l.at(0).get<int>(), l.at(1).get<std::uint64_t>(), l.at(2).get<std::uint64_t>()});
    rx.unshareNet = j.value("unshare_net", false);
    rx.uid = j.value("uid", -1);
    rx.gid = j.value("gid", -1);
    rx.noNewPrivs = j.value("no_new_privs", false);
    rx.dieWithParent = j.value("die_with_parent", false);
    return rx;
}

PreparedRestrictions PreparedRestrictions::prepare(const ChildRestrictions& rx, int parentPid)
{
    PreparedRestrictions p;
    for (const auto& l : rx.rlimits) {
        rlimit cur{};
        if (getrlimit(l.resource, &cur) != 0)
            continue;
        rlimit want{static_cast<rlim_t>(l.soft), static_cast<rlim_t>(l.hard)};
        if (cur.rlim_max != RLIM_INFINITY)
            want.rlim_max = std::min(want.rlim_max, cur.rlim_max);
        want.rlim_cur = std::min(want.rlim_cur, want.rlim_max);
        p.limits.push_back({l.resource, {want.rlim_cur, want.rlim_max}});
    }
    p.unshareNet = rx.unshareNet;
    p.asRoot = geteuid() == 0;
    p.uidMap = std::to_string(geteuid()) + " " + std::to_string(geteuid()) + " 1\n";
    p.gidMap = std::to_string(getegid()) + " " + std::to_string(getegid()) + " 1\n";
    p.uid = rx.uid;
    p.gid = rx.gid;
    p.noNewPrivs = rx.noNewPrivs;
    p.dieWithParent = rx.dieWithParent;
    p.parentPid = parentPid;
    return p;
}

void PreparedRestrictions::apply() const
{
    if (unshareNet) {
        if (asRoot) {
            if (unshare(CLONE_NEWNET) != 0)
                childFail("unshare(CLONE_NEWNET)");
        } else {
            if (unshare(CLONE_NEWUSER | CLONE_NEWNET) != 0)
                childFail("unshare(CLONE_NEWUSER|CLONE_NEWNET)");
            if (!writeProcFile("/proc/self/setgroups", "deny", 4) ||
                !writeProcFile("/proc/self/uid_map", uidMap.data(), uidMap.size()) ||
                !writeProcFile("/proc/self/gid_map", gidMap.data(), gidMap.size()))
                childFail("user namespace id maps");
        }
    }
    for (const auto& [res, lim] : limits) {
        rlimit r{static_cast<rlim_t>(lim.first), static_cast<rlim_t>(lim.second)};
        if (setrlimit(res, &r) != 0)
            childFail("setrlimit");
    }
    if (uid >= 0) {
        const gid_t g = static_cast<gid_t>(gid >= 0 ? gid : uid);
        if (setgroups(0, nullptr) != 0 || setresgid(g, g, g) != 0 ||
            setresuid(static_cast<uid_t>(uid), static_cast<uid_t>(uid), static_cast<uid_t>(uid)) != 0 ||
            geteuid() != static_cast<uid_t>(uid))
            childFail("dropping to the sandbox uid");
    }
    if (noNewPrivs && prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0)
        childFail("PR_SET_NO_NEW_PRIVS");
    if (dieWithParent) {
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        if (getppid() != parentPid)
            _exit(127);
    }
}

std::string signalName(int sig)
{
    const char* d = sigdescr_np(sig);
    const char* a = sigabbrev_np(sig);
    return std::string("SIG") + (a ? a : std::to_string(sig)) + (d ? std::string(" (") + d + ")" : "");
}

ProcessResult runProcess(const ProcessSpec& spec)
{
    ProcessResult res;
    const auto t0 = std::chrono::steady_clock::now();

    // Everything the child needs is prepared before fork: only async-signal-safe calls after it.
    auto envMap = currentEnvironment();
    for (const auto& k : spec.unsetEnv)
        envMap.erase(k);
    for (const auto& [k, v] : spec.env)
        envMap[k] = v;
    ExecStrings envp(envMap);
    ExecStrings argv(spec.argv);
    const std::string cwd = spec.cwd.string();
    // Sandbox restrictions, prepared here too (limits clamped to the current hard limits).
    const auto prepared = PreparedRestrictions::prepare(spec.restrictions, getpid());
    int outPipe[2], errPipe[2], protoPipe[2], inPipe[2] = {-1, -1};
    if (pipe2(outPipe, O_CLOEXEC) || pipe2(errPipe, O_CLOEXEC) || pipe2(protoPipe, O_CLOEXEC) ||
        (spec.reply && pipe2(inPipe, O_CLOEXEC))) {
        res.spawnFailed = true;
        res.stderrText = std::string("pipe: ") + std::strerror(errno);
        return res;
    }
    pid_t pid = -1;
    int session = -1;  // warm: the warm worker's socket for this child (its exit status comes there)
    if (spec.warm && spec.warm->usable()) {
        int devnull = inPipe[0] >= 0 ? -1 : open("/dev/null", O_RDONLY | O_CLOEXEC);
        const int childFds[4] = {inPipe[0] >= 0 ? inPipe[0] : devnull, outPipe[1], errPipe[1], protoPipe[1]};
        const nlohmann::json job = {{"argv", spec.argv}, {"env", envMap}, {"cwd", cwd}, {"restrictions", toJson(spec.restrictions)}};
        const auto sp = spec.warm->spawn(job, childFds, spec.cancel);
        if (devnull >= 0)
            close(devnull);
        if (sp.session < 0) {
            // Not started (the warm worker is gone or was never ready): fork+exec with fresh pipes,
            // as nobody can say whether a child got these.
            for (int fd : {outPipe[0], outPipe[1], errPipe[0], errPipe[1], protoPipe[0], protoPipe[1], inPipe[0], inPipe[1]})
                if (fd >= 0)
                    close(fd);
            if (spec.cancel && spec.cancel->load()) {
                res.cancelled = true;
                return res;
            }
            ProcessSpec cold = spec;
            cold.warm.reset();
            return runProcess(cold);
        }
        session = sp.session;
        pid = sp.pid;
        res.warm = true;
    } else {
        pid = fork();
        if (pid < 0) {
            res.spawnFailed = true;
            res.stderrText = std::string("fork: ") + std::strerror(errno);
            for (int fd : {outPipe[0], outPipe[1], errPipe[0], errPipe[1], protoPipe[0], protoPipe[1], inPipe[0], inPipe[1]})
                if (fd >= 0)
                    close(fd);
            return res;
        }
        if (pid == 0) {
            setpgid(0, 0);
            if (inPipe[0] >= 0) {
                dup2(inPipe[0], 0);
            } else {
                int devnull = open("/dev/null", O_RDONLY);
                dup2(devnull, 0);
            }
            dup2(outPipe[1], 1);
            dup2(errPipe[1], 2);
            dup2(protoPipe[1], protocol::kProtocolFd);
            // dup2 clears FD_CLOEXEC on the targets; everything else above fd 3 closes on exec.
            prepared.apply();
            if (!cwd.empty() && chdir(cwd.c_str()) != 0)
                _exit(127);
            execve(argv.data()[0], argv.data(), envp.data());
            const char msg[] = "kbx: execve failed\n";
            (void)!write(2, msg, sizeof msg - 1);
            _exit(127);
        }
        setpgid(pid, pid);  // also from the parent: no race with an early kill
    }
    close(outPipe[1]);
    close(errPipe[1]);
    close(protoPipe[1]);
    if (inPipe[0] >= 0)
        close(inPipe[0]);
    setNonBlocking(outPipe[0]);
    setNonBlocking(errPipe[0]);
    setNonBlocking(protoPipe[0]);

    protocol::FrameDecoder decoder;
    std::string protoBuf;
    std::size_t dummyDropped = 0;
    bool outOpen = true, errOpen = true, protoOpen = true;
    bool exited = false;
    int status = 0;
    bool killed = false;
    // From the start of the child (waiting for a warm worker to be ready is not the child's time).
    auto deadline = std::chrono::steady_clock::now() + std::chrono::duration_cast<std::chrono::steady_clock::duration>(std::chrono::duration<double>(spec.timeoutSeconds));
    std::chrono::steady_clock::time_point exitSeen{};

    auto killGroup = [&] {
        kill(-pid, SIGKILL);
        kill(pid, SIGKILL);
        killed = true;
    };

    while (outOpen || errOpen || protoOpen || !exited) {
        pollfd fds[4];
        int nf = 0;
        if (session >= 0 && !exited)
            fds[nf++] = {session, POLLIN, 0};
        if (outOpen)
            fds[nf++] = {outPipe[0], POLLIN, 0};
        if (errOpen)
            fds[nf++] = {errPipe[0], POLLIN, 0};
        if (protoOpen)
            fds[nf++] = {protoPipe[0], POLLIN, 0};
        if (nf > 0)
            poll(fds, static_cast<nfds_t>(nf), 50);
        else
            usleep(20000);
        if (outOpen)
            outOpen = drain(outPipe[0], &res.stdoutText, spec.maxLogBytes, res.droppedLogBytes);
        if (errOpen)
            errOpen = drain(errPipe[0], &res.stderrText, spec.maxLogBytes, res.droppedLogBytes);
        if (protoOpen) {
            protoBuf.clear();
            protoOpen = drain(protoPipe[0], &protoBuf, SIZE_MAX, dummyDropped);
            if (!protoBuf.empty() && res.protocolError.empty()) {
                try {
                    decoder.feed(protoBuf);
                    while (decoder.hasMessage()) {
                        auto m = decoder.take();
                        if (spec.onFrame)
                            spec.onFrame(m);
                        if (spec.reply && inPipe[1] >= 0) {
                            const auto r0 = std::chrono::steady_clock::now();
                            const std::string answer = spec.reply(m);
                            deadline += std::chrono::steady_clock::now() - r0;  // waiting is not the child's time
                            // A child that closed its stdin must not kill us with SIGPIPE: blocked
                            // for this thread while writing, a pending one consumed.
                            sigset_t pipeSet, oldSet;
                            sigemptyset(&pipeSet);
                            sigaddset(&pipeSet, SIGPIPE);
                            pthread_sigmask(SIG_BLOCK, &pipeSet, &oldSet);
                            for (std::size_t off = 0; off < answer.size();) {
                                ssize_t n = write(inPipe[1], answer.data() + off, answer.size() - off);
                                if (n < 0 && errno == EINTR)
                                    continue;
                                if (n <= 0) {
                                    if (errno == EPIPE) {
                                        timespec zero{0, 0};
                                        sigtimedwait(&pipeSet, nullptr, &zero);
                                    }
                                    break;  // the child closed its stdin or died: nothing to tell it
                                }
                                off += static_cast<std::size_t>(n);
                            }
                            pthread_sigmask(SIG_SETMASK, &oldSet, nullptr);
                        }
                        res.frames.push_back(std::move(m));
                    }
                } catch (const std::exception& e) {
                    res.protocolError = e.what();
                }
            }
        }
        if (!exited && session >= 0) {
            const int r = WarmWorker::readStatus(session, &status, 0);
            if (r != 0) {
                exited = true;
                exitSeen = std::chrono::steady_clock::now();
                kill(-pid, SIGKILL);
                if (r < 0) {
                    res.warmLost = true;
                    spec.warm->lost("a child's session ended without its exit status");
                    status = SIGKILL;  // reads as killed
                }
            }
        } else if (!exited) {
            pid_t w = waitpid(pid, &status, WNOHANG);
            if (w == pid) {
                exited = true;
                exitSeen = std::chrono::steady_clock::now();
                // Anything the child left behind in its group goes too (and releases our pipes).
                kill(-pid, SIGKILL);
            }
        } else if (std::chrono::steady_clock::now() - exitSeen > std::chrono::seconds(2)) {
            break;  // a stray holder of the pipes outside the group: stop reading
        }
        auto now = std::chrono::steady_clock::now();
        if (!exited && !killed && now > deadline) {
            res.timedOut = true;
            killGroup();
        }
        if (!exited && !killed && spec.cancel && spec.cancel->load()) {
            res.cancelled = true;
            killGroup();
        }
    }
    close(outPipe[0]);
    close(errPipe[0]);
    close(protoPipe[0]);
    if (inPipe[1] >= 0)
        close(inPipe[1]);
    if (!exited && session >= 0) {
        if (WarmWorker::readStatus(session, &status, 10000) != 1) {
            res.warmLost = true;
            spec.warm->lost("no exit status of a killed child");
            status = SIGKILL;
        }
    } else if (!exited) {
        waitpid(pid, &status, 0);
    }
    if (session >= 0)
        close(session);
    if (WIFEXITED(status))
        res.exitCode = WEXITSTATUS(status);
    else if (WIFSIGNALED(status))
        res.signal = WTERMSIG(status);
    if (decoder.pendingBytes() > 0 && res.protocolError.empty())
        res.protocolError = "truncated frame at end of stream";
    res.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    return res;
}

}  // namespace kbx
