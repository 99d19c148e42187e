// SPDX-License-Identifier: MIT
// The worker protocol decoder (core/protocol): bytes from a worker arrive in pieces of any size
// (the first input byte picks the piece size). Every input decodes or is refused with
// kbx::protocol::ProtocolError; what decodes survives encodeFrame and decodes to itself;
// checkHello answers every frame without throwing.
#include "fuzz_common.h"
#include "protocol.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    if (size == 0)
        return 0;
    const std::size_t piece = 1 + data[0];
    auto bytes = kbx_fuzz::view(data + 1, size - 1);
    kbx::protocol::FrameDecoder dec;
    std::vector<nlohmann::json> frames;
    try {
        while (!bytes.empty()) {
            const auto n = std::min(piece, bytes.size());
            dec.feed(bytes.substr(0, n));
            bytes.remove_prefix(n);
            while (dec.hasMessage())
                frames.push_back(dec.take());
        }
    } catch (const kbx::protocol::ProtocolError&) {
        // A broken stream: the supervisor stops reading this worker (a crash verdict).
    }
    for (const auto& f : frames) {
        if (!f.is_object() || !f.contains("type") || !f["type"].is_string())
            kbx_fuzz::fail("a decoded frame is not an object with a string type");
        (void)kbx::protocol::checkHello(f);
        kbx::protocol::FrameDecoder again;
        again.feed(kbx::protocol::encodeFrame(f));
        if (!again.hasMessage() || again.take() != f || again.hasMessage() || again.pendingBytes() != 0)
            kbx_fuzz::fail("a decoded frame does not survive encode + decode");
    }
    return 0;
}
