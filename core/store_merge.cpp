// SPDX-License-Identifier: MIT
// kbx merge (part of the store, core/store_merge.h): the input opened read-only (a migrated copy where
// its schema is older), the target opened, the input attached and merged in one transaction. The rows
// copied: store_merge_copy.cpp.
#include "store_merge.h"
#include "store_merge_internal.h"

#include "source.h"
#include "store.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>
#include <sqlite3.h>

#include <stdlib.h>

#include <cctype>
#include <cerrno>
#include <cstring>
#include <optional>

namespace kbx {
namespace fs = std::filesystem;
namespace {

using merge_detail::exec;
using merge_detail::Stmt;

const char* kLedgerSql = R"SQL(
CREATE TABLE IF NOT EXISTS main.merge_ledger(
  run_key TEXT PRIMARY KEY,
  content_sha256 TEXT NOT NULL,
  run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  status TEXT NOT NULL,
  evaluations INTEGER NOT NULL,
  source TEXT NOT NULL,
  merged_at TEXT NOT NULL))SQL";

struct Connection {
    sqlite3* db = nullptr;
    Connection() = default;
    Connection(const Connection&) = delete;
    Connection& operator=(const Connection&) = delete;
    ~Connection()
    {
        if (db)
            sqlite3_close(db);
    }
};

/// A file: URI of `p` (SQLITE_OPEN_URI), its special characters percent-encoded, with `query`.
std::string fileUri(const fs::path& p, const char* query)
{
    std::error_code ec;
    std::string uri = "file:";
    const auto abs = fs::absolute(p, ec);
    for (unsigned char c : (ec ? p : abs).string()) {
        if (std::isalnum(c) || std::strchr("/-._~", c))
            uri += static_cast<char>(c);
        else
            uri += fmt::format("%{:02X}", c);
    }
    return uri + "?" + query;
}

/// How an input is read: read-only, as a read-only kbx::Store reads it (immutable where this user
/// cannot write the file or its directory and no WAL journal with content lies beside it, so that
/// SQLite makes no -wal/-shm files there).
std::string inputUri(const fs::path& source)
{
    std::error_code ec;
    const fs::path wal = source.string() + "-wal";
    const bool walContent = fs::exists(wal, ec) && fs::file_size(wal, ec) > 0 && !ec;
    const bool immutable = !readOnlyReason(source).empty() && !walContent;
    return fileUri(source, immutable ? "mode=ro&immutable=1" : "mode=ro");
}

void openReadOnly(Connection& c, const std::string& uri, const fs::path& shown)
{
    if (sqlite3_open_v2(uri.c_str(), &c.db, SQLITE_OPEN_READONLY | SQLITE_OPEN_URI, nullptr) != SQLITE_OK)
        throw StoreError(fmt::format("cannot open database {} read-only: {}", shown.string(), c.db ? sqlite3_errmsg(c.db) : "out of memory"));
    sqlite3_busy_timeout(c.db, 30000);
}

/// The schema version (PRAGMA user_version) of an input, read without writing; nullopt when SQLite
/// cannot read it (the store's read-only open then says why).
std::optional<int> inputSchemaVersion(const std::string& uri, const fs::path& source)
{
    try {
        Connection c;
        openReadOnly(c, uri, source);
        Stmt st(c.db, "PRAGMA user_version");
        if (!st.step())
            return std::nullopt;
        return static_cast<int>(st.i64(0));
    } catch (const std::exception&) {
        return std::nullopt;
    }
}

/// An input of an older schema brought to the current one on a copy in a directory of its own under
/// the temporary directory (TMPDIR), removed with this object: the input itself is never written,
/// whoever may write it. The copy is a consistent snapshot (SQLite's backup, WAL journal included).
class MigratedCopy {
public:
    MigratedCopy(const fs::path& source, const std::string& uri)
    {
        std::error_code ec;
        auto base = fs::temp_directory_path(ec);
        if (ec)
            base = "/tmp";
        std::string tmpl = (base / "kbx-merge-XXXXXX").string();
        if (!::mkdtemp(tmpl.data()))
            throw MergeError(fmt::format("{}: has an older schema and needs a migrated copy, but no temporary directory could be "
                                         "made under {}: {}",
                                         source.string(), base.string(), std::strerror(errno)));
        m_dir = tmpl;
        m_file = m_dir / "input.sqlite";
        try {
            copyAndMigrate(source, uri);
        } catch (...) {
            fs::remove_all(m_dir, ec);
            throw;
        }
    }
    ~MigratedCopy()
    {
        std::error_code ec;
        fs::remove_all(m_dir, ec);
    }
    MigratedCopy(const MigratedCopy&) = delete;
    MigratedCopy& operator=(const MigratedCopy&) = delete;
    const fs::path& file() const { return m_file; }

private:
    void copyAndMigrate(const fs::path& source, const std::string& uri)
    {
        {
            Connection from, to;
            openReadOnly(from, uri, source);
            if (sqlite3_open_v2(m_file.c_str(), &to.db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, nullptr) != SQLITE_OK)
                throw MergeError(fmt::format("cannot create the temporary copy {}: {}", m_file.string(),
                                             to.db ? sqlite3_errmsg(to.db) : "out of memory"));
            sqlite3_backup* b = sqlite3_backup_init(to.db, "main", from.db, "main");
            if (!b)
                throw MergeError(fmt::format("cannot copy {} to {}: {}", source.string(), m_file.string(), sqlite3_errmsg(to.db)));
            const int rc = sqlite3_backup_step(b, -1);
            sqlite3_backup_finish(b);
            if (rc != SQLITE_DONE)
                throw MergeError(fmt::format("cannot copy {} to {}: {}", source.string(), m_file.string(), sqlite3_errstr(rc)));
        }
        try {
            Store migrated(m_file);  // the store's forward migrations, on the copy
        } catch (const StoreError& e) {
            throw StoreError(fmt::format("{}: upgrading a temporary copy of it to schema version {} failed: {}", source.string(),
                                         kSchemaVersion, e.what()));
        }
    }

    fs::path m_dir, m_file;
};

}  // namespace

std::string runMergeKey(const std::string& startedAt, const std::string& device, const std::string& provenance,
                        const std::string& publicSeeds, std::int64_t secretSeed, const std::string& args)
{
    const nlohmann::json j = {{"started_at", startedAt}, {"device", device},           {"provenance", provenance},
                              {"public_seeds", publicSeeds}, {"secret_seed", secretSeed}, {"args", args}};
    return "run:" + sha256Hex(j.dump());
}

MergeReport mergeDatabase(const fs::path& target, const fs::path& source, const MergeOptions& options)
{
    std::error_code ec;
    if (!fs::is_regular_file(source, ec))
        throw MergeError(fmt::format("{}: no such database file", source.string()));
    if (fs::exists(target, ec) && fs::equivalent(target, source, ec))
        throw MergeError(fmt::format("{}: cannot merge a database into itself", source.string()));
    // The input is only read (it may be the installed demo, or a shard on a read-only mount): opened
    // read-only, never migrated in place. One of an older schema is merged from a migrated copy.
    std::string srcUri = inputUri(source);
    std::optional<MigratedCopy> copy;
    if (const auto v = inputSchemaVersion(srcUri, source); v && *v >= 1 && *v < kSchemaVersion) {
        copy.emplace(source, srcUri);
        srcUri = fileUri(copy->file(), "mode=ro");
    } else {
        Store src(source, OpenMode::ReadOnly);  // the store's refusals: not a kbx database, a newer schema
    }
    // The target through the store: created or migrated; one the user cannot write is refused.
    { Store dst(target); }
    Connection c;
    // An absolute path (never read as a URI) opened with SQLITE_OPEN_URI, so that ATTACH takes the input's URI.
    const auto targetPath = fs::absolute(target, ec);
    if (sqlite3_open_v2((ec ? target : targetPath).c_str(), &c.db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_URI, nullptr) != SQLITE_OK)
        throw MergeError(fmt::format("cannot open {}: {}", target.string(), c.db ? sqlite3_errmsg(c.db) : "out of memory"));
    sqlite3_busy_timeout(c.db, 30000);
    exec(c.db, "PRAGMA foreign_keys=ON");
    {
        Stmt at(c.db, "ATTACH DATABASE ? AS src");
        at.bind(1, srcUri).step();
    }
    MergeReport report;
    try {
        // BEGIN IMMEDIATE would ask the read-only input for a write lock too: a deferred transaction
        // whose first statement writes the target takes the target's write lock before anything is read.
        exec(c.db, "BEGIN");
        try {
            exec(c.db, kLedgerSql);
            exec(c.db, "DELETE FROM main.merge_ledger WHERE 0");
            report = merge_detail::mergeRows(c.db, source.string(), options);
            exec(c.db, "COMMIT");
        } catch (...) {
            sqlite3_exec(c.db, "ROLLBACK", nullptr, nullptr, nullptr);
            throw;
        }
    } catch (...) {
        sqlite3_exec(c.db, "DETACH DATABASE src", nullptr, nullptr, nullptr);
        throw;
    }
    exec(c.db, "DETACH DATABASE src");
    return report;
}

}  // namespace kbx
