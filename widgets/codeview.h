// SPDX-License-Identifier: MIT
#pragma once
#include <QColor>
#include <QMap>
#include <QPlainTextEdit>
#include <QPointer>
#include <QStringList>

namespace kbx::gui {

/// Read-only code view: line numbers, failure markers at the lines a traceback names (a red band and
/// a dot in the gutter, the message as tooltip), optional per-line backgrounds (diffs) and gutter
/// labels, and syntax highlighting: KSyntaxHighlighting's Triton definition when the build has it, the
/// built-in PythonHighlighter (Python plus tl.* and triton.*) otherwise (see syntax.h).
class CodeView : public QPlainTextEdit {
    Q_OBJECT
public:
    explicit CodeView(QWidget* parent = nullptr);

    /// Shows `code`; markers map 1-based lines to messages.
    void setCode(const QString& code, const QMap<int, QString>& markers = {});
    void setMarkers(const QMap<int, QString>& markers);
    const QMap<int, QString>& markers() const { return m_markers; }
    /// Background of individual lines (1-based), e.g. a diff's added and removed lines.
    void setLineBackgrounds(const QMap<int, QColor>& backgrounds);
    /// Gutter text per line instead of the line number (empty string: nothing); empty list: numbers.
    void setGutterLabels(const QStringList& labels);
    /// "Triton" (default), "Python", or "" for none.
    void setSyntax(const QString& definition);
    bool isHighlighted() const { return !m_highlighter.isNull(); }
    /// Puts the cursor on `line` (1-based) and centres it.
    void scrollToLine(int line);
    /// Puts the cursor on `line` (1-based) and scrolls so that it is the first visible line (as far as
    /// the text goes: near the end, the last page).
    void showLineAtTop(int line);
    /// The 1-based line at the top of the view.
    int firstVisibleLine() const;
    int gutterWidth() const;

    static QColor markerColor();

signals:
    /// The view scrolled by `lines` lines (positive: towards the end), whatever moved it (scroll bar,
    /// wheel, keyboard, a program); emitted only while the view is shown.
    void scrolled(int lines);

protected:
    void resizeEvent(QResizeEvent* e) override;
    bool viewportEvent(QEvent* e) override;
    void changeEvent(QEvent* e) override;

private:
    friend class CodeGutter;
    void paintGutter(QPaintEvent* e);
    void gutterToolTip(const QPoint& pos, const QPoint& globalPos);
    void updateGutterWidth();
    void updateGutter(const QRect& rect, int dy);
    void updateSelections();
    void rehighlight();

    QWidget* m_gutter = nullptr;
    QMap<int, QString> m_markers;
    QMap<int, QColor> m_backgrounds;
    QStringList m_labels;
    QString m_syntax = QStringLiteral("Triton");
    QPointer<QObject> m_highlighter;
};

}  // namespace kbx::gui
