// SPDX-License-Identifier: MIT
// The speedup distributions on log axes: box plot, ECDF, fast_p, and the spread across GPUs.
#include "chartfigures.h"
#include "chartparts.h"

#include <QBarCategoryAxis>
#include <QBoxPlotSeries>
#include <QBoxSet>
#include <QLegend>
#include <QLineSeries>
#include <QLogValueAxis>
#include <QScatterSeries>
#include <QValueAxis>

#include <algorithm>
#include <cmath>

namespace kbx::gui::qtcharts {
namespace {

/// Log axis range covering values and 1x with some room.
std::pair<double, double> logRange(const std::vector<an::SpeedupSeries>& s)
{
    double lo = 1.0, hi = 1.0;
    for (const auto& x : s)
        for (double v : x.speedups) {
            lo = std::min(lo, v);
            hi = std::max(hi, v);
        }
    lo = std::pow(10.0, std::floor(std::log10(lo) - 1e-9));
    hi = std::pow(10.0, std::ceil(std::log10(hi) + 1e-9));
    return {lo, hi};
}

QLogValueAxis* logAxis(double lo, double hi, const QString& title)
{
    auto* a = new QLogValueAxis;
    a->setBase(10);
    // A hair wider than the decades, or Qt drops the label of the first one (rounding).
    a->setRange(lo * 0.999, hi * 1.001);
    a->setLabelFormat(QStringLiteral("%gx"));
    // Qt's own labels would read "1e-05x" beside "1000x": they keep their room but are not drawn;
    // decadeLabels() writes every decade in one plain format.
    a->setMinorTickCount(8);
    a->setMinorGridLineColor(QColor(240, 240, 240));
    styleAxis(a, title);
    a->setLabelsBrush(QBrush(Qt::transparent));  // after styleAxis, which colours the labels
    return a;
}

/// A decade's label, in one plain format for the whole axis: 0.0001x, 0.01x, 1x, 100x.
QString decadeLabel(double d, const QString& suffix)
{
    const int decimals = d < 1 ? int(std::lround(-std::log10(d))) : 0;
    return QString::number(d, 'f', decimals) + suffix;
}

/// Labels of a log axis made by logAxis(), one per decade from lo to hi: under a horizontal axis
/// (at y = otherAt) or left of a vertical one (at x = otherAt), in coordinates of series s.
void decadeLabels(FigureChart* c, QAbstractSeries* s, double lo, double hi, Qt::Orientation o, double otherAt,
                  const QString& suffix = QStringLiteral("x"))
{
    for (int e = int(std::floor(std::log10(lo))); e <= int(std::ceil(std::log10(hi))); ++e) {
        const double d = std::pow(10.0, e);
        if (d < lo * 0.999 || d > hi * 1.001)
            continue;
        if (o == Qt::Horizontal)
            c->annotate(s, {d, otherAt}, decadeLabel(d, suffix), style::textColour(), style::labelFont(), Annotation::Anchor::Below);
        else
            c->annotate(s, {otherAt, d}, decadeLabel(d, suffix), style::textColour(), style::labelFont(), Annotation::Anchor::LeftOf);
    }
}
}  // namespace

void speedupBox(FigureChart* c, const std::vector<an::SpeedupSeries>& s)
{
    auto [lo, hi] = logRange(s);
    auto* x = new QBarCategoryAxis;
    auto* y = logAxis(lo, hi, QStringLiteral("speedup over PyTorch (log scale)"));
    QStringList cats;
    for (const auto& m : s)
        cats << QStringLiteral("%1 (%2 timed)").arg(q(m.method)).arg(m.speedups.size());
    x->append(cats);
    styleAxis(x, QStringLiteral("method (correct kernels)"));
    turnLabels(x, int(cats.size()));
    c->addAxis(x, Qt::AlignBottom);
    c->addAxis(y, Qt::AlignLeft);
    auto* box = new QBoxPlotSeries;
    box->setName(QStringLiteral("speedup"));
    box->setBoxWidth(0.45);
    QBrush b(style::categorical(4));  // light: the black median reads on it
    box->setBrush(b);
    QPen pen(QColor(20, 20, 20));
    pen.setWidthF(1.3);
    box->setPen(pen);
    auto* outliers = new QScatterSeries;
    outliers->setName(QStringLiteral("outliers (beyond 1.5 IQR)"));
    outliers->setMarkerSize(7);
    outliers->setColor(Qt::white);
    outliers->setBorderColor(QColor(20, 20, 20));
    for (std::size_t i = 0; i < s.size(); ++i) {
        auto* set = new QBoxSet(cats[int(i)]);
        if (!s[i].speedups.empty()) {
            const auto st = an::boxStats(s[i].speedups);
            set->setValue(QBoxSet::LowerExtreme, st.lowerWhisker);
            set->setValue(QBoxSet::LowerQuartile, st.q1);
            set->setValue(QBoxSet::Median, st.median);
            set->setValue(QBoxSet::UpperQuartile, st.q3);
            set->setValue(QBoxSet::UpperExtreme, st.upperWhisker);
            for (double o : st.outliers)
                outliers->append(double(i), o);
            c->addHit(box, QRectF(double(i) - 0.225, st.lowerWhisker, 0.45, st.upperWhisker - st.lowerWhisker),
                      QStringLiteral("%1\n%2 timed correct kernels\nmedian %3x, quartiles %4x–%5x, range %6x–%7x")
                          .arg(q(s[i].method))
                          .arg(s[i].speedups.size())
                          .arg(st.median, 0, 'f', 2)
                          .arg(st.q1, 0, 'f', 2)
                          .arg(st.q3, 0, 'f', 2)
                          .arg(st.min, 0, 'f', 2)
                          .arg(st.max, 0, 'f', 2),
                      methodFilter(c->figureName(), q(s[i].method)));
        } else {
            for (int k = 0; k < 5; ++k)  // an invisible box at 1x keeps the category; the words say why
                set->setValue(k, 1.0);
            c->annotateInSlot(box, {double(i), std::sqrt(lo * hi) * 1.6},
                              {QStringLiteral("no data: no timed correct kernel"), QStringLiteral("no timed kernel"), QStringLiteral("no data")},
                              0.95, style::textColour(), style::labelFont());
        }
        box->append(set);
        if (s[i].speedups.empty()) {  // after append, which gives the set the series' pen
            set->setPen(QPen(Qt::transparent));
            set->setBrush(QBrush(Qt::transparent));
        }
    }
    attach(c, box, x, y);
    attach(c, outliers, x, y);
    auto* ref = segment(c, x, y, {-0.5, 1.0}, {double(s.size()) - 0.5, 1.0}, referencePen());
    decadeLabels(c, ref, lo, hi, Qt::Vertical, -0.5);
    c->legend()->hide();
}

void speedupEcdf(FigureChart* c, const std::vector<an::SpeedupSeries>& s)
{
    auto [lo, hi] = logRange(s);
    auto* x = logAxis(lo, hi, QStringLiteral("speedup over PyTorch (log scale)"));
    auto* y = rateAxis(QStringLiteral("fraction of timed correct kernels ≤ x"), false);
    c->addAxis(x, Qt::AlignBottom);
    c->addAxis(y, Qt::AlignLeft);
    int idx = 0;
    for (const auto& m : s) {
        if (m.speedups.empty()) {
            ++idx;
            continue;
        }
        auto* line = new QLineSeries;
        line->setName(QStringLiteral("%1 (n=%2)").arg(q(m.method)).arg(m.speedups.size()));
        const double n = double(m.speedups.size());
        line->append(lo, 0.0);
        for (std::size_t i = 0; i < m.speedups.size(); ++i) {
            line->append(m.speedups[i], double(i) / n);
            line->append(m.speedups[i], double(i + 1) / n);
        }
        line->append(hi, 1.0);
        line->setPen(style::linePen(idx++));
        attach(c, line, x, y);
        lineInteraction(c, line, line->name(), methodFilter(c->figureName(), q(m.method)));
    }
    auto* ref = segment(c, x, y, {1.0, 0.0}, {1.0, 1.0}, referencePen());  // 1x
    decadeLabels(c, ref, lo, hi, Qt::Horizontal, 0.0);
}

void fastPCurves(FigureChart* c, const std::vector<an::FastPCurve>& curves)
{
    double lo = 0.1, hi = 10.0;
    if (!curves.empty() && !curves.front().p.empty()) {
        lo = curves.front().p.front();
        hi = curves.front().p.back();
    }
    auto* x = logAxis(lo, hi, QStringLiteral("speedup threshold p (log scale)"));
    x->setLabelFormat(QStringLiteral("%g"));
    auto* y = rateAxis(QStringLiteral("fast_p: correct and speedup > p"), false);
    c->addAxis(x, Qt::AlignBottom);
    c->addAxis(y, Qt::AlignLeft);
    double top = 0.0;
    int idx = 0;
    for (const auto& curve : curves) {
        auto* line = new QLineSeries;
        line->setName(QStringLiteral("%1 (n=%2)").arg(q(curve.method)).arg(curve.n));
        for (std::size_t i = 0; i < curve.p.size(); ++i) {
            line->append(curve.p[i], curve.fraction[i]);
            top = std::max(top, curve.fraction[i]);
        }
        line->setPen(style::linePen(idx++));
        attach(c, line, x, y);
        lineInteraction(c, line, line->name(), methodFilter(c->figureName(), q(curve.method)));
    }
    // Rates are often small: zoom to the data, in steps of 0.1.
    const double yMax = std::min(1.0, std::max(0.1, std::ceil(top * 10.0 + 0.5) / 10.0));
    y->setRange(0, yMax);
    y->setTickCount(int(std::lround(yMax * 10.0)) + 1);
    auto* ref = segment(c, x, y, {1.0, 0.0}, {1.0, yMax}, referencePen());
    decadeLabels(c, ref, lo, hi, Qt::Horizontal, 0.0, QString());
}

void crossHardwareBoxes(FigureChart* c, const kbx::stats::CrossHardware& x)
{
    std::vector<an::SpeedupSeries> series;  // reuse the box layout: one box per distribution
    an::SpeedupSeries kernels;
    kernels.method = "kernels";
    for (const auto& k : x.kernels)
        kernels.speedups.push_back(k.spread);
    an::SpeedupSeries golden;
    golden.method = "golden";
    for (const auto& t : x.golden)
        golden.speedups.push_back(t.spread);
    std::sort(kernels.speedups.begin(), kernels.speedups.end());
    std::sort(golden.speedups.begin(), golden.speedups.end());
    series = {kernels, golden};
    auto [lo, hi] = logRange(series);
    lo = std::max(lo, 1.0);
    if (hi <= lo)
        hi = lo * 10;
    auto* xa = new QBarCategoryAxis;
    auto* ya = logAxis(lo, hi, QStringLiteral("max / min over GPUs (log scale)"));
    QStringList cats = {QStringLiteral("speedup: %1 kernels on %2 GPUs").arg(x.kernels.size()).arg(x.gpus.size()),
                        QStringLiteral("eager: %1 tasks on %2 GPUs").arg(x.golden.size()).arg(x.goldenGpus.size())};
    xa->append(cats);
    styleAxis(xa, QStringLiteral("speedup of the same kernel (code, method, round); eager time of the same task (golden timings)"));
    c->addAxis(xa, Qt::AlignBottom);
    c->addAxis(ya, Qt::AlignLeft);
    auto* box = new QBoxPlotSeries;
    box->setBoxWidth(0.4);
    box->setBrush(QBrush(style::categorical(4)));
    QPen pen(QColor(20, 20, 20));
    pen.setWidthF(1.3);
    box->setPen(pen);
    auto* outliers = new QScatterSeries;
    outliers->setMarkerSize(7);
    outliers->setColor(Qt::white);
    outliers->setBorderColor(QColor(20, 20, 20));
    for (std::size_t i = 0; i < series.size(); ++i) {
        auto* set = new QBoxSet(cats[int(i)]);
        if (!series[i].speedups.empty()) {
            const auto st = an::boxStats(series[i].speedups);
            set->setValue(QBoxSet::LowerExtreme, st.lowerWhisker);
            set->setValue(QBoxSet::LowerQuartile, st.q1);
            set->setValue(QBoxSet::Median, st.median);
            set->setValue(QBoxSet::UpperQuartile, st.q3);
            set->setValue(QBoxSet::UpperExtreme, st.upperWhisker);
            for (double o : st.outliers)
                outliers->append(double(i), o);
            c->annotate(box, {double(i) + 0.32, st.max}, QStringLiteral("max %1x").arg(st.max, 0, 'f', 2), style::textColour(),
                        style::labelFont());
        } else {
            // No data: an invisible box (the category keeps its place), and the words, never a line at 1x.
            for (int k = 0; k < 5; ++k)
                set->setValue(k, std::sqrt(lo * hi));
            c->annotate(box, {double(i), std::sqrt(lo * hi)},
                        i == 0 ? QStringLiteral("no data: no kernel timed on 2+ GPUs") : QStringLiteral("no data: no golden timings on 2+ GPUs"),
                        style::textColour(), style::labelFont());
        }
        box->append(set);
        if (series[i].speedups.empty()) {
            set->setPen(QPen(Qt::transparent));
            set->setBrush(QBrush(Qt::transparent));
        }
    }
    attach(c, box, xa, ya);
    attach(c, outliers, xa, ya);
    decadeLabels(c, box, lo, hi, Qt::Vertical, -0.5);
    c->legend()->hide();
}

}  // namespace kbx::gui::qtcharts
