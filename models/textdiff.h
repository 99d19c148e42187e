// SPDX-License-Identifier: MIT
#pragma once
#include <QList>
#include <QString>
#include <QStringList>

namespace kbx::gui {

/// One line of a line-based diff. lineA/lineB are 1-based line numbers in each text (0 when the
/// line is not in that text).
struct DiffLine {
    enum Kind { Same, Removed, Added };
    Kind kind = Same;
    int lineA = 0;
    int lineB = 0;
    QString text;
    bool operator==(const DiffLine&) const = default;
};

/// Line diff of `a` against `b` through the longest common subsequence (common prefix and suffix
/// trimmed first; texts beyond 20k differing lines fall back to remove-all/add-all).
QList<DiffLine> diffLines(const QStringList& a, const QStringList& b);
QList<DiffLine> diffTexts(const QString& a, const QString& b);

}  // namespace kbx::gui
