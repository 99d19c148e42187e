// SPDX-License-Identifier: MIT
// The round figure: pass and compile rate per round and method, n and geometric-mean speedup per point.
#include "chartfigures.h"
#include "chartparts.h"

#include <QFontMetricsF>
#include <QLineSeries>
#include <QScatterSeries>
#include <QValueAxis>

#include <algorithm>
#include <cmath>
#include <set>

namespace kbx::gui::qtcharts {

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
    x->setLabelFormat(QStringLiteral("%d"));
    styleAxis(x, QStringLiteral("round"));
    auto* y = rateAxis(QStringLiteral("pass rate (95% Wilson interval); compile rate dashed"), true);
    c->addAxis(x, Qt::AlignBottom);
    c->addAxis(y, Qt::AlignLeft);
    std::set<std::string> gpus;
    for (const auto& m : t)
        gpus.insert(m.gpu);
    const GpuLabels gpuLabel(gpus);
    const double jitterStep = t.size() > 1 ? 0.12 / double(t.size() - 1) : 0.0;
    // n and speedup under each point where there are few methods; with more they would pile up (the
    // tooltip of each point has them).
    const bool pointLabels = t.size() <= 3;
    std::vector<QGraphicsSimpleTextItem*> labels;
    const int roundsShown = rMax - rMin + 1;
    int idx = 0;
    for (const auto& m : t) {
        const double dx = t.size() > 1 ? -0.06 + jitterStep * idx : 0.0;  // keep intervals apart
        // Named with its GPU where the methods ran on different ones.
        const QString name = gpus.size() > 1 && !m.gpu.empty() ? QStringLiteral("%1 · %2").arg(q(m.method), gpuLabel(m.gpu)) : q(m.method);
        QPen pen = style::linePen(idx);
        pen.setStyle(Qt::SolidLine);  // solid: pass; dashed: compile. Beyond the palette the marker differs.
        const int shape = style::variant(idx);
        auto* line = new QLineSeries;
        line->setName(name + QStringLiteral(" pass"));
        line->setPen(pen);
        auto* marks = new QScatterSeries;
        marks->setMarkerShape(markerShape(shape));
        marks->setMarkerSize(9);
        marks->setColor(pen.color());
        marks->setBorderColor(pen.color().darker(130));
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
            marks->append(p.round + dx, 100.0 * p.pass.value());
            compile->append(p.round + dx, 100.0 * p.compile.value());
            const auto ci = p.pass.ci();
            segment(c, x, y, {p.round + dx, 100 * ci.lo}, {p.round + dx, 100 * ci.hi}, whisker);
        }
        attach(c, line, x, y);
        attach(c, compile, x, y);
        attach(c, marks, x, y);
        c->addLegend({LegendEntry::Kind::Line, name, {}, pen, shape});
        for (const auto& p : m.points) {
            // n per point, and the geometric-mean speedup of its timed correct kernels (the paper's figure)
            const QString sp = p.geomeanSpeedup ? QStringLiteral(" · %1x").arg(*p.geomeanSpeedup, 0, 'f', 2) : QString();
            if (pointLabels)
                labels.push_back(c->annotate(line, {p.round + dx, std::max(4.0, 100 * p.pass.ci().lo - 4)},
                                             QStringLiteral("n=%1%2").arg(p.pass.n).arg(sp), pen.color(), style::labelFont()));
            QVariantMap f{{QStringLiteral("figure"), c->figureName()}, {QStringLiteral("method"), q(m.method)}, {QStringLiteral("round"), p.round}};
            if (!m.gpu.empty())
                f.insert(QStringLiteral("gpu"), q(m.gpu));
            c->addHit(line, QRectF(p.round + dx, 100.0 * p.pass.value(), 0, 0),
                      QStringLiteral("%1, round %2\npass: %3\ncompile: %4%5")
                          .arg(name)
                          .arg(p.round)
                          .arg(pct(p.pass), pct(p.compile),
                               p.geomeanSpeedup ? QStringLiteral("\ngeometric-mean speedup %1x over %2 timed").arg(*p.geomeanSpeedup, 0, 'f', 2).arg(p.timed)
                                                : QString()),
                      f);
        }
        ++idx;
    }
    // The two line styles once, in grey, after the methods.
    QPen solid(QColor(90, 90, 90), 2.2);
    QPen dash(QColor(90, 90, 90), 1.5, Qt::DashLine);
    c->addLegend({LegendEntry::Kind::Line, QStringLiteral("pass rate"), {}, solid, -1});
    c->addLegend({LegendEntry::Kind::Line, QStringLiteral("compile rate"), {}, dash, -1});
    // The labels under the points only where a round is wide and the plot tall enough for them not
    // to run into each other (one-column figures: the tooltips have them).
    c->setLayoutHook([labels, roundsShown, methods = int(t.size())](FigureChart* ch) {
        const QRectF plot = ch->plotArea();
        const double perRound = plot.width() / std::max(1, roundsShown);
        const double need = QFontMetricsF(style::labelFont()).horizontalAdvance(QStringLiteral("n=100 · 1.00x")) * 1.4;
        const bool room = perRound >= need && plot.height() >= 90.0 * methods;
        for (auto* l : labels)
            l->setVisible(room);
        return false;
    });
}

}  // namespace kbx::gui::qtcharts
