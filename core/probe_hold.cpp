// SPDX-License-Identifier: MIT
#include "probe_hold.h"

#include "evalutil.h"
#include "process.h"

#include <fmt/format.h>

#include <cstdlib>
#include <filesystem>

namespace kbx {

bool HeldProbe::wanted(bool cuda)
{
    const char* v = std::getenv("KBX_PROBE_HOLD");
    return cuda && !(v && std::string(v) == "0");
}

HeldProbe::HeldProbe(const WorkerConfig& worker, bool hold)
{
    if (worker.worker.empty() || !std::filesystem::exists(worker.worker))
        throw std::runtime_error("kbx-worker not found (build with KBX_BUILD_WORKER=ON or set KBX_WORKER)");
    ProcessSpec spec;
    spec.argv = {worker.worker.string(), "probe"};
    spec.env = worker.env;
    spec.env.insert_or_assign("KBX_PROBE_HOLD", std::string(1, hold ? '1' : '0'));
    spec.timeoutSeconds = 120;  // its own work; the hold (our answer's wait) does not count
    spec.reply = [this](const nlohmann::json& f) { return onFrame(f); };
    m_thread = std::thread([this, spec = std::move(spec)]() mutable {
        ProcessResult r = runProcess(spec);
        std::lock_guard g(m_mutex);
        m_res = std::move(r);
        m_answered = true;
        m_holding = false;
        m_cv.notify_all();
    });
    std::unique_lock lock(m_mutex);
    m_cv.wait(lock, [&] { return m_answered; });
    if (m_result.is_null()) {
        lock.unlock();
        m_thread.join();
        throw std::runtime_error(fmt::format("kbx-worker probe failed (exit {}, signal {}): {}", m_res.exitCode, m_res.signal,
                                             evalutil::tail(m_res.stderrText, 2000)));
    }
}

std::string HeldProbe::onFrame(const nlohmann::json& frame)
{
    const auto type = frame.value("type", std::string());
    std::unique_lock lock(m_mutex);
    if (type == "result") {
        m_result = frame;
        m_answered = true;
        m_answeredAt = std::chrono::steady_clock::now();
        m_cv.notify_all();
    } else if (type == "hold" && !m_result.is_null()) {
        // The process holds its device open until we answer (its wait is not its time).
        m_holding = true;
        m_cv.wait(lock, [&] { return m_released; });
        m_holding = false;
        return "stop\n";
    }
    return {};
}

bool HeldProbe::holding() const
{
    std::lock_guard g(m_mutex);
    return m_holding;
}

void HeldProbe::release()
{
    std::lock_guard g(m_mutex);
    if (m_released)
        return;
    m_released = true;
    m_releasedAt = std::chrono::steady_clock::now();
    m_cv.notify_all();
}

double HeldProbe::heldSeconds() const
{
    std::lock_guard g(m_mutex);
    if (!m_released || m_result.is_null())
        return 0.0;
    return std::chrono::duration<double>(m_releasedAt - m_answeredAt).count();
}

HeldProbe::~HeldProbe()
{
    release();
    if (m_thread.joinable())
        m_thread.join();
}

}  // namespace kbx
