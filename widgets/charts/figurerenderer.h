// SPDX-License-Identifier: MIT
#pragma once
// Our own figure interface: the panel and the exporters talk to FigureRenderer only, so the chart
// library (Qt Charts today, deprecated from Qt 6.10) can be replaced without touching them.

#include "analysis.h"

#include <QDateTime>
#include <QList>
#include <QVariantMap>
#include <QRectF>
#include <QSize>
#include <QString>
#include <QStringList>

#include <functional>
#include <memory>

class QPainter;
class QWidget;

namespace kbx::gui {

/// Where a figure's numbers come from; embedded in every export.
struct Provenance {
    QString database;
    QString filters;
    /// The counting rule with the counts, e.g. "latest evaluation of every submission (task code,
    /// method, round) per device: 327 of 349 evaluations" (countingText()).
    QString counting;
    QList<qint64> runs;  ///< only the runs with a counted evaluation
    QString version;  ///< kbx version
    QDateTime date;
    /// "database=...; runs=1,2; filters: ...; counted: ...; kbx 0.1.0; 2026-...Z"
    QString text() const;
};

/// The counting rule (kbx::analysis::countingRule()) with the datasets' counts: "<rule>: 327 of 349
/// evaluations" (or "<rule>: 327 evaluations" when the stored count is unknown).
QString countingText(const kbx::analysis::Datasets& data);

/// Size and type of an export (issue 24): the defaults give the renderer's preferred size at 9 pt.
struct FigureOptions {
    double widthPx = 0;   ///< logical pixels at 96 dpi (72 pt = 96 px); 0: from height and aspect, or preferred
    double heightPx = 0;  ///< 0: from width and aspect, or preferred
    double aspect = 0;    ///< width / height, used where only one of width and height (or neither) is given
    double fontPt = 0;    ///< base font size (tick labels, legend) in points; 0: 9 pt. Titles scale with it.
    bool title = true;    ///< draw the figure's title (papers put it in the caption)
    /// The size to draw at: width and height as given; a missing one from the aspect, else from the
    /// preferred shape; both missing: the preferred size (reshaped by the aspect when given).
    QSize resolve(const QSize& preferred) const;
};

/// One figure to draw: its stable name and the datasets.
struct FigureInput {
    QString name;
    kbx::analysis::Datasets data;
    Provenance provenance;
    bool provenanceLine = false;  ///< exports: print the provenance as a line under the figure
    FigureOptions options;
};

/// A text of a drawn figure and where it is (figure coordinates): for layout checks.
struct TextBox {
    QString text;
    QRectF rect;
    /// "axis" (tick labels and axis titles), "title", "legend", "cell" (heatmap cell values),
    /// "value" (numbers over bars) or "annotation".
    QString role;
    QRectF container;  ///< cells: the cell; values: the bar's slot; otherwise empty
};

/// What a click on a bar, cell, box or point asks the Results view to show (issue 24). Keys, each
/// present only where the mark has it: "figure" (the figure's name, always), "method" (without the
/// " · rN" suffix), "round" (int), "gpu", "category", "failureClass", "stage" ("call" or "exe"),
/// "reviewed" (bool: the reviewed taxonomy row).
using ActivationHandler = std::function<void(const QVariantMap& filter)>;

/// The figure a name draws: the report names that reuse a figure (category-method, rounds,
/// taxonomy) give that figure's name; every other name is its own kind.
QString figureKind(const QString& name);

/// Human title and axis titles of a figure (the same in every backend).
QString figureTitle(const QString& name);

/// The message a figure shows instead of a chart when it has nothing to show (empty string: it has data).
QString emptyMessage(const FigureInput& in);

class FigureRenderer {
public:
    virtual ~FigureRenderer() = default;
    virtual QString backendName() const = 0;
    /// Logical size (pixels at 96 dpi) the figure is designed for; exports use it.
    virtual QSize preferredSize(const FigureInput& in) const = 0;
    /// Paints the figure into target (logical pixels) of painter's device. GUI thread only.
    virtual void paint(QPainter* painter, const QRectF& target, const FigureInput& in) = 0;
    /// An interactive view for the panel, and showing a figure in it.
    virtual QWidget* createView(QWidget* parent) = 0;
    virtual void show(QWidget* view, const FigureInput& in) = 0;
    /// Called with the filter of a clicked mark in view (hover shows its numbers as a tooltip).
    virtual void setActivationHandler(QWidget* view, ActivationHandler handler) = 0;
    /// Every visible text of the figure drawn at size, with its box; for tests and layout checks.
    virtual QList<TextBox> textBoxes(const FigureInput& in, const QSize& size) = 0;
    /// What the figure drawn at size cannot show (labels elided for want of room), for the person
    /// exporting it; empty when everything shows.
    virtual QString crowdingWarning(const FigureInput& in, const QSize& size) = 0;
};

/// The Qt Charts implementation.
std::unique_ptr<FigureRenderer> makeQtChartsRenderer();
/// The renderer the workbench uses.
std::unique_ptr<FigureRenderer> makeDefaultRenderer();

}  // namespace kbx::gui
