// SPDX-License-Identifier: MIT
#include "protocol.h"

#include <fmt/format.h>

namespace kbx::protocol {

std::string encodeFrame(const nlohmann::json& message)
{
    const std::string payload = message.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
    if (payload.size() > kMaxFrameBytes)
        throw ProtocolError(fmt::format("frame of {} bytes exceeds the {} byte limit", payload.size(), kMaxFrameBytes));
    std::string out(4, '\0');
    const auto n = static_cast<std::uint32_t>(payload.size());
    for (int i = 0; i < 4; ++i)
        out[static_cast<std::size_t>(i)] = static_cast<char>((n >> (8 * i)) & 0xFF);
    out += payload;
    return out;
}

void FrameDecoder::feed(std::string_view bytes)
{
    m_buffer.append(bytes);
    while (m_buffer.size() - m_readPos >= 4) {
        std::uint32_t n = 0;
        for (int i = 0; i < 4; ++i)
            n |= static_cast<std::uint32_t>(static_cast<unsigned char>(m_buffer[m_readPos + static_cast<std::size_t>(i)])) << (8 * i);
        if (n > kMaxFrameBytes)
            throw ProtocolError(fmt::format("frame length {} exceeds the {} byte limit", n, kMaxFrameBytes));
        if (m_buffer.size() - m_readPos - 4 < n)
            break;
        auto payload = std::string_view(m_buffer).substr(m_readPos + 4, n);
        nlohmann::json j = nlohmann::json::parse(payload, nullptr, false);
        if (j.is_discarded() || !j.is_object() || !j.contains("type") || !j["type"].is_string())
            throw ProtocolError("frame payload is not a JSON object with a \"type\"");
        m_ready.push_back(std::move(j));
        m_readPos += 4 + n;
    }
    if (m_readPos > 0 && m_readPos == m_buffer.size()) {
        m_buffer.clear();
        m_readPos = 0;
    } else if (m_readPos > (1u << 20)) {
        m_buffer.erase(0, m_readPos);
        m_readPos = 0;
    }
}

nlohmann::json FrameDecoder::take()
{
    nlohmann::json j = std::move(m_ready.front());
    m_ready.erase(m_ready.begin());
    return j;
}

std::string checkHello(const nlohmann::json& hello)
{
    // Any JSON may arrive here: compare values, never read one as a type it may not have.
    if (!hello.is_object() || !hello.contains("type") || hello["type"] != "hello")
        return "first frame is not hello";
    if (!hello.contains("magic") || hello["magic"] != std::string(kMagic))
        return "bad magic in hello";
    if (!hello.contains("protocol") || !hello["protocol"].is_number_integer())
        return "hello without protocol version";
    if (hello["protocol"].get<int>() != kProtocolVersion)
        return fmt::format("worker speaks protocol {}, supervisor {}", hello["protocol"].get<int>(), kProtocolVersion);
    return {};
}

}  // namespace kbx::protocol
