// SPDX-License-Identifier: MIT
#pragma once
// Small helpers shared by kbx eval and kbx tasks --check: the database path, opening the store,
// and a run plan that cannot be made (core/runplan.h) said as kbx says it.

#include "exitcodes.h"
#include "paths.h"
#include "runplan.h"
#include "store.h"

#include <filesystem>
#include <iostream>
#include <memory>
#include <string>

namespace kbxcli {

/// --db, else $KBX_DB or the default database.
inline std::filesystem::path databasePath(const std::string& db)
{
    return db.empty() ? kbx::defaultDatabasePath() : std::filesystem::path(db);
}

/// Opens (or creates) the database; prints the error and returns null when it cannot.
inline std::unique_ptr<kbx::Store> openStore(const std::filesystem::path& path)
{
    try {
        return std::make_unique<kbx::Store>(path);
    } catch (const kbx::StoreError& e) {
        std::cerr << "kbx: " << e.what() << "\n";
        return nullptr;
    }
}

/// Prints why the plan cannot be made ("kbx: " + its message) and returns the exit code: 4 when the
/// environment is wrong (no CUDA device), else 2 (the command line).
inline int planFailed(const kbx::RunPlanError& e)
{
    std::cerr << "kbx: " << e.what() << "\n";
    return e.environment() ? ExitEnvironment : ExitUsage;
}

}  // namespace kbxcli
