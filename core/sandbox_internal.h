// SPDX-License-Identifier: MIT
#pragma once
// Shared by the sandbox's source files (core/sandbox.cpp, sandbox_fs.cpp, sandbox_uid.cpp); not an
// interface of kbx_core.
#include <sys/types.h>

#include <cstddef>
#include <filesystem>

namespace kbx::sandbox_internal {

/// weakly_canonical, or the path lexically normalised where that fails.
std::filesystem::path canon(const std::filesystem::path& p);
/// Is p `dir` or below it (lexically)?
bool isUnder(const std::filesystem::path& p, const std::filesystem::path& dir);

/// Can a process of another uid reach p (every directory above traversable, p itself readable)?
bool reachableByOthers(const std::filesystem::path& p);
/// Makes the directories from root down to p traversable by others (only ours, only below root).
void makeTraversable(const std::filesystem::path& root, const std::filesystem::path& p);
/// lchown of a tree without following links; a regular file with other hard links is left alone
/// (it could be one of ours that a candidate linked in).
void chownTree(const std::filesystem::path& root, uid_t uid, gid_t gid);

/// A uid of its own for one candidate (kbx as root), locked against other kbx processes until
/// releaseUid. Throws std::runtime_error when none is free.
int leaseUid();
void releaseUid(int uid);
/// Kills every process running under uid (only as root).
void killAllOf(int uid);

}  // namespace kbx::sandbox_internal
