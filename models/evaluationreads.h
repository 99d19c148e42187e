// SPDX-License-Identifier: MIT
#pragma once
// EvaluationTableModel's reads (evaluationreads.cpp): its filter and rows as core/query's, one read
// of rows or of the count with a store of its own on the calling (worker) thread, and CSV lines.
#include "evaluationtablemodel.h"

#include "query.h"

#include <QByteArray>
#include <QString>
#include <QVariant>

#include <atomic>

namespace kbx::gui::reads {

kbx::query::EvaluationFilter coreFilter(const EvaluationFilter& f);
/// A row's key or id (as toRow gives them) for a keyset boundary: integers, reals and text keep their type.
kbx::SqlValue toSqlValue(const QVariant& v);
EvaluationTableModel::Row toRow(const kbx::query::ListedEvaluation& e);

/// One read of rows: the database, the filter and which rows (core/query's window).
struct RowQuery {
    QString db;
    kbx::query::EvaluationFilter filter;
    kbx::query::Window window;
};
RowQuery rowQuery(const QString& db, const EvaluationFilter& filter, int sortColumn, Qt::SortOrder order, int limit);
/// The rows of `q` (an error in Page::error); `cancel` stops the read early.
EvaluationTableModel::Page readRows(const RowQuery& q, const std::atomic<bool>* cancel);
/// The count of rows matching `filter` (an error in Count::error).
EvaluationTableModel::Count countRows(const QString& db, const kbx::query::EvaluationFilter& filter, const std::atomic<bool>* cancel);

}  // namespace kbx::gui::reads
