// SPDX-License-Identifier: MIT
// The parts the Qt Charts figures share: axes, reference lines, legends from series, label breaking,
// click filters and the texts of rates.
#include "chartparts.h"

#include <QAbstractBarSeries>
#include <QBarCategoryAxis>
#include <QBarSet>
#include <QCursor>
#include <QFontMetricsF>
#include <QGraphicsTextItem>
#include <QLegend>
#include <QLegendMarker>
#include <QLineSeries>
#include <QRegularExpression>
#include <QTextDocument>
#include <QToolTip>
#include <QValueAxis>

#include <algorithm>
#include <cmath>

namespace kbx::gui::qtcharts {

QGraphicsTextItem* centredText(QGraphicsItem* parent, const QString& role, QTextOption::WrapMode wrap)
{
    auto* item = new QGraphicsTextItem(parent);
    item->setDefaultTextColor(style::textColour());
    item->setData(kRoleKey, role);
    item->setZValue(22);
    QTextOption centred(Qt::AlignHCenter);
    centred.setWrapMode(wrap);
    item->document()->setDefaultTextOption(centred);
    item->document()->setDocumentMargin(0);
    return item;
}

/// The legend of c from its series (bar sets as filled boxes, named lines as lines with their dash),
/// where the figure did not write its own; Qt's legend (one row, elided) is never shown.
void legendFromSeries(FigureChart* c)
{
    for (auto* s : c->series()) {
        if (auto* bars = qobject_cast<QAbstractBarSeries*>(s)) {
            for (auto* set : bars->barSets())
                c->addLegend({LegendEntry::Kind::Fill, set->label(), set->brush(), set->pen(), -1});
        } else if (auto* line = qobject_cast<QLineSeries*>(s)) {
            if (!line->name().isEmpty())
                c->addLegend({LegendEntry::Kind::Line, line->name(), {}, line->pen(), line->pointsVisible() ? 0 : -1});
        }
    }
}

/// "method · r2" -> {"method", 2}; a name without the suffix keeps round -1.
std::pair<QString, int> splitRound(const QString& label)
{
    static const QRegularExpression re(QStringLiteral("^(.*) · r(-?\\d+)$"));
    const auto m = re.match(label);
    if (m.hasMatch())
        return {m.captured(1), m.captured(2).toInt()};
    return {label, -1};
}

/// The filter of a mark of method label (maybe "method · rN") in figure name.
QVariantMap methodFilter(const QString& figure, const QString& methodLabel)
{
    QVariantMap f{{QStringLiteral("figure"), figure}};
    if (methodLabel.isEmpty())
        return f;
    const auto [method, round] = splitRound(methodLabel);
    f.insert(QStringLiteral("method"), method);
    if (round >= 0)
        f.insert(QStringLiteral("round"), round);
    return f;
}

QString pct(const an::Rate& r)
{
    if (r.n == 0)
        return QStringLiteral("no evaluations");
    const auto ci = r.ci();
    return QStringLiteral("%1% (%2/%3), 95% CI %4–%5%")
        .arg(100.0 * r.value(), 0, 'f', 1)
        .arg(r.k)
        .arg(r.n)
        .arg(100.0 * ci.lo, 0, 'f', 1)
        .arg(100.0 * ci.hi, 0, 'f', 1);
}

/// Hover and click on a line (ECDF, fast_p): its name as a tooltip, its method as the filter.
void lineInteraction(FigureChart* c, QLineSeries* line, const QString& tip, const QVariantMap& filter)
{
    if (!c->interactive())
        return;
    QObject::connect(line, &QXYSeries::clicked, c, [c, filter](const QPointF&) { c->activate(filter); });
    QObject::connect(line, &QXYSeries::hovered, c, [tip](const QPointF&, bool on) {
        if (on)
            QToolTip::showText(QCursor::pos(), tip);
        else
            QToolTip::hideText();
    });
}

void styleAxis(QAbstractAxis* a, const QString& title)
{
    a->setTitleText(title);
    a->setTitleFont(style::axisTitleFont());
    a->setTitleBrush(QBrush(style::textColour()));
    a->setLabelsFont(style::labelFont());
    a->setLabelsColor(style::textColour());
    a->setTruncateLabels(false);  // never "method-6-with-a-lo...": fit() makes the room
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
    a->setLabelFormat(percent ? QStringLiteral("%.0f%%") : QStringLiteral("%.1f"));
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

int widest(const QStringList& texts)
{
    const QFontMetricsF fm(style::labelFont());
    qreal w = 0;
    for (const auto& t : texts)
        w = std::max(w, fm.horizontalAdvance(t));
    return int(std::ceil(w));
}

/// Long labels are also broken in two lines ("method" over "r2 (n=40)"), which halves their length.
QString brokenLabel(const QString& label)
{
    if (label.size() <= 12)
        return label;
    int cut = label.indexOf(QStringLiteral(" · "));
    if (cut > 0)
        return label.left(cut).toHtmlEscaped() + QStringLiteral("<br>") + label.mid(cut + 3).toHtmlEscaped();
    cut = label.lastIndexOf(QStringLiteral(" ("));
    if (cut > 0)
        return label.left(cut).toHtmlEscaped() + QStringLiteral("<br>") + label.mid(cut + 1).toHtmlEscaped();
    return label;
}

void turnLabels(QBarCategoryAxis* x, int count, int from)
{
    if (count <= from)
        return;
    x->setLabelsAngle(-90);
    breakLabels(x);
}

bool breakLabels(QBarCategoryAxis* x)
{
    const QStringList whole = x->categories();
    bool changed = false;
    for (const auto& c : whole)
        if (const QString b = brokenLabel(c); b != c) {
            x->replace(c, b);
            changed = true;
        }
    if (changed && !x->property("kbxWhole").isValid())
        x->setProperty("kbxWhole", whole);
    return changed;
}

bool joinLabels(QBarCategoryAxis* x)
{
    const QStringList whole = x->property("kbxWhole").toStringList();
    const QStringList now = x->categories();
    if (whole.size() != now.size())
        return false;
    bool changed = false;
    for (int i = 0; i < now.size(); ++i)
        if (now[i] != whole[i]) {
            x->replace(now[i], whole[i]);
            changed = true;
        }
    return changed;
}

/// The room (pixels) upright labels take below a bar axis: the longest line of their broken form.
int turnedLabelsExtent(const QStringList& labels)
{
    QStringList lines;
    for (const auto& l : labels)
        lines << brokenLabel(l).split(QStringLiteral("<br>"));
    return widest(lines);
}

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

namespace {

/// gpu at a level of GpuLabels: 0 the model, 1 the model and memory, 2 shortGpu, 3 the whole name.
QString gpuAtLevel(const std::string& gpu, int level)
{
    if (level >= 3)
        return q(gpu);
    const QString s = shortGpu(gpu);
    if (level == 2 || s == QLatin1String("CPU"))
        return s;
    // "A100-SXM4-80GB", "GeForce RTX 4090", "H100 80GB HBM3", "AMD Instinct MI300X": the model is
    // the words before the first form factor or memory size.
    static const QRegularExpression split(QStringLiteral("[-\\s]+"));
    static const QRegularExpression memory(QStringLiteral("^\\d+GB$"), QRegularExpression::CaseInsensitiveOption);
    static const QRegularExpression qualifier(QStringLiteral("^(\\d+GB|SXM\\d*|PCIE|NVL\\d*|HBM\\d*E?|MIG.*)$"),
                                              QRegularExpression::CaseInsensitiveOption);
    static const QStringList brands = {QStringLiteral("AMD"), QStringLiteral("GeForce"), QStringLiteral("Instinct"), QStringLiteral("Radeon")};
    QStringList model;
    QString mem;
    bool qualified = false;
    for (const auto& w : s.split(split, Qt::SkipEmptyParts)) {
        if (qualifier.match(w).hasMatch())
            qualified = true;
        if (memory.match(w).hasMatch() && mem.isEmpty())
            mem = w;
        if (!qualified && !(model.isEmpty() && brands.contains(w)))
            model << w;
    }
    if (model.isEmpty())
        return s;
    const QString m = model.join(QLatin1Char(' '));
    return level == 1 && !mem.isEmpty() ? m + QLatin1Char(' ') + mem : m;
}

}  // namespace

GpuLabels::GpuLabels(const std::set<std::string>& gpus) : m_gpus(gpus)
{
    for (m_level = 0; m_level < 3; ++m_level) {
        std::set<QString> labels;
        for (const auto& g : gpus)
            labels.insert(gpuAtLevel(g, m_level));
        if (labels.size() == gpus.size())
            break;
    }
}

QString GpuLabels::operator()(const std::string& gpu) const
{
    return gpuAtLevel(gpu, m_gpus.count(gpu) ? m_level : 2);
}

}  // namespace kbx::gui::qtcharts
