// SPDX-License-Identifier: MIT
#pragma once
// Exports of figures (SVG, PDF, PNG at 2x, all with provenance) and of their tables (CSV, LaTeX booktabs).

#include "figurerenderer.h"

#include <QList>
#include <QString>
#include <QStringList>

class QWidget;

namespace kbx::gui {

/// A figure's numbers as a table. csv: tidy (one observation per row, full precision rates and
/// Wilson bounds); the LaTeX form is the same table, except the correctness table which is wide
/// (category x method, "call / exe" percentages with n).
struct Table {
    QStringList header;
    QList<QStringList> rows;
};
Table figureTable(const FigureInput& in);
QString toCsv(const Table& t);
/// A booktabs tabular (\toprule, \midrule, \bottomrule) with a comment line carrying the provenance.
QString toLatex(const FigureInput& in);

/// Writes in to file, the format by suffix (.svg .pdf .png .csv .tex). False + *error on failure.
/// Figures take their size from in.options (FigureOptions::resolve of the preferred size): the SVG's
/// viewBox and the PDF page (at 72 pt per 96 px) are exactly that size, the PNG twice it. A figure
/// written with something it could not show at that size (FigureRenderer::crowdingWarning) says so in
/// *warning (else empty).
bool exportFigureInput(FigureRenderer& renderer, const FigureInput& in, const QString& file, QString* error,
                       QString* warning = nullptr);

/// A length for --width/--height: a number with an optional unit, px (the default, 96 per inch),
/// pt, in, cm or mm ("3.5in", "88mm", "640"). Returns logical pixels, or -1 (and *error) when invalid.
double parseLength(const QString& text, QString* error = nullptr);
/// An aspect for --aspect: "1.6", "16:9" or "16/9" (width over height); -1 (and *error) when invalid.
double parseAspect(const QString& text, QString* error = nullptr);

/// The export dialog's size and type choices (width, height, unit, lock of the aspect, font size,
/// title), starting from opts and the figure's preferred size. False when cancelled.
bool askFigureOptions(QWidget* parent, const QSize& preferred, FigureOptions* opts);

/// The kbx version string compiled in.
QString kbxVersion();

}  // namespace kbx::gui
