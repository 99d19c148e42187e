// SPDX-License-Identifier: MIT
#pragma once
// The parts the Qt Charts figures share (kbx_charts internal): axes, reference lines, legends from
// series, label breaking, click filters and the texts of rates.
#include "figurechart.h"

#include <QGraphicsTextItem>
#include <QPen>
#include <QString>
#include <QStringList>
#include <QTextOption>
#include <QVariantMap>

#include <set>
#include <string>
#include <utility>

class QAbstractAxis;
class QBarCategoryAxis;
class QLineSeries;
class QValueAxis;

namespace kbx::gui::qtcharts {

/// The legend of c from its series (bar sets as filled boxes, named lines as lines with their dash),
/// where the figure did not write its own; Qt's legend (one row, elided) is never shown.
void legendFromSeries(FigureChart* c);

/// A text item of the figure (its title, a detached axis title): centred lines, no margin, above the plot.
QGraphicsTextItem* centredText(QGraphicsItem* parent, const QString& role, QTextOption::WrapMode wrap);
/// "method · r2" -> {"method", 2}; a name without the suffix keeps round -1.
std::pair<QString, int> splitRound(const QString& label);
/// The filter of a mark of method label (maybe "method · rN") in figure name.
QVariantMap methodFilter(const QString& figure, const QString& methodLabel);
/// "40.0% (4/10), 95% CI 16.8–68.7%", or "no evaluations".
QString pct(const an::Rate& r);
/// Hover and click on a line (ECDF, fast_p): its name as a tooltip, its method as the filter.
void lineInteraction(FigureChart* c, QLineSeries* line, const QString& tip, const QVariantMap& filter);

/// Title, fonts and colours of an axis in the figure style; labels never truncated.
void styleAxis(QAbstractAxis* a, const QString& title);
/// Adds s to c on axes x and y.
void attach(QChart* c, QAbstractSeries* s, QAbstractAxis* x, QAbstractAxis* y);
void hideFromLegend(QChart* c, QAbstractSeries* s);
/// A thin line from a to b, not in the legend (reference lines, interval whiskers).
QLineSeries* segment(QChart* c, QAbstractAxis* x, QAbstractAxis* y, QPointF a, QPointF b, const QPen& pen);
/// The dashed pen of reference lines (1x, 100 %).
QPen referencePen();
/// A rate axis from 0 to 100 % (percent) or 0 to 1.
QValueAxis* rateAxis(const QString& title, bool percent);
/// A value axis from 0 to a round value above `top`, with ticks on round values (a step of 1, 2, 2.5
/// or 5 times a power of ten) and as many decimals as the step needs: never "0.8x" for 0.75.
void niceAxis(QValueAxis* a, double top, const char* suffix);
/// c with empty axes and message in its plot area (a figure without data).
FigureChart* messageChart(FigureChart* c, const QString& message);

/// Width of the widest of texts in the label font.
int widest(const QStringList& texts);
/// Long labels are also broken in two lines ("method" over "r2 (n=40)"), which halves their length.
QString brokenLabel(const QString& label);
/// Category labels of a bar or box axis turned when there are many (more than `from`; long
/// "method · r2 (n=40)" labels stay whole and apart).
/// Upright, not slanted: Qt centres a turned label's box on its tick and hides the first one when
/// the box leaves the axis at the left, which a slanted long label always does.
void turnLabels(QBarCategoryAxis* x, int count, int from = 5);
/// Each category label of x in its broken form (brokenLabel), the whole ones kept for joinLabels.
/// Returns whether any label changed.
bool breakLabels(QBarCategoryAxis* x);
/// The whole labels back, one line each (after breakLabels): upright labels of many groups need a
/// line of width per group and line. Returns whether any label changed.
bool joinLabels(QBarCategoryAxis* x);
/// The room (pixels) upright labels take below a bar axis: the longest line of their broken form.
int turnedLabelsExtent(const QStringList& labels);
/// A GPU name short enough for a category label ("CPU (Triton interpreter)" -> "CPU", "NVIDIA H200" -> "H200").
QString shortGpu(const std::string& gpu);

/// GPU names in a figure's category labels and legends, as short as the figure's set of GPUs allows,
/// one level for all of them: the model ("A100", "RTX 4090", "H200", "CPU"), else the model and its
/// memory ("A100 80GB" beside "A100 40GB"), else shortGpu ("A100-SXM4-40GB" beside "A100-PCIE-40GB"),
/// else the whole name. Torch's names are long ("NVIDIA A100-SXM4-80GB") and left no room for the
/// rest of a label at paper sizes. Tooltips keep shortGpu's names, the provenance the whole ones.
class GpuLabels {
public:
    explicit GpuLabels(const std::set<std::string>& gpus);
    /// The label of gpu; one outside the set gets shortGpu's.
    QString operator()(const std::string& gpu) const;

private:
    std::set<std::string> m_gpus;
    int m_level = 2;
};

}  // namespace kbx::gui::qtcharts
