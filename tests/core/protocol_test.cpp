// SPDX-License-Identifier: MIT
#include "protocol.h"

#include <gtest/gtest.h>

using namespace kbx::protocol;

TEST(Protocol, RoundTripInPieces)
{
    std::string bytes = encodeFrame({{"type", "hello"}, {"magic", "KBXW"}, {"protocol", 1}, {"role", "candidate"}})
                        + encodeFrame({{"type", "case"}, {"index", 3}, {"text", std::string(100000, 'x')}});
    FrameDecoder d;
    for (std::size_t i = 0; i < bytes.size(); i += 7)
        d.feed(std::string_view(bytes).substr(i, 7));
    ASSERT_TRUE(d.hasMessage());
    auto hello = d.take();
    EXPECT_EQ(checkHello(hello), "");
    auto c = d.take();
    EXPECT_EQ(c["index"], 3);
    EXPECT_FALSE(d.hasMessage());
    EXPECT_EQ(d.pendingBytes(), 0u);
}

TEST(Protocol, RejectsOversizedAndGarbage)
{
    FrameDecoder d;
    std::string huge("\xff\xff\xff\x7f", 4);
    EXPECT_THROW(d.feed(huge), ProtocolError);
    FrameDecoder g;
    std::string notJson = std::string("\x05\x00\x00\x00", 4) + "hello";
    EXPECT_THROW(g.feed(notJson), ProtocolError);
    FrameDecoder a;
    std::string arr = encodeFrame(nlohmann::json::object({{"x", 1}}));
    EXPECT_THROW(a.feed(arr), ProtocolError) << "a frame needs a type";
}

TEST(Protocol, HelloChecks)
{
    EXPECT_NE(checkHello({{"type", "hello"}, {"magic", "XXXX"}, {"protocol", 1}}), "");
    EXPECT_NE(checkHello({{"type", "hello"}, {"magic", "KBXW"}, {"protocol", 2}}), "");
    EXPECT_NE(checkHello({{"type", "case"}}), "");
}
