// SPDX-License-Identifier: MIT
#pragma once
#include <QMap>
#include <QWidget>

class QLabel;

namespace kbx::gui {

class CodeView;

/// The PyTorch reference (the task file) beside a generated kernel, with failure markers on the
/// candidate. The reference opens at its `def reference(` line (the first visible line; the META
/// dictionary above it is a scroll away) and the candidate at its first marker or its top; from there
/// the two views scroll together by the same number of lines.
class CodeCompareView : public QWidget {
    Q_OBJECT
public:
    explicit CodeCompareView(QWidget* parent = nullptr);

    /// Shows `code` at its `def reference(` line, or at the top when it has none.
    void setReference(const QString& title, const QString& code);
    /// Reads the task file at `path` (the reference source).
    bool setReferenceFile(const QString& title, const QString& path);
    void setCandidate(const QString& title, const QString& code, const QMap<int, QString>& markers = {});
    void clear();
    CodeView* referenceView() const { return m_ref; }
    CodeView* candidateView() const { return m_cand; }
    /// The 1-based line of the reference's `def reference(` (0: none).
    int referenceLine() const { return m_referenceLine; }
    /// The 1-based line of the first top-level `def reference(` in `code` (0: none).
    static int findReferenceLine(const QString& code);

private:
    void follow(CodeView* other, int lines);

    QLabel* m_refTitle;
    QLabel* m_candTitle;
    CodeView* m_ref;
    CodeView* m_cand;
    int m_referenceLine = 0;
    /// Set while one view follows the other or a text is put in place (which scrolls it).
    bool m_syncing = false;
};

/// Side-by-side line diff of two candidates (e.g. two rounds or two methods): removed lines red on
/// the left, added lines green on the right, blank filler lines keep both sides aligned; the gutters
/// show each text's own line numbers.
class DiffView : public QWidget {
    Q_OBJECT
public:
    explicit DiffView(QWidget* parent = nullptr);

    void setTexts(const QString& titleA, const QString& a, const QString& titleB, const QString& b);
    int addedLines() const { return m_added; }
    int removedLines() const { return m_removed; }
    CodeView* leftView() const { return m_left; }
    CodeView* rightView() const { return m_right; }
    static QColor addedColor(bool dark);
    static QColor removedColor(bool dark);

private:
    QLabel* m_titleA;
    QLabel* m_titleB;
    QLabel* m_summary;
    CodeView* m_left;
    CodeView* m_right;
    int m_added = 0;
    int m_removed = 0;
};

}  // namespace kbx::gui
