// SPDX-License-Identifier: MIT
#include "facetmodel.h"

#include "database.h"
#include "sqlite.h"

#include <QtConcurrent/QtConcurrentRun>

namespace kbx::gui {

FacetListModel::FacetListModel(Kind kind, QObject* parent) : QAbstractListModel(parent), m_kind(kind)
{
    m_entries.append({tr("All"), QVariant()});
    connect(&m_watcher, &QFutureWatcher<Entries>::finished, this, &FacetListModel::apply);
}

FacetListModel::~FacetListModel()
{
    m_watcher.waitForFinished();
}

void FacetListModel::setDatabase(const QString& path)
{
    m_db = path;
    reload();
}

void FacetListModel::reload()
{
    if (m_watcher.isRunning()) {
        m_pending = true;
        return;
    }
    m_pending = false;
    m_loading = true;
    const QString db = m_db;
    const Kind kind = m_kind;
    m_watcher.setFuture(QtConcurrent::run([db, kind]() {
        Entries e;
        e.append({QObject::tr("All"), QVariant()});
        if (kind == Stage) {
            for (const char* s : {"pass", "call", "exe"})
                e.append({QString::fromLatin1(s), QString::fromLatin1(s)});
            return e;
        }
        if (kind == FailureClass) {
            e.append({QObject::tr("(passed)"), QStringLiteral("")});
            for (const auto& id : failureClassIds())
                e.append({id, id});
            return e;
        }
        if (db.isEmpty())
            return e;
        QString sql;
        switch (kind) {
        case Method: sql = QStringLiteral("SELECT name FROM methods ORDER BY name"); break;
        case Round: sql = QStringLiteral("SELECT DISTINCT round FROM submissions ORDER BY round"); break;
        case Gpu:
            sql = QStringLiteral("SELECT DISTINCT CASE WHEN device = 'cuda' THEN coalesce(json_extract(provenance, '$.devices[0].name'), 'cuda') "
                                 "ELSE 'CPU (Triton interpreter)' END AS g FROM runs ORDER BY g");
            break;
        case Category:
            sql = QStringLiteral("SELECT DISTINCT substr(task_id, 1, instr(task_id, '/') - 1) AS c FROM evaluations ORDER BY c");
            break;
        case Run:
            // "#12 · 2026-11-30 14:02 · NVIDIA H200 · 176": id, start, where, evaluations (index evaluations_run).
            sql = QStringLiteral("SELECT r.id, substr(replace(r.started_at, 'T', ' '), 1, 16), "
                                 "CASE WHEN r.device = 'cuda' THEN coalesce(json_extract(r.provenance, '$.devices[0].name'), 'cuda') "
                                 "WHEN r.device = 'imported' THEN 'imported ' || coalesce(json_extract(r.provenance, '$.gpu'), '') "
                                 "ELSE 'CPU' END, (SELECT count(*) FROM evaluations e WHERE e.run_id = r.id) FROM runs r ORDER BY r.id DESC");
            break;
        default: break;
        }
        try {
            SqlConnection conn(db);
            SqlStatement st(conn, sql);
            while (st.step()) {
                const QVariant v = st.value(0);
                if (kind == Run)
                    e.append({QObject::tr("#%1 · %2 · %3 · %n evaluation(s)", nullptr, int(st.int64(3)))
                                  .arg(v.toString(), st.text(1), st.text(2)),
                              v});
                else
                    e.append({v.toString(), v});
            }
        } catch (const std::exception&) {
        }
        return e;
    }));
}

void FacetListModel::apply()
{
    if (m_pending) {
        reload();
        return;
    }
    const Entries e = m_watcher.result();
    m_loading = false;
    beginResetModel();
    m_entries = e;
    endResetModel();
    emit loaded();
}

int FacetListModel::rowOf(const QVariant& value) const
{
    if (!value.isValid())
        return 0;
    for (int i = 1; i < m_entries.size(); ++i)
        if (m_entries[i].value.isValid() && m_entries[i].value.toString() == value.toString())
            return i;
    return -1;
}

QVariant FacetListModel::valueAt(int row) const
{
    return row >= 0 && row < m_entries.size() ? m_entries[row].value : QVariant();
}

int FacetListModel::rowCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : int(m_entries.size());
}

QVariant FacetListModel::data(const QModelIndex& index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const auto& e = m_entries[index.row()];
    if (role == Qt::DisplayRole || role == Qt::EditRole)
        return e.label;
    if (role == ValueRole)
        return e.value;
    if (role == Qt::ToolTipRole && m_kind == FailureClass)
        return failureClassTitle(e.value.toString());
    return {};
}

}  // namespace kbx::gui
