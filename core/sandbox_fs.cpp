// SPDX-License-Identifier: MIT
// What a candidate sees and reaches of the file system: the sandbox's view (sandboxView, bwrap's
// arguments for it), and, for a candidate under a uid of its own, the directories it must traverse.
#include "sandbox.h"
#include "sandbox_internal.h"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <sstream>
#include <system_error>

namespace kbx {
namespace fs = std::filesystem;

namespace sandbox_internal {

fs::path canon(const fs::path& p)
{
    std::error_code ec;
    auto c = fs::weakly_canonical(p, ec);
    return ec ? p.lexically_normal() : c;
}

bool isUnder(const fs::path& p, const fs::path& dir)
{
    auto a = p.begin(), b = dir.begin();
    for (; b != dir.end(); ++a, ++b) {
        if (b->empty())
            continue;  // trailing separator
        if (a == p.end() || *a != *b)
            return false;
    }
    return true;
}

/// lchown of a tree without following links; a regular file with other hard links is left alone
/// (it could be one of ours that a candidate linked in).
void chownTree(const fs::path& root, uid_t uid, gid_t gid)
{
    struct stat st {};
    if (lstat(root.c_str(), &st) != 0 || !S_ISDIR(st.st_mode) || lchown(root.c_str(), uid, gid) != 0)
        return;
    std::error_code ec;
    for (auto it = fs::recursive_directory_iterator(root, fs::directory_options::skip_permission_denied, ec);
         !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
        if (lstat(it->path().c_str(), &st) != 0 || (S_ISREG(st.st_mode) && st.st_nlink > 1))
            continue;
        (void)!lchown(it->path().c_str(), uid, gid);
    }
}

/// Can a process of another uid reach p (every directory above traversable, p itself readable)?
bool reachableByOthers(const fs::path& p)
{
    fs::path cur;
    for (const auto& part : canon(p)) {
        cur /= part;
        struct stat st {};
        if (stat(cur.c_str(), &st) != 0)
            return false;
        if (S_ISDIR(st.st_mode) && !(st.st_mode & S_IXOTH))
            return false;
        if (cur == canon(p) && !(st.st_mode & S_IROTH))
            return false;
    }
    return true;
}

/// Makes the directories from root down to p traversable by others (only ours, only below root).
void makeTraversable(const fs::path& root, const fs::path& p)
{
    if (root.empty() || !isUnder(p, root))
        return;
    fs::path cur = root;
    auto rel = p.lexically_relative(root);
    auto step = [&](const fs::path& d) {
        struct stat st {};
        if (lstat(d.c_str(), &st) == 0 && S_ISDIR(st.st_mode) && st.st_uid == geteuid() && !(st.st_mode & S_IXOTH))
            chmod(d.c_str(), (st.st_mode & 07777) | 0111);
    };
    step(cur);
    for (const auto& part : rel) {
        if (part == "." || part.empty())
            continue;
        cur /= part;
        if (cur == p)
            break;
        step(cur);
    }
}

}  // namespace sandbox_internal

using sandbox_internal::canon;
using sandbox_internal::isUnder;

fs::path firstUntraversable(const fs::path& p)
{
    std::error_code ec;
    fs::path target = fs::weakly_canonical(p, ec);
    if (ec)
        target = p;
    fs::path cur;
    for (const auto& part : target) {
        cur /= part;
        struct stat st {};
        if (stat(cur.c_str(), &st) == 0 && S_ISDIR(st.st_mode) && !(st.st_mode & S_IXOTH))
            return cur;
    }
    return {};
}

// ---- the view: what a candidate sees of the file system ------------------------------------------------

namespace {

std::size_t depth(const fs::path& p) { return static_cast<std::size_t>(std::distance(p.begin(), p.end())); }

/// The steps of a view before they are ordered, and what they show of the host.
class ViewBuilder {
public:
    explicit ViewBuilder(const SandboxRequest& req) : m_req(req) {}

    /// The system: programs, libraries, configuration. Merged-/usr links stay links.
    void addSystem()
    {
        std::error_code ec;
        for (const char* d : {"/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/etc", "/sys"}) {
            const auto st = fs::symlink_status(d, ec);
            if (ec || !fs::exists(st))
                continue;
            if (fs::is_symlink(st)) {
                auto target = fs::read_symlink(d, ec);
                if (!ec)
                    add({MountOp::Symlink, target.string(), d}, First);
            } else if (fs::is_directory(st)) {
                add({MountOp::RoBind, d, d, 0, true}, ReadOnly);
                m_shown.emplace_back(d);
            }
        }
    }

    /// /dev, /proc, private scratch, the GPU's nodes.
    void addPrivate()
    {
        std::error_code ec;
        add({MountOp::Dev, "", "/dev"}, First);
        add({MountOp::Proc, "", "/proc"}, First);
        // Private scratch, sized: tmpfs lives in memory. /run (sockets, the host's state) is empty.
        for (const char* d : {"/tmp", "/var/tmp", "/dev/shm"})
            add({MountOp::Tmpfs, "", d, m_req.limits.tmpfsBytes}, First);
        add({MountOp::Tmpfs, "", "/run", 16u << 20}, First);
        if (m_req.gpu) {
            std::vector<std::string> nodes;
            for (auto it = fs::directory_iterator("/dev", ec); !ec && it != fs::directory_iterator(); it.increment(ec))
                if (it->path().filename().string().rfind("nvidia", 0) == 0)
                    nodes.push_back(it->path().string());
            std::sort(nodes.begin(), nodes.end());
            for (const auto& n : nodes)
                add({MountOp::DevBind, n, n, 0, true}, Writable);  // nodes, and /dev/nvidia-caps
            add({MountOp::RoBind, "/run/nvidia-persistenced", "/run/nvidia-persistenced", 0, true}, ReadOnly);
        }
    }

    /// Programs on PATH installed under their own prefix (a GPU image's /opt/gcc/bin/gcc, which
    /// Triton compiles its launchers with): the prefix, read-only. Nothing under $HOME, /tmp or a
    /// hidden path, nothing that is the root.
    void addPathPrefixes()
    {
        std::error_code ec;
        const char* path = std::getenv("PATH");
        if (!path)
            return;
        const char* home = std::getenv("HOME");
        std::string entry;
        std::istringstream in(path);
        while (std::getline(in, entry, ':')) {
            if (entry.empty() || entry[0] != '/')
                continue;
            auto p = canon(entry);
            if (p.empty() || !fs::is_directory(p, ec))
                continue;
            if (p.filename() == "bin" || p.filename() == "sbin")
                p = p.parent_path();
            if (p == "/" || p.empty() || isUnder(p, "/tmp") || (home && *home && isUnder(p, canon(home))) ||
                std::any_of(m_req.hidden.begin(), m_req.hidden.end(), [&](const fs::path& h) { return isUnder(p, canon(h)) || isUnder(canon(h), p); }))
                continue;
            if (std::any_of(m_shown.begin(), m_shown.end(), [&](const fs::path& s) { return isUnder(p, s); }))
                continue;
            add({MountOp::RoBind, p.string(), p.string(), 0, true}, ReadOnly);
            m_shown.push_back(p);
        }
    }

    /// What the worker needs (its Python, the harness, the tasks, this candidate's inputs), and the
    /// candidate's own directory, writable.
    void addRequested()
    {
        std::error_code ec;
        const auto hiddenBetween = [&](const fs::path& p, const fs::path& s) {
            return std::any_of(m_req.hidden.begin(), m_req.hidden.end(), [&](const fs::path& h) {
                const auto c = canon(h);
                return isUnder(p, c) && isUnder(c, s);
            });
        };
        for (const auto& r : m_req.readOnly) {
            auto p = canon(r);
            if (p.empty() || p == "/" || !fs::exists(p, ec))
                continue;
            // Already shown through a directory above it (and not hidden on the way): nothing to add.
            if (std::any_of(m_shown.begin(), m_shown.end(), [&](const fs::path& s) { return isUnder(p, s) && !hiddenBetween(p, s); }))
                continue;
            add({MountOp::RoBind, p.string(), p.string()}, ReadOnly);
            m_shown.push_back(p);
        }
        if (!m_req.workDir.empty()) {
            const auto w = canon(m_req.workDir);
            add({MountOp::Bind, w.string(), w.string()}, Writable);
            m_shown.push_back(w);
        }
    }

    /// Hidden paths inside what is shown: empty directories, files shown as /dev/null.
    void addHidden()
    {
        std::error_code ec;
        for (const auto& h : m_req.hidden) {
            auto p = canon(h);
            if (p.empty() || p == "/" || !fs::exists(p, ec))
                continue;
            const bool inside = std::any_of(m_shown.begin(), m_shown.end(), [&](const fs::path& s) { return isUnder(p, s) && p != s; });
            if (!inside)
                continue;  // not visible anyway
            if (fs::is_directory(p, ec))
                add({MountOp::Tmpfs, "", p.string(), 16u << 20}, Hide);
            else
                add({MountOp::HideFile, "/dev/null", p.string()}, Hide);
        }
    }

    /// Everything shown, by depth: a path re-exposed inside a hidden directory shows, a hidden
    /// directory inside a shown one stays hidden. Ties: hide, then read-only, then writable.
    std::vector<MountOp> ordered()
    {
        std::stable_sort(m_steps.begin(), m_steps.end(), [](const Step& x, const Step& y) {
            const auto dx = depth(x.op.dst), dy = depth(y.op.dst);
            if (dx != dy)
                return dx < dy;
            return x.rank < y.rank;
        });
        // /dev before what goes into it (/dev/shm, GPU nodes): depth already orders them.
        std::vector<MountOp> view;
        for (auto& st : m_steps)
            view.push_back(std::move(st.op));
        return view;
    }

private:
    enum Rank { First = 0, Hide = 1, ReadOnly = 2, Writable = 3 };
    struct Step {
        MountOp op;
        Rank rank;
    };
    void add(MountOp op, Rank rank) { m_steps.push_back({std::move(op), rank}); }

    const SandboxRequest& m_req;
    std::vector<Step> m_steps;
    std::vector<fs::path> m_shown;  ///< what is bound from the host (hidden paths matter only below these)
};

}  // namespace

std::vector<MountOp> sandboxView(const SandboxRequest& req)
{
    ViewBuilder view(req);
    view.addSystem();
    view.addPrivate();
    view.addPathPrefixes();
    view.addRequested();
    view.addHidden();
    return view.ordered();
}

// ---- bwrap -------------------------------------------------------------------------------------------

std::vector<std::string> bwrapArguments(const SandboxInfo& info, const SandboxRequest& req)
{
    std::vector<std::string> a = {info.bwrap.string(), "--unshare-user", "--unshare-pid", "--unshare-net", "--unshare-ipc",
                                  "--unshare-uts", "--unshare-cgroup-try", "--die-with-parent", "--hostname", "kbx-sandbox"};
    if (geteuid() == 0 && !info.separateUid)
        a.insert(a.begin() + 1, {"--cap-drop", "ALL"});
    // An allow-list: nothing of the host's file tree beyond the view (other checkouts, $HOME, the
    // database, the run's scratch stay out of sight, issue 20).
    for (const auto& op : sandboxView(req)) {
        switch (op.kind) {
        case MountOp::RoBind:
            a.insert(a.end(), {op.optional ? "--ro-bind-try" : "--ro-bind", op.src, op.dst});
            break;
        case MountOp::Bind:
            a.insert(a.end(), {op.optional ? "--bind-try" : "--bind", op.src, op.dst});
            break;
        case MountOp::DevBind:
            a.insert(a.end(), {op.optional ? "--dev-bind-try" : "--dev-bind", op.src, op.dst});
            break;
        case MountOp::Tmpfs:
            a.insert(a.end(), {"--size", std::to_string(op.size ? op.size : (16u << 20)), "--tmpfs", op.dst});
            break;
        case MountOp::HideFile:
            a.insert(a.end(), {"--ro-bind", "/dev/null", op.dst});
            break;
        case MountOp::Symlink:
            a.insert(a.end(), {"--symlink", op.src, op.dst});
            break;
        case MountOp::Dev:
            a.insert(a.end(), {"--dev", "/dev"});
            break;
        case MountOp::Proc:
            a.insert(a.end(), {"--proc", "/proc"});
            break;
        }
    }
    a.insert(a.end(), {"--remount-ro", "/"});
    if (!req.workDir.empty())
        a.insert(a.end(), {"--chdir", canon(req.workDir).string()});
    return a;
}

}  // namespace kbx
