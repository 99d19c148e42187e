// SPDX-License-Identifier: MIT
// The bar figures: compile vs correct, failure classes, method summary, slow fraction, deviance
// shares and rescued kernels.
#include "chartfigures.h"
#include "chartparts.h"

#include <QBarCategoryAxis>
#include <QBarSeries>
#include <QBarSet>
#include <QHorizontalStackedBarSeries>
#include <QLegend>
#include <QValueAxis>

#include <algorithm>
#include <array>
#include <cmath>
#include <map>
#include <set>

namespace kbx::gui::qtcharts {
namespace {

QString groupLabel(const GpuLabels& gpuLabel, const std::string& gpu, const std::string& method, int round, bool withGpu, bool withRound)
{
    QString s = q(method);
    if (withGpu)
        s += QStringLiteral(" · ") + gpuLabel(gpu);
    if (withRound)
        s += QStringLiteral(" · r%1").arg(round);
    return s;
}

/// Bars of rates (in %) with Wilson whiskers; one bar set per series, one category per group.
void rateBars(FigureChart* c, const QStringList& cats, const QStringList& seriesNames, const std::vector<std::vector<an::Rate>>& rates,
              const QString& xTitle, const QString& yTitle, const std::vector<QVariantMap>& filters = {})
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
    turnLabels(x, int(cats.size()), 4);  // long "method · GPU · round" labels stay whole
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
            const double xc = double(i) - width / 2 + barW * (k + 0.5);
            c->addHit(series, QRectF(xc - barW / 2, 0, barW, std::max(2.0, 100 * rate.value())),
                      QStringLiteral("%1\n%2: %3").arg(cats[int(i)], seriesNames[k], pct(rate)),
                      i < filters.size() ? filters[i] : QVariantMap{{QStringLiteral("figure"), c->figureName()}});
            if (rate.n == 0)
                continue;
            const auto ci = rate.ci();
            segment(c, x, y, {xc, 100 * ci.lo}, {xc, 100 * ci.hi}, whisker);
            segment(c, x, y, {xc - barW / 5, 100 * ci.lo}, {xc + barW / 5, 100 * ci.lo}, whisker);
            segment(c, x, y, {xc - barW / 5, 100 * ci.hi}, {xc + barW / 5, 100 * ci.hi}, whisker);
        }
}

}  // namespace

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
    const double width = 0.6;
    series->setBarWidth(width);
    auto* x = new QBarCategoryAxis;
    x->append(cats);
    styleAxis(x, QStringLiteral("method"));
    turnLabels(x, int(cats.size()));
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
            const double xc = double(i) + (s == 0 ? -width / 4 : width / 4);
            QVariantMap f = methodFilter(c->figureName(), q(rates[i].method));
            f.insert(QStringLiteral("stage"), s == 0 ? QStringLiteral("call") : QStringLiteral("exe"));
            c->addHit(series, QRectF(xc - width / 4, 0, width / 2, std::max(2.0, 100 * rate.value())),
                      QStringLiteral("%1\n%2: %3").arg(q(rates[i].method), s == 0 ? call->label() : exe->label(), pct(rate)), f);
            if (rate.n == 0)
                continue;
            const auto ci = rate.ci();
            segment(c, x, y, {xc, 100 * ci.lo}, {xc, 100 * ci.hi}, whisker);
            segment(c, x, y, {xc - 0.04, 100 * ci.lo}, {xc + 0.04, 100 * ci.lo}, whisker);
            segment(c, x, y, {xc - 0.04, 100 * ci.hi}, {xc + 0.04, 100 * ci.hi}, whisker);
            // Over the whisker's cap and no wider than the bar: never across a neighbour's whisker
            // (too narrow a bar: no label; the tooltip has it).
            c->annotateValue(series, {xc, 100 * ci.hi}, QStringLiteral("%1%").arg(100.0 * rate.value(), 0, 'f', 0), width / 2);
        }
    }
}

void taxonomyBars(FigureChart* c, const an::Taxonomy& t, bool byCategory)
{
    auto* series = new QHorizontalStackedBarSeries;
    QStringList groups;
    // Rows top to bottom in sorted order: horizontal bar categories run bottom-up, so reverse.
    struct Row {
        QString name;
        const std::vector<int>* counts;
        std::size_t group;
        bool reviewed;
    };
    std::vector<Row> rows;
    for (std::size_t g = 0; g < t.groups.size(); ++g) {
        const QString name = QStringLiteral("%1 (n=%2)").arg(q(t.groups[g])).arg(t.evaluations[g]);
        if (t.reviewed) {
            rows.push_back({name + QStringLiteral(" · automatic"), &t.automatic[g], g, false});
            rows.push_back({name + QStringLiteral(" · reviewed"), &(*t.reviewed)[g], g, true});
        } else {
            rows.push_back({name, &t.automatic[g], g, false});
        }
    }
    std::reverse(rows.begin(), rows.end());
    for (const auto& r : rows)
        groups << r.name;
    int maxTotal = 0;
    for (const auto& r : rows) {
        int total = 0;
        for (int v : *r.counts)
            total += v;
        maxTotal = std::max(maxTotal, total);
    }
    for (std::size_t k = 0; k < t.classes.size(); ++k) {
        auto* set = new QBarSet(q(t.classes[k]));
        style::applyBar(set, int(k));
        for (const auto& r : rows)
            set->append((*r.counts)[k]);
        series->append(set);
    }
    const double barWidth = 0.7;
    series->setBarWidth(barWidth);
    auto* y = new QBarCategoryAxis;
    y->append(groups);
    styleAxis(y, byCategory ? QStringLiteral("category") : QStringLiteral("method"));
    auto* x = new QValueAxis;
    // The axis ends on a tick past the longest bar, so the longest bar reads off a labelled value.
    const double tick = std::max(1.0, std::ceil(maxTotal / 8.0));
    x->setRange(0, std::max(tick, std::ceil(std::max(1, maxTotal) / tick) * tick));
    x->setLabelFormat(QStringLiteral("%d"));
    x->setTickType(QValueAxis::TicksDynamic);
    x->setTickAnchor(0);
    x->setTickInterval(tick);
    styleAxis(x, QStringLiteral("failed evaluations"));
    c->addAxis(x, Qt::AlignBottom);
    c->addAxis(y, Qt::AlignLeft);
    attach(c, series, x, y);
    // One mark per segment: the class's count (and share of the row's evaluations) on hover; a click
    // filters the group's failures of that class.
    for (std::size_t ri = 0; ri < rows.size(); ++ri) {
        const auto& r = rows[ri];
        double left = 0;
        for (std::size_t k = 0; k < t.classes.size(); ++k) {
            const int v = (*r.counts)[k];
            if (v <= 0)
                continue;
            QVariantMap f = byCategory ? QVariantMap{{QStringLiteral("figure"), c->figureName()},
                                                     {QStringLiteral("category"), q(t.groups[r.group])}}
                                       : methodFilter(c->figureName(), q(t.groups[r.group]));
            f.insert(QStringLiteral("failureClass"), q(t.classes[k]));
            if (t.reviewed)
                f.insert(QStringLiteral("reviewed"), r.reviewed);
            const int n = t.evaluations[r.group];
            c->addHit(series, QRectF(left, double(ri) - barWidth / 2, v, barWidth),
                      QStringLiteral("%1\n%2: %3 of %4 evaluations (%5%)")
                          .arg(r.name, q(t.classes[k]))
                          .arg(v)
                          .arg(n)
                          .arg(n > 0 ? 100.0 * v / n : 0.0, 0, 'f', 1),
                      f);
            left += v;
        }
    }
}

/// The groups the method-summary figure draws: every (GPU, method, round) while there are few; with
/// many (8 methods x 10 rounds x 2 GPUs would be 160) and several rounds, the last round of each
/// (GPU, method), where the methods stand at the end; every round stays in the CSV.
constexpr std::size_t kSummaryGroups = 16;
std::vector<kbx::stats::MethodSummary> summaryGroups(const std::vector<kbx::stats::MethodSummary>& ms, bool* lastRoundOnly)
{
    std::set<int> rounds;
    for (const auto& m : ms)
        rounds.insert(m.round);
    const bool reduce = ms.size() > kSummaryGroups && rounds.size() > 1;
    if (lastRoundOnly)
        *lastRoundOnly = reduce;
    if (!reduce)
        return ms;
    std::map<std::pair<std::string, std::string>, int> last;
    for (const auto& m : ms) {
        auto [it, fresh] = last.try_emplace({m.gpu, m.method}, m.round);
        if (!fresh)
            it->second = std::max(it->second, m.round);
    }
    std::vector<kbx::stats::MethodSummary> out;
    for (const auto& m : ms)
        if (last[{m.gpu, m.method}] == m.round)
            out.push_back(m);
    return out;
}

void methodSummaryBars(FigureChart* c, const std::vector<kbx::stats::MethodSummary>& all)
{
    bool lastOnly = false;
    const auto ms = summaryGroups(all, &lastOnly);
    std::set<std::string> gpus;
    std::set<int> rounds;
    for (const auto& m : ms) {
        gpus.insert(m.gpu);
        rounds.insert(m.round);
    }
    const GpuLabels gpuLabel(gpus);
    QStringList cats;
    std::vector<std::vector<an::Rate>> rates;
    std::vector<QVariantMap> filters;
    for (const auto& m : ms) {
        // With the last round of each, its round is in the label whenever the methods' last rounds differ.
        cats << QStringLiteral("%1 (n=%2)").arg(groupLabel(gpuLabel, m.gpu, m.method, m.round, gpus.size() > 1, rounds.size() > 1)).arg(m.n);
        rates.push_back({m.call, m.exe, m.exeGivenCall});
        filters.push_back({{QStringLiteral("figure"), c->figureName()},
                           {QStringLiteral("method"), q(m.method)},
                           {QStringLiteral("round"), m.round},
                           {QStringLiteral("gpu"), q(m.gpu)}});
    }
    QString xTitle = QStringLiteral("method");
    if (lastOnly)
        xTitle += rounds.size() == 1 ? QStringLiteral(" (round %1, the last of each; every round in the CSV)").arg(*rounds.begin())
                                     : QStringLiteral(" (last round of each; every round in the CSV)");
    rateBars(c, cats, {QStringLiteral("compile"), QStringLiteral("correct"), QStringLiteral("correct / compile")}, rates, xTitle,
             QStringLiteral("rate (95% Wilson interval)"), filters);
}

void slowFractionBars(FigureChart* c, const std::vector<kbx::stats::SlowFraction>& slow)
{
    // One bar per GPU: all methods pooled (the per-method rows where a GPU has one method).
    QStringList cats;
    std::vector<std::vector<an::Rate>> rates;
    std::vector<QVariantMap> filters;
    std::map<std::string, int> methodsPerGpu;
    std::set<std::string> gpus;
    for (const auto& s : slow) {
        gpus.insert(s.gpu);
        if (s.method != "all methods")
            methodsPerGpu[s.gpu]++;
    }
    const GpuLabels gpuLabel(gpus);
    for (const auto& s : slow) {
        const bool pooled = s.method == "all methods";
        if (!pooled && methodsPerGpu[s.gpu] > 1)
            continue;
        cats << QStringLiteral("%1 (%2 timed)").arg(gpuLabel(s.gpu)).arg(s.slower.n);
        rates.push_back({s.slower});
        QVariantMap f{{QStringLiteral("figure"), c->figureName()}, {QStringLiteral("gpu"), q(s.gpu)}};
        if (!pooled)
            f.insert(QStringLiteral("method"), q(s.method));
        filters.push_back(f);
    }
    rateBars(c, cats, {QStringLiteral("slower than eager (speedup < 1)")}, rates, QStringLiteral("GPU"),
             QStringLiteral("correct kernels slower than eager (95% Wilson)"), filters);
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
    std::set<std::string> gpus;
    for (const auto& g : groups)
        gpus.insert(g.gpu);
    const GpuLabels gpuLabel(gpus);
    QStringList cats;
    double top = 0;
    for (const auto& g : groups) {
        const auto& a = g.analysis;
        cats << QStringLiteral("%1 · r%2 (n=%3)").arg(gpuLabel(g.gpu)).arg(g.round).arg(a.n);
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
    turnLabels(x, int(cats.size()), 3);
    auto* y = new QValueAxis;
    // Room above the tallest bar for its label; ticks on round values.
    const double step = top > 50 ? 20.0 : (top > 20 ? 10.0 : 5.0);
    const double yMax = std::max(step, std::ceil((top * 1.12) / step) * step);
    y->setRange(0, yMax);
    y->setLabelFormat(QStringLiteral("%.0f%%"));
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
            c->annotateValue(series, {xc, v}, QString::number(v, 'f', 1) + QLatin1Char('%'), 0.7 / 3.0);
            const auto& g = groups[std::size_t(i)];
            c->addHit(series, QRectF(xc - 0.35 / 3.0, 0, 0.7 / 3.0, std::max(v, yMax * 0.01)),
                      QStringLiteral("%1 · round %2 (n=%3)\n%4: %5% of the null deviance")
                          .arg(shortGpu(g.gpu))
                          .arg(g.round)
                          .arg(g.analysis.n)
                          .arg(sets[std::size_t(k)]->label())
                          .arg(v, 0, 'f', 1),
                      QVariantMap{{QStringLiteral("figure"), c->figureName()}, {QStringLiteral("gpu"), q(g.gpu)}, {QStringLiteral("round"), g.round}});
        }
}

void rescuedBars(FigureChart* c, const kbx::stats::Rescued& r)
{
    // Geometric-mean speedup per (GPU, method) and cohort, with the bootstrap CI.
    std::vector<std::pair<QString, std::array<const kbx::stats::CohortStats*, 2>>> groups;
    std::set<std::string> gpus;
    for (const auto& cs : r.cohorts)
        gpus.insert(cs.gpu);
    const GpuLabels gpuLabel(gpus);
    for (const auto& cs : r.cohorts) {
        const QString label = QStringLiteral("%1 · %2").arg(q(cs.method), gpuLabel(cs.gpu));
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
        l += QStringLiteral(" (%1 / %2)").arg(pair[0] ? pair[0]->speedup.n : 0).arg(pair[1] ? pair[1]->speedup.n : 0);
        cats << l;
    }
    series->append(resc);
    series->append(pers);
    const double width = 0.7;
    series->setBarWidth(width);
    auto* x = new QBarCategoryAxis;
    x->append(cats);
    styleAxis(x, QStringLiteral("method · GPU (timed kernels: rescued / persistent)"));
    turnLabels(x, int(cats.size()), 3);
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
            const double xc = double(i) - width / 2 + width / 2 * (k + 0.5);
            if (cs && cs->speedup.geomean)
                c->addHit(series, QRectF(xc - width / 4, 0, width / 2, *cs->speedup.geomean),
                          QStringLiteral("%1 · %2\n%3: geometric-mean speedup %4x over %5 timed kernels%6")
                              .arg(q(cs->method), shortGpu(cs->gpu), q(cs->cohort))
                              .arg(*cs->speedup.geomean, 0, 'f', 2)
                              .arg(cs->speedup.n)
                              .arg(cs->speedup.geomeanCI ? QStringLiteral(" (95% CI %1x–%2x)")
                                                               .arg(cs->speedup.geomeanCI->lo, 0, 'f', 2)
                                                               .arg(cs->speedup.geomeanCI->hi, 0, 'f', 2)
                                                         : QString()),
                          cs->method == "all methods"
                              ? QVariantMap{{QStringLiteral("figure"), c->figureName()}, {QStringLiteral("gpu"), q(cs->gpu)}}
                              : QVariantMap{{QStringLiteral("figure"), c->figureName()}, {QStringLiteral("method"), q(cs->method)}, {QStringLiteral("gpu"), q(cs->gpu)}});
            if (!cs || !cs->speedup.geomeanCI)
                continue;
            segment(c, x, y, {xc, cs->speedup.geomeanCI->lo}, {xc, cs->speedup.geomeanCI->hi}, whisker);
        }
    segment(c, x, y, {-0.5, 1.0}, {double(groups.size()) - 0.5, 1.0}, referencePen());
}

}  // namespace kbx::gui::qtcharts
