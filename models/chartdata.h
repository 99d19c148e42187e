// SPDX-License-Identifier: MIT
#pragma once
// The Charts tab's data, loaded on a worker thread: a database's counted evaluations (core/analysis
// Facts) read once, the datasets every figure draws from, the filter choices, and the statistics
// bundle (bootstrap CIs, deviance, cohorts, kernels across GPUs) the statistical figures need. The
// chart widgets (widgets/charts) get their data here and open no store of their own.

#include "analysis.h"
#include "stats_tables.h"

#include <QString>

#include <cstddef>
#include <memory>

namespace kbx::gui {

/// A drawn figure shows at most this many rounds (a database of thousands of rounds drew thousands of
/// "method · rN" series, a heatmap with thousands of columns, and took minutes). Without a round
/// filter, the latest kMaxDrawnRounds rounds are drawn and the filters say so (footer, provenance); a
/// round filter shows any other. Tables (.csv, .tex) are never bounded.
inline constexpr std::size_t kMaxDrawnRounds = 8;

struct ChartData {
    bool ok = false;
    QString error;  ///< when !ok: what went wrong (no such database, a store error)
    analysis::Datasets data;
    analysis::Choices choices;  ///< every method, round, GPU and category of the database (withChoices)
    /// The counted evaluations behind data, kept for the statistics computed after the figure is
    /// shown (when data has none).
    std::shared_ptr<const analysis::Facts> facts;
    /// Rounds under the caller's filters when the drawn figures were bounded to the latest
    /// kMaxDrawnRounds of them (data.filters then names those rounds); 0 when not bounded.
    std::size_t roundsBefore = 0;
};

/// Loads `db` under `filters`. withChoices: also the choices (from every counted evaluation, so the
/// facts are read without the filters and filtered after). statistics: the parts of the statistics
/// bundle to compute now (stats::BundleParts; 0: none, and `facts` is kept for loadChartStatistics).
/// drawn: for a drawn figure (bounded to kMaxDrawnRounds rounds). Never throws: errors in `error`.
ChartData loadChartData(const QString& db, const analysis::Filters& filters, bool withChoices, unsigned statistics, bool drawn);

/// The whole statistics bundle for facts loaded by loadChartData; null when the database cannot be
/// read (the figure that needs them then says it has no data).
std::shared_ptr<const stats::Bundle> loadChartStatistics(const QString& db, const analysis::Filters& filters,
                                                         std::shared_ptr<const analysis::Facts> facts);

/// Bounds facts loaded under `filters` (no round filter) to the latest kMaxDrawnRounds rounds: sets
/// filters.rounds and filters the facts; returns how many rounds there were (0: nothing bounded).
std::size_t boundRounds(analysis::Facts& facts, analysis::Filters& filters);

}  // namespace kbx::gui
