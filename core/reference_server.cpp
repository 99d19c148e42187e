// SPDX-License-Identifier: MIT
#include "reference_server.h"

#include "evaluator.h"
#include "worker_launch.h"

namespace kbx {
namespace fs = std::filesystem;

ReferenceServer::ReferenceServer(const WorkerLauncher& launcher, const DeviceSlot& slot, Device device, fs::path dir,
                                 double timeoutPerTask)
    : m_timeout(timeoutPerTask)
{
    // The process's own working time over all its tasks (waiting for a request is not counted): each
    // request has its own deadline in call(); this one only bounds a server gone astray.
    const double lifetime = timeoutPerTask * kMaxTasks + 60;
    m_thread = std::thread([this, &launcher, slot, device, dir = std::move(dir), lifetime] {
        // launched_at (seconds since the epoch, as the worker's clock): the server reports how long
        // after it its process began (server_launch), the part of its start that is ours.
        const double launchedAt = std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
        auto res = launcher.run("reference", {{"serve", true}, {"device", device}, {"launched_at", launchedAt}}, dir, lifetime, slot,
                                [this](const nlohmann::json& f) { return onFrame(f); }, /*allowWarm=*/true, &m_abandon);
        std::lock_guard g(m_mutex);
        m_result = std::move(res);
        m_ended = true;
        m_cv.notify_all();
    });
}

ReferenceServer::~ReferenceServer()
{
    stop();
    if (m_thread.joinable())
        m_thread.join();
}

void ReferenceServer::stop()
{
    std::lock_guard g(m_mutex);
    m_stop = true;
    // A server working on a request is killed; an idle one is answered "stop" (onFrame).
    if (m_inFlight)
        m_abandon = true;
    m_cv.notify_all();
}

bool ReferenceServer::usable() const
{
    std::lock_guard g(m_mutex);
    return !m_ended && !m_stop && m_served < kMaxTasks;
}

std::string ReferenceServer::onFrame(const nlohmann::json& frame)
{
    const auto type = frame.value("type", std::string());
    std::unique_lock lock(m_mutex);
    if (type == "hello") {
        // A second hello: the process was started again (WorkerLauncher::run does so, cold, when the
        // warm worker it was forked from died). A request it had taken is lost with it.
        if (!m_hello.is_null() && m_inFlight && !m_done) {
            m_restarted = true;
            m_cv.notify_all();
        }
        m_hello = frame;
        return {};
    }
    if (type == "ready") {
        // Idle: wait for the next request (this wait is not the process's time) or the end.
        m_cv.wait(lock, [&] { return (m_pending.has_value() && !m_restarted) || m_stop; });
        if (m_stop)
            return "stop\n";
        auto line = m_pending->dump() + "\n";
        m_pending.reset();
        return line;
    }
    m_frames.push_back(frame);
    if (type == "result" || type == "error") {
        m_done = true;
        m_cv.notify_all();
    }
    return {};
}

std::optional<ReferenceServer::Answer> ReferenceServer::call(const nlohmann::json& request)
{
    std::lock_guard turn(m_callMutex);
    std::unique_lock lock(m_mutex);
    if (m_ended || m_stop || m_served >= kMaxTasks)
        return std::nullopt;
    ++m_served;
    m_frames.clear();
    m_done = false;
    m_restarted = false;
    m_pending = request;
    m_inFlight = true;
    const auto t0 = std::chrono::steady_clock::now();
    m_cv.notify_all();
    const bool answered = m_cv.wait_for(lock, std::chrono::duration<double>(m_timeout), [&] { return m_done || m_ended || m_restarted; });
    m_inFlight = false;
    if (m_restarted && !m_done) {
        m_pending.reset();  // the new process must not take it: the caller runs this task itself
        return std::nullopt;
    }
    if (!answered || !m_done) {
        // Late or gone: the process is killed (a later request would find it ended).
        m_stop = true;
        m_abandon = true;
        m_pending.reset();
        m_cv.notify_all();
        return std::nullopt;
    }
    Answer a;
    a.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    a.frames.reserve(m_frames.size() + 1);
    a.frames.push_back(m_hello);
    for (auto& f : m_frames)
        a.frames.push_back(std::move(f));
    m_frames.clear();
    // An error ends the server (kbx_harness/reference.py); its caller runs the task afresh.
    if (a.frames.back().value("type", std::string()) == "error")
        m_stop = true;
    return a;
}

}  // namespace kbx
