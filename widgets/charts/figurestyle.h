// SPDX-License-Identifier: MIT
#pragma once
// Publication style of the figures: fixed fonts and sizes, a palette whose colours differ in
// lightness (so they stay apart printed in grey) with hatching beyond the first five, and a
// sequential ramp for the heatmap that is monotone in lightness.

#include <QBrush>
#include <QColor>
#include <QFont>
#include <QPen>

class QBarSet;

namespace kbx::gui::style {

QFont titleFont();
QFont axisTitleFont();
QFont labelFont();
QFont legendFont();
QFont messageFont();
QColor textColour();
QColor axisColour();
QColor gridColour();

/// Categorical colour i (cycles through five lightness levels).
QColor categorical(int i);
/// Fill for bar i: the colour, with a hatch pattern from i >= 5 (white diagonal, cross, ...).
QBrush categoricalBrush(int i);
void applyBar(QBarSet* set, int i);
/// Line pen i: colour and dash pattern both vary, width 2.
QPen linePen(int i);
/// Heatmap colour for a rate in [0, 1]: dark (0) to light (1), viridis hues.
QColor sequential(double v);
/// Black or white, whichever reads on fill.
QColor onColour(const QColor& fill);

}  // namespace kbx::gui::style
