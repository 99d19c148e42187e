// SPDX-License-Identifier: MIT
#pragma once
// A run's scratch directory: made anew under the root it is given (never the root itself, which the
// run does not own), and what killed runs of this host left under that root cleared away.

#include <filesystem>
#include <string>
#include <vector>

namespace kbx {

/// "kbx-run-<host>-<pid>-": the start of the name of every scratch directory this process makes
/// (<host> is this machine's name with characters other than letters, digits and '.' as '_').
std::string runScratchPrefix();

/// The file in a run's scratch directory that says it is kept (--keep-scratch): never swept.
inline constexpr const char* kKeptScratchMarker = ".kbx-keep";

/// Removes what runs of this host left under `root` when they were killed (SIGKILL, the OOM killer, a
/// Slurm time limit) before removing their scratch: directories `kbx-run-<this host>-<pid>-XXXXXX` of
/// this user whose process no longer runs. Another host's (a shared file system), a live process's, a
/// kept one's (kKeptScratchMarker), a link or another user's are left alone. Returns those removed, whole or in part (best effort: a
/// candidate's file under a uid of its own may stay).
std::vector<std::filesystem::path> sweepStaleRunScratch(const std::filesystem::path& root);

/// Makes a new, empty directory of this process under `root` (default $TMPDIR) for one run's
/// scratch: `root/kbx-run-<host>-<pid>-XXXXXX`, mode 0700, after sweepStaleRunScratch(root) (it
/// names on stderr what it removed). A root that does not exist is made, its new directories 0711
/// (traversable, not listable); one that exists keeps its mode. Throws std::runtime_error with the
/// reason when it cannot. `keep` (--keep-scratch) marks it kept, so that no later run sweeps it.
std::filesystem::path makeRunScratch(const std::filesystem::path& root, bool keep = false);

}  // namespace kbx
