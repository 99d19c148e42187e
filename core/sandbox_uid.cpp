// SPDX-License-Identifier: MIT
// The sandbox's uids (kbx running as root): one per candidate at a time, leased through a lock file
// per uid, and every process left under one killed.
#include "sandbox_internal.h"

#include <fmt/format.h>

#include <fcntl.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstring>
#include <map>
#include <mutex>
#include <stdexcept>
#include <system_error>

namespace kbx::sandbox_internal {
namespace fs = std::filesystem;

namespace {

// Candidates of a kbx running as root get uids from this range, one per candidate at a time
// (a lock file per uid keeps concurrent kbx processes apart). No passwd entry is needed.
constexpr int kUidBase = 1'900'000'000;
constexpr int kUidCount = 1024;

fs::path lockDir()
{
    for (fs::path d : {fs::path("/run/kbx-sandbox"), fs::temp_directory_path() / fmt::format("kbx-sandbox-{}", geteuid())}) {
        std::error_code ec;
        fs::create_directories(d, ec);
        struct stat st {};
        if (lstat(d.c_str(), &st) == 0 && S_ISDIR(st.st_mode) && st.st_uid == geteuid()) {
            chmod(d.c_str(), 0700);
            return d;
        }
    }
    throw std::runtime_error("sandbox: no private directory for uid locks (/run/kbx-sandbox)");
}

std::mutex g_uidMutex;
std::map<int, int> g_uidLocks;  // uid -> fd holding its flock

/// Is any live (not zombie) process running with this uid? (/proc/PID is owned by its euid.)
bool anyProcessOf(int uid)
{
    std::error_code ec;
    for (auto it = fs::directory_iterator("/proc", ec); !ec && it != fs::directory_iterator(); it.increment(ec)) {
        const auto name = it->path().filename().string();
        if (name.empty() || name.find_first_not_of("0123456789") != std::string::npos)
            continue;
        struct stat st {};
        if (stat(it->path().c_str(), &st) != 0 || st.st_uid != static_cast<uid_t>(uid))
            continue;
        char buf[512] = {};
        int fd = open((it->path() / "stat").c_str(), O_RDONLY | O_CLOEXEC);
        if (fd < 0)
            continue;
        ssize_t n = read(fd, buf, sizeof buf - 1);
        close(fd);
        const char* rp = n > 0 ? strrchr(buf, ')') : nullptr;
        if (rp && rp[1] == ' ' && rp[2] == 'Z')
            continue;
        return true;
    }
    return false;
}

}  // namespace

int leaseUid()
{
    static const fs::path dir = lockDir();
    std::lock_guard g(g_uidMutex);
    static int next = 0;
    for (int i = 0; i < kUidCount; ++i) {
        int uid = kUidBase + (next + i) % kUidCount;
        if (g_uidLocks.count(uid))
            continue;
        int fd = open((dir / fmt::format("uid-{}.lock", uid)).c_str(), O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
        if (fd < 0)
            continue;
        if (flock(fd, LOCK_EX | LOCK_NB) != 0) {
            close(fd);
            continue;
        }
        g_uidLocks[uid] = fd;
        next = (next + i + 1) % kUidCount;
        return uid;
    }
    throw std::runtime_error("sandbox: no free sandbox uid");
}

void releaseUid(int uid)
{
    std::lock_guard g(g_uidMutex);
    if (auto it = g_uidLocks.find(uid); it != g_uidLocks.end()) {
        close(it->second);
        g_uidLocks.erase(it);
    }
}

/// Kills every process running under uid: a helper takes that uid and sends kill(-1, SIGKILL),
/// which reaches exactly those (and nothing it has no right to signal). Only as root.
void killAllOf(int uid)
{
    if (geteuid() != 0 || uid <= 0)
        return;
    for (int round = 0; round < 100 && anyProcessOf(uid); ++round) {
        pid_t pid = fork();
        if (pid == 0) {
            if (setresgid(static_cast<gid_t>(uid), static_cast<gid_t>(uid), static_cast<gid_t>(uid)) != 0 ||
                setresuid(static_cast<uid_t>(uid), static_cast<uid_t>(uid), static_cast<uid_t>(uid)) != 0)
                _exit(1);
            kill(-1, SIGKILL);
            _exit(0);
        }
        if (pid > 0) {
            int st = 0;
            while (waitpid(pid, &st, 0) < 0 && errno == EINTR) {
            }
        }
        usleep(2000);
    }
}

}  // namespace kbx::sandbox_internal
