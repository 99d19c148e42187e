// SPDX-License-Identifier: MIT
// FigureRenderer on Qt Charts. Everything Qt Charts specific lives in this file.
#include "figurerenderer.h"
#include "figurestyle.h"
#include "stats_tables.h"

#include <QAreaSeries>
#include <QBarCategoryAxis>
#include <QBarSeries>
#include <QBarSet>
#include <QBoxPlotSeries>
#include <QBoxSet>
#include <QCategoryAxis>
#include <QChart>
#include <QChartView>
#include <QGraphicsLayout>
#include <QGraphicsScene>
#include <QGraphicsSimpleTextItem>
#include <QHorizontalStackedBarSeries>
#include <QLegend>
#include <QLegendMarker>
#include <QLineSeries>
#include <QLogValueAxis>
#include <QPainter>
#include <QScatterSeries>
#include <QValueAxis>

#include <algorithm>
#include <array>
#include <cmath>
#include <map>
#include <set>

namespace kbx::gui {
namespace {

namespace an = kbx::analysis;

QString q(const std::string& s) { return QString::fromStdString(s); }

/// Text items placed in plot coordinates, re-placed whenever the plot area changes.
struct Annotation {
    QGraphicsSimpleTextItem* item;
    QPointF value;  ///< in series coordinates
    QAbstractSeries* series;
    /// Where the text sits: centred on the point, or (tick labels) right-aligned left of it, or below it.
    enum class Anchor { Centre, LeftOf, Below } anchor = Anchor::Centre;
};

class FigureChart : public QChart {
public:
    FigureChart()
    {
        setAnimationOptions(QChart::NoAnimation);
        setBackgroundRoundness(0);
        setBackgroundBrush(Qt::white);
        setMargins(QMargins(8, 8, 8, 8));
        setTitleFont(style::titleFont());
        setTitleBrush(QBrush(style::textColour()));
        legend()->setFont(style::legendFont());
        legend()->setAlignment(Qt::AlignBottom);
        legend()->setLabelColor(style::textColour());
        connect(this, &QChart::plotAreaChanged, this, [this](const QRectF&) { place(); });
    }
    void annotate(QAbstractSeries* s, QPointF at, const QString& text, const QColor& colour, const QFont& font,
                  Annotation::Anchor anchor = Annotation::Anchor::Centre)
    {
        auto* item = new QGraphicsSimpleTextItem(text, this);
        item->setFont(font);
        item->setBrush(colour);
        item->setZValue(20);
        m_annotations.push_back({item, at, s, anchor});
    }
    void setMessage(const QString& text)
    {
        m_message = new QGraphicsSimpleTextItem(text, this);
        m_message->setFont(style::messageFont());
        m_message->setBrush(style::textColour());
        m_message->setZValue(30);
    }
    void place()
    {
        for (auto& a : m_annotations) {
            const QPointF p = mapToPosition(a.value, a.series);
            const QRectF r = a.item->boundingRect();
            switch (a.anchor) {
            case Annotation::Anchor::Centre: a.item->setPos(p - QPointF(r.width() / 2, r.height() / 2)); break;
            case Annotation::Anchor::LeftOf: a.item->setPos(p - QPointF(r.width() + 9, r.height() / 2)); break;
            case Annotation::Anchor::Below: a.item->setPos(p + QPointF(-r.width() / 2, 6)); break;
            }
        }
        if (m_message) {
            const QRectF r = m_message->boundingRect();
            const QRectF area = plotArea().isValid() && plotArea().width() > 10 ? plotArea() : boundingRect();
            m_message->setPos(area.center() - QPointF(r.width() / 2, r.height() / 2));
        }
    }

private:
    std::vector<Annotation> m_annotations;
    QGraphicsSimpleTextItem* m_message = nullptr;
};

void styleAxis(QAbstractAxis* a, const QString& title)
{
    a->setTitleText(title);
    a->setTitleFont(style::axisTitleFont());
    a->setTitleBrush(QBrush(style::textColour()));
    a->setLabelsFont(style::labelFont());
    a->setLabelsColor(style::textColour());
    a->setLinePenColor(style::axisColour());
    a->setGridLineColor(style::gridColour());
}

void attach(QChart* c, QAbstractSeries* s, QAbstractAxis* x, QAbstractAxis* y)
{
    c->addSeries(s);
    s->attachAxis(x);
    s->attachAxis(y);
}

void hideFromLegend(QChart* c, QAbstractSeries* s)
{
    for (auto* m : c->legend()->markers(s))
        m->setVisible(false);
}

/// A thin line from a to b, not in the legend (reference lines, interval whiskers).
QLineSeries* segment(QChart* c, QAbstractAxis* x, QAbstractAxis* y, QPointF a, QPointF b, const QPen& pen)
{
    auto* s = new QLineSeries;
    s->append(a);
    s->append(b);
    s->setPen(pen);
    attach(c, s, x, y);
    hideFromLegend(c, s);
    return s;
}

QPen referencePen()
{
    QPen p(QColor(60, 60, 60));
    p.setWidthF(1.2);
    p.setStyle(Qt::DashLine);
    return p;
}

QValueAxis* rateAxis(const QString& title, bool percent)
{
    auto* a = new QValueAxis;
    a->setRange(0, percent ? 100 : 1);
    a->setTickCount(6);
    a->setLabelFormat(percent ? "%.0f%%" : "%.1f");
    styleAxis(a, title);
    return a;
}

/// A value axis from 0 to a round value above `top`, with ticks on round values (a step of 1, 2, 2.5
/// or 5 times a power of ten) and as many decimals as the step needs: never "0.8x" for 0.75.
void niceAxis(QValueAxis* a, double top, const char* suffix)
{
    top = std::isfinite(top) && top > 0 ? top : 1.0;
    const double raw = top / 5.0;
    const double mag = std::pow(10.0, std::floor(std::log10(raw)));
    double step = mag;
    for (double m : {1.0, 2.0, 2.5, 5.0, 10.0})
        if (m * mag >= raw - 1e-12) {
            step = m * mag;
            break;
        }
    const double hi = std::ceil(top / step - 1e-9) * step;
    int decimals = 0;
    while (decimals < 6 && std::abs(step * std::pow(10.0, decimals) - std::round(step * std::pow(10.0, decimals))) > 1e-9)
        ++decimals;
    a->setRange(0, hi);
    a->setTickCount(int(std::lround(hi / step)) + 1);
    a->setLabelFormat(QStringLiteral("%.%1f%2").arg(decimals).arg(QLatin1String(suffix)));
}

FigureChart* messageChart(FigureChart* c, const QString& message)
{
    // Axes so that the frame of a figure is still recognisable; the message sits in the plot area.
    auto* x = new QValueAxis;
    auto* y = new QValueAxis;
    x->setLabelsVisible(false);
    y->setLabelsVisible(false);
    x->setGridLineVisible(false);
    y->setGridLineVisible(false);
    styleAxis(x, QString());
    styleAxis(y, QString());
    c->addAxis(x, Qt::AlignBottom);
    c->addAxis(y, Qt::AlignLeft);
    c->legend()->hide();
    c->setMessage(message);
    return c;
}

// ---- figures ------------------------------------------------------------------------------------

void correctnessHeatmap(FigureChart* c, const an::CorrectnessMatrix& m)
{
    // Columns: per method "call" and "exe"; rows: categories top to bottom, then "All".
    const int cols = int(m.methods.size()) * 2;
    const int rowsN = int(m.categories.size()) + 1;
    auto* x = new QCategoryAxis;
    auto* y = new QCategoryAxis;
    x->setLabelsPosition(QCategoryAxis::AxisLabelsPositionCenter);
    y->setLabelsPosition(QCategoryAxis::AxisLabelsPositionCenter);
    for (std::size_t mi = 0; mi < m.methods.size(); ++mi) {
        // One line per part (method, round, stage): narrow columns keep the whole method name.
        const QString label = q(m.methods[mi]).toHtmlEscaped().replace(QStringLiteral(" · "), QStringLiteral("<br>"));
        x->append(label + QStringLiteral("<br>call"), double(2 * mi + 1));
        x->append(label + QStringLiteral("<br>exe"), double(2 * mi + 2));
    }
    x->setRange(0, cols);
    // QCategoryAxis wants increasing end values: "All" at the bottom (0..1), categories above it.
    y->append(QStringLiteral("All categories"), 1);
    for (int r = int(m.categories.size()) - 1; r >= 0; --r)
        y->append(q(m.categories[std::size_t(r)]), double(m.categories.size() - std::size_t(r) + 1));
    y->setRange(0, rowsN);
    x->setGridLineVisible(false);
    y->setGridLineVisible(false);
    styleAxis(x, QStringLiteral("method / stage"));
    styleAxis(y, QStringLiteral("category"));
    c->addAxis(x, Qt::AlignBottom);
    c->addAxis(y, Qt::AlignLeft);
    c->legend()->hide();
    QFont cellFont = style::labelFont();
    auto cell = [&](int col, int row, const an::Rate& rate) {
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
        edge.setWidthF(1.5);
        area->setPen(edge);
        attach(c, area, x, y);
        const QString text = rate.n > 0 ? QStringLiteral("%1% (%2/%3)").arg(std::lround(100.0 * rate.value())).arg(rate.k).arg(rate.n)
                                        : QStringLiteral("–");
        c->annotate(area, QPointF(col + 0.5, row + 0.5), text, style::onColour(fill), cellFont);
    };
    for (std::size_t ci = 0; ci < m.categories.size(); ++ci) {
        const int row = int(m.categories.size() - ci);
        for (std::size_t mi = 0; mi < m.methods.size(); ++mi) {
            cell(int(2 * mi), row, m.cells[ci][mi].call);
            cell(int(2 * mi + 1), row, m.cells[ci][mi].exe);
        }
    }
    for (std::size_t mi = 0; mi < m.methods.size(); ++mi) {
        cell(int(2 * mi), 0, m.totals[mi].call);
        cell(int(2 * mi + 1), 0, m.totals[mi].exe);
    }
    // The colour bar: the rate each colour stands for, right of the cells (grey: no evaluation).
    const double barLeft = cols + 0.2, barRight = cols + 0.4;
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
        c->annotate(last, QPointF(barRight + 0.28, rowsN * pct / 100.0), QStringLiteral("%1%").arg(pct), style::textColour(), cellFont);
    x->setRange(0, cols + 0.8);
}

void compileVsCorrect(FigureChart* c, const std::vector<an::MethodRates>& rates)
{
    auto* series = new QBarSeries;
    auto* call = new QBarSet(QStringLiteral("compiles and runs (call)"));
    auto* exe = new QBarSet(QStringLiteral("correct (exe)"));
    style::applyBar(call, 0);
    style::applyBar(exe, 1);
    QStringList cats;
    for (const auto& r : rates) {
        call->append(100.0 * r.call.value());
        exe->append(100.0 * r.exe.value());
        cats << QStringLiteral("%1 (n=%2)").arg(q(r.method)).arg(r.call.n);
    }
    series->append(call);
    series->append(exe);
    series->setBarWidth(0.6);
    auto* x = new QBarCategoryAxis;
    x->append(cats);
    styleAxis(x, QStringLiteral("method"));
    auto* y = rateAxis(QStringLiteral("rate (95% Wilson interval)"), true);
    // Room above 100% for the values over the whiskers; ticks stay at 0, 20, ..., 100.
    y->setRange(0, 110);
    y->setTickType(QValueAxis::TicksDynamic);
    y->setTickAnchor(0);
    y->setTickInterval(20);
    c->addAxis(x, Qt::AlignBottom);
    c->addAxis(y, Qt::AlignLeft);
    attach(c, series, x, y);
    // Interval whiskers: bar centres at i -/+ width/4 for two sets.
    QPen whisker(QColor(20, 20, 20));
    whisker.setWidthF(1.3);
    for (std::size_t i = 0; i < rates.size(); ++i) {
        for (int s = 0; s < 2; ++s) {
            const auto& rate = s == 0 ? rates[i].call : rates[i].exe;
            if (rate.n == 0)
                continue;
            const auto ci = rate.ci();
            const double xc = double(i) + (s == 0 ? -0.15 : 0.15);
            segment(c, x, y, {xc, 100 * ci.lo}, {xc, 100 * ci.hi}, whisker);
            segment(c, x, y, {xc - 0.04, 100 * ci.lo}, {xc + 0.04, 100 * ci.lo}, whisker);
            segment(c, x, y, {xc - 0.04, 100 * ci.hi}, {xc + 0.04, 100 * ci.hi}, whisker);
            c->annotate(series, {xc, 100 * ci.hi + 4.5},
                        QStringLiteral("%1%").arg(100.0 * rate.value(), 0, 'f', 0), style::textColour(), style::labelFont());
        }
    }
}

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
    a->setLabelFormat("%gx");
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
    c->addAxis(x, Qt::AlignBottom);
    c->addAxis(y, Qt::AlignLeft);
    auto* box = new QBoxPlotSeries;
    box->setName(QStringLiteral("speedup"));
    box->setBoxWidth(0.45);
    QBrush b(style::categorical(2));
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
        } else {
            for (int k = 0; k < 5; ++k)  // an invisible box at 1x keeps the category; the words say why
                set->setValue(k, 1.0);
            c->annotate(box, {double(i), std::sqrt(lo * hi) * 1.6}, QStringLiteral("no data: no timed correct kernel"),
                        style::textColour(), style::labelFont());
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
    x->setLabelFormat("%g");
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
    }
    // Rates are often small: zoom to the data, in steps of 0.1.
    const double yMax = std::min(1.0, std::max(0.1, std::ceil(top * 10.0 + 0.5) / 10.0));
    y->setRange(0, yMax);
    y->setTickCount(int(std::lround(yMax * 10.0)) + 1);
    auto* ref = segment(c, x, y, {1.0, 0.0}, {1.0, yMax}, referencePen());
    decadeLabels(c, ref, lo, hi, Qt::Horizontal, 0.0, QString());
}

void taxonomyBars(FigureChart* c, const an::Taxonomy& t, bool byCategory)
{
    auto* series = new QHorizontalStackedBarSeries;
    QStringList groups;
    // Rows top to bottom in sorted order: horizontal bar categories run bottom-up, so reverse.
    std::vector<std::pair<QString, const std::vector<int>*>> rows;
    for (std::size_t g = 0; g < t.groups.size(); ++g) {
        const QString name = QStringLiteral("%1 (n=%2)").arg(q(t.groups[g])).arg(t.evaluations[g]);
        if (t.reviewed) {
            rows.push_back({name + QStringLiteral(" · automatic"), &t.automatic[g]});
            rows.push_back({name + QStringLiteral(" · reviewed"), &(*t.reviewed)[g]});
        } else {
            rows.push_back({name, &t.automatic[g]});
        }
    }
    std::reverse(rows.begin(), rows.end());
    for (const auto& r : rows)
        groups << r.first;
    int maxTotal = 0;
    for (const auto& r : rows) {
        int total = 0;
        for (int v : *r.second)
            total += v;
        maxTotal = std::max(maxTotal, total);
    }
    for (std::size_t k = 0; k < t.classes.size(); ++k) {
        auto* set = new QBarSet(q(t.classes[k]));
        style::applyBar(set, int(k));
        for (const auto& r : rows)
            set->append((*r.second)[k]);
        series->append(set);
    }
    series->setBarWidth(0.7);
    auto* y = new QBarCategoryAxis;
    y->append(groups);
    styleAxis(y, byCategory ? QStringLiteral("category") : QStringLiteral("method"));
    auto* x = new QValueAxis;
    // The axis ends on a tick past the longest bar, so the longest bar reads off a labelled value.
    const double tick = std::max(1.0, std::ceil(maxTotal / 8.0));
    x->setRange(0, std::max(tick, std::ceil(std::max(1, maxTotal) / tick) * tick));
    x->setLabelFormat("%d");
    x->setTickType(QValueAxis::TicksDynamic);
    x->setTickAnchor(0);
    x->setTickInterval(tick);
    styleAxis(x, QStringLiteral("failed evaluations"));
    c->addAxis(x, Qt::AlignBottom);
    c->addAxis(y, Qt::AlignLeft);
    attach(c, series, x, y);
    c->legend()->setAlignment(Qt::AlignRight);
}

QString shortGpu(const std::string& gpu);

void roundTrajectories(FigureChart* c, const std::vector<an::Trajectory>& t)
{
    int rMin = 0, rMax = 1;
    bool first = true;
    for (const auto& m : t)
        for (const auto& p : m.points) {
            rMin = first ? p.round : std::min(rMin, p.round);
            rMax = first ? p.round : std::max(rMax, p.round);
            first = false;
        }
    auto* x = new QValueAxis;
    x->setRange(rMin - (rMax == rMin ? 0.5 : 0.3), rMax + (rMax == rMin ? 0.5 : 0.3));  // one round: no empty next one
    x->setTickType(QValueAxis::TicksDynamic);
    x->setTickAnchor(rMin);
    x->setTickInterval(std::max(1.0, std::ceil((rMax - rMin) / 10.0)));
    x->setLabelFormat("%d");
    styleAxis(x, QStringLiteral("round"));
    auto* y = rateAxis(QStringLiteral("pass rate (95% Wilson interval); compile rate dashed"), true);
    c->addAxis(x, Qt::AlignBottom);
    c->addAxis(y, Qt::AlignLeft);
    std::set<std::string> gpus;
    for (const auto& m : t)
        gpus.insert(m.gpu);
    const double jitterStep = t.size() > 1 ? 0.12 / double(t.size() - 1) : 0.0;
    int idx = 0;
    for (const auto& m : t) {
        const double dx = t.size() > 1 ? -0.06 + jitterStep * idx : 0.0;  // keep intervals apart
        // Named with its GPU where the methods ran on different ones.
        const QString name = gpus.size() > 1 && !m.gpu.empty() ? QStringLiteral("%1 · %2").arg(q(m.method), shortGpu(m.gpu)) : q(m.method);
        auto* line = new QLineSeries;
        line->setName(name + QStringLiteral(" pass"));
        QPen pen = style::linePen(idx);
        pen.setStyle(Qt::SolidLine);
        line->setPen(pen);
        line->setPointsVisible(true);
        line->setMarkerSize(7);
        auto* compile = new QLineSeries;
        compile->setName(name + QStringLiteral(" compile"));
        QPen dashed = pen;
        dashed.setStyle(Qt::DashLine);
        dashed.setWidthF(1.5);
        compile->setPen(dashed);
        compile->setPointsVisible(true);  // seen also where a method has one round only
        compile->setMarkerSize(5);
        QPen whisker(pen.color());
        whisker.setWidthF(1.2);
        for (const auto& p : m.points) {
            line->append(p.round + dx, 100.0 * p.pass.value());
            compile->append(p.round + dx, 100.0 * p.compile.value());
            const auto ci = p.pass.ci();
            segment(c, x, y, {p.round + dx, 100 * ci.lo}, {p.round + dx, 100 * ci.hi}, whisker);
        }
        attach(c, line, x, y);
        attach(c, compile, x, y);
        // n per point, and the geometric-mean speedup of its timed correct kernels (the paper's figure)
        for (const auto& p : m.points) {
            const QString sp = p.geomeanSpeedup ? QStringLiteral(" · %1x").arg(*p.geomeanSpeedup, 0, 'f', 2) : QString();
            c->annotate(line, {p.round + dx, std::max(4.0, 100 * p.pass.ci().lo - 4)}, QStringLiteral("n=%1%2").arg(p.pass.n).arg(sp),
                        pen.color(), style::labelFont());
        }
        ++idx;
    }
}


// ---- analysis figures (kbx report --figure; core/stats_tables) ----------------------------------

/// A GPU name short enough for a category label ("CPU (Triton interpreter)" -> "CPU", "NVIDIA H200" -> "H200").
QString shortGpu(const std::string& gpu)
{
    QString g = q(gpu);
    if (g.startsWith(QLatin1String("CPU")))
        return QStringLiteral("CPU");
    if (g.startsWith(QLatin1String("NVIDIA ")))
        g = g.mid(7);
    return g;
}

QString groupLabel(const std::string& gpu, const std::string& method, int round, bool withGpu, bool withRound)
{
    QString s = q(method);
    if (withGpu)
        s += QStringLiteral(" · ") + shortGpu(gpu);
    if (withRound)
        s += QStringLiteral(" · r%1").arg(round);
    return s;
}

/// Bars of rates (in %) with Wilson whiskers; one bar set per series, one category per group.
void rateBars(FigureChart* c, const QStringList& cats, const QStringList& seriesNames, const std::vector<std::vector<an::Rate>>& rates,
              const QString& xTitle, const QString& yTitle)
{
    auto* series = new QBarSeries;
    const int sets = int(seriesNames.size());
    for (int k = 0; k < sets; ++k) {
        auto* set = new QBarSet(seriesNames[k]);
        style::applyBar(set, k);
        for (const auto& g : rates)
            set->append(g[std::size_t(k)].n > 0 ? 100.0 * g[std::size_t(k)].value() : 0.0);
        series->append(set);
    }
    const double width = 0.75;
    series->setBarWidth(width);
    auto* x = new QBarCategoryAxis;
    x->append(cats);
    styleAxis(x, xTitle);
    if (cats.size() > 4)
        x->setLabelsAngle(-30);  // long "method · GPU · round" labels stay whole
    auto* y = rateAxis(yTitle, true);
    c->addAxis(x, Qt::AlignBottom);
    c->addAxis(y, Qt::AlignLeft);
    attach(c, series, x, y);
    QPen whisker(QColor(20, 20, 20));
    whisker.setWidthF(1.3);
    const double barW = width / double(sets);
    for (std::size_t i = 0; i < rates.size(); ++i)
        for (int k = 0; k < sets; ++k) {
            const auto& rate = rates[i][std::size_t(k)];
            if (rate.n == 0)
                continue;
            const auto ci = rate.ci();
            const double xc = double(i) - width / 2 + barW * (k + 0.5);
            segment(c, x, y, {xc, 100 * ci.lo}, {xc, 100 * ci.hi}, whisker);
            segment(c, x, y, {xc - barW / 5, 100 * ci.lo}, {xc + barW / 5, 100 * ci.lo}, whisker);
            segment(c, x, y, {xc - barW / 5, 100 * ci.hi}, {xc + barW / 5, 100 * ci.hi}, whisker);
        }
}

void methodSummaryBars(FigureChart* c, const std::vector<kbx::stats::MethodSummary>& ms)
{
    std::set<std::string> gpus;
    std::set<int> rounds;
    for (const auto& m : ms) {
        gpus.insert(m.gpu);
        rounds.insert(m.round);
    }
    QStringList cats;
    std::vector<std::vector<an::Rate>> rates;
    for (const auto& m : ms) {
        cats << QStringLiteral("%1 (n=%2)").arg(groupLabel(m.gpu, m.method, m.round, gpus.size() > 1, rounds.size() > 1)).arg(m.n);
        rates.push_back({m.call, m.exe, m.exeGivenCall});
    }
    rateBars(c, cats, {QStringLiteral("compile"), QStringLiteral("correct"), QStringLiteral("correct / compile")}, rates,
             QStringLiteral("method"), QStringLiteral("rate (95% Wilson interval)"));
}

void slowFractionBars(FigureChart* c, const std::vector<kbx::stats::SlowFraction>& slow)
{
    // One bar per GPU: all methods pooled (the per-method rows where a GPU has one method).
    QStringList cats;
    std::vector<std::vector<an::Rate>> rates;
    std::map<std::string, int> methodsPerGpu;
    for (const auto& s : slow)
        if (s.method != "all methods")
            methodsPerGpu[s.gpu]++;
    for (const auto& s : slow) {
        const bool pooled = s.method == "all methods";
        if (!pooled && methodsPerGpu[s.gpu] > 1)
            continue;
        cats << QStringLiteral("%1 (%2 timed)").arg(shortGpu(s.gpu)).arg(s.slower.n);
        rates.push_back({s.slower});
    }
    rateBars(c, cats, {QStringLiteral("slower than eager (speedup < 1)")}, rates, QStringLiteral("GPU"),
             QStringLiteral("correct kernels slower than eager (95% Wilson)"));
    c->legend()->hide();
}

void devianceBars(FigureChart* c, const std::vector<kbx::stats::DevianceGroup>& groups)
{
    auto* series = new QBarSeries;
    auto* cat = new QBarSet(QStringLiteral("category alone"));
    auto* met = new QBarSet(QStringLiteral("method alone"));
    auto* joint = new QBarSet(QStringLiteral("category + method"));
    style::applyBar(cat, 0);
    style::applyBar(met, 1);
    style::applyBar(joint, 2);
    QStringList cats;
    double top = 0;
    for (const auto& g : groups) {
        const auto& a = g.analysis;
        cats << QStringLiteral("%1 · r%2 (n=%3)").arg(shortGpu(g.gpu)).arg(g.round).arg(a.n);
        const double sc = a.alone.size() > 0 ? 100 * a.alone[0].share : 0;
        const double sm = a.alone.size() > 1 ? 100 * a.alone[1].share : 0;
        cat->append(sc);
        met->append(sm);
        joint->append(100 * a.jointShare);
        top = std::max({top, sc, sm, 100 * a.jointShare});
    }
    series->append(cat);
    series->append(met);
    series->append(joint);
    series->setBarWidth(0.7);
    auto* x = new QBarCategoryAxis;
    x->append(cats);
    styleAxis(x, QStringLiteral("GPU · round"));
    if (cats.size() > 3)
        x->setLabelsAngle(-30);
    auto* y = new QValueAxis;
    // Room above the tallest bar for its label; ticks on round values.
    const double step = top > 50 ? 20.0 : (top > 20 ? 10.0 : 5.0);
    const double yMax = std::max(step, std::ceil((top * 1.12) / step) * step);
    y->setRange(0, yMax);
    y->setLabelFormat("%.0f%%");
    y->setTickCount(int(std::lround(yMax / step)) + 1);
    styleAxis(y, QStringLiteral("share of the null deviance (LR chi2 / null)"));
    c->addAxis(x, Qt::AlignBottom);
    c->addAxis(y, Qt::AlignLeft);
    attach(c, series, x, y);
    // Each bar's value above it, all with one decimal (Qt's own labels give "38%" beside "21.1%").
    const std::array<QBarSet*, 3> sets = {cat, met, joint};
    for (int k = 0; k < 3; ++k)
        for (int i = 0; i < sets[std::size_t(k)]->count(); ++i) {
            const double v = sets[std::size_t(k)]->at(i);
            const double xc = double(i) - 0.35 + 0.7 / 3.0 * (k + 0.5);
            c->annotate(series, {xc, v + yMax * 0.03}, QString::number(v, 'f', 1) + QLatin1Char('%'), style::textColour(), style::labelFont());
        }
}

void rescuedBars(FigureChart* c, const kbx::stats::Rescued& r)
{
    // Geometric-mean speedup per (GPU, method) and cohort, with the bootstrap CI.
    std::vector<std::pair<QString, std::array<const kbx::stats::CohortStats*, 2>>> groups;
    for (const auto& cs : r.cohorts) {
        const QString label = QStringLiteral("%1 · %2").arg(q(cs.method), shortGpu(cs.gpu));
        if (groups.empty() || groups.back().first != label)
            groups.push_back({label, {nullptr, nullptr}});
        groups.back().second[cs.cohort == "rescued" ? 0 : 1] = &cs;
    }
    auto* series = new QBarSeries;
    auto* resc = new QBarSet(QStringLiteral("rescued (failed in the first round, correct in the last)"));
    auto* pers = new QBarSet(QStringLiteral("persistently correct"));
    style::applyBar(resc, 0);
    style::applyBar(pers, 1);
    QStringList cats;
    double top = 1.0;
    for (const auto& [label, pair] : groups) {
        QString l = label;
        for (int k = 0; k < 2; ++k) {
            const auto* cs = pair[std::size_t(k)];
            const double v = cs && cs->speedup.geomean ? *cs->speedup.geomean : 0.0;
            (k == 0 ? resc : pers)->append(v);
            if (cs && cs->speedup.geomeanCI)
                top = std::max(top, cs->speedup.geomeanCI->hi);
        }
        l += QStringLiteral(" (%1 / %2 timed)").arg(pair[0] ? pair[0]->speedup.n : 0).arg(pair[1] ? pair[1]->speedup.n : 0);
        cats << l;
    }
    series->append(resc);
    series->append(pers);
    const double width = 0.7;
    series->setBarWidth(width);
    auto* x = new QBarCategoryAxis;
    x->append(cats);
    styleAxis(x, QStringLiteral("method · GPU (timed kernels: rescued / persistent)"));
    if (cats.size() > 3)
        x->setLabelsAngle(-30);
    auto* y = new QValueAxis;
    niceAxis(y, top * 1.1, "x");
    styleAxis(y, QStringLiteral("geometric-mean speedup over eager (95% bootstrap CI)"));
    c->addAxis(x, Qt::AlignBottom);
    c->addAxis(y, Qt::AlignLeft);
    attach(c, series, x, y);
    QPen whisker(QColor(20, 20, 20));
    whisker.setWidthF(1.3);
    for (std::size_t i = 0; i < groups.size(); ++i)
        for (int k = 0; k < 2; ++k) {
            const auto* cs = groups[i].second[std::size_t(k)];
            if (!cs || !cs->speedup.geomeanCI)
                continue;
            const double xc = double(i) - width / 2 + width / 2 * (k + 0.5);
            segment(c, x, y, {xc, cs->speedup.geomeanCI->lo}, {xc, cs->speedup.geomeanCI->hi}, whisker);
        }
    segment(c, x, y, {-0.5, 1.0}, {double(groups.size()) - 0.5, 1.0}, referencePen());
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
    box->setBrush(QBrush(style::categorical(2)));
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

FigureChart* buildChart(const FigureInput& in)
{
    auto* c = new FigureChart;
    c->setTitle(figureTitle(in.name));
    const QString empty = emptyMessage(in);
    if (!empty.isEmpty())
        return messageChart(c, empty);
    const auto& d = in.data;
    if (figureKind(in.name) == QLatin1String("correctness_heatmap"))
        correctnessHeatmap(c, d.correctness);
    else if (figureKind(in.name) == QLatin1String("compile_vs_correct"))
        compileVsCorrect(c, d.compile);
    else if (figureKind(in.name) == QLatin1String("speedup_box"))
        speedupBox(c, d.speedup);
    else if (figureKind(in.name) == QLatin1String("speedup_ecdf"))
        speedupEcdf(c, d.speedup);
    else if (figureKind(in.name) == QLatin1String("fast_p"))
        fastPCurves(c, d.fastp);
    else if (figureKind(in.name) == QLatin1String("taxonomy_by_category"))
        taxonomyBars(c, d.taxonomyByCategory, true);
    else if (figureKind(in.name) == QLatin1String("taxonomy_by_method"))
        taxonomyBars(c, d.taxonomyByMethod, false);
    else if (figureKind(in.name) == QLatin1String("round_trajectories"))
        roundTrajectories(c, d.rounds);
    else if (d.stats && figureKind(in.name) == QLatin1String("method-summary"))
        methodSummaryBars(c, d.stats->methods);
    else if (d.stats && figureKind(in.name) == QLatin1String("deviance"))
        devianceBars(c, d.stats->deviance);
    else if (d.stats && figureKind(in.name) == QLatin1String("rescued"))
        rescuedBars(c, d.stats->rescued);
    else if (d.stats && figureKind(in.name) == QLatin1String("cross-hardware"))
        crossHardwareBoxes(c, d.stats->cross);
    else if (d.stats && figureKind(in.name) == QLatin1String("slow-fraction"))
        slowFractionBars(c, d.stats->cross.slow);
    return c;
}

class ChartsView : public QChartView {
public:
    explicit ChartsView(QWidget* parent) : QChartView(parent)
    {
        setRenderHint(QPainter::Antialiasing);
        setChart(new FigureChart);
    }
    void resizeEvent(QResizeEvent* e) override
    {
        QChartView::resizeEvent(e);
        if (auto* c = dynamic_cast<FigureChart*>(chart()))
            c->place();
    }
};

class QtChartsRenderer final : public FigureRenderer {
public:
    QString backendName() const override { return QStringLiteral("Qt Charts"); }

    QSize preferredSize(const FigureInput& in) const override
    {
        const auto& d = in.data;
        if (figureKind(in.name) == QLatin1String("correctness_heatmap") && emptyMessage(in).isEmpty()) {
            const int w = 220 + 120 * int(d.correctness.methods.size()) * 2;
            const int h = 170 + 30 * int(d.correctness.categories.size() + 1);
            return {std::clamp(w, 640, 1800), std::max(360, h)};
        }
        if (figureKind(in.name).startsWith(QLatin1String("taxonomy_by")) && emptyMessage(in).isEmpty()) {
            const auto& t = figureKind(in.name) == QLatin1String("taxonomy_by_category") ? d.taxonomyByCategory : d.taxonomyByMethod;
            const int rows = int(t.groups.size()) * (t.reviewed ? 2 : 1);
            return {960, std::max(420, 140 + 28 * rows)};
        }
        const QString kind = figureKind(in.name);
        if (kind == QLatin1String("cross-hardware"))
            return {1000, 560};
        if ((kind == QLatin1String("method-summary") || kind == QLatin1String("rescued") || kind == QLatin1String("deviance")) && d.stats) {
            const std::size_t groups = kind == QLatin1String("rescued")    ? d.stats->rescued.cohorts.size() / 2
                                       : kind == QLatin1String("deviance") ? d.stats->deviance.size()
                                                                           : d.stats->methods.size();
            return {std::clamp(int(260 + 150 * groups), 800, 1800), groups > 4 ? 640 : 520};
        }
        return {800, 500};
    }

    void paint(QPainter* painter, const QRectF& target, const FigureInput& in) override
    {
        QGraphicsScene scene;
        auto* chart = buildChart(in);
        scene.addItem(chart);
        const QSizeF size = target.size();
        chart->setGeometry(QRectF(QPointF(0, 0), size));
        scene.setSceneRect(QRectF(QPointF(0, 0), size));
        if (chart->layout())
            chart->layout()->activate();
        chart->place();
        painter->save();
        painter->setRenderHint(QPainter::Antialiasing);
        painter->setRenderHint(QPainter::TextAntialiasing);
        scene.render(painter, target, QRectF(QPointF(0, 0), size));
        painter->restore();
    }

    QWidget* createView(QWidget* parent) override { return new ChartsView(parent); }

    void show(QWidget* view, const FigureInput& in) override
    {
        auto* v = static_cast<ChartsView*>(view);
        QChart* old = v->chart();
        v->setChart(buildChart(in));
        delete old;
        if (auto* c = dynamic_cast<FigureChart*>(v->chart())) {
            if (c->layout())
                c->layout()->activate();
            c->place();
        }
    }
};

}  // namespace

std::unique_ptr<FigureRenderer> makeQtChartsRenderer()
{
    return std::make_unique<QtChartsRenderer>();
}

std::unique_ptr<FigureRenderer> makeDefaultRenderer()
{
    return makeQtChartsRenderer();
}

}  // namespace kbx::gui
