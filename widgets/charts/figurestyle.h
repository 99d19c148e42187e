// SPDX-License-Identifier: MIT
#pragma once
// Publication style of the figures: fonts scaled from one base size, a colour-blind-safe
// qualitative palette of twelve colours (Paul Tol's), and beyond it the same colours again with a
// hatch (bars) or a dash pattern (lines); a sequential ramp for the heatmap, monotone in lightness.

#include <QBrush>
#include <QColor>
#include <QFont>
#include <QPen>

class QBarSet;

namespace kbx::gui::style {

/// The base font size in points (axis tick labels and legend; titles are larger). Default 9 pt.
constexpr double kDefaultFontPt = 9.0;
/// Sets the base font size of every font below for the lifetime of the guard (GUI thread).
class FontSizeGuard {
public:
    explicit FontSizeGuard(double pt);
    ~FontSizeGuard();
    FontSizeGuard(const FontSizeGuard&) = delete;
    FontSizeGuard& operator=(const FontSizeGuard&) = delete;

private:
    double m_previous;
};
/// Scale of the fonts against the default size (1 at 9 pt).
double fontScale();

QFont titleFont();
QFont axisTitleFont();
QFont labelFont();
QFont legendFont();
QFont messageFont();
/// The label font at `factor` of its size (never below 6 px): cells and dense labels.
QFont smallerLabelFont(double factor);
QColor textColour();
QColor axisColour();
QColor gridColour();

/// Number of distinct qualitative colours before the hatches / dash patterns start.
constexpr int kPaletteSize = 12;
/// Categorical colour i (cycles through the twelve).
QColor categorical(int i);
/// 0 for i < 12, 1 for the next twelve, ...: the hatch or dash pattern that tells series i apart
/// from series i - 12 of the same colour.
int variant(int i);
/// Fill for bar i: the colour, with a hatch pattern from i >= 12 (diagonal, cross, back diagonal, dots).
QBrush categoricalBrush(int i);
void applyBar(QBarSet* set, int i);
/// Line pen i: colour i, solid for the first twelve, then dashed, dotted, dash-dot.
QPen linePen(int i);
/// Heatmap colour for a rate in [0, 1]: dark (0) to light (1), viridis hues.
QColor sequential(double v);
/// Black or white, whichever reads on fill.
QColor onColour(const QColor& fill);

}  // namespace kbx::gui::style
