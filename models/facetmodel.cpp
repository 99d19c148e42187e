// SPDX-License-Identifier: MIT
#include "facetmodel.h"

#include "database.h"

#include "query.h"
#include "store.h"

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
        try {
            const auto store = openReadStore(db);
            auto text = [](const std::string& t) { return QString::fromStdString(t); };
            switch (kind) {
            case Method:
                for (const auto& m : kbx::query::methodNames(*store))
                    e.append({text(m), text(m)});
                break;
            case Round:
                for (const auto r : kbx::query::submissionRounds(*store))
                    e.append({QString::number(r), QVariant::fromValue<qint64>(r)});
                break;
            case Gpu:
                for (const auto& g : kbx::query::runGpus(*store))
                    e.append({text(g), text(g)});
                break;
            case Category:
                for (const auto& c : kbx::query::evaluatedCategories(*store))
                    e.append({text(c), text(c)});
                break;
            case Run: {
                // "#12 · 2026-11-30 14:02 · NVIDIA H200 · 176": id, start, where, evaluations; newest first.
                const auto runs = kbx::query::listRuns(*store);
                for (auto it = runs.rbegin(); it != runs.rend(); ++it)
                    e.append({QObject::tr("#%1 · %2 · %3 · %n evaluation(s)", nullptr, int(it->evaluations))
                                  .arg(QString::number(it->id), text(it->startedAt).replace(QLatin1Char('T'), QLatin1Char(' ')).left(16),
                                       text(it->where)),
                              QVariant::fromValue<qint64>(it->id)});
                break;
            }
            default: break;
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
