// SPDX-License-Identifier: MIT
#include "warm.h"

#include "process.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstring>

namespace kbx {

WarmWorker::WarmWorker(std::vector<std::string> argv, std::map<std::string, std::string> env, std::filesystem::path logFile,
                       double readyTimeoutSeconds)
    : m_argv(std::move(argv))
{
    ExecStrings envp(env);
    ExecStrings args(m_argv);
    int sv[2];
    if (m_argv.empty() || socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) != 0) {
        m_why = std::string("socketpair: ") + std::strerror(errno);
        m_state = Failed;
        return;
    }
    const int log = open(logFile.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
    const int devnull = open("/dev/null", O_RDONLY | O_CLOEXEC);
    const pid_t parent = getpid();
    const pid_t pid = fork();
    if (pid == 0) {
        setpgid(0, 0);
        dup2(devnull, 0);
        dup2(log >= 0 ? log : devnull, 1);
        dup2(log >= 0 ? log : devnull, 2);
        dup2(sv[1], 3);
        // Dies with the thread that started it (Evaluator::run's), and its children with it.
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        if (getppid() != parent)
            _exit(127);
        execve(args.data()[0], args.data(), envp.data());
        _exit(127);
    }
    close(sv[1]);
    if (log >= 0)
        close(log);
    if (devnull >= 0)
        close(devnull);
    if (pid < 0) {
        close(sv[0]);
        m_why = std::string("fork: ") + std::strerror(errno);
        m_state = Failed;
        return;
    }
    m_pid = pid;
    m_control = sv[0];
    m_thread = std::thread([this, readyTimeoutSeconds] { readyThread(readyTimeoutSeconds); });
}

WarmWorker::~WarmWorker()
{
    stop();
    if (m_thread.joinable())
        m_thread.join();
    if (m_control >= 0)
        close(m_control);
}

void WarmWorker::readyThread(double timeout)
{
    const auto t0 = std::chrono::steady_clock::now();
    pollfd p{m_control, POLLIN, 0};
    std::string why;
    nlohmann::json ready;
    const int rc = poll(&p, 1, static_cast<int>(timeout * 1000));
    if (rc == 1) {
        std::string buf(1 << 16, '\0');
        const ssize_t n = recv(m_control, buf.data(), buf.size(), 0);
        if (n > 0) {
            ready = nlohmann::json::parse(buf.substr(0, static_cast<std::size_t>(n)), nullptr, false);
            if (!ready.is_object() || !ready.value("ready", false))
                why = ready.is_object() ? ready.value("error", std::string("not ready")) : "malformed ready message";
        } else {
            why = "it exited while starting (see warm-worker.log in the run's scratch directory)";
        }
    } else {
        why = rc == 0 ? "not ready in time" : std::string("poll: ") + std::strerror(errno);
    }
    {
        std::lock_guard<std::mutex> lock(m_mutex);
        m_startSeconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        m_ready = ready;
        if (why.empty() && m_state.load() == Starting) {
            m_state = Ready;
        } else {
            if (m_why.empty())
                m_why = why;
            m_state = Failed;
        }
    }
    m_cv.notify_all();
    if (m_state.load() == Failed)
        stop();
}

bool WarmWorker::waitReady(const std::atomic<bool>* cancel)
{
    std::unique_lock<std::mutex> lock(m_mutex);
    while (m_state.load() == Starting) {
        if (cancel && cancel->load())
            return false;
        m_cv.wait_for(lock, std::chrono::milliseconds(100));
    }
    return m_state.load() == Ready;
}

WarmWorker::Spawned WarmWorker::spawn(const nlohmann::json& job, const int childFds[4], const std::atomic<bool>* cancel)
{
    if (!waitReady(cancel))
        return {};
    int sv[2];
    if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) != 0)
        return {};  // out of descriptors: the caller's fork+exec will say so
    const std::string payload = job.dump();
    int fds[5] = {childFds[0], childFds[1], childFds[2], childFds[3], sv[1]};
    alignas(cmsghdr) char control[CMSG_SPACE(sizeof fds)] = {};
    iovec iov{const_cast<char*>(payload.data()), payload.size()};
    msghdr msg{};
    msg.msg_iov = &iov;
    msg.msg_iovlen = 1;
    msg.msg_control = control;
    msg.msg_controllen = sizeof control;
    cmsghdr* c = CMSG_FIRSTHDR(&msg);
    c->cmsg_level = SOL_SOCKET;
    c->cmsg_type = SCM_RIGHTS;
    c->cmsg_len = CMSG_LEN(sizeof fds);
    std::memcpy(CMSG_DATA(c), fds, sizeof fds);
    ssize_t n;
    {
        std::lock_guard<std::mutex> lock(m_mutex);
        n = sendmsg(m_control, &msg, MSG_NOSIGNAL);
    }
    close(sv[1]);
    if (n != static_cast<ssize_t>(payload.size())) {
        close(sv[0]);
        lost(std::string("cannot send it a request: ") + std::strerror(errno));
        return {};
    }
    // It answers {"pid": N} as soon as it forked (milliseconds), or {"error": ...}.
    pollfd p{sv[0], POLLIN, 0};
    std::string buf(4096, '\0');
    nlohmann::json reply;
    if (poll(&p, 1, 60000) == 1) {
        const ssize_t r = recv(sv[0], buf.data(), buf.size(), 0);
        if (r > 0)
            reply = nlohmann::json::parse(buf.substr(0, static_cast<std::size_t>(r)), nullptr, false);
    }
    if (!reply.is_object() || !reply.contains("pid") || !reply["pid"].is_number_integer()) {
        close(sv[0]);
        lost(reply.is_object() && reply.contains("error") ? reply["error"].get<std::string>() : "no answer to a fork request");
        return {};
    }
    ++m_forks;
    return {sv[0], reply["pid"].get<int>()};
}

int WarmWorker::readStatus(int session, int* status, int timeoutMs)
{
    pollfd p{session, POLLIN, 0};
    const int rc = poll(&p, 1, timeoutMs);
    if (rc == 0)
        return 0;
    char buf[512];
    const ssize_t n = recv(session, buf, sizeof buf, MSG_DONTWAIT);
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR))
        return 0;
    if (n <= 0)
        return -1;
    auto j = nlohmann::json::parse(std::string(buf, static_cast<std::size_t>(n)), nullptr, false);
    if (!j.is_object() || !j.contains("status") || !j["status"].is_number_integer())
        return -1;
    *status = j["status"].get<int>();
    return 1;
}

void WarmWorker::lost(const std::string& why)
{
    {
        std::lock_guard<std::mutex> lock(m_mutex);
        if (m_why.empty())
            m_why = why;
        m_state = Failed;
    }
    m_cv.notify_all();
    stop();
}

void WarmWorker::stop()
{
    std::lock_guard<std::mutex> lock(m_mutex);
    if (m_pid > 0) {
        kill(m_pid, SIGKILL);  // its children die with it (parent-death signal)
        waitpid(m_pid, nullptr, 0);
        m_pid = -1;
    }
}

nlohmann::json WarmWorker::describe() const
{
    std::lock_guard<std::mutex> lock(m_mutex);
    const int st = m_state.load();
    nlohmann::json j = {{"state", st == Ready ? "ready" : st == Starting ? "starting" : "failed"},
                        {"children", m_forks.load()}};
    if (m_startSeconds > 0)
        j["ready_seconds"] = m_startSeconds;
    if (m_ready.is_object())
        for (const char* k : {"preloaded", "import_seconds"})
            if (m_ready.contains(k))
                j[k] = m_ready[k];
    if (!m_why.empty())
        j["why_not"] = m_why;
    return j;
}

}  // namespace kbx
