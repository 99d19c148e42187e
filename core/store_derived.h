// SPDX-License-Identifier: MIT
#pragma once
// Part of the store (its SQL lives with the store's, issue 25). Tables derived from the results, for reports and figures over a million evaluations (issue 24,
// item 2). They are kept by triggers in the database file itself, so every writer keeps them right:
// kbx eval, import and merge, the workbench, an older kbx, a script with Python's sqlite3.
//
//   counted_evaluations  the counting rule (analysis::countingRule()): one row per submission and
//                        device (the view evaluation_rows' gpu column) with its latest evaluation's
//                        id, run and verdict columns, the submission's candidate, method and round,
//                        what the evidence says of the perf protocol and of an imported perf_ok,
//                        and how many evaluations of the submission that device has stored.
//   timing_rooflines     the roofline object (JSON text, as stored) of every timing that has one.
//   case_summaries       per evaluation with cases, what the protocol table reads of them: the contract
//                        tier's cases of the first public seed (seed0/...) and how many passed, the first
//                        failing contract and extended case.
//
// Like the report indexes they are outside the schema version: an older kbx reads and writes the
// file as before, and its writes fire the triggers too. A writable open (Store) creates and fills
// them where they are missing or differ from this kbx's definition. A database without them (a
// read-only open of a file no writable kbx opened since) gets the same rows computed on the fly into
// TEMP tables of the connection (prepare()): the same results, slower.

#include <string>
#include <vector>

struct sqlite3;

namespace kbx {

class Store;

namespace derived {

/// The view evaluation_rows' gpu column for the runs row aliased `r` (the view's own expression).
std::string gpuSql(const std::string& r);

/// The derived tables (kbx merge leaves them out: the target's triggers compute its own).
const std::vector<std::string>& tables();

/// Creates the derived tables, their indexes and triggers where any is missing or differs from this
/// kbx's definition (then all are dropped and made again) and fills them, in one transaction; does
/// nothing when they are current. A writable connection.
void ensure(sqlite3* db);

/// Drops every derived table, index and trigger the database holds (bench's grown copies: their first
/// writable open builds them again). A writable connection; no transaction of its own.
void drop(sqlite3* db);

/// Whether the database holds every derived object as this kbx defines it.
bool current(const Store& store);

/// Makes the table `counted_evaluations` (rooflines: also `timing_rooflines`; cases: also
/// `case_summaries`) readable under that name on the store's connection: the database's own when
/// current(), else TEMP tables filled from the base tables (again when another connection changed the
/// file since). Returns true when they are such TEMP tables.
bool prepare(const Store& store, bool rooflines = false, bool cases = false);

}  // namespace derived
}  // namespace kbx
