// SPDX-License-Identifier: MIT
#include "chartpanel.h"

#include "chartdata.h"
#include "figureexport.h"
#include "figurerenderer.h"

#include <QApplication>
#include <QComboBox>
#include <QFileDialog>
#include <QMessageBox>
#include <QFileInfo>
#include <QFutureWatcher>
#include <QHBoxLayout>
#include <QLabel>
#include <QMenu>
#include <QToolButton>
#include <QVBoxLayout>
#include <QtConcurrent/QtConcurrentRun>

namespace kbx::gui {
namespace {

namespace an = kbx::analysis;

/// The footer's note on a bounded figure, e.g. " · drawn: the latest 8 of 2,866 rounds (choose a round for another)".
QString roundsNote(std::size_t roundsBefore)
{
    if (roundsBefore == 0)
        return {};
    return QCoreApplication::translate("ChartPanel", " · drawn: the latest %1 of %L2 rounds (choose a round for another)")
        .arg(kMaxDrawnRounds)
        .arg(roundsBefore);
}

/// Figures drawn from the statistics bundle (Datasets::stats: bootstrap CIs of every group, the
/// deviance analysis, cohorts, kernels across GPUs), computed only when such a figure is shown or
/// after the first figure is on screen (issue 24: the Charts tab's first figure at 1M in seconds).
unsigned statisticsOf(const QString& figure)
{
    const QString kind = figureKind(figure);
    if (kind == QLatin1String("method-summary"))
        return kbx::stats::BundleMethods;
    if (kind == QLatin1String("deviance"))
        return kbx::stats::BundleDeviance;
    if (kind == QLatin1String("rescued"))
        return kbx::stats::BundleRescued;
    if (kind == QLatin1String("cross-hardware") || kind == QLatin1String("slow-fraction"))
        return kbx::stats::BundleCross;
    return 0;
}

bool needsStatistics(const QString& figure)
{
    return statisticsOf(figure) != 0;
}

Provenance provenanceFor(const QString& db, const an::Datasets& d)
{
    Provenance p;
    p.database = QFileInfo(db).absoluteFilePath();
    p.filters = QString::fromStdString(d.filters.describe());
    p.counting = countingText(d);
    for (auto id : d.runs)
        p.runs << qint64(id);
    p.version = kbxVersion();
    p.date = QDateTime::currentDateTimeUtc();
    return p;
}

}  // namespace

struct ChartPanel::Private {
    QString db;
    QString figure = QStringLiteral("correctness_heatmap");
    bool loading = false;
    int generation = 0;
    bool deferred = false;  ///< setDatabase() while hidden in a shown window: reload() on show
    bool haveData = false;
    an::Datasets data;
    bool statisticsPending = false;  ///< the statistics of data are being computed
    std::size_t roundsBefore = 0;    ///< ChartData::roundsBefore of data
    an::Filters filters;
    std::unique_ptr<FigureRenderer> renderer = makeDefaultRenderer();
    QWidget* view = nullptr;
    QComboBox* figureBox = nullptr;
    QToolButton* methodButton = nullptr;
    QToolButton* categoryButton = nullptr;
    QComboBox* roundBox = nullptr;
    QComboBox* gpuBox = nullptr;
    QLabel* status = nullptr;
    QToolButton* exportButton = nullptr;  ///< its menu: one action per format (export_svg, ...)
    FigureOptions exportOptions;  ///< the export dialog's last choices
    bool updatingChoices = false;
};

ChartPanel::ChartPanel(QWidget* parent) : QWidget(parent), d(std::make_unique<Private>())
{
    auto* lay = new QVBoxLayout(this);
    auto* bar = new QHBoxLayout;
    d->figureBox = new QComboBox(this);
    d->figureBox->setObjectName(QStringLiteral("figureChooser"));
    // One entry per figure: the report names that draw another figure (category-method, rounds,
    // taxonomy) are not listed twice under the same title; setCurrentFigure() maps them.
    for (const auto& n : figureNames())
        if (figureKind(n) == n)
            d->figureBox->addItem(figureTitle(n), n);
    // The choosers shrink with the window (long figure titles and GPU names are elided), so that the
    // page fits beside the run dock on a 1366-pixel screen (issue 24, item 4).
    d->figureBox->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    d->figureBox->setMinimumContentsLength(18);
    bar->addWidget(new QLabel(tr("Figure:"), this));
    bar->addWidget(d->figureBox, 1);

    auto makeMulti = [this](const QString& label, const QString& name) {
        auto* b = new QToolButton(this);
        b->setObjectName(name);
        b->setText(label);
        b->setPopupMode(QToolButton::InstantPopup);
        b->setMenu(new QMenu(b));
        return b;
    };
    d->methodButton = makeMulti(tr("Methods: all"), QStringLiteral("methodFilter"));
    d->categoryButton = makeMulti(tr("Categories: all"), QStringLiteral("categoryFilter"));
    d->roundBox = new QComboBox(this);
    d->roundBox->setObjectName(QStringLiteral("roundFilter"));
    d->gpuBox = new QComboBox(this);
    d->gpuBox->setObjectName(QStringLiteral("gpuFilter"));
    d->gpuBox->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    d->gpuBox->setMinimumContentsLength(10);
    bar->addWidget(d->methodButton);
    bar->addWidget(d->categoryButton);
    bar->addWidget(new QLabel(tr("Round:"), this));
    bar->addWidget(d->roundBox);
    bar->addWidget(new QLabel(tr("GPU:"), this));
    bar->addWidget(d->gpuBox);
    lay->addLayout(bar);

    d->view = d->renderer->createView(this);
    d->view->setObjectName(QStringLiteral("figureView"));
    d->view->setMinimumSize(480, 320);
    d->renderer->setActivationHandler(d->view, [this](const QVariantMap& mark) {
        QVariantMap f = mark;
        if (!f.contains(QStringLiteral("gpu")) && d->filters.gpus.size() == 1)
            f.insert(QStringLiteral("gpu"), QString::fromStdString(d->filters.gpus.front()));
        if (!f.contains(QStringLiteral("round")) && d->filters.rounds.size() == 1)
            f.insert(QStringLiteral("round"), d->filters.rounds.front());
        emit filterRequested(f);
    });
    lay->addWidget(d->view, 1);

    auto* bottom = new QHBoxLayout;
    d->status = new QLabel(tr("No database"), this);
    d->status->setObjectName(QStringLiteral("status"));
    // The footer (counts, counting rule, filters) wraps: one long line widened the page past a laptop
    // screen beside the run dock (issue 24, item 4).
    d->status->setWordWrap(true);
    bottom->addWidget(d->status, 1);
    d->exportButton = makeExportButton();
    bottom->addWidget(d->exportButton, 0, Qt::AlignBottom);
    lay->addLayout(bottom);

    connect(d->figureBox, &QComboBox::currentIndexChanged, this, [this](int i) {
        d->figure = d->figureBox->itemData(i).toString();
        if (!d->haveData)
            return;
        if (needsStatistics(d->figure) && !d->data.stats) {
            // Drawn when the statistics (under way since the first figure) are there.
            if (!d->statisticsPending)
                reload();
            else
                d->status->setText(tr("Computing the statistics of %1 …").arg(QFileInfo(d->db).fileName()));
            return;
        }
        d->renderer->show(d->view, {d->figure, d->data, provenanceFor(d->db, d->data), false, {}});
        emit figureReady(d->figure);
    });
    auto filtersChanged = [this] {
        if (d->updatingChoices)
            return;
        auto collect = [](QToolButton* b) {
            std::vector<std::string> v;
            for (auto* a : b->menu()->actions())
                if (a->isChecked())
                    v.push_back(a->text().toStdString());
            return v;
        };
        d->filters.methods = collect(d->methodButton);
        d->filters.categories = collect(d->categoryButton);
        d->methodButton->setText(d->filters.methods.empty() ? tr("Methods: all") : tr("Methods: %1").arg(d->filters.methods.size()));
        d->categoryButton->setText(d->filters.categories.empty() ? tr("Categories: all")
                                                                 : tr("Categories: %1").arg(d->filters.categories.size()));
        d->filters.rounds.clear();
        if (d->roundBox->currentIndex() > 0)
            d->filters.rounds.push_back(d->roundBox->currentData().toInt());
        d->filters.gpus.clear();
        if (d->gpuBox->currentIndex() > 0)
            d->filters.gpus.push_back(d->gpuBox->currentText().toStdString());
        reload();
    };
    connect(d->roundBox, &QComboBox::currentIndexChanged, this, filtersChanged);
    connect(d->gpuBox, &QComboBox::currentIndexChanged, this, filtersChanged);
    connect(d->methodButton->menu(), &QMenu::triggered, this, filtersChanged);
    connect(d->categoryButton->menu(), &QMenu::triggered, this, filtersChanged);
}

ChartPanel::~ChartPanel() = default;

void ChartPanel::setDatabase(const QString& path)
{
    d->db = path;
    d->filters = {};
    d->haveData = false;
    if (window()->isVisible() && !isVisible()) {
        // Loaded when the panel is shown; a load under way (of an earlier database) is dropped.
        d->deferred = true;
        ++d->generation;
        d->loading = false;
        d->status->setText(tr("%1: the figures are computed when this tab is shown").arg(QFileInfo(d->db).fileName()));
        return;
    }
    d->deferred = false;
    reload();
}

void ChartPanel::showEvent(QShowEvent* event)
{
    QWidget::showEvent(event);
    if (d->deferred) {
        d->deferred = false;
        reload();
    }
}

QString ChartPanel::database() const { return d->db; }
QString ChartPanel::currentFigure() const { return d->figure; }

void ChartPanel::setCurrentFigure(const QString& name)
{
    const int i = d->figureBox->findData(figureKind(name));
    if (i >= 0)
        d->figureBox->setCurrentIndex(i);
}

bool ChartPanel::isLoading() const { return d->loading; }

void ChartPanel::reload()
{
    if (d->db.isEmpty()) {
        d->status->setText(tr("No database"));
        return;
    }
    const int gen = ++d->generation;
    const bool withChoices = !d->haveData;
    d->loading = true;
    d->statisticsPending = false;
    d->status->setText(tr("Loading %1 …").arg(QFileInfo(d->db).fileName()));
    d->exportButton->setEnabled(false);
    auto* watcher = new QFutureWatcher<ChartData>(this);
    connect(watcher, &QFutureWatcher<ChartData>::finished, this, [this, watcher, gen] {
        watcher->deleteLater();
        if (gen != d->generation)
            return;  // a newer load is under way
        d->loading = false;
        const ChartData r = watcher->result();
        if (!r.ok) {
            d->status->setText(tr("Cannot read %1: %2").arg(d->db, r.error));
            emit loadFailed(r.error);
            return;
        }
        if (!d->haveData) {
            d->updatingChoices = true;
            auto fill = [](QToolButton* b, const std::vector<std::string>& values) {
                b->menu()->clear();
                for (const auto& v : values) {
                    auto* a = b->menu()->addAction(QString::fromStdString(v));
                    a->setCheckable(true);
                }
            };
            fill(d->methodButton, r.choices.methods);
            fill(d->categoryButton, r.choices.categories);
            d->roundBox->clear();
            d->roundBox->addItem(tr("all"));
            for (int round : r.choices.rounds)
                d->roundBox->addItem(QString::number(round), round);
            d->gpuBox->clear();
            d->gpuBox->addItem(tr("all"));
            for (const auto& g : r.choices.gpus)
                d->gpuBox->addItem(QString::fromStdString(g));
            d->updatingChoices = false;
        }
        d->data = r.data;
        d->haveData = true;
        d->roundsBefore = r.roundsBefore;
        d->status->setText(footerText(r.data) + roundsNote(d->roundsBefore));
        d->status->setToolTip(countingToolTip());
        d->exportButton->setEnabled(true);
        d->renderer->show(d->view, {d->figure, d->data, provenanceFor(d->db, d->data), false, {}});
        emit figureReady(d->figure);
        if (!d->data.stats && r.facts) {
            // The statistics figures' data next, in the background, from the same rows.
            d->statisticsPending = true;
            auto* stats = new QFutureWatcher<std::shared_ptr<const kbx::stats::Bundle>>(this);
            connect(stats, &QFutureWatcher<std::shared_ptr<const kbx::stats::Bundle>>::finished, this, [this, stats, gen] {
                stats->deleteLater();
                if (gen != d->generation)
                    return;  // newer data since
                d->statisticsPending = false;
                d->data.stats = stats->result();
                if (needsStatistics(d->figure)) {
                    d->status->setText(footerText(d->data) + roundsNote(d->roundsBefore));
                    d->renderer->show(d->view, {d->figure, d->data, provenanceFor(d->db, d->data), false, {}});
                    emit figureReady(d->figure);
                }
            });
            stats->setFuture(QtConcurrent::run(loadChartStatistics, d->db, d->data.filters, r.facts));
        }
    });
    watcher->setFuture(QtConcurrent::run(loadChartData, d->db, d->filters, withChoices,
                                         needsStatistics(d->figure) ? unsigned(kbx::stats::BundleAll) : 0u, true));
}

QToolButton* ChartPanel::makeExportButton()
{
    // One Export button with the formats in its menu: five buttons side by side did not fit beside
    // the run dock on a 1366-pixel screen (issue 24, item 4: "Export LaTeX" was cut off).
    auto* button = new QToolButton(this);
    button->setObjectName(QStringLiteral("exportMenu"));
    button->setText(tr("Export"));
    button->setToolButtonStyle(Qt::ToolButtonTextOnly);
    button->setPopupMode(QToolButton::InstantPopup);
    button->setEnabled(false);
    auto* exportMenu = new QMenu(button);
    const QList<std::pair<QString, QString>> formats = {
        {tr("Figure as SVG…"), QStringLiteral("svg")}, {tr("Figure as PDF…"), QStringLiteral("pdf")},
        {tr("Figure as PNG…"), QStringLiteral("png")}, {tr("Data as CSV…"), QStringLiteral("csv")},
        {tr("Table as LaTeX…"), QStringLiteral("tex")}};
    for (const auto& [label, suffix] : formats) {
        auto* a = exportMenu->addAction(label);
        a->setObjectName(QStringLiteral("export_") + suffix);
        connect(a, &QAction::triggered, this, [this, suffix = suffix] { exportCurrent(suffix); });
    }
    button->setMenu(exportMenu);
    return button;
}

void ChartPanel::exportCurrent(const QString& suffix)
{
    if (!d->haveData || (needsStatistics(d->figure) && !d->data.stats))
        return;
    FigureInput input{d->figure, d->data, provenanceFor(d->db, d->data), false, {}};
    if (suffix == QLatin1String("svg") || suffix == QLatin1String("pdf") || suffix == QLatin1String("png")) {
        if (!askFigureOptions(this, d->renderer->preferredSize(input), &d->exportOptions))
            return;
        input.options = d->exportOptions;
    }
    const QString file = QFileDialog::getSaveFileName(this, tr("Export figure"), d->figure + QLatin1Char('.') + suffix,
                                                      QStringLiteral("*.") + suffix);
    if (file.isEmpty())
        return;
    QString error, warning;
    if (!exportFigureInput(*d->renderer, input, file, &error, &warning))
        d->status->setText(error);
    else if (!warning.isEmpty())
        QMessageBox::warning(this, tr("Export figure"), tr("Exported %1, but %2.").arg(file, warning));
    else
        d->status->setText(tr("Exported %1").arg(file));
}

QString ChartPanel::footerText(const kbx::analysis::Datasets& data)
{
    // "327 of 349 evaluations counted (latest evaluation of every submission ... per device) from 6 run(s) · filters"
    const QString counted = data.storedCount > 0 ? tr("%L1 of %L2 evaluations counted").arg(data.rowCount).arg(data.storedCount)
                                                 : tr("%L1 evaluations counted").arg(data.rowCount);
    return tr("%1 (%2) from %n run(s) · %3", nullptr, int(data.runs.size()))
        .arg(counted, QString::fromStdString(kbx::analysis::countingRule()), QString::fromStdString(data.filters.describe()));
}

QString ChartPanel::countingToolTip()
{
    return tr("Every figure, table and view counts the latest evaluation of every submission (task code, method, round) "
              "on each device once, as kbx report does: re-evaluations of the same submission on the same device "
              "replace the earlier ones, a submission evaluated on two devices counts once per device, and rounds "
              "count separately. The first number is what is counted, the second every stored evaluation under "
              "these filters.");
}

QStringList figureNames()
{
    return {QStringLiteral("correctness_heatmap"), QStringLiteral("compile_vs_correct"), QStringLiteral("speedup_box"),
            QStringLiteral("speedup_ecdf"),        QStringLiteral("fast_p"),             QStringLiteral("taxonomy_by_category"),
            QStringLiteral("taxonomy_by_method"),  QStringLiteral("round_trajectories"), QStringLiteral("method-summary"),
            QStringLiteral("category-method"),     QStringLiteral("deviance"),           QStringLiteral("rounds"),
            QStringLiteral("rescued"),             QStringLiteral("cross-hardware"),     QStringLiteral("slow-fraction"),
            QStringLiteral("taxonomy")};
}

bool exportFigure(const QString& name, const QString& dbPath, const QString& outFile, QString* error)
{
    return exportFigure(name, dbPath, outFile, {}, error);
}

bool exportFigure(const QString& name, const QString& dbPath, const QString& outFile, const kbx::analysis::Filters& filters, QString* error)
{
    return exportFigure(name, dbPath, outFile, filters, false, error);
}

bool exportFigure(const QString& name, const QString& dbPath, const QString& outFile, const kbx::analysis::Filters& filters,
                  bool provenanceLine, QString* error)
{
    return exportFigure(name, dbPath, outFile, filters, provenanceLine, FigureOptions{}, error);
}

bool exportFigure(const QString& name, const QString& dbPath, const QString& outFile, const kbx::analysis::Filters& filters,
                  bool provenanceLine, const FigureOptions& options, QString* error, QString* warning)
{
    auto fail = [error](const QString& m) {
        if (error)
            *error = m;
        return false;
    };
    if (!figureNames().contains(name))
        return fail(QStringLiteral("unknown figure '%1' (one of: %2)").arg(name, figureNames().join(QStringLiteral(", "))));
    const QString suffix = QFileInfo(outFile).suffix().toLower();
    const bool needsGui = suffix == QLatin1String("svg") || suffix == QLatin1String("pdf") || suffix == QLatin1String("png");
    if (needsGui && !qobject_cast<QApplication*>(QCoreApplication::instance()))
        return fail(QStringLiteral("exporting a figure needs a QApplication (QT_QPA_PLATFORM=offscreen works)"));
    const ChartData r = loadChartData(dbPath, filters, false, statisticsOf(name), needsGui);
    if (!r.ok)
        return fail(r.error);
    auto renderer = makeDefaultRenderer();
    return exportFigureInput(*renderer, {name, r.data, provenanceFor(dbPath, r.data), provenanceLine, options}, outFile, error, warning);
}

}  // namespace kbx::gui
