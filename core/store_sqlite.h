// SPDX-License-Identifier: MIT
// The SQLite wrappers (core/sqlite_stmt.h) as store.cpp, store_read.cpp, store_write.cpp and
// store_import.cpp use them: errors are StoreError. Internal to kbx::Store's implementation.
#pragma once

#include "sqlite_stmt.h"
#include "store.h"

namespace kbx::store_detail {

using Stmt = sql::Stmt<StoreError>;
using Transaction = sql::Transaction<StoreError>;

}  // namespace kbx::store_detail
