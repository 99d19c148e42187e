// SPDX-License-Identifier: MIT
#include "taskbrowser.h"

#include "facetmodel.h"
#include "tasktreemodel.h"

#include "catalogue.h"

#include <QComboBox>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QKeyEvent>
#include <QLabel>
#include <QLineEdit>
#include <QLocale>
#include <QPainter>
#include <QSortFilterProxyModel>
#include <QSplitter>
#include <QStyledItemDelegate>
#include <QTextBrowser>
#include <QTreeView>
#include <QVBoxLayout>

#include <utility>

namespace kbx::gui {

namespace {

QString esc(const std::string& s)
{
    return QString::fromStdString(s).toHtmlEscaped();
}

QString fmtNum(double v)
{
    return QString::number(v, 'g', 4);
}

/// Draws the pass rate as a bar behind the text.
class RateDelegate : public QStyledItemDelegate {
public:
    using QStyledItemDelegate::QStyledItemDelegate;
    void paint(QPainter* p, const QStyleOptionViewItem& opt, const QModelIndex& idx) const override
    {
        const QVariant rate = idx.data(idx.column() == TaskTreeModel::CallColumn ? TaskTreeModel::CallRateRole : TaskTreeModel::PassRateRole);
        if (rate.isValid()) {
            QRect r = opt.rect.adjusted(2, 3, -2, -3);
            r.setWidth(int(r.width() * rate.toDouble()));
            const double v = rate.toDouble();
            QColor c = QColor::fromHsvF(float(v * 0.33), 0.55f, 0.85f);
            c.setAlpha(140);
            p->fillRect(r, c);
        }
        QStyledItemDelegate::paint(p, opt, idx);
    }
};

/// Filters on the task name or the category; a matching category shows all its tasks.
class TaskFilterProxy : public QSortFilterProxyModel {
public:
    using QSortFilterProxyModel::QSortFilterProxyModel;
};

}  // namespace

TaskPage::TaskPage(QWidget* parent) : QWidget(parent), m_browser(new QTextBrowser)
{
    m_browser->setOpenLinks(false);
    m_browser->setObjectName(QStringLiteral("taskPage"));
    auto* l = new QVBoxLayout(this);
    l->setContentsMargins(0, 0, 0, 0);
    l->addWidget(m_browser);
    connect(m_browser, &QTextBrowser::anchorClicked, this, [this](const QUrl& url) {
        if (url.scheme() == QLatin1String("kbx-reference"))
            emit showReferenceRequested(m_taskId);
    });
    m_browser->setHtml(tr("<p>Choose a task on the left.</p>"));
}

QString TaskPage::html() const
{
    return m_browser->toHtml();
}

void TaskPage::showCategory(const QString& category, int tasks, const QString& statsLine)
{
    m_taskId.clear();
    m_browser->setHtml(QStringLiteral("<h2>%1</h2><p>%2</p><p>%3</p>")
                           .arg(category.toHtmlEscaped(), tr("%n task(s)", nullptr, tasks), statsLine.toHtmlEscaped()));
}

void TaskPage::showHidden(const QString& id)
{
    m_taskId.clear();
    m_browser->setHtml(tr("<p><i>%1</i> is hidden by the filter. Choose a task on the left, or clear the filter to "
                          "see it again.</p>")
                           .arg(id.toHtmlEscaped()));
}

void TaskPage::showTask(const kbx::TaskInfo* t, const QString& statsLine)
{
    if (!t) {
        m_taskId.clear();
        m_browser->setHtml(tr("<p>Choose a task on the left.</p>"));
        return;
    }
    m_taskId = QString::fromStdString(t->id);
    QString h;
    h += QStringLiteral("<h2>%1</h2>").arg(esc(t->id));
    h += QStringLiteral("<p><b>%1</b> %2 &nbsp; <b>%3</b> %4 &nbsp; <b>%5</b> %6</p>")
             .arg(tr("Category"), esc(t->category), tr("Difficulty"), QString::number(t->difficulty), tr("Entry"), esc(t->entry));
    if (!statsLine.isEmpty())
        h += QStringLiteral("<p><i>%1</i></p>").arg(statsLine.toHtmlEscaped());
    h += QStringLiteral("<h3>%1</h3><pre>%2</pre>").arg(tr("Signature"), esc(t->signature));
    h += QStringLiteral("<h3>%1</h3><p>%2</p>").arg(tr("Description"), esc(t->description).replace(QLatin1Char('\n'), QLatin1String("<br>")));
    h += QStringLiteral("<h3>%1</h3>").arg(tr("Precision contract"));
    h += QStringLiteral("<p><b>%1</b> %2").arg(tr("Comparison:"), esc(t->comparison));
    if (!t->oracle.empty())
        h += QStringLiteral(" &nbsp; <b>%1</b> %2").arg(tr("Oracle:"), esc(t->oracle));
    h += QStringLiteral(" &nbsp; <b>TF32:</b> %1</p>").arg(t->tf32 ? tr("allowed (error budget)") : tr("no"));
    if (!t->tolerance.empty()) {
        h += QStringLiteral("<table border='1' cellspacing='0' cellpadding='3'><tr><th>dtype</th><th>atol</th><th>rtol</th></tr>");
        for (const auto& [dtype, tol] : t->tolerance)
            h += QStringLiteral("<tr><td>%1</td><td>%2</td><td>%3</td></tr>").arg(esc(dtype), fmtNum(tol.atol), fmtNum(tol.rtol));
        h += QStringLiteral("</table>");
    }
    if (!t->toleranceNote.empty())
        h += QStringLiteral("<p><b>%1</b> %2</p>").arg(tr("Tolerance:"), esc(t->toleranceNote));
    if (!t->quantization.is_null())
        h += QStringLiteral("<p><b>%1</b> <code>%2</code></p>").arg(tr("Quantization metrics:"), esc(t->quantization.dump()));
    if (!t->uniform.is_null())
        h += QStringLiteral("<p><b>%1</b> <code>%2</code></p>").arg(tr("Distribution check (uniform):"), esc(t->uniform.dump()));
    h += QStringLiteral("<p>%1</p>").arg(tr("%n correctness case(s) per seed", nullptr, t->caseCount));
    h += QStringLiteral("<h3>%1</h3>").arg(tr("Perf shapes"));
    if (t->perfShapes.is_array() && !t->perfShapes.empty()) {
        h += QStringLiteral("<ol>");
        for (const auto& s : t->perfShapes)
            h += QStringLiteral("<li><code>%1</code></li>").arg(esc(s.dump()));
        h += QStringLiteral("</ol>");
    } else {
        h += tr("<p>none</p>");
    }
    h += QStringLiteral("<p><a href='kbx-reference:%1'>%2</a> &nbsp; <small>%3</small></p>")
             .arg(m_taskId.toHtmlEscaped(), tr("Show the reference source"), esc(t->file));
    m_browser->setHtml(h);
}

TaskBrowser::TaskBrowser(QWidget* parent)
    : QWidget(parent), m_model(new TaskTreeModel(this)), m_proxy(new TaskFilterProxy(this)),
      m_methods(new FacetListModel(FacetListModel::Method, this)), m_rounds(new FacetListModel(FacetListModel::Round, this)),
      m_filter(new QLineEdit), m_method(new QComboBox), m_round(new QComboBox), m_device(new QComboBox), m_tree(new QTreeView),
      m_counting(new QLabel), m_page(new TaskPage)
{
    QString err;
    if (!m_model->loadCatalogue({}, &err))
        m_page->browser()->setPlainText(tr("The task catalogue could not be read: %1").arg(err));
    m_proxy->setSourceModel(m_model);
    m_proxy->setRecursiveFilteringEnabled(true);
    m_proxy->setAutoAcceptChildRows(true);
    m_proxy->setFilterCaseSensitivity(Qt::CaseInsensitive);
    m_proxy->setFilterKeyColumn(TaskTreeModel::NameColumn);

    m_filter->setPlaceholderText(tr("Filter tasks (name or category)…"));
    m_filter->setClearButtonEnabled(true);
    m_filter->setObjectName(QStringLiteral("taskFilter"));
    m_method->setModel(m_methods);
    m_round->setModel(m_rounds);
    m_method->setToolTip(tr("Method whose pass rates are shown"));
    m_round->setToolTip(tr("Round whose pass rates are shown"));
    m_device->setObjectName(QStringLiteral("taskDevice"));
    m_device->setToolTip(tr("Device (GPU model, or the CPU interpreter) whose evaluations are counted; verdicts of "
                            "different devices are counted separately, never in place of each other"));
    m_device->setSizeAdjustPolicy(QComboBox::AdjustToContents);
    m_device->addItem(tr("All devices"));
    m_counting->setObjectName(QStringLiteral("taskCounting"));
    m_counting->setWordWrap(true);
    m_counting->setToolTip(tr("The counting rule of every view, table and figure, and of kbx report: re-evaluations of "
                              "a submission on the same device replace the earlier ones; a submission evaluated on two "
                              "devices counts once per device; rounds count separately."));

    m_tree->setModel(m_proxy);
    m_tree->setObjectName(QStringLiteral("taskTree"));
    m_tree->setUniformRowHeights(true);
    m_tree->setAlternatingRowColors(true);
    m_tree->setItemDelegateForColumn(TaskTreeModel::CallColumn, new RateDelegate(m_tree));
    m_tree->setItemDelegateForColumn(TaskTreeModel::PassColumn, new RateDelegate(m_tree));
    m_tree->header()->setStretchLastSection(false);
    m_tree->header()->setSectionResizeMode(TaskTreeModel::NameColumn, QHeaderView::Stretch);
    for (int c = 1; c < TaskTreeModel::ColumnCount; ++c)
        m_tree->header()->setSectionResizeMode(c, QHeaderView::ResizeToContents);

    auto* left = new QWidget;
    auto* ll = new QVBoxLayout(left);
    ll->setContentsMargins(0, 0, 0, 0);
    ll->addWidget(m_filter);
    auto* facets = new QHBoxLayout;
    facets->addWidget(new QLabel(tr("Method")));
    facets->addWidget(m_method, 1);
    facets->addWidget(new QLabel(tr("Round")));
    facets->addWidget(m_round);
    facets->addWidget(new QLabel(tr("Device")));
    facets->addWidget(m_device);
    ll->addLayout(facets);
    ll->addWidget(m_tree, 1);
    ll->addWidget(m_counting);

    auto* split = new QSplitter(Qt::Horizontal);
    split->addWidget(left);
    split->addWidget(m_page);
    split->setStretchFactor(0, 3);
    split->setStretchFactor(1, 2);
    auto* l = new QVBoxLayout(this);
    l->setContentsMargins(4, 4, 4, 4);
    l->addWidget(split);

    connect(m_filter, &QLineEdit::textChanged, this, &TaskBrowser::onFilterChanged);
    connect(m_tree->selectionModel(), &QItemSelectionModel::currentChanged, this, &TaskBrowser::onCurrentChanged);
    connect(m_tree, &QTreeView::doubleClicked, this, [this](const QModelIndex& idx) {
        if (idx.isValid() && !idx.data(TaskTreeModel::IsCategoryRole).toBool())
            emit evaluationsRequested(idx.data(TaskTreeModel::TaskIdRole).toString());
    });
    m_tree->installEventFilter(this);
    // Reloading the facets (new results) keeps the chosen method and round.
    for (auto [box, facets] : {std::pair{m_method, m_methods}, std::pair{m_round, m_rounds}}) {
        // The combo box's own reaction to the reset (back to row 0) must not reach the model.
        connect(facets, &FacetListModel::modelAboutToBeReset, box, [box] {
            box->setProperty("kbxKeep", box->currentIndex() > 0 ? box->currentText() : QString());
            box->blockSignals(true);
        });
        connect(facets, &FacetListModel::loaded, this, [this, box] {
            const QString keep = box->property("kbxKeep").toString();
            box->setCurrentIndex(keep.isEmpty() ? 0 : qMax(0, box->findText(keep)));
            box->blockSignals(false);
            onFacetsChanged();
        });
    }
    connect(m_method, &QComboBox::currentIndexChanged, this, &TaskBrowser::onFacetsChanged);
    connect(m_round, &QComboBox::currentIndexChanged, this, &TaskBrowser::onFacetsChanged);
    connect(m_device, &QComboBox::currentIndexChanged, this, &TaskBrowser::onFacetsChanged);
    connect(m_model, &TaskTreeModel::statsReady, this, &TaskBrowser::onStatsReady);
    connect(m_page, &TaskPage::showReferenceRequested, this, &TaskBrowser::showReferenceRequested);
}

int TaskBrowser::visibleTaskCount() const
{
    int n = 0;
    for (int c = 0; c < m_proxy->rowCount(); ++c)
        n += m_proxy->rowCount(m_proxy->index(c, 0));
    return n;
}

void TaskBrowser::setDatabase(const QString& path)
{
    m_methods->setDatabase(path);
    m_rounds->setDatabase(path);
    m_model->setDatabase(path);
}

void TaskBrowser::refresh()
{
    m_methods->reload();
    m_rounds->reload();
    m_model->refresh();
}

void TaskBrowser::onFacetsChanged()
{
    m_model->setMethod(m_methods->valueAt(m_method->currentIndex()).toString());
    const QVariant r = m_rounds->valueAt(m_round->currentIndex());
    m_model->setRound(r.isValid() ? r.toInt() : -1);
    m_model->setGpu(m_device->currentIndex() > 0 ? m_device->currentText() : QString());
}

void TaskBrowser::onStatsReady()
{
    // The devices of this database; the chosen one stays chosen while the database has it.
    const QString keep = m_device->currentIndex() > 0 ? m_device->currentText() : QString();
    QStringList now;
    for (int i = 1; i < m_device->count(); ++i)
        now << m_device->itemText(i);
    if (now != m_model->devices()) {
        m_device->blockSignals(true);
        m_device->clear();
        m_device->addItem(tr("All devices"));
        m_device->addItems(m_model->devices());
        m_device->setCurrentIndex(keep.isEmpty() ? 0 : qMax(0, m_device->findText(keep)));
        m_device->blockSignals(false);
        if (m_device->currentIndex() == 0 && !keep.isEmpty())
            onFacetsChanged();  // the chosen device is gone: count all
    }
    const TaskStats t = m_model->totalStats();
    QString scope = scopeText();
    scope[0] = scope[0].toUpper();
    m_counting->setText((t.evaluated == 1 ? tr("%1: %2 evaluation counted — the %3, as kbx report and Charts count.")
                                          : tr("%1: %2 evaluations counted — the %3, as kbx report and Charts count."))
                            .arg(scope, QLocale().toString(t.evaluated), TaskTreeModel::countingRule()));
    const QModelIndex cur = m_proxy->mapToSource(m_tree->currentIndex());
    if (cur.isValid())
        showIndex(cur);
}

QString TaskBrowser::scopeText() const
{
    return QStringLiteral("%1, %2, %3")
        .arg(m_model->method().isEmpty() ? tr("all methods") : tr("method %1").arg(m_model->method()),
             m_model->round() < 0 ? tr("all rounds") : tr("round %1").arg(m_model->round()),
             m_model->gpu().isEmpty() ? tr("all devices") : m_model->gpu());
}

void TaskBrowser::onFilterChanged(const QString& text)
{
    // While the proxy refilters, the selection model moves the current index to whatever row is left
    // (select relu, type "s": the current row becomes selu); those moves are not the user's choice.
    m_filtering = true;
    m_proxy->setFilterFixedString(text.trimmed());
    if (!text.trimmed().isEmpty())
        m_tree->expandAll();
    const QModelIndex src = sourceIndexOfChoice();
    const QModelIndex idx = m_proxy->mapFromSource(src);
    if (idx.isValid()) {
        m_tree->selectionModel()->setCurrentIndex(idx, QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
        m_tree->scrollTo(idx);
    } else {
        m_tree->selectionModel()->clearCurrentIndex();
        m_tree->selectionModel()->clearSelection();
    }
    m_filtering = false;
    if (idx.isValid())
        showIndex(src);
    else if (!m_chosen.isEmpty())
        m_page->showHidden(m_chosen);
}

QModelIndex TaskBrowser::sourceIndexOfChoice() const
{
    if (m_chosen.isEmpty())
        return {};
    if (!m_chosenIsCategory)
        return m_model->indexOfTask(m_chosen);
    for (int c = 0; c < m_model->rowCount(); ++c)
        if (m_model->index(c, 0).data(TaskTreeModel::TaskIdRole).toString() == m_chosen)
            return m_model->index(c, 0);
    return {};
}

bool TaskBrowser::eventFilter(QObject* watched, QEvent* event)
{
    if (watched == m_tree && event->type() == QEvent::KeyPress) {
        const auto* k = static_cast<QKeyEvent*>(event);
        if (k->key() == Qt::Key_Return || k->key() == Qt::Key_Enter) {
            const QModelIndex idx = m_tree->currentIndex();
            if (idx.isValid() && !idx.data(TaskTreeModel::IsCategoryRole).toBool()) {
                emit evaluationsRequested(idx.data(TaskTreeModel::TaskIdRole).toString());
                return true;
            }
        }
    }
    return QWidget::eventFilter(watched, event);
}

bool TaskBrowser::selectTask(const QString& taskId)
{
    const QModelIndex src = m_model->indexOfTask(taskId);
    const QModelIndex idx = m_proxy->mapFromSource(src);
    if (!idx.isValid())
        return false;
    m_tree->expand(idx.parent());
    m_tree->setCurrentIndex(idx);
    m_tree->scrollTo(idx);
    return true;
}

QString TaskBrowser::currentTaskId() const
{
    const QModelIndex idx = m_tree->currentIndex();
    if (!idx.isValid() || idx.data(TaskTreeModel::IsCategoryRole).toBool())
        return {};
    return idx.data(TaskTreeModel::TaskIdRole).toString();
}

void TaskBrowser::onCurrentChanged()
{
    if (m_filtering)
        return;
    const QModelIndex idx = m_proxy->mapToSource(m_tree->currentIndex());
    if (!idx.isValid())
        return;
    const QModelIndex name = m_model->index(idx.row(), 0, idx.parent());
    m_chosen = name.data(TaskTreeModel::TaskIdRole).toString();
    m_chosenIsCategory = name.data(TaskTreeModel::IsCategoryRole).toBool();
    showIndex(idx);
    if (!m_chosenIsCategory)
        emit taskSelected(m_chosen);
}

void TaskBrowser::showIndex(const QModelIndex& idx)
{
    const QModelIndex name = m_model->index(idx.row(), 0, idx.parent());
    const QString id = name.data(TaskTreeModel::TaskIdRole).toString();
    const bool isCat = name.data(TaskTreeModel::IsCategoryRole).toBool();
    const TaskStats s = isCat ? m_model->categoryStats(id) : m_model->taskStats(id);
    const QString scope = scopeText();
    const QString stats = s.evaluated ? tr("%1: %2 evaluated, call %3%, pass %4%")
                                            .arg(scope)
                                            .arg(s.evaluated)
                                            .arg(100.0 * s.callOk / s.evaluated, 0, 'f', 1)
                                            .arg(100.0 * s.passed / s.evaluated, 0, 'f', 1)
                                      : tr("%1: no evaluations").arg(scope);
    if (isCat)
        m_page->showCategory(id, m_model->rowCount(name), stats);
    else
        m_page->showTask(m_model->task(id), stats);
}

}  // namespace kbx::gui
