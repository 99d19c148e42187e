// SPDX-License-Identifier: MIT
#include "codeview.h"

#include "syntax.h"

#include <QFontDatabase>
#include <QHelpEvent>
#include <QPainter>
#include <QScrollBar>
#include <QTextBlock>
#include <QToolTip>

namespace kbx::gui {

class CodeGutter : public QWidget {
public:
    explicit CodeGutter(CodeView* view) : QWidget(view), m_view(view) { setMouseTracking(true); }
    QSize sizeHint() const override { return {m_view->gutterWidth(), 0}; }

protected:
    void paintEvent(QPaintEvent* e) override { m_view->paintGutter(e); }
    bool event(QEvent* e) override
    {
        if (e->type() == QEvent::ToolTip) {
            auto* he = static_cast<QHelpEvent*>(e);
            m_view->gutterToolTip(he->pos(), he->globalPos());
            return true;
        }
        return QWidget::event(e);
    }

private:
    CodeView* m_view;
};

QColor CodeView::markerColor()
{
    return QColor(220, 50, 47);
}

CodeView::CodeView(QWidget* parent) : QPlainTextEdit(parent)
{
    setReadOnly(true);
    setLineWrapMode(QPlainTextEdit::NoWrap);
    setTextInteractionFlags(Qt::TextSelectableByMouse | Qt::TextSelectableByKeyboard);
    QFont f = QFontDatabase::systemFont(QFontDatabase::FixedFont);
    setFont(f);
    m_gutter = new CodeGutter(this);
    connect(this, &QPlainTextEdit::blockCountChanged, this, &CodeView::updateGutterWidth);
    connect(this, &QPlainTextEdit::updateRequest, this, &CodeView::updateGutter);
    updateGutterWidth();
}

void CodeView::setCode(const QString& code, const QMap<int, QString>& markers)
{
    m_backgrounds.clear();
    m_labels.clear();
    setPlainText(code);
    rehighlight();
    setMarkers(markers);
    if (!markers.isEmpty())
        scrollToLine(markers.firstKey());
}

void CodeView::setMarkers(const QMap<int, QString>& markers)
{
    m_markers = markers;
    updateSelections();
    m_gutter->update();
}

void CodeView::setLineBackgrounds(const QMap<int, QColor>& backgrounds)
{
    m_backgrounds = backgrounds;
    updateSelections();
}

void CodeView::setGutterLabels(const QStringList& labels)
{
    m_labels = labels;
    updateGutterWidth();
    m_gutter->update();
}

void CodeView::setSyntax(const QString& definition)
{
    m_syntax = definition;
    rehighlight();
}

void CodeView::rehighlight()
{
    if (m_highlighter)
        delete m_highlighter.data();
    if (m_syntax.isEmpty())
        return;
    const bool dark = palette().color(QPalette::Base).lightness() < 128;
    m_highlighter = attachHighlighter(document(), m_syntax, dark);
}

void CodeView::changeEvent(QEvent* e)
{
    QPlainTextEdit::changeEvent(e);
    if (e->type() == QEvent::PaletteChange) {
        rehighlight();
        updateSelections();
    }
}

void CodeView::scrollToLine(int line)
{
    const QTextBlock b = document()->findBlockByNumber(qMax(0, line - 1));
    if (!b.isValid())
        return;
    QTextCursor c(b);
    setTextCursor(c);
    centerCursor();
}

void CodeView::showLineAtTop(int line)
{
    const QTextBlock b = document()->findBlockByNumber(qMax(0, line - 1));
    if (!b.isValid())
        return;
    setTextCursor(QTextCursor(b));
    // QPlainTextEdit scrolls by blocks, and without wrapping a block is one line.
    verticalScrollBar()->setValue(b.blockNumber());
}

int CodeView::firstVisibleLine() const
{
    return firstVisibleBlock().blockNumber() + 1;
}

int CodeView::gutterWidth() const
{
    int digits = 1;
    int n = qMax(1, blockCount());
    while (n >= 10) {
        n /= 10;
        ++digits;
    }
    for (const auto& l : m_labels)
        digits = qMax(digits, int(l.size()));
    const int dot = fontMetrics().height();
    return 8 + fontMetrics().horizontalAdvance(QLatin1Char('9')) * digits + dot;
}

void CodeView::updateGutterWidth()
{
    setViewportMargins(gutterWidth(), 0, 0, 0);
}

void CodeView::updateGutter(const QRect& rect, int dy)
{
    if (dy) {
        m_gutter->scroll(0, dy);
        // dy is in pixels (the content moves up when the view scrolls down); lines are all alike here.
        const qreal lineHeight = blockBoundingRect(firstVisibleBlock()).height();
        if (lineHeight > 0) {
            const int lines = qRound(-dy / lineHeight);
            if (lines != 0)
                emit scrolled(lines);
        }
    } else
        m_gutter->update(0, rect.y(), m_gutter->width(), rect.height());
    if (rect.contains(viewport()->rect()))
        updateGutterWidth();
}

void CodeView::resizeEvent(QResizeEvent* e)
{
    QPlainTextEdit::resizeEvent(e);
    const QRect cr = contentsRect();
    m_gutter->setGeometry(QRect(cr.left(), cr.top(), gutterWidth(), cr.height()));
}

void CodeView::updateSelections()
{
    QList<QTextEdit::ExtraSelection> sels;
    for (auto it = m_backgrounds.cbegin(); it != m_backgrounds.cend(); ++it) {
        QTextEdit::ExtraSelection s;
        s.format.setBackground(it.value());
        s.format.setProperty(QTextFormat::FullWidthSelection, true);
        const QTextBlock b = document()->findBlockByNumber(it.key() - 1);
        if (it.key() < 1 || !b.isValid())
            continue;  // a line the text does not have (e.g. a harness frame)
        s.cursor = QTextCursor(b);
        sels.append(s);
    }
    QColor band = markerColor();
    band.setAlpha(palette().color(QPalette::Base).lightness() < 128 ? 110 : 60);
    for (auto it = m_markers.cbegin(); it != m_markers.cend(); ++it) {
        QTextEdit::ExtraSelection s;
        s.format.setBackground(band);
        s.format.setProperty(QTextFormat::FullWidthSelection, true);
        s.format.setToolTip(it.value());
        const QTextBlock b = document()->findBlockByNumber(it.key() - 1);
        if (it.key() < 1 || !b.isValid())
            continue;  // a line the text does not have (e.g. a harness frame)
        s.cursor = QTextCursor(b);
        sels.append(s);
    }
    setExtraSelections(sels);
}

void CodeView::paintGutter(QPaintEvent* e)
{
    QPainter p(m_gutter);
    const QPalette pal = palette();
    p.fillRect(e->rect(), pal.color(QPalette::AlternateBase));
    QTextBlock block = firstVisibleBlock();
    int number = block.blockNumber();
    int top = qRound(blockBoundingGeometry(block).translated(contentOffset()).top());
    int bottom = top + qRound(blockBoundingRect(block).height());
    const int h = fontMetrics().height();
    const int w = m_gutter->width();
    QColor textColor = pal.color(QPalette::Text);
    textColor.setAlpha(150);
    while (block.isValid() && top <= e->rect().bottom()) {
        if (block.isVisible() && bottom >= e->rect().top()) {
            const int line = number + 1;
            const QString label = m_labels.isEmpty() ? QString::number(line) : m_labels.value(number);
            p.setPen(textColor);
            p.drawText(0, top, w - h - 2, h, Qt::AlignRight | Qt::AlignVCenter, label);
            if (m_markers.contains(line)) {
                p.setRenderHint(QPainter::Antialiasing);
                p.setPen(Qt::NoPen);
                p.setBrush(markerColor());
                const int d = h * 6 / 10;
                p.drawEllipse(QRect(w - h + (h - d) / 2, top + (h - d) / 2, d, d));
                p.setRenderHint(QPainter::Antialiasing, false);
            }
        }
        block = block.next();
        top = bottom;
        bottom = top + qRound(blockBoundingRect(block).height());
        ++number;
    }
}

void CodeView::gutterToolTip(const QPoint& pos, const QPoint& globalPos)
{
    const QTextCursor c = cursorForPosition(QPoint(0, pos.y()));
    const int line = c.blockNumber() + 1;
    if (m_markers.contains(line))
        QToolTip::showText(globalPos, tr("Line %1: %2").arg(line).arg(m_markers.value(line)), m_gutter);
    else
        QToolTip::hideText();
}

bool CodeView::viewportEvent(QEvent* e)
{
    if (e->type() == QEvent::ToolTip) {
        auto* he = static_cast<QHelpEvent*>(e);
        const int line = cursorForPosition(he->pos()).blockNumber() + 1;
        if (m_markers.contains(line)) {
            QToolTip::showText(he->globalPos(), tr("Line %1: %2").arg(line).arg(m_markers.value(line)), viewport());
            return true;
        }
    }
    return QPlainTextEdit::viewportEvent(e);
}

}  // namespace kbx::gui
