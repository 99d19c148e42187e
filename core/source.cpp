// SPDX-License-Identifier: MIT
#include "source.h"

#include <openssl/evp.h>

#include <array>
#include <stdexcept>
#include <vector>

namespace kbx {
namespace {

std::vector<std::string_view> splitLines(std::string_view text)
{
    std::vector<std::string_view> lines;
    std::size_t start = 0;
    while (start <= text.size()) {
        auto nl = text.find('\n', start);
        if (nl == std::string_view::npos) {
            lines.push_back(text.substr(start));
            break;
        }
        lines.push_back(text.substr(start, nl - start));
        start = nl + 1;
    }
    return lines;
}

bool isFence(std::string_view line) { return trimSpace(line).substr(0, 3) == "```"; }

}  // namespace

std::string_view trimSpace(std::string_view s)
{
    const auto b = s.find_first_not_of(" \t\r\n");
    if (b == std::string_view::npos)
        return {};
    return s.substr(b, s.find_last_not_of(" \t\r\n") - b + 1);
}

std::string stripMarkdownFences(std::string_view text)
{
    auto lines = splitLines(text);
    std::size_t open = lines.size();
    for (std::size_t i = 0; i < lines.size(); ++i)
        if (isFence(lines[i])) {
            open = i;
            break;
        }
    if (open == lines.size())
        return std::string(text);
    std::size_t close = lines.size();
    for (std::size_t i = open + 1; i < lines.size(); ++i)
        if (isFence(lines[i])) {
            close = i;
            break;
        }
    std::string out;
    for (std::size_t i = open + 1; i < close; ++i) {
        out.append(lines[i]);
        out.push_back('\n');
    }
    return out;
}

std::string stripSeparatorSection(std::string_view text)
{
    auto lines = splitLines(text);
    std::string out;
    for (auto line : lines) {
        auto t = trimSpace(line);
        if (t.size() >= kSeparatorWidth && t.find_first_not_of('#') == std::string_view::npos)
            break;
        out.append(line);
        out.push_back('\n');
    }
    return out;
}

std::string cleanSubmission(std::string_view text)
{
    std::string s = stripSeparatorSection(stripMarkdownFences(text));
    while (!s.empty() && (s.back() == '\n' || s.back() == ' ' || s.back() == '\t' || s.back() == '\r'))
        s.pop_back();
    if (!s.empty())
        s.push_back('\n');
    return s;
}

std::string sha256Hex(std::string_view bytes)
{
    std::array<unsigned char, EVP_MAX_MD_SIZE> md{};
    unsigned int len = 0;
    if (EVP_Digest(bytes.data(), bytes.size(), md.data(), &len, EVP_sha256(), nullptr) != 1)
        throw std::runtime_error("SHA-256 failed");
    static const char* hex = "0123456789abcdef";
    std::string out;
    for (unsigned int i = 0; i < len; ++i) {
        out.push_back(hex[md[i] >> 4]);
        out.push_back(hex[md[i] & 15]);
    }
    return out;
}

}  // namespace kbx
