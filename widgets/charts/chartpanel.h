// SPDX-License-Identifier: MIT
#pragma once
#include <QString>
#include <QStringList>
#include <QVariantMap>
#include <QWidget>

#include "analysis.h"

#include <memory>

class QToolButton;

namespace kbx::gui {

/// The figures panel of the workbench: a figure chooser (one entry per figure), filters (method,
/// round, GPU, category), the figure itself, a footer stating what is counted (the counting rule of
/// kbx report: latest evaluation of every submission per device) and export buttons (SVG, PDF, PNG,
/// CSV, LaTeX). Datasets are computed off the
/// GUI thread (QtConcurrent); the panel stays responsive while a large database is read.
class ChartPanel : public QWidget {
    Q_OBJECT
public:
    explicit ChartPanel(QWidget* parent = nullptr);
    ~ChartPanel() override;

    /// Opens (read-only use) the kbx database at path and reloads the current figure. In a shown
    /// window where the panel itself is hidden (another tab is current), the load waits until the
    /// panel is shown (issue 24: a million evaluations are not counted for a tab nobody looks at, nor
    /// again after every candidate of a run); a panel outside a shown window loads at once.
    void setDatabase(const QString& path);
    QString database() const;

    /// The figure shown now (one of figureNames()).
    QString currentFigure() const;
    void setCurrentFigure(const QString& name);

    /// True while a dataset is being computed in the background.
    bool isLoading() const;

    /// The footer under the figure: how many evaluations the figures count, of how many stored under
    /// the filters, by which rule (kbx::analysis::countingRule()), from how many runs, and the filters.
    static QString footerText(const kbx::analysis::Datasets& data);
    /// The footer's tooltip: the counting rule explained.
    static QString countingToolTip();

signals:
    /// Emitted on the GUI thread once the current figure has been (re)drawn from fresh data.
    void figureReady(const QString& name);
    /// Emitted when the database cannot be read; the panel shows the message too.
    void loadFailed(const QString& message);
    /// Drill-down (issue 24): a click on a bar, heatmap cell, box, point or line asks Results to show
    /// those evaluations. Keys (each only where the mark has it): "figure" (always), "method" (plain,
    /// without " · rN"), "round" (int), "gpu", "category", "failureClass", "stage" ("call"/"exe"),
    /// "reviewed" (bool). The panel's own single-valued filters (GPU, round) are added where the mark
    /// has none.
    void filterRequested(const QVariantMap& filter);

protected:
    void showEvent(QShowEvent* event) override;

private:
    struct Private;
    std::unique_ptr<Private> d;
    void reload();
    void exportCurrent(const QString& suffix);
    /// The Export button: its menu holds one action per format (export_svg, export_pdf, ...).
    QToolButton* makeExportButton();
};

/// The stable figure names: correctness_heatmap, compile_vs_correct, speedup_box, speedup_ecdf,
/// fast_p, taxonomy_by_category, taxonomy_by_method, round_trajectories, and the names of
/// `kbx report --figure` (issue #5): method-summary, category-method (= correctness_heatmap),
/// deviance, rounds (= round_trajectories), rescued, cross-hardware, slow-fraction, taxonomy
/// (= taxonomy_by_category).
QStringList figureNames();

/// Renders figure name from the database at dbPath (no filters) to outFile; the format follows the
/// suffix: .svg, .pdf, .png (figure) or .csv, .tex (the figure's table; LaTeX booktabs). Returns false
/// and sets *error (when given) on failure. Safe to call without a visible window (offscreen).
bool exportFigure(const QString& name, const QString& dbPath, const QString& outFile, QString* error);
/// The same under filters (method, round, GPU, category), as `kbx report --figure ... --method M` gives them.
bool exportFigure(const QString& name, const QString& dbPath, const QString& outFile, const kbx::analysis::Filters& filters, QString* error);
/// The same, with the provenance printed as a line under the figure when provenanceLine.
bool exportFigure(const QString& name, const QString& dbPath, const QString& outFile, const kbx::analysis::Filters& filters,
                  bool provenanceLine, QString* error);
struct FigureOptions;
/// The same at a size and font size (kbx-workbench --width --height --aspect --font-size --no-title);
/// *warning (when given): what the figure could not show at that size (exportFigureInput).
bool exportFigure(const QString& name, const QString& dbPath, const QString& outFile, const kbx::analysis::Filters& filters,
                  bool provenanceLine, const FigureOptions& options, QString* error, QString* warning = nullptr);

}  // namespace kbx::gui
