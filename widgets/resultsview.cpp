// SPDX-License-Identifier: MIT
#include "resultsview.h"

#include "analysis.h"
#include "evaluationtablemodel.h"
#include "facetmodel.h"

#include <QApplication>
#include <QCheckBox>
#include <QClipboard>
#include <QComboBox>
#include <QFileDialog>
#include <QFutureWatcher>
#include <QHBoxLayout>
#include <QKeySequence>
#include <QLayout>
#include <QMenu>
#include <QShortcut>
#include <QToolButton>
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

#include <initializer_list>

namespace kbx::gui {

namespace {

/// Lays its items out left to right and wraps onto a new line where the width ends (the filter bar of
/// a narrow window); items that expand horizontally share what is left of their line.
class FlowLayout : public QLayout {
public:
    explicit FlowLayout(QWidget* parent = nullptr) : QLayout(parent) { setContentsMargins(0, 0, 0, 0); }
    ~FlowLayout() override
    {
        while (QLayoutItem* i = takeAt(0))
            delete i;
    }
    void addItem(QLayoutItem* item) override { m_items.append(item); }
    int count() const override { return int(m_items.size()); }
    QLayoutItem* itemAt(int i) const override { return m_items.value(i); }
    QLayoutItem* takeAt(int i) override { return i >= 0 && i < m_items.size() ? m_items.takeAt(i) : nullptr; }
    Qt::Orientations expandingDirections() const override { return Qt::Horizontal; }
    bool hasHeightForWidth() const override { return true; }
    int heightForWidth(int width) const override { return arrange(QRect(0, 0, width, 0), false); }
    void setGeometry(const QRect& r) override
    {
        QLayout::setGeometry(r);
        arrange(r, true);
    }
    QSize sizeHint() const override
    {
        int w = 0, h = 0;
        for (auto* i : m_items) {
            if (i->isEmpty())
                continue;
            w += i->sizeHint().width() + (w > 0 ? hs() : 0);
            h = qMax(h, i->sizeHint().height());
        }
        const auto m = contentsMargins();
        return {w + m.left() + m.right(), h + m.top() + m.bottom()};
    }
    QSize minimumSize() const override
    {
        QSize s;
        for (auto* i : m_items)
            if (!i->isEmpty())
                s = s.expandedTo(i->minimumSize());
        const auto m = contentsMargins();
        return s + QSize(m.left() + m.right(), m.top() + m.bottom());
    }

private:
    int hs() const { return spacing() >= 0 ? spacing() : 6; }
    int arrange(const QRect& rect, bool apply) const
    {
        const QRect r = rect.marginsRemoved(contentsMargins());
        int y = r.y();
        QList<QLayoutItem*> line;
        int lineWidth = 0;
        auto flush = [&] {
            if (line.isEmpty())
                return;
            int h = 0, expanding = 0;
            for (auto* i : line) {
                h = qMax(h, i->sizeHint().height());
                expanding += bool(i->expandingDirections() & Qt::Horizontal);
            }
            if (apply) {
                int extra = qMax(0, r.width() - lineWidth);
                int x = r.x();
                for (auto* i : line) {
                    int w = qMin(i->sizeHint().width(), r.width());
                    if (expanding && (i->expandingDirections() & Qt::Horizontal)) {
                        const int add = extra / expanding--;
                        w += add;
                        extra -= add;
                    }
                    const int ih = i->sizeHint().height();
                    i->setGeometry(QRect(x, y + (h - ih) / 2, w, ih));
                    x += w + hs();
                }
            }
            y += h + hs();
            line.clear();
            lineWidth = 0;
        };
        for (auto* i : m_items) {
            if (i->isEmpty())
                continue;
            const int w = qMin(i->sizeHint().width(), r.width());
            if (!line.isEmpty() && lineWidth + hs() + w > r.width())
                flush();
            lineWidth += (line.isEmpty() ? 0 : hs()) + w;
            line.append(i);
        }
        flush();
        const auto m = contentsMargins();
        return y - hs() - rect.y() + m.bottom() + (y == r.y() ? hs() : 0);
    }
    QList<QLayoutItem*> m_items;
};

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
        if (role == Qt::ForegroundRole && idx.column() == EvaluationTableModel::SpeedupColumn) {
            const QVariant s = idx.data(EvaluationTableModel::SpeedupRole);
            if (!s.isNull() && s.isValid())
                return s.toDouble() >= 1.0 ? QColor(40, 150, 60) : QColor(205, 50, 45);
        }
        return QIdentityProxyModel::data(idx, role);
    }
    // Sorting happens in SQL: forward it to the source.
    void sort(int column, Qt::SortOrder order) override { sourceModel()->sort(column, order); }
};

/// Widgets side by side in a box of their own, which the flow layout keeps on one line (a label with its box).
QWidget* groupOf(std::initializer_list<QWidget*> ws)
{
    auto* g = new QWidget;
    auto* h = new QHBoxLayout(g);
    h->setContentsMargins(0, 0, 0, 0);
    h->setSpacing(4);
    for (auto* w : ws)
        h->addWidget(w);
    return g;
}
}  // namespace

ResultsView::ResultsView(QWidget* parent)
    : QWidget(parent), m_model(new EvaluationTableModel(this)), m_text(new QLineEdit), m_textTimer(new QTimer(this)),
      m_table(new QTableView), m_count(new QLabel), m_diff(new QPushButton(tr("Diff"))), m_rerun(new QPushButton(tr("Re-run"))),
      m_taskChip(new QToolButton),
      m_counted(new QCheckBox(tr("Counted only")))
{
    auto* barWidget = buildFilterBar();
    setUpTable();

    m_count->setObjectName(QStringLiteral("resultsCount"));
    m_count->setWordWrap(true);
    m_count->setToolTip(tr("The table lists every evaluation, also re-evaluations of the same submission. kbx report and the "
                           "Tasks tab count the latest evaluation of every submission on each GPU once (Help ▸ Columns and counting)."));

    auto* l = new QVBoxLayout(this);
    l->setContentsMargins(4, 4, 4, 4);
    l->addWidget(barWidget);
    l->addWidget(m_table, 1);
    l->addWidget(m_count);

    connectTable();
    updateCount();
}

QWidget* ResultsView::buildFilterBar()
{
    // The filter bar wraps (a laptop screen with the run dock shown): each label stays with its box.
    auto* barWidget = new QWidget;
    barWidget->setObjectName(QStringLiteral("resultsFilterBar"));
    auto* bar = new FlowLayout(barWidget);
    m_taskChip->setObjectName(QStringLiteral("taskFilterChip"));
    m_taskChip->setToolButtonStyle(Qt::ToolButtonTextOnly);
    m_taskChip->setAutoRaise(false);
    m_taskChip->setToolTip(tr("Only this task's evaluations. Click to show every task again."));
    m_taskChip->hide();
    connect(m_taskChip, &QToolButton::clicked, this, [this] {
        m_task.clear();
        updateTaskChip();
        applyFilter();
    });
    bar->addWidget(m_taskChip);
    addFacets(bar);
    m_text->setPlaceholderText(tr("Search task, method, class, detail…"));
    m_text->setClearButtonEnabled(true);
    m_text->setObjectName(QStringLiteral("resultsText"));
    m_text->setMinimumWidth(160);
    m_text->setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Fixed);
    bar->addWidget(m_text);
    m_counted->setObjectName(QStringLiteral("countedOnly"));
    m_counted->setToolTip(tr("Only the evaluations that kbx report, the Tasks tab and the charts count: the %1. "
                             "Off: every evaluation is a row.")
                              .arg(QString::fromStdString(kbx::analysis::countingRule())));
    connect(m_counted, &QCheckBox::toggled, this, &ResultsView::applyFilter);
    bar->addWidget(m_counted);
    m_diff->setToolTip(tr("Compare the code of the two selected evaluations"));
    m_diff->setEnabled(false);
    m_rerun->setToolTip(tr("Add the selected evaluations' candidates to the run panel"));
    m_rerun->setEnabled(false);
    m_rerun->setObjectName(QStringLiteral("rerunButton"));
    m_diff->setObjectName(QStringLiteral("diffButton"));
    bar->addWidget(groupOf({m_diff, m_rerun}));
    m_textTimer->setSingleShot(true);
    m_textTimer->setInterval(250);
    connect(m_text, &QLineEdit::textChanged, m_textTimer, qOverload<>(&QTimer::start));
    connect(m_textTimer, &QTimer::timeout, this, &ResultsView::applyFilter);
    return barWidget;
}

void ResultsView::addFacets(QLayout* bar)
{
    const struct {
        FacetListModel::Kind kind;
        const char* label;
        int chars;
    } facets[] = {{FacetListModel::Method, QT_TR_NOOP("Method"), 9},     {FacetListModel::Round, QT_TR_NOOP("Round"), 3},
                  {FacetListModel::Category, QT_TR_NOOP("Category"), 9}, {FacetListModel::Gpu, QT_TR_NOOP("GPU"), 9},
                  {FacetListModel::Run, QT_TR_NOOP("Run"), 9},          {FacetListModel::Stage, QT_TR_NOOP("Stage"), 4},
                  {FacetListModel::FailureClass, QT_TR_NOOP("Class"), 9}};
    for (const auto& f : facets) {
        auto* m = new FacetListModel(f.kind, this);
        auto* box = new QComboBox;
        box->setModel(m);
        box->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
        box->setMinimumContentsLength(f.chars);
        box->setObjectName(QStringLiteral("facet%1").arg(int(f.kind)));
        if (f.kind == FacetListModel::Run)
            box->setToolTip(tr("Only the evaluations of one run (kbx eval): number, start, device, evaluations"));
        auto* label = new QLabel(tr(f.label));
        label->setBuddy(box);
        bar->addWidget(groupOf({label, box}));
        m_facets << m;
        m_boxes << box;
        connect(box, &QComboBox::currentIndexChanged, this, &ResultsView::applyFilter);
        // Keep the chosen value across reloads; the combo box's own reaction to the reset (back to
        // row 0) must not reach the filter.
        // By value, not by text: a run's entry says how many evaluations it has, which new results change.
        connect(m, &FacetListModel::modelAboutToBeReset, box, [box] {
            if (box->property("kbxPendingSet").toBool()) {
                // setFilter() asked for a value this facet had not loaded yet: it is chosen on load.
                box->setProperty("kbxKeepSet", true);
                box->setProperty("kbxKeep", box->property("kbxPending"));
            } else {
                box->setProperty("kbxKeepSet", box->currentIndex() > 0);
                box->setProperty("kbxKeep", box->currentData(FacetListModel::ValueRole).toString());
            }
            box->blockSignals(true);
        });
        connect(m, &FacetListModel::loaded, this, [this, box, m] {
            const QString keep = box->property("kbxKeep").toString();
            const bool keepSet = box->property("kbxKeepSet").toBool();
            int row = 0;
            for (int i = 1; i < m->rowCount() && keepSet; ++i)
                if (m->valueAt(i).isValid() && m->valueAt(i).toString() == keep)
                    row = i;
            box->setCurrentIndex(row);
            box->setProperty("kbxPendingSet", false);
            box->blockSignals(false);
            applyFilter();
        });
    }
}

void ResultsView::setUpTable()
{
    // Windowed: the scroll bar and Ctrl+End reach the whole table, however many rows it has.
    m_model->setWindowed(true);
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
    m_table->setContextMenuPolicy(Qt::CustomContextMenu);
    {
        using M = EvaluationTableModel;
        const struct {
            int column, width;
        } widths[] = {{M::IdColumn, 60},      {M::TaskColumn, 200},   {M::MethodColumn, 90},    {M::RoundColumn, 50},
                      {M::GpuColumn, 150},    {M::VerdictColumn, 60}, {M::StageColumn, 50},     {M::ClassColumn, 140},
                      {M::ManualColumn, 110}, {M::FinishedColumn, 150}, {M::ExtendedColumn, 70}, {M::RunColumn, 45},
                      {M::SpeedupColumn, 75}};
        for (const auto& w : widths)
            m_table->setColumnWidth(w.column, w.width);
        // On screen: the run beside the id, the speedup beside the stage (the model keeps its order).
        auto* h = m_table->horizontalHeader();
        h->moveSection(h->visualIndex(M::RunColumn), 1);
        h->moveSection(h->visualIndex(M::SpeedupColumn), h->visualIndex(M::StageColumn) + 1);
    }
}

void ResultsView::connectTable()
{
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
        m_pendingRow = -1;
        if (!cur.isValid() || m_restoring)
            return;
        const qint64 id = cur.data(EvaluationTableModel::EvaluationIdRole).toLongLong();
        if (id > 0)
            emit evaluationSelected(id);
        else
            m_pendingRow = cur.row();  // its block is being read (Ctrl+End, a jump of the scroll bar)
    });
    connect(m_model, &EvaluationTableModel::rowsLoaded, this, [this](int first, int last) {
        if (m_pendingRow < first || m_pendingRow > last)
            return;
        const int row = m_pendingRow;
        m_pendingRow = -1;
        if (m_table->currentIndex().row() == row)
            if (const qint64 id = m_model->evaluationId(row); id > 0)
                emit evaluationSelected(id);
    });
    connect(m_table->selectionModel(), &QItemSelectionModel::selectionChanged, this,
            [this] {
                const auto n = selectedRowCount();
                m_diff->setEnabled(n == 2);
                m_rerun->setEnabled(n > 0);
            });
    connect(m_table, &QWidget::customContextMenuRequested, this, [this](const QPoint& pos) {
        QMenu* menu = createContextMenu();
        menu->setAttribute(Qt::WA_DeleteOnClose);
        menu->popup(m_table->viewport()->mapToGlobal(pos));
    });
    auto* copy = new QShortcut(QKeySequence::Copy, m_table, nullptr, nullptr, Qt::WidgetShortcut);
    connect(copy, &QShortcut::activated, this, &ResultsView::copySelection);
    connect(m_rerun, &QPushButton::clicked, this, [this] {
        const auto ids = selectedEvaluationIds();
        if (!ids.isEmpty())
            emit rerunRequested(ids);
    });
    connect(m_table, &QTableView::activated, this, [this](const QModelIndex& idx) {
        if (const qint64 id = idx.data(EvaluationTableModel::EvaluationIdRole).toLongLong(); id > 0)
            emit evaluationActivated(id);
    });
    connect(m_diff, &QPushButton::clicked, this, [this] {
        const auto ids = selectedEvaluationIds();
        if (ids.size() == 2)
            emit diffRequested(ids[0], ids[1]);
    });
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
    // New results must not take the reader's place away: keep the current row and the scroll position
    // (a windowed model keeps them itself: no reset).
    if (!m_model->isWindowed()) {
        m_restoreId = currentEvaluationId();
        m_restoreScroll = m_table->verticalScrollBar()->value();
    }
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
            if (m->kind() == k) {
                const int row = m->rowOf(v);
                box->setCurrentIndex(qMax(0, row));
                // A value the facet has not (yet) loaded, e.g. a chart click right after opening the
                // database: kept, and chosen when the facet's entries arrive (else the load's
                // applyFilter() would drop it).
                box->setProperty("kbxPendingSet", v.isValid() && row < 0);
                box->setProperty("kbxPending", v.toString());
                if (v.isValid() && row < 0) {
                    box->setProperty("kbxKeepSet", true);
                    box->setProperty("kbxKeep", v.toString());
                }
            }
    };
    pick(FacetListModel::Method, f.method.isEmpty() ? QVariant() : QVariant(f.method));
    pick(FacetListModel::Round, f.round);
    pick(FacetListModel::Category, f.category.isEmpty() ? QVariant() : QVariant(f.category));
    pick(FacetListModel::Gpu, f.gpu.isEmpty() ? QVariant() : QVariant(f.gpu));
    pick(FacetListModel::Stage, f.stage.isEmpty() ? QVariant() : QVariant(f.stage));
    pick(FacetListModel::FailureClass, f.failureClass);
    pick(FacetListModel::Run, f.runId > 0 ? QVariant(f.runId) : QVariant());
    m_task = f.taskId;
    updateTaskChip();
    {
        const QSignalBlocker b(m_counted);
        m_counted->setChecked(f.countedOnly);
    }
    m_model->setFilter(f);
}

void ResultsView::showTask(const QString& taskId)
{
    EvaluationFilter f;
    if (taskId.contains(QLatin1Char('/')))
        f.taskId = taskId;
    else
        f.category = taskId;
    setFilter(f);
}

void ResultsView::updateTaskChip()
{
    m_taskChip->setText(tr("Task: %1  ✕").arg(m_task));
    m_taskChip->setVisible(!m_task.isEmpty());
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
        case FacetListModel::Run: f.runId = v.isValid() ? v.toLongLong() : 0; break;
        }
    }
    f.taskId = m_task;
    f.text = m_text->text();
    f.countedOnly = m_counted->isChecked();
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
    else if (m_model->isWindowed() && m_model->filter().countedOnly)
        m_count->setText(tr("%1 counted evaluation(s) match — the %2, as kbx report, the Tasks tab and the charts count")
                             .arg(loc.toString(total), QString::fromStdString(kbx::analysis::countingRule())));
    else if (m_model->isWindowed())
        m_count->setText(tr("%1 evaluation(s) match — every evaluation is a row; reports count the latest of each submission "
                            "per GPU (Counted only)")
                             .arg(loc.toString(total)));
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
    // Rows from the selection ranges (selectedRows() would build an index per row of every column).
    QList<int> rows;
    for (const auto& r : m_table->selectionModel()->selection())
        for (int i = r.top(); i <= r.bottom(); ++i)
            rows << i;
    std::sort(rows.begin(), rows.end());
    rows.erase(std::unique(rows.begin(), rows.end()), rows.end());
    QList<qint64> ids;
    for (int r : rows)
        if (const qint64 id = m_model->evaluationId(r); id > 0)  // rows not read yet have none
            ids << id;
    return ids;
}

qint64 ResultsView::selectedRowCount() const
{
    QList<QPair<int, int>> spans;
    for (const auto& r : m_table->selectionModel()->selection())
        spans.append({r.top(), r.bottom()});
    std::sort(spans.begin(), spans.end());
    qint64 n = 0;
    int end = -1;
    for (const auto& [a, b] : spans) {
        const int from = qMax(a, end + 1);
        if (b >= from)
            n += b - from + 1;
        end = qMax(end, b);
    }
    return n;
}

QString ResultsView::selectedRowsText() const
{
    const auto* h = m_table->horizontalHeader();
    QList<int> cols;
    for (int v = 0; v < h->count(); ++v)
        if (!h->isSectionHidden(h->logicalIndex(v)))
            cols << h->logicalIndex(v);
    QStringList lines;
    QStringList head;
    for (int c : cols)
        head << m_model->headerData(c, Qt::Horizontal).toString();
    lines << head.join(QLatin1Char('\t'));
    QList<int> rows;
    for (const auto& r : m_table->selectionModel()->selection())
        for (int i = r.top(); i <= r.bottom(); ++i)
            rows << i;
    std::sort(rows.begin(), rows.end());
    rows.erase(std::unique(rows.begin(), rows.end()), rows.end());
    for (int r : rows) {
        if (!m_model->isRowLoaded(r))
            continue;
        QStringList f;
        for (int c : cols)
            f << m_model->index(r, c).data().toString().replace(QLatin1Char('\t'), QLatin1Char(' ')).replace(QLatin1Char('\n'), QLatin1Char(' '));
        lines << f.join(QLatin1Char('\t'));
    }
    return lines.join(QLatin1Char('\n')) + QLatin1Char('\n');
}

void ResultsView::copySelection()
{
    if (selectedRowCount() > 0)
        QApplication::clipboard()->setText(selectedRowsText());
}

QMenu* ResultsView::createContextMenu()
{
    auto* menu = new QMenu(this);
    menu->setObjectName(QStringLiteral("resultsContextMenu"));
    const qint64 current = currentEvaluationId();
    const auto ids = selectedEvaluationIds();
    const qint64 n = selectedRowCount();
    auto* copy = menu->addAction(tr("&Copy rows"), this, &ResultsView::copySelection);
    copy->setShortcut(QKeySequence::Copy);
    copy->setEnabled(n > 0);
    auto* copyIds = menu->addAction(tr("Copy evaluation &IDs"), this, [ids] {
        QStringList t;
        for (qint64 id : ids)
            t << QString::number(id);
        QApplication::clipboard()->setText(t.join(QLatin1Char('\n')));
    });
    copyIds->setEnabled(!ids.isEmpty());
    menu->addSeparator();
    auto* open = menu->addAction(tr("Open in &inspector"), this, [this, current] { emit evaluationActivated(current); });
    open->setEnabled(current > 0);
    auto* code = menu->addAction(tr("Show &code beside the reference"), this, [this, current] { emit showCodeRequested(current); });
    code->setEnabled(current > 0);
    auto* diff = menu->addAction(tr("&Diff the two selected"), this, [this, ids] { emit diffRequested(ids[0], ids[1]); });
    diff->setEnabled(ids.size() == 2);
    auto* rerun = menu->addAction(tr("&Re-run the selected"), this, [this, ids] { emit rerunRequested(ids); });
    rerun->setEnabled(!ids.isEmpty());
    if (current > 0) {
        const QString task = m_model->index(m_table->currentIndex().row(), EvaluationTableModel::TaskColumn).data().toString();
        auto* only = menu->addAction(tr("Only this &task (%1)").arg(task), this, [this, task] { showTask(task); });
        only->setEnabled(task != m_task);
    }
    menu->addSeparator();
    auto* exportSel = menu->addAction(tr("&Export the selected rows (CSV)…"), this, [this] {
        const QString p = QFileDialog::getSaveFileName(this, tr("Export the selected evaluations"), QStringLiteral("evaluations.csv"),
                                                       tr("CSV (*.csv)"));
        if (!p.isEmpty())
            exportCsv(p, false);
    });
    exportSel->setEnabled(!ids.isEmpty());
    auto* exportAll = menu->addAction(tr("Export &all %1 matching rows (CSV)…").arg(QLocale().toString(qMax<qint64>(0, m_model->totalCount()))),
                                      this, [this] {
                                          const QString p = QFileDialog::getSaveFileName(this, tr("Export the matching evaluations"),
                                                                                         QStringLiteral("evaluations.csv"), tr("CSV (*.csv)"));
                                          if (!p.isEmpty())
                                              exportCsv(p, true);
                                      });
    exportAll->setEnabled(!m_model->database().isEmpty() && m_model->totalCount() > 0);
    return menu;
}

bool ResultsView::exportCsv(const QString& path, bool all)
{
    const QList<qint64> ids = all ? QList<qint64>() : selectedEvaluationIds();
    if (m_model->database().isEmpty() || (!all && ids.isEmpty()))
        return false;
    const QString db = m_model->database();
    const EvaluationFilter f = m_model->filter();
    const int col = m_model->sortColumn();
    const Qt::SortOrder order = m_model->sortOrder();
    auto* watcher = new QFutureWatcher<QPair<qint64, QString>>(this);
    connect(watcher, &QFutureWatcher<QPair<qint64, QString>>::finished, this, [this, watcher, path] {
        const auto r = watcher->result();
        watcher->deleteLater();
        emit exportFinished(path, r.first, r.second);
    });
    watcher->setFuture(EvaluationTableModel::writeCsvAsync(db, f, col, order, ids, path));
    return true;
}

}  // namespace kbx::gui
