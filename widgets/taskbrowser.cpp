// SPDX-License-Identifier: MIT
#include "taskbrowser.h"

#include "facetmodel.h"
#include "tasktreemodel.h"

#include "catalogue.h"

#include <QComboBox>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
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
      m_filter(new QLineEdit), m_method(new QComboBox), m_round(new QComboBox), m_tree(new QTreeView), m_page(new TaskPage)
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
    ll->addLayout(facets);
    ll->addWidget(m_tree, 1);

    auto* split = new QSplitter(Qt::Horizontal);
    split->addWidget(left);
    split->addWidget(m_page);
    split->setStretchFactor(0, 3);
    split->setStretchFactor(1, 2);
    auto* l = new QVBoxLayout(this);
    l->setContentsMargins(4, 4, 4, 4);
    l->addWidget(split);

    connect(m_filter, &QLineEdit::textChanged, this, [this](const QString& t) {
        m_proxy->setFilterFixedString(t.trimmed());
        if (!t.trimmed().isEmpty())
            m_tree->expandAll();
    });
    connect(m_tree->selectionModel(), &QItemSelectionModel::currentChanged, this, &TaskBrowser::onCurrentChanged);
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
    connect(m_model, &TaskTreeModel::statsReady, this, &TaskBrowser::onCurrentChanged);
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
    const QModelIndex idx = m_proxy->mapToSource(m_tree->currentIndex());
    if (!idx.isValid())
        return;
    const QString id = m_model->index(idx.row(), 0, idx.parent()).data(TaskTreeModel::TaskIdRole).toString();
    const bool isCat = idx.data(TaskTreeModel::IsCategoryRole).toBool();
    const TaskStats s = isCat ? m_model->categoryStats(id) : m_model->taskStats(id);
    const QString scope = QStringLiteral("%1, %2")
                              .arg(m_model->method().isEmpty() ? tr("all methods") : tr("method %1").arg(m_model->method()),
                                   m_model->round() < 0 ? tr("all rounds") : tr("round %1").arg(m_model->round()));
    const QString stats = s.evaluated ? tr("%1: %2 evaluated, call %3%, pass %4%")
                                            .arg(scope)
                                            .arg(s.evaluated)
                                            .arg(100.0 * s.callOk / s.evaluated, 0, 'f', 1)
                                            .arg(100.0 * s.passed / s.evaluated, 0, 'f', 1)
                                      : tr("%1: no evaluations").arg(scope);
    if (isCat) {
        m_page->showCategory(id, m_model->rowCount(m_model->index(idx.row(), 0)), stats);
    } else {
        m_page->showTask(m_model->task(id), stats);
        if (sender() != m_model)
            emit taskSelected(id);
    }
}

}  // namespace kbx::gui
