// SPDX-License-Identifier: MIT
// The supervisor of one child process (runProcess): started by fork+exec or from a warm worker, in
// its own process group, its streams captured apart and capped, its protocol frames decoded (and
// answered), killed whole at its wall-clock limit. What the child applies to itself after fork (the
// sandbox) is core/process_restrictions.cpp.
#include "process.h"

#include "protocol.h"
#include "warm.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fmt/format.h>

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

std::string signalName(int sig)
{
    const char* d = sigdescr_np(sig);
    const char* a = sigabbrev_np(sig);
    return std::string("SIG") + (a ? a : std::to_string(sig)) + (d ? std::string(" (") + d + ")" : "");
}


namespace {

/// The pipes between kbx and the child: stdout, stderr, the protocol stream (fd 3) and, when frames
/// are answered, stdin. [0] is the read end, [1] the write end.
struct ChildPipes {
    int out[2] = {-1, -1}, err[2] = {-1, -1}, proto[2] = {-1, -1}, in[2] = {-1, -1};

    bool open(bool withStdin)
    {
        return !(pipe2(out, O_CLOEXEC) || pipe2(err, O_CLOEXEC) || pipe2(proto, O_CLOEXEC) || (withStdin && pipe2(in, O_CLOEXEC)));
    }
    void closeAll() const
    {
        for (int fd : {out[0], out[1], err[0], err[1], proto[0], proto[1], in[0], in[1]})
            if (fd >= 0)
                close(fd);
    }
};

/// The forked child (fork+exec): its own process group, the pipes on fds 0-3, the sandbox, exec.
/// Async-signal-safe calls only: everything was prepared before fork.
[[noreturn]] void execChild(const ChildPipes& pipes, const PreparedRestrictions& prepared, const std::string& cwd, ExecStrings& argv,
                            ExecStrings& envp)
{
    setpgid(0, 0);
    if (pipes.in[0] >= 0) {
        dup2(pipes.in[0], 0);
    } else {
        int devnull = open("/dev/null", O_RDONLY);
        dup2(devnull, 0);
    }
    dup2(pipes.out[1], 1);
    dup2(pipes.err[1], 2);
    dup2(pipes.proto[1], protocol::kProtocolFd);
    // dup2 clears FD_CLOEXEC on the targets; everything else above fd 3 closes on exec.
    prepared.apply();
    if (!cwd.empty() && chdir(cwd.c_str()) != 0)
        _exit(127);
    execve(argv.data()[0], argv.data(), envp.data());
    const char msg[] = "kbx: execve failed\n";
    (void)!write(2, msg, sizeof msg - 1);
    _exit(127);
}

/// Writes a reply to the child's stdin. A child that closed its stdin must not kill us with
/// SIGPIPE: blocked for this thread while writing, a pending one consumed.
void writeAnswer(int fd, const std::string& answer)
{
    sigset_t pipeSet, oldSet;
    sigemptyset(&pipeSet);
    sigaddset(&pipeSet, SIGPIPE);
    pthread_sigmask(SIG_BLOCK, &pipeSet, &oldSet);
    for (std::size_t off = 0; off < answer.size();) {
        ssize_t n = write(fd, answer.data() + off, answer.size() - off);
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

/// One started child, watched until it ended and its streams closed: streams drained into the
/// result, frames decoded (bounded) and answered, the wall-clock limit and cancel enforced.
class Supervision {
public:
    Supervision(const ProcessSpec& spec, ProcessResult& res, const ChildPipes& pipes, pid_t pid, int session)
        : m_spec(spec), m_res(res), m_pipes(pipes), m_pid(pid), m_session(session)
    {
    }

    void run()
    {
        while (m_outOpen || m_errOpen || m_protoOpen || !m_exited) {
            waitForInput();
            if (m_outOpen)
                m_outOpen = drain(m_pipes.out[0], &m_res.stdoutText, m_spec.maxLogBytes, m_res.droppedLogBytes);
            if (m_errOpen)
                m_errOpen = drain(m_pipes.err[0], &m_res.stderrText, m_spec.maxLogBytes, m_res.droppedLogBytes);
            if (m_protoOpen)
                readProtocol();
            if (!checkExit())
                break;  // a stray holder of the pipes outside the group: stop reading
            auto now = std::chrono::steady_clock::now();
            if (!m_exited && !m_killed && now > m_deadline) {
                m_res.timedOut = true;
                killGroup();
            }
            if (!m_exited && !m_killed && m_spec.stopRequested()) {
                m_res.cancelled = true;
                killGroup();
            }
        }
    }

    /// After run(): our ends closed, the exit status collected (waited for if not seen yet).
    void finish()
    {
        close(m_pipes.out[0]);
        close(m_pipes.err[0]);
        close(m_pipes.proto[0]);
        if (m_pipes.in[1] >= 0)
            close(m_pipes.in[1]);
        if (!m_exited && m_session >= 0) {
            if (WarmWorker::readStatus(m_session, &m_status, 10000) != 1) {
                m_res.warmLost = true;
                m_spec.warm->lost("no exit status of a killed child");
                m_status = SIGKILL;
            }
        } else if (!m_exited) {
            waitpid(m_pid, &m_status, 0);
        }
        if (m_session >= 0)
            close(m_session);
        if (WIFEXITED(m_status))
            m_res.exitCode = WEXITSTATUS(m_status);
        else if (WIFSIGNALED(m_status))
            m_res.signal = WTERMSIG(m_status);
        if (m_res.protocolError.empty() && m_decoder.pendingBytes() > 0)
            m_res.protocolError = "truncated frame at end of stream";
    }

private:
    void waitForInput()
    {
        pollfd fds[4];
        int nf = 0;
        if (m_session >= 0 && !m_exited)
            fds[nf++] = {m_session, POLLIN, 0};
        if (m_outOpen)
            fds[nf++] = {m_pipes.out[0], POLLIN, 0};
        if (m_errOpen)
            fds[nf++] = {m_pipes.err[0], POLLIN, 0};
        if (m_protoOpen)
            fds[nf++] = {m_pipes.proto[0], POLLIN, 0};
        if (nf > 0)
            poll(fds, static_cast<nfds_t>(nf), 50);
        else
            usleep(20000);
    }

    void readProtocol()
    {
        m_protoBuf.clear();
        // Once the stream broke or ran past its bounds, what comes is read and dropped.
        const bool taking = m_res.protocolError.empty();
        // Never more than one byte past the bound in memory, however fast the child writes.
        const std::size_t room = m_spec.maxFrameStreamBytes >= m_protoBytes ? m_spec.maxFrameStreamBytes - m_protoBytes + 1 : 1;
        m_protoOpen = drain(m_pipes.proto[0], taking ? &m_protoBuf : nullptr, taking ? room : 0, m_dummyDropped);
        m_protoBytes += m_protoBuf.size();
        if (taking && m_protoBytes > m_spec.maxFrameStreamBytes) {
            m_res.protocolError = fmt::format("the worker sent more than {} MiB on its protocol stream (the bound per process)",
                                              m_spec.maxFrameStreamBytes >> 20);
            m_protoBuf.clear();
        }
        if (!m_protoBuf.empty() && m_res.protocolError.empty()) {
            try {
                takeFrames();
            } catch (const std::exception& e) {
                m_res.protocolError = e.what();
            }
        }
    }

    void takeFrames()
    {
        m_decoder.feed(m_protoBuf);
        while (m_decoder.hasMessage()) {
            if (m_res.frames.size() >= m_spec.maxFrames) {
                m_res.protocolError = fmt::format("the worker sent more than {} frames (the bound per process)", m_spec.maxFrames);
                break;
            }
            auto m = m_decoder.take();
            if (m_spec.onFrame)
                m_spec.onFrame(m);
            if (m_spec.reply && m_pipes.in[1] >= 0) {
                const auto r0 = std::chrono::steady_clock::now();
                const std::string answer = m_spec.reply(m);
                m_deadline += std::chrono::steady_clock::now() - r0;  // waiting is not the child's time
                writeAnswer(m_pipes.in[1], answer);
            }
            m_res.frames.push_back(std::move(m));
        }
    }

    /// Has the child ended? False once it ended more than 2 s ago and something still holds the pipes.
    bool checkExit()
    {
        if (!m_exited && m_session >= 0) {
            const int r = WarmWorker::readStatus(m_session, &m_status, 0);
            if (r != 0) {
                m_exited = true;
                m_exitSeen = std::chrono::steady_clock::now();
                kill(-m_pid, SIGKILL);
                if (r < 0) {
                    m_res.warmLost = true;
                    m_spec.warm->lost("a child's session ended without its exit status");
                    m_status = SIGKILL;  // reads as killed
                }
            }
        } else if (!m_exited) {
            pid_t w = waitpid(m_pid, &m_status, WNOHANG);
            if (w == m_pid) {
                m_exited = true;
                m_exitSeen = std::chrono::steady_clock::now();
                // Anything the child left behind in its group goes too (and releases our pipes).
                kill(-m_pid, SIGKILL);
            }
        } else if (std::chrono::steady_clock::now() - m_exitSeen > std::chrono::seconds(2)) {
            return false;
        }
        return true;
    }

    void killGroup()
    {
        kill(-m_pid, SIGKILL);
        kill(m_pid, SIGKILL);
        m_killed = true;
    }

    const ProcessSpec& m_spec;
    ProcessResult& m_res;
    const ChildPipes& m_pipes;
    const pid_t m_pid;
    const int m_session;  // warm: the warm worker's socket for this child (its exit status comes there)
    protocol::FrameDecoder m_decoder;
    std::string m_protoBuf;
    std::size_t m_dummyDropped = 0;
    std::size_t m_protoBytes = 0;  // everything read from fd 3
    bool m_outOpen = true, m_errOpen = true, m_protoOpen = true;
    bool m_exited = false;
    int m_status = 0;
    bool m_killed = false;
    // From the start of the child (waiting for a warm worker to be ready is not the child's time).
    std::chrono::steady_clock::time_point m_deadline =
        std::chrono::steady_clock::now() +
        std::chrono::duration_cast<std::chrono::steady_clock::duration>(std::chrono::duration<double>(m_spec.timeoutSeconds));
    std::chrono::steady_clock::time_point m_exitSeen{};
};

}  // namespace

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
    ChildPipes pipes;
    if (!pipes.open(static_cast<bool>(spec.reply))) {
        res.spawnFailed = true;
        res.stderrText = std::string("pipe: ") + std::strerror(errno);
        return res;
    }
    pid_t pid = -1;
    int session = -1;  // warm: the warm worker's socket for this child (its exit status comes there)
    if (spec.warm && spec.warm->usable()) {
        int devnull = pipes.in[0] >= 0 ? -1 : open("/dev/null", O_RDONLY | O_CLOEXEC);
        const int childFds[4] = {pipes.in[0] >= 0 ? pipes.in[0] : devnull, pipes.out[1], pipes.err[1], pipes.proto[1]};
        const nlohmann::json job = {{"argv", spec.argv}, {"env", envMap}, {"cwd", cwd}, {"restrictions", toJson(spec.restrictions)}};
        const auto sp = spec.warm->spawn(job, childFds, spec.cancel);
        if (devnull >= 0)
            close(devnull);
        if (sp.session < 0) {
            // Not started (the warm worker is gone or was never ready): fork+exec with fresh pipes,
            // as nobody can say whether a child got these.
            pipes.closeAll();
            if (spec.stopRequested()) {
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
            pipes.closeAll();
            return res;
        }
        if (pid == 0)
            execChild(pipes, prepared, cwd, argv, envp);
        setpgid(pid, pid);  // also from the parent: no race with an early kill
    }
    close(pipes.out[1]);
    close(pipes.err[1]);
    close(pipes.proto[1]);
    if (pipes.in[0] >= 0)
        close(pipes.in[0]);
    setNonBlocking(pipes.out[0]);
    setNonBlocking(pipes.err[0]);
    setNonBlocking(pipes.proto[0]);

    Supervision watch(spec, res, pipes, pid, session);
    watch.run();
    watch.finish();
    res.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    return res;
}

}  // namespace kbx
