// SPDX-License-Identifier: MIT
#pragma once
#include <QAbstractListModel>
#include <QFutureWatcher>
#include <QList>
#include <QString>
#include <QVariant>

namespace kbx::gui {

/// The values one can filter evaluations by (methods, rounds, GPUs, categories, stages, failure
/// classes, runs), read from a database, with an "All" entry first whose value is invalid. Loading runs on a
/// worker thread (the category list scans the evaluations' task index); loaded() says when done.
class FacetListModel : public QAbstractListModel {
    Q_OBJECT
public:
    enum Kind { Method, Round, Gpu, Category, Stage, FailureClass, Run };  ///< Run: newest first, value runs.id
    enum Role { ValueRole = Qt::UserRole + 1 };

    explicit FacetListModel(Kind kind, QObject* parent = nullptr);
    ~FacetListModel() override;

    Kind kind() const { return m_kind; }
    void setDatabase(const QString& path);
    void reload();
    bool isLoading() const { return m_loading; }
    /// Row of a value (0, the "All" entry, for an invalid value; -1 when absent).
    int rowOf(const QVariant& value) const;
    QVariant valueAt(int row) const;

    int rowCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;

signals:
    void loaded();

private:
    struct Entry {
        QString label;
        QVariant value;
    };
    using Entries = QList<Entry>;
    void apply();

    Kind m_kind;
    QString m_db;
    Entries m_entries;
    bool m_pending = false;
    bool m_loading = false;
    QFutureWatcher<Entries> m_watcher;
};

}  // namespace kbx::gui
