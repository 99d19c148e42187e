// SPDX-License-Identifier: MIT
#include "resultsview.h"

#include "evaluationtablemodel.h"
#include "facetmodel.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QIdentityProxyModel>
#include <QLabel>
#include <QLineEdit>
#include <QLocale>
#include <QPalette>
#include <QPushButton>
#include <QScrollBar>
#include <QTableView>
#include <QTimer>
#include <QVBoxLayout>

namespace kbx::gui {

namespace {
/// Colours the verdict and stage cells (models/ has no Qt Gui).
class VerdictColours : public QIdentityProxyModel {
public:
    using QIdentityProxyModel::QIdentityProxyModel;
    QVariant data(const QModelIndex& idx, int role) const override
    {
        if (role == Qt::ForegroundRole && (idx.column() == EvaluationTableModel::VerdictColumn || idx.column() == EvaluationTableModel::ClassColumn)) {
            const QString v = idx.data(EvaluationTableModel::VerdictRole).toString();
            if (v == QLatin1String("pass"))
                return QColor(40, 150, 60);
            if (v == QLatin1String("fail"))
                return QColor(205, 50, 45);
        }
        return QIdentityProxyModel::data(idx, role);
    }
    // Sorting happens in SQL: forward it to the source.
    void sort(int column, Qt::SortOrder order) override { sourceModel()->sort(column, order); }
};
}  // namespace

ResultsView::ResultsView(QWidget* parent)
    : QWidget(parent), m_model(new EvaluationTableModel(this)), m_text(new QLineEdit), m_textTimer(new QTimer(this)),
      m_table(new QTableView), m_count(new QLabel), m_diff(new QPushButton(tr("Diff"))), m_rerun(new QPushButton(tr("Re-run")))
{
    auto* bar = new QHBoxLayout;
    const struct {
        FacetListModel::Kind kind;
        const char* label;
    } facets[] = {{FacetListModel::Method, QT_TR_NOOP("Method")},     {FacetListModel::Round, QT_TR_NOOP("Round")},
                  {FacetListModel::Category, QT_TR_NOOP("Category")}, {FacetListModel::Gpu, QT_TR_NOOP("GPU")},
                  {FacetListModel::Stage, QT_TR_NOOP("Stage")},       {FacetListModel::FailureClass, QT_TR_NOOP("Class")}};
    for (const auto& f : facets) {
        auto* m = new FacetListModel(f.kind, this);
        auto* box = new QComboBox;
        box->setModel(m);
        box->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
        box->setMinimumContentsLength(f.kind == FacetListModel::Round ? 3 : 9);
        box->setObjectName(QStringLiteral("facet%1").arg(int(f.kind)));
        bar->addWidget(new QLabel(tr(f.label)));
        bar->addWidget(box);
        m_facets << m;
        m_boxes << box;
        connect(box, &QComboBox::currentIndexChanged, this, &ResultsView::applyFilter);
        // Keep the chosen value across reloads; the combo box's own reaction to the reset (back to
        // row 0) must not reach the filter.
        connect(m, &FacetListModel::modelAboutToBeReset, box, [box] {
            box->setProperty("kbxKeep", box->currentIndex() > 0 ? box->currentText() : QString());
            box->blockSignals(true);
        });
        connect(m, &FacetListModel::loaded, this, [this, box, m] {
            const QString keep = box->property("kbxKeep").toString();
            int row = 0;
            for (int i = 1; i < m->rowCount() && !keep.isEmpty(); ++i)
                if (m->index(i).data().toString() == keep)
                    row = i;
            box->setCurrentIndex(row);
            box->blockSignals(false);
            applyFilter();
        });
    }
    m_text->setPlaceholderText(tr("Search task, method, class, detail…"));
    m_text->setClearButtonEnabled(true);
    m_text->setObjectName(QStringLiteral("resultsText"));
    m_text->setMinimumWidth(180);
    bar->addWidget(m_text, 1);
    m_diff->setToolTip(tr("Compare the code of the two selected evaluations"));
    m_diff->setEnabled(false);
    bar->addWidget(m_diff);
    m_rerun->setToolTip(tr("Add the selected evaluations' candidates to the run panel"));
    m_rerun->setEnabled(false);
    m_rerun->setObjectName(QStringLiteral("rerunButton"));
    m_diff->setObjectName(QStringLiteral("diffButton"));
    bar->addWidget(m_rerun);
    m_textTimer->setSingleShot(true);
    m_textTimer->setInterval(250);
    connect(m_text, &QLineEdit::textChanged, m_textTimer, qOverload<>(&QTimer::start));
    connect(m_textTimer, &QTimer::timeout, this, &ResultsView::applyFilter);

    auto* proxy = new VerdictColours(this);
    proxy->setSourceModel(m_model);
    m_table->setModel(proxy);
    m_table->setObjectName(QStringLiteral("resultsTable"));
    m_table->setSortingEnabled(true);
    m_table->sortByColumn(EvaluationTableModel::IdColumn, Qt::AscendingOrder);
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->setSelectionMode(QAbstractItemView::ExtendedSelection);
    m_table->setAlternatingRowColors(true);
    m_table->setWordWrap(false);
    m_table->verticalHeader()->hide();
    m_table->verticalHeader()->setDefaultSectionSize(m_table->fontMetrics().height() + 6);
    m_table->horizontalHeader()->setStretchLastSection(true);
    const int widths[] = {60, 200, 90, 50, 170, 60, 50, 140, 120, 150};
    for (int c = 0; c < int(std::size(widths)); ++c)
        m_table->setColumnWidth(c, widths[c]);

    auto* l = new QVBoxLayout(this);
    l->setContentsMargins(4, 4, 4, 4);
    l->addLayout(bar);
    l->addWidget(m_table, 1);
    l->addWidget(m_count);

    connect(m_model, &EvaluationTableModel::totalCountChanged, this, &ResultsView::updateCount);
    connect(m_model, &EvaluationTableModel::pageLoaded, this, &ResultsView::updateCount);
    connect(m_model, &EvaluationTableModel::pageLoaded, this, [this] {
        if (m_restoreId > 0) {
            const int row = m_model->rowOfEvaluation(m_restoreId);
            if (row >= 0) {
                m_restoring = true;
                m_table->setCurrentIndex(m_table->model()->index(row, 0));
                m_restoring = false;
            }
            m_restoreId = 0;
        }
        if (m_restoreScroll >= 0) {
            m_table->verticalScrollBar()->setValue(m_restoreScroll);
            m_restoreScroll = -1;
        }
    });
    connect(m_model, &EvaluationTableModel::errorOccurred, this, [this](const QString& e) { m_count->setText(tr("Error: %1").arg(e)); });
    connect(m_table->selectionModel(), &QItemSelectionModel::currentRowChanged, this, [this](const QModelIndex& cur) {
        if (cur.isValid() && !m_restoring)
            emit evaluationSelected(cur.data(EvaluationTableModel::EvaluationIdRole).toLongLong());
    });
    connect(m_table->selectionModel(), &QItemSelectionModel::selectionChanged, this,
            [this] {
                const auto n = selectedEvaluationIds().size();
                m_diff->setEnabled(n == 2);
                m_rerun->setEnabled(n > 0);
            });
    connect(m_rerun, &QPushButton::clicked, this, [this] {
        const auto ids = selectedEvaluationIds();
        if (!ids.isEmpty())
            emit rerunRequested(ids);
    });
    connect(m_table, &QTableView::activated, this,
            [this](const QModelIndex& idx) { emit evaluationActivated(idx.data(EvaluationTableModel::EvaluationIdRole).toLongLong()); });
    connect(m_diff, &QPushButton::clicked, this, [this] {
        const auto ids = selectedEvaluationIds();
        if (ids.size() == 2)
            emit diffRequested(ids[0], ids[1]);
    });
    updateCount();
}

QComboBox* ResultsView::facetBox(int kind) const
{
    for (int i = 0; i < m_facets.size(); ++i)
        if (m_facets[i]->kind() == kind)
            return m_boxes[i];
    return nullptr;
}

void ResultsView::setDatabase(const QString& path)
{
    for (auto* f : m_facets)
        f->setDatabase(path);
    m_model->setDatabase(path);
}

void ResultsView::refresh()
{
    for (auto* f : m_facets)
        f->reload();
    // New results must not take the reader's place away: keep the current row and the scroll position.
    m_restoreId = currentEvaluationId();
    m_restoreScroll = m_table->verticalScrollBar()->value();
    m_model->refresh();
}

void ResultsView::setFilter(const EvaluationFilter& f)
{
    {
        const QSignalBlocker b(m_text);
        m_text->setText(f.text);
    }
    auto pick = [&](FacetListModel::Kind k, const QVariant& v) {
        auto* box = facetBox(k);
        const QSignalBlocker b(box);
        for (auto* m : m_facets)
            if (m->kind() == k)
                box->setCurrentIndex(qMax(0, m->rowOf(v)));
    };
    pick(FacetListModel::Method, f.method.isEmpty() ? QVariant() : QVariant(f.method));
    pick(FacetListModel::Round, f.round);
    pick(FacetListModel::Category, f.category.isEmpty() ? QVariant() : QVariant(f.category));
    pick(FacetListModel::Gpu, f.gpu.isEmpty() ? QVariant() : QVariant(f.gpu));
    pick(FacetListModel::Stage, f.stage.isEmpty() ? QVariant() : QVariant(f.stage));
    pick(FacetListModel::FailureClass, f.failureClass);
    m_model->setFilter(f);
}

void ResultsView::applyFilter()
{
    EvaluationFilter f;
    for (int i = 0; i < m_facets.size(); ++i) {
        const QVariant v = m_facets[i]->valueAt(m_boxes[i]->currentIndex());
        switch (m_facets[i]->kind()) {
        case FacetListModel::Method: f.method = v.toString(); break;
        case FacetListModel::Round: f.round = v; break;
        case FacetListModel::Category: f.category = v.toString(); break;
        case FacetListModel::Gpu: f.gpu = v.toString(); break;
        case FacetListModel::Stage: f.stage = v.toString(); break;
        case FacetListModel::FailureClass: f.failureClass = v; break;
        }
    }
    f.text = m_text->text();
    m_model->setFilter(f);
}

void ResultsView::updateCount()
{
    const QLocale loc;
    const qint64 total = m_model->totalCount();
    if (m_model->database().isEmpty())
        m_count->setText(tr("No database open."));
    else if (!m_model->lastError().isEmpty() && !m_model->isLoading())
        // A query that failed (a damaged file, a locked database) says so; the count that never
        // came is not "counting…" (issue 24).
        m_count->setText(tr("Error: %1").arg(m_model->lastError()));
    else if (total < 0)
        m_count->setText(tr("%1 loaded, counting…").arg(loc.toString(m_model->rowCount())));
    else
        m_count->setText(tr("%1 evaluation(s) match, %2 loaded").arg(loc.toString(total), loc.toString(m_model->rowCount())));
}

qint64 ResultsView::currentEvaluationId() const
{
    const QModelIndex idx = m_table->currentIndex();
    return idx.isValid() ? idx.data(EvaluationTableModel::EvaluationIdRole).toLongLong() : 0;
}

QList<qint64> ResultsView::selectedEvaluationIds() const
{
    QList<qint64> ids;
    auto rows = m_table->selectionModel()->selectedRows();
    std::sort(rows.begin(), rows.end(), [](const QModelIndex& a, const QModelIndex& b) { return a.row() < b.row(); });
    for (const auto& r : rows)
        ids << r.data(EvaluationTableModel::EvaluationIdRole).toLongLong();
    return ids;
}

}  // namespace kbx::gui
