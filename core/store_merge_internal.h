// SPDX-License-Identifier: MIT
// What store_merge.cpp (inputs, the transaction) and store_merge_copy.cpp (the rows copied, the ledger)
// share: the SQLite wrappers (core/sqlite_stmt.h, errors MergeError) over the target connection (the
// input attached as `src`), and the copy itself. Internal to kbx merge: included by no caller.
#pragma once

#include "store_merge.h"
#include "sqlite_stmt.h"

#include <string>

namespace kbx::merge_detail {

using Stmt = sql::Stmt<MergeError>;

inline void exec(sqlite3* db, const std::string& statement)
{
    kbx::sql::exec<MergeError>(db, statement);
}

/// Merges the input attached as `src` into `main` (db), inside the caller's transaction: store_merge_copy.cpp.
MergeReport mergeRows(sqlite3* db, const std::string& sourceName, const MergeOptions& options);

}  // namespace kbx::merge_detail
