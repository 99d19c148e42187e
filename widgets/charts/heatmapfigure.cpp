// SPDX-License-Identifier: MIT
// The correctness heatmap: rates per category and method (call and exe), with its colour bar.
#include "chartfigures.h"
#include "chartparts.h"

#include <QAreaSeries>
#include <QCategoryAxis>
#include <QFontMetricsF>
#include <QLegend>
#include <QLineSeries>

#include <cmath>

namespace kbx::gui::qtcharts {
namespace {

QString heatmapColumnLabel(const std::string& method, bool exe, bool dense)
{
    const QString m = q(method).toHtmlEscaped();
    const QString stage = exe ? QStringLiteral("exe") : QStringLiteral("call");
    if (dense)
        return m + QStringLiteral(" · ") + stage;
    // One line per part (method, round, stage): narrow columns keep the whole method name.
    return QString(m).replace(QStringLiteral(" · "), QStringLiteral("<br>")) + QStringLiteral("<br>") + stage;
}
}  // namespace

void correctnessHeatmap(FigureChart* c, const an::CorrectnessMatrix& m)
{
    // Columns: per method "call" and "exe"; rows: categories top to bottom, then "All".
    const int cols = int(m.methods.size()) * 2;
    const int rowsN = int(m.categories.size()) + 1;
    const bool dense = cols > kDenseHeatmapColumns;
    auto* x = new QCategoryAxis;
    auto* y = new QCategoryAxis;
    x->setLabelsPosition(QCategoryAxis::AxisLabelsPositionCenter);
    y->setLabelsPosition(QCategoryAxis::AxisLabelsPositionCenter);
    for (std::size_t mi = 0; mi < m.methods.size(); ++mi) {
        x->append(heatmapColumnLabel(m.methods[mi], false, dense), double(2 * mi + 1));
        x->append(heatmapColumnLabel(m.methods[mi], true, dense), double(2 * mi + 2));
    }
    // QCategoryAxis wants increasing end values: "All" at the bottom (0..1), categories above it.
    y->append(QStringLiteral("All categories"), 1);
    for (int r = int(m.categories.size()) - 1; r >= 0; --r)
        y->append(q(m.categories[std::size_t(r)]), double(m.categories.size() - std::size_t(r) + 1));
    y->setRange(0, rowsN);
    x->setGridLineVisible(false);
    y->setGridLineVisible(false);
    styleAxis(x, QStringLiteral("method / stage"));
    styleAxis(y, QStringLiteral("category"));
    if (dense)
        x->setLabelsAngle(-90);
    c->addAxis(x, Qt::AlignBottom);
    c->addAxis(y, Qt::AlignLeft);
    c->legend()->hide();
    const QFont cellFont = style::labelFont();
    auto cell = [&](int col, int row, const an::Rate& rate, std::size_t mi, const QString& category) {
        // row: 0 = "All" at the bottom.
        auto* lo = new QLineSeries;
        auto* hi = new QLineSeries;
        lo->append(col, row);
        lo->append(col + 1, row);
        hi->append(col, row + 1);
        hi->append(col + 1, row + 1);
        auto* area = new QAreaSeries(hi, lo);
        const QColor fill = rate.n > 0 ? style::sequential(rate.value()) : QColor(235, 235, 235);
        area->setBrush(fill);
        QPen edge(Qt::white);
        edge.setWidthF(dense ? 1.0 : 1.5);
        area->setPen(edge);
        attach(c, area, x, y);
        const QString percent = QStringLiteral("%1%").arg(std::lround(100.0 * rate.value()));
        // The whole value where the cell has room, the percentage where it has less, none where
        // even that does not fit (the tooltip and the colour bar still give it).
        const QStringList texts = rate.n > 0 ? QStringList{QStringLiteral("%1 (%2/%3)").arg(percent).arg(rate.k).arg(rate.n), percent}
                                             : QStringList{QStringLiteral("–")};
        const QRectF box(col, row, 1, 1);
        c->annotateCell(area, box, texts, style::onColour(fill), cellFont);
        const bool exe = col % 2 == 1;
        QVariantMap f = methodFilter(c->figureName(), q(m.methods[mi]));
        f.insert(QStringLiteral("stage"), exe ? QStringLiteral("exe") : QStringLiteral("call"));
        if (!category.isEmpty())
            f.insert(QStringLiteral("category"), category);
        c->addHit(area, box,
                  QStringLiteral("%1\n%2 · %3\n%4").arg(q(m.methods[mi]), category.isEmpty() ? QStringLiteral("all categories") : category,
                                                          exe ? QStringLiteral("correct (exe)") : QStringLiteral("compiles and runs (call)"),
                                                          pct(rate)),
                  f);
    };
    for (std::size_t ci = 0; ci < m.categories.size(); ++ci) {
        const int row = int(m.categories.size() - ci);
        for (std::size_t mi = 0; mi < m.methods.size(); ++mi) {
            cell(int(2 * mi), row, m.cells[ci][mi].call, mi, q(m.categories[ci]));
            cell(int(2 * mi + 1), row, m.cells[ci][mi].exe, mi, q(m.categories[ci]));
        }
    }
    for (std::size_t mi = 0; mi < m.methods.size(); ++mi) {
        cell(int(2 * mi), 0, m.totals[mi].call, mi, QString());
        cell(int(2 * mi + 1), 0, m.totals[mi].exe, mi, QString());
    }
    // The colour bar: the rate each colour stands for, right of the cells (grey: no evaluation). Its
    // width in column units: dense columns are narrow, so the bar takes more of them.
    const double barLeft = cols + (dense ? 0.5 : 0.2), barRight = cols + (dense ? 1.3 : 0.4);
    constexpr int kSlices = 48;
    QAreaSeries* last = nullptr;
    for (int i = 0; i < kSlices; ++i) {
        auto* lo = new QLineSeries;
        auto* hi = new QLineSeries;
        const double y0 = rowsN * double(i) / kSlices, y1 = rowsN * double(i + 1) / kSlices;
        lo->append(barLeft, y0);
        lo->append(barRight, y0);
        hi->append(barLeft, y1);
        hi->append(barRight, y1);
        last = new QAreaSeries(hi, lo);
        const QColor colour = style::sequential((i + 0.5) / kSlices);
        last->setBrush(colour);
        last->setPen(QPen(colour, 1.0));  // no seams between the slices
        attach(c, last, x, y);
    }
    for (int pct : {0, 25, 50, 75, 100})
        c->annotate(last, QPointF(barRight, rowsN * pct / 100.0), QStringLiteral("%1%").arg(pct), style::textColour(), cellFont,
                    Annotation::Anchor::RightOf);
    // The tick labels (right of the bar) lie outside the plot area: fit() gives them a margin.
    const double range = barRight + (dense ? 0.1 : 0.05);
    x->setRange(0, range);
    // Upright column labels never overlap: at a size too small for the font, a smaller font.
    if (dense)
        c->setLayoutHook([x, range](FigureChart* ch) {
            const double colPx = ch->plotArea().width() / range;
            QFont f = x->labelsFont();  // only ever smaller (fit() may have made it smaller already)
            const double room = colPx - 1;
            if (QFontMetricsF(f).height() <= room)
                return false;
            f.setPixelSize(std::max(6, int(std::floor(room / 1.2))));
            if (x->labelsFont() == f)
                return false;
            x->setLabelsFont(f);
            return true;
        });
}

}  // namespace kbx::gui::qtcharts
