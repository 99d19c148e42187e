// SPDX-License-Identifier: MIT
#pragma once
// Shared by the libFuzzer targets (tests/fuzz, docs/FUZZING.md): the task catalogue the importers
// resolve names against, and a way to cut one input into several named files.
#include "catalogue.h"

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstdio>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace kbx_fuzz {

/// The real task index (tasks/index.json of the source tree), loaded once.
inline const kbx::TaskCatalogue& catalogue()
{
    static const kbx::TaskCatalogue cat = kbx::TaskCatalogue::load(KBX_FUZZ_TASKS_DIR);
    return cat;
}

inline std::string_view view(const std::uint8_t* data, std::size_t size)
{
    return {reinterpret_cast<const char*>(data), size};
}

/// Cuts `data` at every `sep` (at most `maxParts` parts; the last one keeps the rest).
inline std::vector<std::string_view> split(std::string_view data, std::string_view sep, std::size_t maxParts)
{
    std::vector<std::string_view> parts;
    while (parts.size() + 1 < maxParts) {
        const auto at = data.find(sep);
        if (at == std::string_view::npos)
            break;
        parts.push_back(data.substr(0, at));
        data.remove_prefix(at + sep.size());
    }
    parts.push_back(data);
    return parts;
}

/// "first line" and "the rest" (the first line capped at `maxLine` bytes; no newline: all rest).
inline std::pair<std::string, std::string> firstLine(std::string_view data, std::size_t maxLine = 200)
{
    const auto nl = data.find('\n');
    if (nl == std::string_view::npos || nl > maxLine)
        return {std::string(), std::string(data)};
    return {std::string(data.substr(0, nl)), std::string(data.substr(nl + 1))};
}

/// A broken invariant: report it and abort, which libFuzzer records as a crash with its input.
[[noreturn]] inline void fail(const char* what)
{
    std::fprintf(stderr, "invariant broken: %s\n", what);
    std::abort();
}

}  // namespace kbx_fuzz
