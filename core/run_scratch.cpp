// SPDX-License-Identifier: MIT
#include "run_scratch.h"

#include "resume.h"

#include <fmt/format.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iostream>
#include <stdexcept>
#include <system_error>

namespace kbx {
namespace fs = std::filesystem;

namespace {

std::string hostTag()
{
    std::string h = thisHost();
    if (h.empty())
        return "host";
    for (char& c : h)
        if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '.'))
            c = '_';
    return h.substr(0, 48);
}

/// The pid in "<pid>-XXXXXX" (what follows this host's prefix), or 0.
pid_t pidOf(const std::string& rest)
{
    const auto dash = rest.find('-');
    if (dash == std::string::npos || dash == 0 || dash > 10 || rest.size() != dash + 7)
        return 0;
    long v = 0;
    for (std::size_t i = 0; i < dash; ++i) {
        if (!std::isdigit(static_cast<unsigned char>(rest[i])))
            return 0;
        v = v * 10 + (rest[i] - '0');
    }
    return v > 0 && v < (1L << 30) ? static_cast<pid_t>(v) : 0;
}

}  // namespace

std::string runScratchPrefix()
{
    return fmt::format("kbx-run-{}-{}-", hostTag(), getpid());
}

std::vector<fs::path> sweepStaleRunScratch(const fs::path& root)
{
    std::vector<fs::path> removed;
    const std::string host = "kbx-run-" + hostTag() + "-";
    std::error_code ec;
    for (fs::directory_iterator it(root, ec), end; !ec && it != end; it.increment(ec)) {
        const std::string name = it->path().filename().string();
        if (name.rfind(host, 0) != 0)
            continue;
        const pid_t pid = pidOf(name.substr(host.size()));
        struct stat st {};
        if (pid <= 0 || pid == getpid() || ::lstat(it->path().c_str(), &st) != 0 || !S_ISDIR(st.st_mode) || st.st_uid != geteuid())
            continue;
        if (std::error_code keptEc; fs::exists(it->path() / kKeptScratchMarker, keptEc) || keptEc)
            continue;
        if (::kill(pid, 0) == 0 || errno != ESRCH)
            continue;  // it runs (or runs under another user): its run may still be going
        removed.push_back(it->path());
    }
    for (const auto& p : removed) {  // not while the directory is listed
        std::error_code rmEc;
        fs::remove_all(p, rmEc);
    }
    return removed;
}

fs::path makeRunScratch(const fs::path& root, bool keep)
{
    const fs::path parent = fs::absolute(root.empty() ? fs::temp_directory_path() : root);
    // The directories made here (a --scratch that did not exist yet) are opened to traversal (0711,
    // not listable): a candidate under a uid of its own must get through them to its own directory
    // (Evaluator::prepareScratch checks the way). A directory that existed keeps its mode.
    std::vector<fs::path> made;
    std::error_code ec;
    for (fs::path p = parent; !p.empty() && !fs::exists(p, ec); p = p.parent_path())
        made.push_back(p);
    fs::create_directories(parent, ec);
    for (const auto& p : made)
        fs::permissions(p, fs::perms::group_exec | fs::perms::others_exec, fs::perm_options::add, ec);
    if (const auto swept = sweepStaleRunScratch(parent); !swept.empty()) {
        std::string names;
        for (const auto& p : swept)
            names += (names.empty() ? "" : ", ") + p.filename().string();
        std::cerr << fmt::format("kbx: removed {} scratch director{} under {} left by killed runs of this host: {}\n", swept.size(),
                                 swept.size() == 1 ? "y" : "ies", parent.string(), names);
    }
    std::string templ = (parent / (runScratchPrefix() + "XXXXXX")).string();
    if (!::mkdtemp(templ.data()))
        throw std::runtime_error(fmt::format("cannot make the run's scratch directory under {}: {}", parent.string(), std::strerror(errno)));
    if (keep && !std::ofstream(fs::path(templ) / kKeptScratchMarker))
        throw std::runtime_error(fmt::format("cannot mark {} as kept", templ));
    return fs::absolute(templ);
}

}  // namespace kbx
