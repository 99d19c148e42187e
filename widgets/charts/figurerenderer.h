// SPDX-License-Identifier: MIT
#pragma once
// Our own figure interface: the panel and the exporters talk to FigureRenderer only, so the chart
// library (Qt Charts today, deprecated from Qt 6.10) can be replaced without touching them.

#include "analysis.h"

#include <QDateTime>
#include <QList>
#include <QRectF>
#include <QSize>
#include <QString>
#include <QStringList>

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

/// One figure to draw: its stable name and the datasets.
struct FigureInput {
    QString name;
    kbx::analysis::Datasets data;
    Provenance provenance;
    bool provenanceLine = false;  ///< exports: print the provenance as a line under the figure
};

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
};

/// The Qt Charts implementation.
std::unique_ptr<FigureRenderer> makeQtChartsRenderer();
/// The renderer the workbench uses.
std::unique_ptr<FigureRenderer> makeDefaultRenderer();

}  // namespace kbx::gui
