// SPDX-License-Identifier: MIT
#pragma once
#include <string>
#include <string_view>

namespace kbx {

/// The seed's separator: a line of 146 '#' characters. Everything from it on is the seed's test code.
inline constexpr std::size_t kSeparatorWidth = 146;

/// Removes a surrounding markdown code fence (```python ... ```); keeps the first fenced block
/// when the text holds prose plus fences; returns the text unchanged when it has no fence.
std::string stripMarkdownFences(std::string_view text);
/// Cuts the text at the first separator line (a line of >= 146 '#' and nothing else).
std::string stripSeparatorSection(std::string_view text);
/// Both of the above, then trailing whitespace trimmed: what the candidate actually submits.
std::string cleanSubmission(std::string_view text);
/// s without its leading and trailing spaces, tabs, CRs and newlines.
std::string_view trimSpace(std::string_view s);
/// Lower-case hex SHA-256 of the bytes.
std::string sha256Hex(std::string_view bytes);

}  // namespace kbx
