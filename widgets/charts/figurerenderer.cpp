// SPDX-License-Identifier: MIT
#include "figurerenderer.h"

#include "stats_tables.h"

#include <algorithm>
#include <cmath>

namespace kbx::gui {

QString Provenance::text() const
{
    QStringList r;
    for (qint64 id : runs)
        r << QString::number(id);
    return QStringLiteral("database=%1; runs=%2; filters: %3; counted: %4; kbx %5; %6")
        .arg(database, r.isEmpty() ? QStringLiteral("none") : r.join(QLatin1Char(',')), filters,
             counting.isEmpty() ? QString::fromStdString(kbx::analysis::countingRule()) : counting, version,
             date.toUTC().toString(Qt::ISODate));
}

QString countingText(const kbx::analysis::Datasets& d)
{
    const QString rule = QString::fromStdString(kbx::analysis::countingRule());
    if (d.storedCount > 0)
        return QStringLiteral("%1: %2 of %3 evaluations").arg(rule).arg(d.rowCount).arg(d.storedCount);
    return QStringLiteral("%1: %2 evaluations").arg(rule).arg(d.rowCount);
}

QSize FigureOptions::resolve(const QSize& preferred) const
{
    const double pw = std::max(1, preferred.width()), ph = std::max(1, preferred.height());
    const double a = std::isfinite(aspect) && aspect > 0 ? aspect : pw / ph;
    double w = std::isfinite(widthPx) && widthPx > 0 ? widthPx : 0;
    double h = std::isfinite(heightPx) && heightPx > 0 ? heightPx : 0;
    if (w > 0 && h <= 0)
        h = w / a;
    else if (h > 0 && w <= 0)
        w = h * a;
    else if (w <= 0 && h <= 0) {
        w = pw;
        h = aspect > 0 ? pw / a : ph;
    }
    return {int(std::lround(std::clamp(w, 64.0, 20000.0))), int(std::lround(std::clamp(h, 64.0, 20000.0)))};
}

QString figureKind(const QString& name)
{
    if (name == QLatin1String("category-method"))
        return QStringLiteral("correctness_heatmap");
    if (name == QLatin1String("rounds"))
        return QStringLiteral("round_trajectories");
    if (name == QLatin1String("taxonomy"))
        return QStringLiteral("taxonomy_by_category");
    return name;
}

QString figureTitle(const QString& rawName)
{
    const QString name = figureKind(rawName);
    if (name == QLatin1String("method-summary"))
        return QStringLiteral("Compile, correct and correct/compile rate per method");
    if (name == QLatin1String("deviance"))
        return QStringLiteral("Explained deviance of exe correctness: category vs method");
    if (name == QLatin1String("rescued"))
        return QStringLiteral("Speedup of rescued vs persistently correct kernels");
    if (name == QLatin1String("cross-hardware"))
        return QStringLiteral("Spread of the same kernel across GPUs (max/min)");
    if (name == QLatin1String("slow-fraction"))
        return QStringLiteral("Correct kernels slower than PyTorch eager, per GPU");
    if (name == QLatin1String("correctness_heatmap"))
        return QStringLiteral("Correctness by category and method (call and exe rate)");
    if (name == QLatin1String("compile_vs_correct"))
        return QStringLiteral("Compiles and runs vs correct, per method");
    if (name == QLatin1String("speedup_box"))
        return QStringLiteral("Speedup of correct kernels over PyTorch");
    if (name == QLatin1String("speedup_ecdf"))
        return QStringLiteral("Speedup distribution (ECDF) of correct kernels");
    if (name == QLatin1String("fast_p"))
        return QStringLiteral("fast_p: fraction of tasks correct and faster than p x PyTorch");
    if (name == QLatin1String("taxonomy_by_category"))
        return QStringLiteral("Failure classes per category");
    if (name == QLatin1String("taxonomy_by_method"))
        return QStringLiteral("Failure classes per method");
    if (name == QLatin1String("round_trajectories"))
        return QStringLiteral("Pass rate per round");
    return name;
}

QString emptyMessage(const FigureInput& in)
{
    const auto& d = in.data;
    const bool filtered = !d.filters.empty();
    const QString kind = figureKind(in.name);
    if (kind == QLatin1String("cross-hardware")) {
        if (!d.stats || (d.stats->cross.kernels.empty() && d.stats->cross.golden.empty()))
            return QStringLiteral("No kernel timed on two or more GPUs, and no golden timings of two or more GPUs");
        return {};
    }
    if (d.rowCount == 0)
        return filtered ? QStringLiteral("No evaluations match these filters") : QStringLiteral("No evaluations in this database");
    if (figureKind(in.name) == QLatin1String("speedup_box") || figureKind(in.name) == QLatin1String("speedup_ecdf") || figureKind(in.name) == QLatin1String("fast_p")) {
        if (!kbx::analysis::hasTimings(d.speedup))
            return filtered ? QStringLiteral("No timing data in this database for these filters")
                            : QStringLiteral("No timing data in this database");
    }
    if (kind == QLatin1String("deviance") && (!d.stats || d.stats->deviance.empty()))
        return QStringLiteral("No evaluations for a deviance analysis");
    if (kind == QLatin1String("rescued") &&
        (!d.stats || std::none_of(d.stats->rescued.cohorts.begin(), d.stats->rescued.cohorts.end(),
                                  [](const kbx::stats::CohortStats& c) { return c.speedup.n > 0; })))
        return QStringLiteral("No timed kernel observed in two or more rounds");
    if (kind == QLatin1String("slow-fraction") && (!d.stats || d.stats->cross.slow.empty()))
        return filtered ? QStringLiteral("No timing data in this database for these filters") : QStringLiteral("No timing data in this database");
    if (figureKind(in.name) == QLatin1String("taxonomy_by_category") && d.taxonomyByCategory.empty())
        return QStringLiteral("No failures in this selection");
    if (figureKind(in.name) == QLatin1String("taxonomy_by_method") && d.taxonomyByMethod.empty())
        return QStringLiteral("No failures in this selection");
    return {};
}

}  // namespace kbx::gui
