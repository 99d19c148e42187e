// SPDX-License-Identifier: MIT
// FigureChart: placing and laying out the marks, annotations and legend of a figure (fitting the texts
// to their room and relieving crowding: figurechart_fit.cpp).
#include "figurechart.h"

#include "chartparts.h"

#include <QBarCategoryAxis>
#include <QFontMetricsF>
#include <QGraphicsLayout>
#include <QPainter>
#include <QTextDocument>
#include <QTextDocumentFragment>
#include <QTextOption>

#include <algorithm>
#include <array>
#include <cmath>

namespace kbx::gui::qtcharts {

QScatterSeries::MarkerShape markerShape(int i)
{
    static const std::array<QScatterSeries::MarkerShape, 4> shapes = {
        QScatterSeries::MarkerShapeCircle, QScatterSeries::MarkerShapeRectangle, QScatterSeries::MarkerShapeTriangle,
        QScatterSeries::MarkerShapeRotatedRectangle};
    return shapes[std::size_t(std::abs(i)) % shapes.size()];
}

namespace {

void drawMarker(QPainter* p, QPointF c, double size, int shape)
{
    const double r = size / 2;
    switch (markerShape(shape)) {
    case QScatterSeries::MarkerShapeRectangle: p->drawRect(QRectF(c.x() - r * 0.9, c.y() - r * 0.9, 1.8 * r, 1.8 * r)); break;
    case QScatterSeries::MarkerShapeTriangle:
        p->drawPolygon(QPolygonF({QPointF(c.x(), c.y() - r * 1.1), QPointF(c.x() + r, c.y() + r * 0.8), QPointF(c.x() - r, c.y() + r * 0.8)}));
        break;
    case QScatterSeries::MarkerShapeRotatedRectangle:
        p->drawPolygon(QPolygonF({QPointF(c.x(), c.y() - r * 1.2), QPointF(c.x() + r * 1.2, c.y()), QPointF(c.x(), c.y() + r * 1.2),
                                  QPointF(c.x() - r * 1.2, c.y())}));
        break;
    default: p->drawEllipse(c, r, r); break;
    }
}

}  // namespace

/// A legend swatch: a filled box (bars, with their hatch), a line in the series' pen and dash
/// (lines), optionally with the series' point marker.
class Swatch : public QGraphicsItem {
public:
    Swatch(const LegendEntry& e, QGraphicsItem* parent) : QGraphicsItem(parent), m_entry(e) {}
    void setSize(QSizeF size)
    {
        if (size == m_size)
            return;
        prepareGeometryChange();
        m_size = size;
    }
    QRectF boundingRect() const override { return QRectF(QPointF(0, 0), m_size).adjusted(-2, -2, 2, 2); }
    void paint(QPainter* p, const QStyleOptionGraphicsItem*, QWidget*) override
    {
        p->save();
        p->setRenderHint(QPainter::Antialiasing);
        const QRectF r(QPointF(0, 0), m_size);
        if (m_entry.kind == LegendEntry::Kind::Fill) {
            QPen edge(QColor(30, 30, 30));
            edge.setWidthF(0.8);
            p->setPen(edge);
            p->setBrush(m_entry.brush);
            p->drawRect(r.adjusted(0.5, 0.5, -0.5, -0.5));
        } else {
            if (m_entry.kind == LegendEntry::Kind::Line) {
                QPen pen = m_entry.pen;
                pen.setCapStyle(Qt::FlatCap);
                p->setPen(pen);
                p->drawLine(QPointF(r.left(), r.center().y()), QPointF(r.right(), r.center().y()));
            }
            if (m_entry.marker >= 0) {
                p->setPen(QPen(m_entry.pen.color().darker(130), 1.0));
                p->setBrush(m_entry.pen.color());
                drawMarker(p, r.center(), std::min(9.0, m_size.height()), m_entry.marker);
            }
        }
        p->restore();
    }

private:
    LegendEntry m_entry;
    QSizeF m_size{20, 12};
};

FigureChart::FigureChart(bool interactive) : m_interactive(interactive)
{
    setAnimationOptions(QChart::NoAnimation);
    setBackgroundRoundness(0);
    setBackgroundBrush(Qt::white);
    setMargins(QMargins(kMargin, kMargin, kMargin, kMargin));
    setTitleFont(style::titleFont());
    setTitleBrush(QBrush(style::textColour()));
    legend()->setFont(style::legendFont());
    legend()->setAlignment(Qt::AlignBottom);
    legend()->setLabelColor(style::textColour());
    connect(this, &QChart::plotAreaChanged, this, [this](const QRectF&) { place(); });
}

QGraphicsSimpleTextItem* FigureChart::annotate(QAbstractSeries* s, QPointF at, const QString& text, const QColor& colour, const QFont& font,
                                               Annotation::Anchor anchor)
{
    auto* item = new QGraphicsSimpleTextItem(text, this);
    item->setFont(font);
    item->setBrush(colour);
    item->setZValue(20);
    item->setData(kRoleKey, QStringLiteral("annotation"));
    m_annotations.push_back({item, at, s, anchor, {}, {}, 0, font});
    return item;
}

void FigureChart::annotateCell(QAbstractSeries* s, const QRectF& box, const QStringList& texts, const QColor& colour, const QFont& font)
{
    auto* item = annotate(s, box.center(), texts.value(0), colour, font);
    item->setData(kRoleKey, QStringLiteral("cell"));
    m_annotations.back().alternatives = texts;
    m_annotations.back().box = box;
}

void FigureChart::annotateValue(QAbstractSeries* s, QPointF at, const QString& text, double slotWidth)
{
    auto* item = annotate(s, at, text, style::textColour(), style::labelFont(), Annotation::Anchor::Above);
    item->setData(kRoleKey, QStringLiteral("value"));
    m_annotations.back().alternatives = {text};
    m_annotations.back().slotWidth = slotWidth;
}

void FigureChart::annotateInSlot(QAbstractSeries* s, QPointF at, const QStringList& texts, double slotWidth, const QColor& colour,
                                 const QFont& font)
{
    annotate(s, at, texts.value(0), colour, font);
    m_annotations.back().alternatives = texts;
    m_annotations.back().slotWidth = slotWidth;
}

void FigureChart::addHit(QAbstractSeries* s, const QRectF& value, const QString& tip, const QVariantMap& filter)
{
    if (!m_interactive)
        return;
    auto* item = new HitItem(tip, filter, this);
    m_hits.push_back({item, value, s});
}

void FigureChart::setMessage(const QString& text)
{
    m_message = new QGraphicsSimpleTextItem(text, this);
    m_message->setFont(style::messageFont());
    m_message->setBrush(style::textColour());
    m_message->setZValue(30);
    m_message->setData(kRoleKey, QStringLiteral("annotation"));
}

qreal FigureChart::placeDetachedTitle()
{
    // Under the chart's content (the axis and its labels end there).
    const qreal contentBottom = size().height() - margins().bottom();
    qreal h = 0;
    if (m_xTitle) {
        m_xTitle->setTextWidth(-1);
        m_xTitle->setTextWidth(std::ceil(m_xTitle->document()->idealWidth()));  // lines centred on each other
        // centred on the plot
        const QRectF r = m_xTitle->boundingRect();
        m_xTitle->setPos(plotArea().center().x() - r.width() / 2, contentBottom + 2);
        h += r.height() + 4;
    }
    if (m_key) {
        m_key->setHtml(keyHtml(std::max<qreal>(40, size().width() - 2 * kMargin)));
        m_key->setPos(kMargin, contentBottom + 2 + h);
        h += m_key->boundingRect().height() + 4;
    }
    return h;
}

QString FigureChart::keyHtml(qreal width) const
{
    if (!m_key)
        return {};
    QFont bold = m_key->font();
    bold.setBold(true);
    const QFontMetricsF plain(m_key->font()), strong(bold);
    const qreal gap = plain.horizontalAdvance(QStringLiteral("   "));
    QStringList lines, line;
    qreal used = 0;
    for (int i = 0; i < m_keyNames.size(); ++i) {
        const QString number = QString::number(i + 1);
        const qreal w = strong.horizontalAdvance(number) + plain.horizontalAdvance(QLatin1Char(' ') + m_keyNames[i]);
        if (!line.isEmpty() && used + gap + w > width) {
            lines << line.join(QStringLiteral("&nbsp;&nbsp;&nbsp;"));
            line.clear();
            used = 0;
        }
        used += (line.isEmpty() ? 0 : gap) + w;
        line << QStringLiteral("<b>%1</b>&nbsp;%2").arg(number, m_keyNames[i].toHtmlEscaped().replace(QLatin1Char(' '), QLatin1String("&nbsp;")));
    }
    if (!line.isEmpty())
        lines << line.join(QStringLiteral("&nbsp;&nbsp;&nbsp;"));
    return lines.join(QStringLiteral("<br>"));
}

bool FigureChart::numberCategories(QBarCategoryAxis* bar)
{
    if (m_interactive || m_key || bar->property("kbxNumbered").toBool())
        return false;
    bar->setProperty("kbxNumbered", true);
    const QStringList now = bar->categories();
    QStringList whole = bar->property("kbxWhole").toStringList();
    if (whole.size() != now.size())
        whole = now;
    if (now.size() < 2)
        return false;
    // The numbers themselves must fit their groups, level (else Qt would elide them too).
    const QFontMetricsF fm(bar->labelsFont());
    if (plotArea().width() / now.size() < fm.horizontalAdvance(QString::number(now.size())) + 3)
        return false;
    QStringList names;
    for (const auto& w : whole) {
        // The label as text (a category may be markup: "a<br>(n=4)").
        QString name = QString(w).replace(QLatin1String("<br>"), QLatin1String(" "));
        if (name.contains(QLatin1Char('<')) || name.contains(QLatin1Char('&')))
            name = QTextDocumentFragment::fromHtml(name).toPlainText();
        names << name.simplified();
    }
    auto* key = new QGraphicsTextItem(this);
    key->setDefaultTextColor(style::textColour());
    key->setData(kRoleKey, QStringLiteral("key"));
    key->setZValue(22);
    QTextOption left(Qt::AlignLeft);
    left.setWrapMode(QTextOption::NoWrap);  // keyHtml breaks the lines, between entries only
    key->document()->setDefaultTextOption(left);
    key->document()->setDocumentMargin(0);
    key->setFont(bar->labelsFont());
    m_keyNames = names;
    m_key = key;
    key->setHtml(keyHtml(std::max<qreal>(40, size().width() - 2 * kMargin)));
    if (key->boundingRect().height() > 0.4 * size().height()) {
        m_key = nullptr;
        m_keyNames.clear();
        delete key;
        return false;
    }
    QStringList numbers;
    for (int i = 0; i < now.size(); ++i)
        numbers << QString::number(i + 1);
    bar->setCategories(numbers);  // at once: a category named "2" cannot collide with a renamed one
    bar->setLabelsAngle(0);
    bar->setProperty("kbxBroken", true);  // numbers need neither two lines
    bar->setProperty("kbxJoined", true);  // nor their whole names back
    return true;
}

void FigureChart::place()
{
    placeDetachedTitle();
    fitGroup(true);
    fitGroup(false);
    for (auto& a : m_annotations)
        placeAnnotation(a);
    for (auto& h : m_hits) {
        const QPointF p1 = mapToPosition(h.value.topLeft(), h.series), p2 = mapToPosition(h.value.bottomRight(), h.series);
        QRectF r = QRectF(p1, p2).normalized();
        if (r.width() < 10)
            r.adjust(-(10 - r.width()) / 2, 0, (10 - r.width()) / 2, 0);
        if (r.height() < 10)
            r.adjust(0, -(10 - r.height()) / 2, 0, (10 - r.height()) / 2);
        h.item->setRect(r);
    }
    if (m_message) {
        const QRectF r = m_message->boundingRect();
        const QRectF area = plotArea().isValid() && plotArea().width() > 10 ? plotArea() : boundingRect();
        m_message->setPos(area.center() - QPointF(r.width() / 2, r.height() / 2));
    }
}

void FigureChart::setFigureTitle(const QString& t)
{
    m_title = t;
    m_titleItem = centredText(this, QStringLiteral("title"), QTextOption::WordWrap);
    m_titleItem->setPlainText(t);
}

void FigureChart::fit()
{
    const qreal titleH = fitTitle();
    QMarginsF extra;
    std::vector<QRectF> staleHidden;
    for (int pass = 0; pass < 8; ++pass) {
        const qreal legendH = layoutLegend();
        const qreal xTitleH = placeDetachedTitle();
        setMargins(QMargins(kMargin + int(std::ceil(extra.left())), kMargin + int(std::ceil(extra.top() + titleH)),
                            kMargin + int(std::ceil(extra.right())),
                            kMargin + int(std::ceil(extra.bottom() + xTitleH)) + (legendH > 0 ? int(std::ceil(legendH)) + kLegendGap : 0)));
        if (layout())
            layout()->activate();
        if (((m_hook && m_hook(this)) | fitAxisTitles()) && layout())
            layout()->activate();
        place();
        QRectF ink, hidden;
        for (const auto& t : texts(true)) {
            if (t.role == QLatin1String("legend"))
                continue;
            if (t.role == QLatin1String("hidden")) {
                // Qt leaves a hidden label where it was: count each position once.
                if (std::find(staleHidden.begin(), staleHidden.end(), t.rect) != staleHidden.end())
                    continue;
                staleHidden.push_back(t.rect);
            }
            QRectF& r = t.role == QLatin1String("hidden") ? hidden : ink;
            r = r.isValid() ? r.united(t.rect) : t.rect;
        }
        if (!ink.isValid())
            break;
        if (relieveCrowding() && layout()) {
            layout()->activate();
            continue;
        }
        const QRectF inside = rect().adjusted(2, 2, -2, -2);
        QMarginsF over(std::max<qreal>(0, inside.left() - ink.left()), std::max<qreal>(0, inside.top() - ink.top()),
                       std::max<qreal>(0, ink.right() - inside.right()), std::max<qreal>(0, ink.bottom() - inside.bottom()));
        if (hidden.isValid()) {
            // Qt hides a tick label that leaves the chart's margins: room for it inside them.
            const QRectF content = rect().marginsRemoved(QMarginsF(margins()));
            over.setLeft(std::max(over.left(), content.left() + 1 - hidden.left()));
            over.setRight(std::max(over.right(), hidden.right() - content.right() + 1));
        }
        if (over.left() < 0.5 && over.top() < 0.5 && over.right() < 0.5 && over.bottom() < 0.5)
            break;
        extra += over + QMarginsF(over.left() > 0 ? 2 : 0, over.top() > 0 ? 2 : 0, over.right() > 0 ? 2 : 0, over.bottom() > 0 ? 2 : 0);
    }
    layoutLegend();
}

qreal FigureChart::layoutLegend()
{
    if (m_legend.empty())
        return 0;
    if (m_legendItems.empty()) {
        for (const auto& e : m_legend) {
            auto* swatch = new Swatch(e, this);
            swatch->setZValue(22);
            auto* label = new QGraphicsSimpleTextItem(e.label, this);
            label->setBrush(style::textColour());
            label->setZValue(22);
            label->setData(kRoleKey, QStringLiteral("legend"));
            m_legendItems.push_back({swatch, label, e.kind == LegendEntry::Kind::Fill, QSizeF()});
        }
    }
    // The legend's type shrinks (to 70 %) where it would take more than a third of the figure.
    const int n = int(m_legendItems.size());
    QFont font;
    qreal lineH = 0, colW = 0;
    int cols = 1, rows = n;
    for (double factor : {1.0, 0.85, 0.7}) {
        font = style::legendFont();
        font.setPixelSize(std::max(6, int(std::lround(font.pixelSize() * factor))));
        const QFontMetricsF fm(font);
        lineH = std::max<qreal>(fm.height(), 10) + 4;
        qreal itemW = 0;
        for (const auto& li : m_legendItems)
            itemW = std::max(itemW, fm.height() * (li.fill ? 1.5 : 2.6) + 6 + fm.horizontalAdvance(li.label->text()));
        colW = itemW + 18;
        const qreal avail = std::max<qreal>(colW, size().width() - 2 * kMargin);
        cols = std::clamp(int((avail + 18) / colW), 1, n);
        rows = (n + cols - 1) / cols;
        cols = (n + rows - 1) / rows;  // balanced: no nearly empty last column
        if (rows * lineH <= size().height() / 3)
            break;
    }
    const QFontMetricsF fm(font);
    for (auto& li : m_legendItems) {
        li.label->setFont(font);
        li.swatchSize = QSizeF(fm.height() * (li.fill ? 1.5 : 2.6), fm.height() * 0.95);
        li.swatch->setSize(li.swatchSize);
    }
    const qreal gridW = cols * colW - 18;
    const qreal x0 = std::max<qreal>(kMargin, (size().width() - gridW) / 2);
    const qreal height = rows * lineH;
    const qreal y0 = size().height() - kMargin - kLegendBelow - height;
    for (int i = 0; i < n; ++i) {
        auto& li = m_legendItems[std::size_t(i)];
        const int col = i / rows, row = i % rows;
        const qreal x = x0 + col * colW, y = y0 + row * lineH;
        li.swatch->setPos(x, y + (lineH - li.swatchSize.height()) / 2);
        li.label->setPos(x + li.swatchSize.width() + 6, y + (lineH - li.label->boundingRect().height()) / 2);
    }
    return height + kLegendBelow;
}

}  // namespace kbx::gui::qtcharts
