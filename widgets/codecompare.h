// SPDX-License-Identifier: MIT
#pragma once
#include <QMap>
#include <QWidget>

class QLabel;

namespace kbx::gui {

class CodeView;

/// The PyTorch reference (the task file) beside a generated kernel, with failure markers on the
/// candidate; the two views scroll together.
class CodeCompareView : public QWidget {
    Q_OBJECT
public:
    explicit CodeCompareView(QWidget* parent = nullptr);

    void setReference(const QString& title, const QString& code);
    /// Reads the task file at `path` (the reference source).
    bool setReferenceFile(const QString& title, const QString& path);
    void setCandidate(const QString& title, const QString& code, const QMap<int, QString>& markers = {});
    void clear();
    CodeView* referenceView() const { return m_ref; }
    CodeView* candidateView() const { return m_cand; }

private:
    QLabel* m_refTitle;
    QLabel* m_candTitle;
    CodeView* m_ref;
    CodeView* m_cand;
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
