// SPDX-License-Identifier: MIT
#pragma once
// The figures drawn on a FigureChart (kbx_charts internal), one builder per figure; buildChart() in
// qtchartsrenderer.cpp picks the builder by the figure's name.
#include "figurechart.h"
#include "stats_tables.h"

#include <cstddef>
#include <vector>

namespace kbx::gui::qtcharts {

// heatmapfigure.cpp
/// A heatmap has dense columns (one line of text per column label, turned upright) from this many
/// columns on; below it, each label is the method name over its round and stage.
constexpr int kDenseHeatmapColumns = 12;
void correctnessHeatmap(FigureChart* c, const an::CorrectnessMatrix& m);

// barfigures.cpp
void compileVsCorrect(FigureChart* c, const std::vector<an::MethodRates>& rates);
void taxonomyBars(FigureChart* c, const an::Taxonomy& t, bool byCategory);
/// The groups the method-summary figure draws: every (GPU, method, round) while there are few; with
/// many and several rounds, the last round of each (GPU, method); *lastRoundOnly says which.
std::vector<kbx::stats::MethodSummary> summaryGroups(const std::vector<kbx::stats::MethodSummary>& ms, bool* lastRoundOnly = nullptr);
void methodSummaryBars(FigureChart* c, const std::vector<kbx::stats::MethodSummary>& all);
void slowFractionBars(FigureChart* c, const std::vector<kbx::stats::SlowFraction>& slow);
void devianceBars(FigureChart* c, const std::vector<kbx::stats::DevianceGroup>& groups);
void rescuedBars(FigureChart* c, const kbx::stats::Rescued& r);

// distributionfigures.cpp
void speedupBox(FigureChart* c, const std::vector<an::SpeedupSeries>& s);
void speedupEcdf(FigureChart* c, const std::vector<an::SpeedupSeries>& s);
void fastPCurves(FigureChart* c, const std::vector<an::FastPCurve>& curves);
void crossHardwareBoxes(FigureChart* c, const kbx::stats::CrossHardware& x);

// trajectoryfigure.cpp
void roundTrajectories(FigureChart* c, const std::vector<an::Trajectory>& t);

}  // namespace kbx::gui::qtcharts
