// SPDX-License-Identifier: MIT
#include "figurerenderer.h"

namespace kbx::gui {

QString Provenance::text() const
{
    QStringList r;
    for (qint64 id : runs)
        r << QString::number(id);
    return QStringLiteral("database=%1; runs=%2; filters: %3; kbx %4; %5")
        .arg(database, r.isEmpty() ? QStringLiteral("none") : r.join(QLatin1Char(',')), filters, version,
             date.toUTC().toString(Qt::ISODate));
}

QString figureTitle(const QString& name)
{
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
    if (d.rowCount == 0)
        return filtered ? QStringLiteral("No evaluations match these filters") : QStringLiteral("No evaluations in this database");
    if (in.name == QLatin1String("speedup_box") || in.name == QLatin1String("speedup_ecdf") || in.name == QLatin1String("fast_p")) {
        if (!kbx::analysis::hasTimings(d.speedup))
            return filtered ? QStringLiteral("No timing data in this database for these filters")
                            : QStringLiteral("No timing data in this database");
    }
    if (in.name == QLatin1String("taxonomy_by_category") && d.taxonomyByCategory.empty())
        return QStringLiteral("No failures in this selection");
    if (in.name == QLatin1String("taxonomy_by_method") && d.taxonomyByMethod.empty())
        return QStringLiteral("No failures in this selection");
    return {};
}

}  // namespace kbx::gui
