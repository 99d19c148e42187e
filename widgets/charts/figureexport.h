// SPDX-License-Identifier: MIT
#pragma once
// Exports of figures (SVG, PDF, PNG at 2x, all with provenance) and of their tables (CSV, LaTeX booktabs).

#include "figurerenderer.h"

#include <QList>
#include <QString>
#include <QStringList>

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
bool exportFigureInput(FigureRenderer& renderer, const FigureInput& in, const QString& file, QString* error);

/// The kbx version string compiled in.
QString kbxVersion();

}  // namespace kbx::gui
