// SPDX-License-Identifier: MIT
#pragma once
#include <nlohmann/json.hpp>

#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace kbx::protocol {

/// Worker protocol, see docs/ARCHITECTURE.md ("Worker protocol").
/// Frames travel on a dedicated pipe (fd 3 in the worker), never on stdout/stderr, so stray prints
/// from torch, Triton or the candidate cannot corrupt them. A frame is a 4-byte little-endian length
/// followed by that many bytes of UTF-8 JSON, an object with a "type".
/// The first frame of every worker is `hello` {magic, protocol, role}; these three fields keep their
/// meaning forever. The supervisor drops a worker whose magic or version differs.
inline constexpr std::string_view kMagic = "KBXW";
inline constexpr int kProtocolVersion = 1;
inline constexpr std::uint32_t kMaxFrameBytes = 16u << 20;
inline constexpr int kProtocolFd = 3;

/// The candidate role sends {"type": "importing"} right before it imports candidate code. From then
/// on the candidate can send any frame through the worker itself, so an `error` frame of class
/// harness_error that follows is not believed: the candidate is judged (crash), not left unjudged.
inline constexpr std::string_view kImportingFrame = "importing";

/// Worker exit codes (fatal conditions); 0 = finished and said `result`.
enum ExitCode : int {
    ExitOk = 0,
    ExitUsage = 64,
    ExitVersionMismatch = 65,
    ExitPythonInit = 66,
    ExitHarnessError = 67,
    ExitStickyCudaError = 68,  ///< the worker exits itself after a sticky CUDA error
};

class ProtocolError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

std::string encodeFrame(const nlohmann::json& message);

/// Incremental decoder: feed bytes as they arrive, take complete messages out.
class FrameDecoder {
public:
    /// Appends bytes; throws ProtocolError on an oversized frame or a payload that is not a JSON object.
    void feed(std::string_view bytes);
    bool hasMessage() const { return !m_ready.empty(); }
    nlohmann::json take();
    std::size_t pendingBytes() const { return m_buffer.size(); }

private:
    std::string m_buffer;
    std::vector<nlohmann::json> m_ready;
    std::size_t m_readPos = 0;
};

/// Validates a hello frame; returns an error text or "" when fine.
std::string checkHello(const nlohmann::json& hello);

}  // namespace kbx::protocol
