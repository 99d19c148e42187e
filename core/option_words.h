// SPDX-License-Identifier: MIT
#pragma once
// The run options that are one of a few words on the command line (--sandbox, --protocol,
// --warm-workers, --extended-start) are enums from the run plan on (core/runplan.h); each has one
// table of its words, read both ways by these functions and listed whole by wordsOf.

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace kbx {

template <typename E, std::size_t N>
const char* wordOf(const std::pair<E, const char*> (&table)[N], E value)
{
    for (const auto& [e, word] : table)
        if (e == value)
            return word;
    return table[0].second;
}

template <typename E, std::size_t N>
std::optional<E> valueOf(const std::pair<E, const char*> (&table)[N], std::string_view word)
{
    for (const auto& [e, w] : table)
        if (word == w)
            return e;
    return std::nullopt;
}

/// Every word of the table, in its order (the command line's choices, the run plan's message).
template <typename E, std::size_t N>
std::vector<std::string> wordsOf(const std::pair<E, const char*> (&table)[N])
{
    std::vector<std::string> out;
    for (const auto& [e, w] : table)
        out.emplace_back(w);
    return out;
}

}  // namespace kbx
