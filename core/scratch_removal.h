// SPDX-License-Identifier: MIT
#pragma once
// A run's scratch directory removed when its owner goes out of scope, unless it is to be kept:
// Evaluator::run for the directory it made, kbx eval for one it made before the run adopted it.

#include <filesystem>
#include <system_error>
#include <utility>

namespace kbx {

struct ScratchRemoval {
    std::filesystem::path dir;  ///< empty: nothing to remove
    bool keep = false;
    ScratchRemoval() = default;
    ScratchRemoval(std::filesystem::path d, bool k) : dir(std::move(d)), keep(k) {}
    ScratchRemoval(const ScratchRemoval&) = delete;
    ScratchRemoval& operator=(const ScratchRemoval&) = delete;
    ~ScratchRemoval()
    {
        std::error_code ec;
        if (!dir.empty() && !keep)
            std::filesystem::remove_all(dir, ec);
    }
};

}  // namespace kbx
