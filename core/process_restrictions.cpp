// SPDX-License-Identifier: MIT
// What a forked child applies to itself before it execs (or, forked from the warm worker, before it
// runs the role): the sandbox's namespaces and root of its own, rlimits, uid, no_new_privs, the
// parent-death signal. Everything after fork is async-signal-safe: prepared before fork
// (PreparedRestrictions::prepare), applied in the child (PreparedRestrictions::apply).
#include "process.h"

#include <fcntl.h>
#include <grp.h>
#include <sched.h>
#include <signal.h>
#include <linux/capability.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/statvfs.h>
#include <sys/syscall.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstring>

namespace kbx {
namespace {

/// Writes a whole string to a file from the forked child (async-signal-safe).
bool writeProcFile(const char* path, const char* text, std::size_t len)
{
    int fd = open(path, O_WRONLY | O_CLOEXEC);
    if (fd < 0)
        return false;
    bool ok = write(fd, text, len) == static_cast<ssize_t>(len);
    close(fd);
    return ok;
}

[[noreturn]] void childFail(const char* what)
{
    const char pre[] = "kbx: sandbox set-up failed: ";
    (void)!write(2, pre, sizeof pre - 1);
    (void)!write(2, what, strlen(what));
    (void)!write(2, "\n", 1);
    _exit(127);
}

}  // namespace

nlohmann::json toJson(const ChildRestrictions& rx)
{
    nlohmann::json lim = nlohmann::json::array();
    for (const auto& l : rx.rlimits)
        lim.push_back({l.resource, l.soft, l.hard});
    nlohmann::json view = nlohmann::json::array();
    for (const auto& m : rx.view)
        view.push_back({static_cast<int>(m.kind), m.src, m.dst, m.size, m.optional});
    return {{"rlimits", lim}, {"unshare_net", rx.unshareNet}, {"uid", rx.uid}, {"gid", rx.gid},
            {"no_new_privs", rx.noNewPrivs}, {"die_with_parent", rx.dieWithParent}, {"namespaces", rx.namespaces},
            {"view", view}};
}

ChildRestrictions restrictionsFromJson(const nlohmann::json& j)
{
    ChildRestrictions rx;
    for (const auto& l : j.value("rlimits", nlohmann::json::array()))
        rx.rlimits.push_back({l.at(0).get<int>(), l.at(1).get<std::uint64_t>(), l.at(2).get<std::uint64_t>()});
    rx.unshareNet = j.value("unshare_net", false);
    rx.uid = j.value("uid", -1);
    rx.gid = j.value("gid", -1);
    rx.noNewPrivs = j.value("no_new_privs", false);
    rx.dieWithParent = j.value("die_with_parent", false);
    rx.namespaces = j.value("namespaces", false);
    for (const auto& m : j.value("view", nlohmann::json::array()))
        rx.view.push_back({static_cast<MountOp::Kind>(m.at(0).get<int>()), m.at(1).get<std::string>(), m.at(2).get<std::string>(),
                           m.at(3).get<std::uint64_t>(), m.at(4).get<bool>()});
    return rx;
}

PreparedRestrictions PreparedRestrictions::prepare(const ChildRestrictions& rx, int parentPid)
{
    PreparedRestrictions p;
    for (const auto& l : rx.rlimits) {
        rlimit cur{};
        if (getrlimit(l.resource, &cur) != 0)
            continue;
        rlimit want{static_cast<rlim_t>(l.soft), static_cast<rlim_t>(l.hard)};
        if (cur.rlim_max != RLIM_INFINITY)
            want.rlim_max = std::min(want.rlim_max, cur.rlim_max);
        want.rlim_cur = std::min(want.rlim_cur, want.rlim_max);
        p.limits.push_back({l.resource, {want.rlim_cur, want.rlim_max}});
    }
    p.unshareNet = rx.unshareNet;
    p.asRoot = geteuid() == 0;
    p.uidMap = std::to_string(geteuid()) + " " + std::to_string(geteuid()) + " 1\n";
    p.gidMap = std::to_string(getegid()) + " " + std::to_string(getegid()) + " 1\n";
    p.uid = rx.uid;
    p.gid = rx.gid;
    p.noNewPrivs = rx.noNewPrivs;
    p.dieWithParent = rx.dieWithParent;
    p.parentPid = parentPid;
    p.namespaces = rx.namespaces;
    for (const auto& m : rx.view) {
        Op op;
        op.kind = static_cast<int>(m.kind);
        op.dst = m.dst;
        op.optional = m.optional;
        switch (m.kind) {
        case MountOp::RoBind:
        case MountOp::Bind:
        case MountOp::DevBind:
            op.src = "/oldroot" + m.src;
            break;
        case MountOp::HideFile:
            op.src = "/oldroot/dev/null";
            break;
        case MountOp::Symlink:
            op.src = m.src;
            break;
        case MountOp::Tmpfs:
            op.options = "mode=0755,size=" + std::to_string(m.size ? m.size : (16u << 20));
            break;
        default:
            break;
        }
        p.view.push_back(std::move(op));
    }
    return p;
}

namespace {

/// mkdir -p, async-signal-safe (no allocation); `upToParent`: leaves out the last component.
bool makePath(const char* path, bool upToParent)
{
    char buf[4096];
    const std::size_t n = strlen(path);
    if (n == 0 || n >= sizeof buf)
        return false;
    memcpy(buf, path, n + 1);
    std::size_t end = n;
    if (upToParent) {
        while (end > 0 && buf[end - 1] != '/')
            --end;
        if (end <= 1)
            return true;
        buf[end - 1] = 0;
        end -= 1;
    }
    for (std::size_t i = 1; i <= end; ++i) {
        if (buf[i] == '/' || buf[i] == 0) {
            const char c = buf[i];
            buf[i] = 0;
            if (mkdir(buf, 0755) != 0 && errno != EEXIST)
                return false;
            buf[i] = c;
        }
    }
    return true;
}

/// The mount point for a bind: a directory or an empty file, as the source is.
bool makeMountPoint(const char* dst, bool dir)
{
    if (dir)
        return makePath(dst, false);
    if (!makePath(dst, true))
        return false;
    int fd = open(dst, O_WRONLY | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0644);
    if (fd >= 0) {
        close(fd);
        return true;
    }
    return errno == EEXIST || errno == EROFS || errno == EACCES ? access(dst, F_OK) == 0 : false;
}

/// Makes a bind read-only, keeping the flags a user namespace may not clear (they are locked).
bool remountReadOnly(const char* dst)
{
    struct statfs sf {};
    unsigned long flags = MS_REMOUNT | MS_BIND | MS_RDONLY;
    if (statfs(dst, &sf) == 0) {
        if (sf.f_flags & ST_NOSUID)
            flags |= MS_NOSUID;
        if (sf.f_flags & ST_NODEV)
            flags |= MS_NODEV;
        if (sf.f_flags & ST_NOEXEC)
            flags |= MS_NOEXEC;
        if (sf.f_flags & ST_NOATIME)
            flags |= MS_NOATIME;
        if (sf.f_flags & ST_NODIRATIME)
            flags |= MS_NODIRATIME;
        if (sf.f_flags & ST_RELATIME)
            flags |= MS_RELATIME;
    }
    return mount(nullptr, dst, nullptr, flags, nullptr) == 0;
}

[[noreturn]] void childFailErrno(const char* what, const char* path)
{
    char msg[600];
    std::size_t n = 0;
    auto add = [&](const char* t) {
        while (t && *t && n + 1 < sizeof msg)
            msg[n++] = *t++;
    };
    add(what);
    if (path) {
        add(" ");
        add(path);
    }
    add(": ");
    add(strerrordesc_np(errno));
    msg[n] = 0;
    childFail(msg);
}

/// Closes the caller's ends of the child's stdio and protocol pipes (a relay or init must not keep
/// kbx reading after the sandboxed process ended).
void closeStdio()
{
    for (int fd = 0; fd <= 3; ++fd)
        close(fd);
    int nul = open("/dev/null", O_RDWR | O_CLOEXEC);
    if (nul >= 0 && nul != 2) {
        dup2(nul, 2);  // anything a relay would say goes nowhere; fd 2 must not be reused by accident
        close(nul);
    }
}

/// One bind of the view (RoBind, Bind, DevBind, HideFile), read-only unless Bind or DevBind.
void bindFromHost(const PreparedRestrictions::Op& op, bool asRoot)
{
    const char* dst = op.dst.c_str();
    struct stat st {};
    if (stat(op.src.c_str(), &st) != 0) {
        if (op.optional || op.kind != MountOp::HideFile)
            return;  // gone since kbx looked (or optional): nothing to show
        childFailErrno("stat", op.src.c_str());
    }
    if (!makeMountPoint(dst, S_ISDIR(st.st_mode)))
        childFailErrno("mount point", dst);
    // As root nothing is locked: a bind without the mounts below it (/sys/fs/cgroup and
    // the like stay out, and with them writable submounts). In a user namespace the mounts
    // below are locked to their parent and must come along (they stay out of reach of
    // the candidate's uid either way).
    // Except /sys, the system directories come with their submounts as root too: a GPU
    // container's driver libraries (libcuda.so and friends) are files bind-mounted into
    // /usr/lib/...; without them Triton finds no libcuda and cuBLAS/cuFFT fail.
    const bool rec = !asRoot || op.dst != "/sys";
    if (mount(op.src.c_str(), dst, nullptr, rec ? MS_BIND | MS_REC : MS_BIND, nullptr) != 0)
        childFailErrno("bind", dst);
    if (op.kind != MountOp::Bind && op.kind != MountOp::DevBind && !remountReadOnly(dst))
        childFailErrno("remount read-only", dst);
}

/// A minimal /dev (MountOp::Dev): a small tmpfs with the host's null, zero, full, random, urandom
/// and tty nodes, the fd links, and empty shm and pts directories.
void mountMinimalDev()
{
    if (!makePath("/dev", false) || mount("tmpfs", "/dev", "tmpfs", MS_NOSUID, "mode=0755,size=1m") != 0)
        childFailErrno("mount tmpfs", "/dev");
    static const char* const nodes[][2] = {{"/oldroot/dev/null", "/dev/null"},     {"/oldroot/dev/zero", "/dev/zero"},
                                           {"/oldroot/dev/full", "/dev/full"},     {"/oldroot/dev/random", "/dev/random"},
                                           {"/oldroot/dev/urandom", "/dev/urandom"}, {"/oldroot/dev/tty", "/dev/tty"}};
    for (const auto& n : nodes) {
        if (access(n[0], F_OK) != 0)
            continue;
        if (!makeMountPoint(n[1], false) || mount(n[0], n[1], nullptr, MS_BIND, nullptr) != 0)
            childFailErrno("bind", n[1]);
    }
    static const char* const links[][2] = {{"/proc/self/fd", "/dev/fd"},     {"/proc/self/fd/0", "/dev/stdin"},
                                           {"/proc/self/fd/1", "/dev/stdout"}, {"/proc/self/fd/2", "/dev/stderr"}};
    for (const auto& l : links)
        if (symlink(l[0], l[1]) != 0)
            childFailErrno("symlink", l[1]);
    if (mkdir("/dev/shm", 0755) != 0 || mkdir("/dev/pts", 0755) != 0)
        childFailErrno("mkdir", "/dev/shm");
}

/// The relay, in the caller's namespaces (the pid kbx or the warm worker waits for): exits as the
/// sandboxed process did, or 127 when the sandbox could not be set up.
[[noreturn]] void relayExitStatus(pid_t init, const int status[2])
{
    close(status[1]);
    closeStdio();
    int st = 0;
    ssize_t n;
    while ((n = read(status[0], &st, sizeof st)) < 0 && errno == EINTR) {
    }
    int initStatus = 0;
    while (waitpid(init, &initStatus, 0) < 0 && errno == EINTR) {
    }
    if (n != static_cast<ssize_t>(sizeof st))
        _exit(127);
    if (WIFEXITED(st))
        _exit(WEXITSTATUS(st));
    if (WIFSIGNALED(st)) {
        const int sig = WTERMSIG(st);
        const rlimit noCore{0, 0};
        setrlimit(RLIMIT_CORE, &noCore);
        signal(sig, SIG_DFL);
        sigset_t set;
        sigemptyset(&set);
        sigaddset(&set, sig);
        sigprocmask(SIG_UNBLOCK, &set, nullptr);
        kill(getpid(), sig);
        _exit(128 + sig);
    }
    _exit(127);
}

/// pid 1 of the sandbox's pid namespace once the sandboxed process (pid 2) runs: reaps whatever
/// ends up with it and reports the sandboxed process's wait status on `statusFd`.
[[noreturn]] void reapAsInit(pid_t child, int statusFd)
{
    closeStdio();
    for (;;) {
        int st = 0;
        const pid_t w = waitpid(-1, &st, 0);
        if (w == child) {
            (void)!write(statusFd, &st, sizeof st);
            _exit(0);
        }
        if (w < 0 && errno != EINTR)
            _exit(127);
    }
}

}  // namespace

void PreparedRestrictions::buildRoot() const
{
    // Nothing here propagates back to the host.
    if (mount(nullptr, "/", nullptr, MS_REC | MS_PRIVATE, nullptr) != 0)
        childFailErrno("mount --make-rprivate", "/");
    // The new root: a tmpfs at /tmp (as bwrap does), the old root below it at /oldroot.
    if (mount("tmpfs", "/tmp", "tmpfs", MS_NOSUID | MS_NODEV, "mode=0755,size=16m") != 0)
        childFailErrno("mount tmpfs", "/tmp");
    if (mkdir("/tmp/oldroot", 0755) != 0)
        childFailErrno("mkdir", "/tmp/oldroot");
    if (syscall(SYS_pivot_root, "/tmp", "/tmp/oldroot") != 0)
        childFailErrno("pivot_root", "/tmp");
    if (chdir("/") != 0)
        childFailErrno("chdir", "/");
    for (const auto& op : view) {
        const char* dst = op.dst.c_str();
        switch (op.kind) {
        case MountOp::RoBind:
        case MountOp::Bind:
        case MountOp::DevBind:
        case MountOp::HideFile:
            bindFromHost(op, asRoot);
            break;
        case MountOp::Tmpfs:
            if (!makePath(dst, false))
                childFailErrno("mkdir", dst);
            if (mount("tmpfs", dst, "tmpfs", MS_NOSUID | MS_NODEV, op.options.c_str()) != 0)
                childFailErrno("mount tmpfs", dst);
            break;
        case MountOp::Symlink:
            if (!makePath(dst, true) || (symlink(op.src.c_str(), dst) != 0 && errno != EEXIST))
                childFailErrno("symlink", dst);
            break;
        case MountOp::Dev:
            mountMinimalDev();
            break;
        case MountOp::Proc:
            if (!makePath("/proc", false) || mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, nullptr) != 0)
                childFailErrno("mount proc", "/proc");
            break;
        default:
            break;
        }
    }
    if (umount2("/oldroot", MNT_DETACH) != 0)
        childFailErrno("umount", "/oldroot");
    rmdir("/oldroot");
    // The root itself: read-only (what is writable is mounted on it).
    if (mount(nullptr, "/", nullptr, MS_REMOUNT | MS_RDONLY | MS_NOSUID | MS_NODEV, nullptr) != 0)
        childFailErrno("remount read-only", "/");
    if (chdir("/") != 0)
        childFailErrno("chdir", "/");
}

void PreparedRestrictions::enterNamespaces() const
{
    if (dieWithParent) {
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        if (getppid() != parentPid)
            _exit(127);
    }
    int flags = CLONE_NEWNS | CLONE_NEWPID | CLONE_NEWIPC | CLONE_NEWNET;
    if (!asRoot)
        flags |= CLONE_NEWUSER;
    if (unshare(flags) != 0)
        childFailErrno("unshare", "(mount, pid, net, ipc namespaces)");
    if (!asRoot) {
        if (!writeProcFile("/proc/self/setgroups", "deny", 4) || !writeProcFile("/proc/self/uid_map", uidMap.data(), uidMap.size()) ||
            !writeProcFile("/proc/self/gid_map", gidMap.data(), gidMap.size()))
            childFail("user namespace id maps");
    }
    int status[2];
    if (pipe2(status, O_CLOEXEC) != 0)
        childFailErrno("pipe", nullptr);
    const pid_t init = fork();
    if (init < 0)
        childFailErrno("fork", nullptr);
    if (init > 0)
        relayExitStatus(init, status);
    // pid 1 of the new pid namespace: builds the root, starts the sandboxed process (pid 2), reaps
    // whatever ends up with it and reports the sandboxed process's wait status. When it exits, the
    // kernel kills everything left in the namespace.
    close(status[0]);
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    // The root's directories are for everyone to traverse (a candidate under a uid of its own),
    // whatever umask kbx runs with (077 for kbx eval); the sandboxed process gets that umask back.
    const mode_t umaskBefore = umask(022);
    buildRoot();
    const pid_t child = fork();
    if (child < 0)
        childFailErrno("fork", nullptr);
    if (child == 0) {
        close(status[1]);
        umask(umaskBefore);
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        return;
    }
    reapAsInit(child, status[1]);
}

void PreparedRestrictions::apply() const
{
    if (namespaces) {
        enterNamespaces();  // returns in the sandboxed process only
    } else if (unshareNet) {
        if (asRoot) {
            if (unshare(CLONE_NEWNET) != 0)
                childFail("unshare(CLONE_NEWNET)");
        } else {
            if (unshare(CLONE_NEWUSER | CLONE_NEWNET) != 0)
                childFail("unshare(CLONE_NEWUSER|CLONE_NEWNET)");
            if (!writeProcFile("/proc/self/setgroups", "deny", 4) ||
                !writeProcFile("/proc/self/uid_map", uidMap.data(), uidMap.size()) ||
                !writeProcFile("/proc/self/gid_map", gidMap.data(), gidMap.size()))
                childFail("user namespace id maps");
        }
    }
    for (const auto& [res, lim] : limits) {
        rlimit r{static_cast<rlim_t>(lim.first), static_cast<rlim_t>(lim.second)};
        if (setrlimit(res, &r) != 0)
            childFail("setrlimit");
    }
    if (namespaces) {
        // No capability survives into the sandbox (a warm worker's child never execs, and root in
        // the user namespace could otherwise unmount what hides the host's files).
        for (int cap = 0; cap <= 63; ++cap)
            if (prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) != 0 && errno != EINVAL)
                childFailErrno("dropping the capability bounding set", nullptr);
    }
    if (uid >= 0) {
        const gid_t g = static_cast<gid_t>(gid >= 0 ? gid : uid);
        if (setgroups(0, nullptr) != 0 || setresgid(g, g, g) != 0 ||
            setresuid(static_cast<uid_t>(uid), static_cast<uid_t>(uid), static_cast<uid_t>(uid)) != 0 ||
            geteuid() != static_cast<uid_t>(uid))
            childFail("dropping to the sandbox uid");
    }
    if (namespaces) {
        __user_cap_header_struct hdr{_LINUX_CAPABILITY_VERSION_3, 0};
        __user_cap_data_struct data[2] = {};
        if (syscall(SYS_capset, &hdr, data) != 0)
            childFailErrno("dropping capabilities", nullptr);
    }
    if (noNewPrivs && prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0)
        childFail("PR_SET_NO_NEW_PRIVS");
    if (namespaces) {
        // Again: a change of uid clears it. The parent is the namespace's init (pid 1), which dies
        // with the relay, which dies with kbx.
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        if (getppid() != 1)
            _exit(127);
    } else if (dieWithParent) {
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        if (getppid() != parentPid)
            _exit(127);
    }
}

}  // namespace kbx
