// SPDX-License-Identifier: MIT
// FigureRenderer on Qt Charts. Everything Qt Charts specific lives in this file and the qtcharts
// namespace beside it: figurechart.* (the chart, its texts and legend), chartparts.* (axes, labels,
// filters), chartfigures.h with heatmapfigure.cpp, barfigures.cpp, distributionfigures.cpp and
// trajectoryfigure.cpp (the figures); here: choosing a figure, laying it out, the view, the sizes.
#include "chartfigures.h"
#include "chartparts.h"
#include "figurechart.h"
#include "figurerenderer.h"
#include "figurestyle.h"

#include <QChartView>
#include <QFontMetricsF>
#include <QGraphicsScene>
#include <QLegend>
#include <QMouseEvent>
#include <QPainter>

#include <algorithm>
#include <cmath>

namespace kbx::gui::qtcharts {
namespace {

FigureChart* buildChart(const FigureInput& in, bool interactive = false)
{
    auto* c = new FigureChart(interactive);
    c->setFigureName(in.name);
    if (in.options.title)
        c->setFigureTitle(figureTitle(in.name));
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
    // Our own legend (wrapping into rows, line series as lines, large swatches) replaces Qt's, which
    // is one row that elides.
    const bool wantLegend = c->legend()->isVisible();
    c->legend()->hide();
    if (wantLegend && !c->hasLegend())
        legendFromSeries(c);
    return c;
}

/// Lays c out at size (the fonts of opts in force).
void layOut(FigureChart* c, QGraphicsScene& scene, const QSizeF& size)
{
    scene.addItem(c);
    c->setGeometry(QRectF(QPointF(0, 0), size));
    scene.setSceneRect(QRectF(QPointF(0, 0), size));
    c->fit();
}

class ChartsView : public QChartView {
public:
    explicit ChartsView(QWidget* parent) : QChartView(parent)
    {
        setRenderHint(QPainter::Antialiasing);
        setChart(new FigureChart(true));
        setMouseTracking(true);
    }
    void setHandler(ActivationHandler h)
    {
        m_handler = std::move(h);
        if (auto* c = dynamic_cast<FigureChart*>(chart()))
            c->setActivationHandler(m_handler);
    }
    const ActivationHandler& handler() const { return m_handler; }
    void setFontPt(double pt) { m_fontPt = pt; }
    void refit()
    {
        style::FontSizeGuard fonts(m_fontPt);
        if (auto* c = dynamic_cast<FigureChart*>(chart())) {
            c->fit();
            setSceneRect(c->geometry());
        }
    }
    void resizeEvent(QResizeEvent* e) override
    {
        QChartView::resizeEvent(e);
        refit();
    }
    void mousePressEvent(QMouseEvent* e) override
    {
        if (e->button() == Qt::LeftButton)
            for (auto* item : items(e->pos()))
                if (auto* hit = dynamic_cast<HitItem*>(item)) {
                    if (m_handler && !hit->filter().isEmpty()) {
                        m_handler(hit->filter());
                        e->accept();
                        return;
                    }
                }
        QChartView::mousePressEvent(e);
    }

private:
    ActivationHandler m_handler;
    double m_fontPt = 0;
};

/// Rows a bottom legend of n entries of about entryW pixels takes at width w.
int legendRows(int n, int entryW, int w)
{
    if (n <= 0)
        return 0;
    const int cols = std::clamp((w - 16) / std::max(1, entryW + 18), 1, n);
    return (n + cols - 1) / cols;
}

class QtChartsRenderer final : public FigureRenderer {
public:
    QString backendName() const override { return QStringLiteral("Qt Charts"); }

    QSize preferredSize(const FigureInput& in) const override
    {
        style::FontSizeGuard fonts(in.options.fontPt);
        const auto& d = in.data;
        const QString kind = figureKind(in.name);
        const bool empty = !emptyMessage(in).isEmpty();
        const int lineH = int(std::ceil(QFontMetricsF(style::legendFont()).height())) + 4;
        if (kind == QLatin1String("correctness_heatmap") && !empty) {
            const int cols = int(d.correctness.methods.size()) * 2;
            const int rows = int(d.correctness.categories.size() + 1);
            if (cols > kDenseHeatmapColumns) {
                // Upright one-line labels: a column as wide as a line of text and a little more.
                QStringList labels;
                for (const auto& m : d.correctness.methods)
                    labels << q(m) + QStringLiteral(" · call");
                // A column as wide as "100%" (the short form of a cell) and a line of its label.
                const int colW = std::max({22, lineH + 6, widest({QStringLiteral("100%")}) + 8});
                return {std::clamp(260 + colW * cols, 640, 8000), std::max(360, 200 + 34 * rows + widest(labels))};
            }
            return {std::clamp(220 + 120 * cols, 640, 1800), std::max(360, 170 + 30 * rows)};
        }
        if (kind.startsWith(QLatin1String("taxonomy_by")) && !empty) {
            const auto& t = kind == QLatin1String("taxonomy_by_category") ? d.taxonomyByCategory : d.taxonomyByMethod;
            const int rows = int(t.groups.size()) * (t.reviewed ? 2 : 1);
            QStringList classes;
            for (const auto& c : t.classes)
                classes << q(c);
            const int legend = legendRows(int(classes.size()), widest(classes) + 30, 960) * lineH;
            return {960, std::max(420, 140 + 28 * rows) + legend};
        }
        if (kind == QLatin1String("cross-hardware"))
            return {1000, 560};
        if ((kind == QLatin1String("method-summary") || kind == QLatin1String("rescued") || kind == QLatin1String("deviance")) && d.stats) {
            const std::size_t groups = kind == QLatin1String("rescued")    ? d.stats->rescued.cohorts.size() / 2
                                       : kind == QLatin1String("deviance") ? d.stats->deviance.size()
                                                                           : summaryGroups(d.stats->methods).size();
            const int per = groups > 12 ? 100 : 150;
            int extent = 120;
            if (kind == QLatin1String("method-summary")) {
                const auto ms = summaryGroups(d.stats->methods);
                std::set<std::string> gpus;
                for (const auto& m : ms)
                    gpus.insert(m.gpu);
                const GpuLabels gpuLabel(gpus);
                QStringList cats;
                for (const auto& m : ms)
                    cats << q(m.method) + QStringLiteral(" · ") + gpuLabel(m.gpu) + QStringLiteral(" · r10 (n=1000)");
                extent = turnedLabelsExtent(cats);
            }
            return {std::clamp(int(260 + per * groups), 800, 4000), groups > 4 ? 480 + extent : 520};
        }
        if (kind == QLatin1String("compile_vs_correct") && !empty) {
            QStringList cats;
            for (const auto& r : d.compile)
                cats << QStringLiteral("%1 (n=%2)").arg(q(r.method)).arg(r.call.n);
            return {std::clamp(int(200 + 80 * d.compile.size()), 800, 4000), cats.size() > 5 ? 440 + turnedLabelsExtent(cats) : 500};
        }
        if (kind == QLatin1String("speedup_box") && !empty) {
            QStringList cats;
            for (const auto& m : d.speedup)
                cats << QStringLiteral("%1 (%2 timed)").arg(q(m.method)).arg(m.speedups.size());
            return {std::clamp(int(200 + 70 * d.speedup.size()), 800, 4000), cats.size() > 5 ? 440 + turnedLabelsExtent(cats) : 500};
        }
        if ((kind == QLatin1String("speedup_ecdf") || kind == QLatin1String("fast_p") || kind == QLatin1String("round_trajectories")) &&
            !empty) {
            QStringList names;
            if (kind == QLatin1String("fast_p"))
                for (const auto& c : d.fastp)
                    names << QStringLiteral("%1 (n=%2)").arg(q(c.method)).arg(c.n);
            else if (kind == QLatin1String("speedup_ecdf"))
                for (const auto& s : d.speedup)
                    names << QStringLiteral("%1 (n=%2)").arg(q(s.method)).arg(s.speedups.size());
            else
                for (const auto& t : d.rounds)
                    names << q(t.method) + QStringLiteral(" · H200");
            const int rows = legendRows(int(names.size()) + (kind == QLatin1String("round_trajectories") ? 2 : 0), widest(names) + 40, 800);
            return {800, 480 + rows * lineH};
        }
        return {800, 500};
    }

    void paint(QPainter* painter, const QRectF& target, const FigureInput& in) override
    {
        style::FontSizeGuard fonts(in.options.fontPt);
        QGraphicsScene scene;
        auto* chart = buildChart(in);
        const QSizeF size = target.size();
        layOut(chart, scene, size);
        painter->save();
        painter->setRenderHint(QPainter::Antialiasing);
        painter->setRenderHint(QPainter::TextAntialiasing);
        scene.render(painter, target, QRectF(QPointF(0, 0), size));
        painter->restore();
    }

    QList<TextBox> textBoxes(const FigureInput& in, const QSize& size) override
    {
        style::FontSizeGuard fonts(in.options.fontPt);
        QGraphicsScene scene;
        auto* chart = buildChart(in);
        layOut(chart, scene, QSizeF(size));
        return chart->texts();
    }

    QString crowdingWarning(const FigureInput& in, const QSize& size) override
    {
        style::FontSizeGuard fonts(in.options.fontPt);
        QGraphicsScene scene;
        auto* chart = buildChart(in);
        layOut(chart, scene, QSizeF(size));
        return chart->crowdingWarning();
    }

    QWidget* createView(QWidget* parent) override { return new ChartsView(parent); }

    void show(QWidget* view, const FigureInput& in) override
    {
        auto* v = static_cast<ChartsView*>(view);
        style::FontSizeGuard fonts(in.options.fontPt);
        v->setFontPt(in.options.fontPt);
        QChart* old = v->chart();
        auto* c = buildChart(in, true);
        c->setActivationHandler(v->handler());
        v->setChart(c);
        delete old;
        v->refit();
    }

    void setActivationHandler(QWidget* view, ActivationHandler handler) override
    {
        static_cast<ChartsView*>(view)->setHandler(std::move(handler));
    }
};

}  // namespace
}  // namespace kbx::gui::qtcharts

namespace kbx::gui {

std::unique_ptr<FigureRenderer> makeQtChartsRenderer()
{
    return std::make_unique<qtcharts::QtChartsRenderer>();
}


std::unique_ptr<FigureRenderer> makeDefaultRenderer()
{
    return makeQtChartsRenderer();
}

}  // namespace kbx::gui
