// SPDX-License-Identifier: MIT
// FigureChart: fitting, placing and laying out the texts, marks and legend of a figure.
#include "figurechart.h"

#include "chartparts.h"

#include <QBarCategoryAxis>
#include <QFontMetricsF>
#include <QGraphicsLayout>
#include <QPainter>
#include <QRegularExpression>
#include <QSet>
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

namespace {

/// t in lines no wider than width, broken at spaces (a word wider than width gets a line of its own).
QStringList wrappedLines(const QString& t, const QFontMetricsF& fm, qreal width)
{
    QStringList lines;
    QString line;
    for (const auto& w : t.split(QLatin1Char(' '), Qt::SkipEmptyParts)) {
        const QString next = line.isEmpty() ? w : line + QLatin1Char(' ') + w;
        if (!line.isEmpty() && fm.horizontalAdvance(next) > width) {
            lines << line;
            line = w;
        } else {
            line = next;
        }
    }
    if (!line.isEmpty())
        lines << line;
    return lines;
}

/// A text item of the figure (its title, a detached axis title): centred lines, no margin, above the plot.
QGraphicsTextItem* centredText(QGraphicsItem* parent, const QString& role, QTextOption::WrapMode wrap)
{
    auto* item = new QGraphicsTextItem(parent);
    item->setDefaultTextColor(style::textColour());
    item->setData(kRoleKey, role);
    item->setZValue(22);
    QTextOption centred(Qt::AlignHCenter);
    centred.setWrapMode(wrap);
    item->document()->setDefaultTextOption(centred);
    item->document()->setDocumentMargin(0);
    return item;
}

}  // namespace

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

QList<TextBox> FigureChart::texts(bool withHidden) const
{
    QList<TextBox> out;
    std::function<void(const QGraphicsItem*)> walk = [&](const QGraphicsItem* it) {
        for (const QGraphicsItem* c : it->childItems()) {
            if (!c->isVisible()) {
                // Qt hides a tick label that would stick out of the chart (the first of turned
                // labels): fit() counts it, to make room so that it shows.
                if (auto* t = dynamic_cast<const QGraphicsTextItem*>(c);
                    withHidden && t && c->parentItem() && c->parentItem()->isVisible() && !t->toPlainText().trimmed().isEmpty())
                    out.push_back({t->toPlainText(), mapRectFromScene(c->sceneBoundingRect()), QStringLiteral("hidden"), {}});
                continue;
            }
            QString text;
            QString role = c->data(kRoleKey).toString();
            if (auto* t = dynamic_cast<const QGraphicsTextItem*>(c)) {
                text = t->toPlainText();
                if (role.isEmpty())
                    role = !m_title.isEmpty() && QString(text).replace(QChar(0x2028), QLatin1Char(' ')).replace(QLatin1Char('\n'), QLatin1Char(' ')) == m_title
                               ? QStringLiteral("title")
                               : QStringLiteral("axis");
            } else if (auto* s = dynamic_cast<const QGraphicsSimpleTextItem*>(c)) {
                text = s->text();
                if (s->brush().color().alpha() == 0)
                    text.clear();  // a log axis's own labels: room kept, not drawn
                if (role.isEmpty())
                    role = QStringLiteral("axis");
            }
            if (!text.trimmed().isEmpty())
                out.push_back({text, mapRectFromScene(c->sceneBoundingRect()), role, c->data(kContainerKey).toRectF()});
            walk(c);
        }
    };
    walk(this);
    return out;
}

QString FigureChart::plainLabel(const QString& text)
{
    // A label's text without markup, line breaks and spaces: the category "a<br>(n=4)" and the
    // drawn text "a\n(n=4)" are the same label.
    QString s = text.contains(QLatin1Char('<')) || text.contains(QLatin1Char('&')) ? QTextDocumentFragment::fromHtml(text).toPlainText() : text;
    s.remove(QChar(0x2028)).remove(QChar(0x2029));
    s.remove(QRegularExpression(QStringLiteral("\\s")));
    return s;
}

QStringList FigureChart::categoryLabels() const
{
    QStringList out;
    for (auto* a : axes())
        if (auto* bar = qobject_cast<QBarCategoryAxis*>(a);
            bar && a->orientation() == Qt::Horizontal && a->isVisible() && a->labelsVisible())
            for (const auto& c : bar->categories())
                out << plainLabel(c);
    return out;
}

QString FigureChart::crowdingWarning() const
{
    // A category label is shown when a visible text of the figure is that label, whole: elided
    // ("met…") and hidden ones are not.
    QSet<QString> visible;
    for (const auto& t : texts())
        if (t.role == QLatin1String("axis"))
            visible.insert(plainLabel(t.text));
    const QStringList categories = categoryLabels();
    const auto total = categories.size();
    const auto missing = std::count_if(categories.begin(), categories.end(), [&](const QString& c) { return !visible.contains(c); });
    if (missing == 0)
        return {};
    return QStringLiteral("%1 of %2 category labels do not fit at %3 x %4 px and were elided or hidden: a wider figure, "
                          "a smaller font or fewer groups (a filter) shows them")
        .arg(missing)
        .arg(total)
        .arg(int(size().width()))
        .arg(int(size().height()));
}

bool FigureChart::relieveCrowding()
{
    QList<QRectF> boxes;
    // Qt also elides category labels ("kbx-...") where the bottom axis would take more than its
    // share of the chart's height (long upright labels in a short export): the same remedies.
    bool crowded = false;
    for (const auto& t : texts())
        if (t.role == QLatin1String("axis") || t.role == QLatin1String("legend")) {
            boxes << t.rect.adjusted(1, 1, -1, -1);
            crowded = crowded || (t.role == QLatin1String("axis") && (t.text.contains(QChar(0x2026)) || t.text.contains(QLatin1String("..."))));
        }
    for (int i = 0; i < boxes.size() && !crowded; ++i)
        for (int j = i + 1; j < boxes.size() && !crowded; ++j)
            crowded = boxes[i].intersects(boxes[j]);
    // Qt hides a category label that would overlap its neighbour: one hidden inside the chart's
    // content (not one sticking out of it, which fit() makes room for) is crowding too.
    const QRectF content = rect().marginsRemoved(QMarginsF(margins())).adjusted(-1, -1, 1, 1);
    const QStringList categories = categoryLabels();
    for (const auto& t : texts(true))
        crowded = crowded || (t.role == QLatin1String("hidden") && t.rect.left() >= content.left() && t.rect.right() <= content.right() &&
                              categories.contains(plainLabel(t.text)));
    if (!crowded)
        return false;
    // Upright labels (taller than wide) that collide with each other, not with a title or a legend:
    // the groups are narrower than the labels' lines.
    QList<QRectF> upright;
    for (const auto& t : texts())
        if (t.role == QLatin1String("axis") && t.rect.height() > t.rect.width() && t.rect.top() >= plotArea().bottom() - 1)
            upright << t.rect.adjusted(1, 1, -1, -1);
    bool uprightCollide = false;
    for (int i = 0; i < upright.size() && !uprightCollide; ++i)
        for (int j = i + 1; j < upright.size() && !uprightCollide; ++j)
            uprightCollide = upright[i].intersects(upright[j]);
    bool changed = false;
    for (auto* a : axes()) {
        if (a->orientation() != Qt::Horizontal || a->truncateLabels())
            continue;
        if (a->labelsAngle() == 0) {
            // Level category labels that collide (a larger font, a narrower export): first each in
            // two lines ("method" over "GPU (n=...)"), then upright; Qt would hide some of them.
            auto* bar = qobject_cast<QBarCategoryAxis*>(a);
            if (!bar)
                continue;
            if (!bar->property("kbxBroken").toBool()) {
                bar->setProperty("kbxBroken", true);
                if (breakLabels(bar)) {
                    changed = true;
                    continue;
                }
            }
            bar->setLabelsAngle(-90);
            changed = true;
            continue;
        }
        QFont f = a->labelsFont();
        // Upright labels of many groups at the smallest font (a one-column export of 16 methods): two
        // lines each need two lines of width per group; one line each is taller but half as wide.
        if (auto* bar = qobject_cast<QBarCategoryAxis*>(a);
            bar && uprightCollide && f.pixelSize() <= 7 && !bar->property("kbxJoined").toBool()) {
            bar->setProperty("kbxJoined", true);
            if (joinLabels(bar)) {
                changed = true;
                continue;
            }
        }
        if (f.pixelSize() > 7) {
            f.setPixelSize(std::max(7, int(std::floor(f.pixelSize() * 0.85))));
            a->setLabelsFont(f);
        } else if (!m_xTitle && a->alignment() == Qt::AlignBottom && a->isTitleVisible() && !a->titleText().isEmpty()) {
            m_xTitleAxis = a;
            m_xTitle = centredText(this, QStringLiteral("axis"), QTextOption::NoWrap);
            m_xTitle->setFont(a->titleFont());
            m_xTitle->setHtml(a->titleText());
            a->setTitleText(QString());
            a->setTitleVisible(false);
        } else if (auto* bar = qobject_cast<QBarCategoryAxis*>(a); bar && numberCategories(bar)) {
            // the groups by number, named in the key under the axis
        } else {
            a->setTruncateLabels(true);
        }
        changed = true;
    }
    return changed;
}

bool FigureChart::fitAxisTitles()
{
    bool changed = false;
    for (auto* a : axes()) {
        QString t = a->property("kbxTitle").toString();
        if (t.isEmpty()) {
            t = a->titleText();
            a->setProperty("kbxTitle", t);
        }
        if (t.isEmpty())
            continue;
        const qreal room = (a->orientation() == Qt::Horizontal ? plotArea().width() : plotArea().height()) - 4;
        QFont f = style::axisTitleFont();
        const qreal w = QFontMetricsF(f).horizontalAdvance(t);
        QString text = t.toHtmlEscaped();
        if (w > room && room > 20) {
            f.setPixelSize(std::max(int(std::ceil(f.pixelSize() * 0.7)), int(std::floor(f.pixelSize() * room / w))));
            const QFontMetricsF fm(f);
            if (fm.horizontalAdvance(t) > room) {
                // Two lines cut at the space nearest the middle; three where two are still too wide.
                int cut = -1;
                for (int i = 0; i < t.size(); ++i)
                    if (t[i] == QLatin1Char(' ') && (cut < 0 || std::abs(i - t.size() / 2) < std::abs(cut - t.size() / 2)))
                        cut = i;
                if (cut > 0)
                    text = t.left(cut).toHtmlEscaped() + QStringLiteral("<br>") + t.mid(cut + 1).toHtmlEscaped();
                if (cut > 0 && std::max(fm.horizontalAdvance(t.left(cut)), fm.horizontalAdvance(t.mid(cut + 1))) > room) {
                    const QStringList lines = wrappedLines(t, fm, std::max(room, fm.horizontalAdvance(t) / 3));
                    if (lines.size() <= 3) {
                        QStringList escaped;
                        for (const auto& l : lines)
                            escaped << l.toHtmlEscaped();
                        text = escaped.join(QStringLiteral("<br>"));
                    }
                }
            }
        }
        if (a == m_xTitleAxis) {
            // Out of the axis (relieveCrowding): the same text and type, under it.
            if (m_xTitle->font() != f || m_xTitle->property("kbxHtml").toString() != text) {
                m_xTitle->setFont(f);
                m_xTitle->setHtml(text);
                m_xTitle->setProperty("kbxHtml", text);
                changed = true;
            }
            continue;
        }
        if (a->titleFont() != f) {
            a->setTitleFont(f);
            changed = true;
        }
        if (a->titleText() != text) {
            a->setTitleText(text);
            changed = true;
        }
    }
    return changed;
}

qreal FigureChart::fitTitle()
{
    if (!m_titleItem)
        return 0;
    QFont f = style::titleFont();
    const qreal avail = std::max<qreal>(40, size().width() - 2 * kMargin - 8);
    const qreal w = QFontMetricsF(f).horizontalAdvance(m_title);
    if (w > avail)
        f.setPixelSize(std::max(int(std::ceil(f.pixelSize() * 0.8)), int(std::floor(f.pixelSize() * avail / w))));
    m_titleItem->setFont(f);
    m_titleItem->setTextWidth(avail);
    m_titleItem->setPos((size().width() - avail) / 2, kMargin);
    return m_titleItem->boundingRect().height() + 6;
}

QRectF FigureChart::room(const Annotation& a)
{
    if (a.box.isValid())
        return QRectF(mapToPosition(a.box.topLeft(), a.series), mapToPosition(a.box.bottomRight(), a.series)).normalized().adjusted(2, 1, -2, -1);
    const double w = std::abs(mapToPosition({a.value.x() + a.slotWidth / 2, a.value.y()}, a.series).x() -
                              mapToPosition({a.value.x() - a.slotWidth / 2, a.value.y()}, a.series).x());
    const QPointF p = mapToPosition(a.value, a.series);
    return QRectF(p.x() - std::max(0.0, w - 2) / 2, 0, std::max(0.0, w - 2), 1e6);
}

void FigureChart::fitGroup(bool cells)
{
    std::vector<Annotation*> group;
    int alts = 0;
    for (auto& a : m_annotations)
        if (!a.alternatives.isEmpty() && a.box.isValid() == cells) {
            group.push_back(&a);
            alts = std::max(alts, int(a.alternatives.size()));
        }
    if (group.empty())
        return;
    std::vector<QRectF> rooms;
    for (auto* a : group)
        rooms.push_back(room(*a));
    auto fontAt = [](const Annotation& a, double f) {
        QFont font = a.font;
        font.setPixelSize(std::max(6, int(std::floor(a.font.pixelSize() * f))));
        return font;
    };
    auto fits = [&](std::size_t i, int alt, double f) {
        const QFontMetricsF fm(fontAt(*group[i], f));
        const QString& t = group[i]->alternatives[std::min(alt, int(group[i]->alternatives.size()) - 1)];
        return fm.horizontalAdvance(t) <= rooms[i].width() && fm.height() <= rooms[i].height();
    };
    int alt = alts - 1;
    double factor = 0.7;
    bool all = false;
    for (int k = 0; k < alts && !all; ++k)
        for (double f : k + 1 == alts ? std::vector<double>{1.0, 0.9, 0.8, 0.7} : std::vector<double>{1.0, 0.9}) {
            bool ok = true;
            for (std::size_t i = 0; i < group.size() && ok; ++i)
                ok = fits(i, k, f);
            if (ok) {
                alt = k;
                factor = f;
                all = true;
                break;
            }
        }
    for (std::size_t i = 0; i < group.size(); ++i) {
        auto& a = *group[i];
        a.item->setFont(fontAt(a, factor));
        a.item->setText(a.alternatives[std::min(alt, int(a.alternatives.size()) - 1)]);
        a.item->setVisible(fits(i, alt, factor));
        a.item->setData(kContainerKey, cells ? rooms[i].adjusted(-2, -1, 2, 1) : rooms[i].adjusted(-1, 0, 1, 0));
    }
}

void FigureChart::placeAnnotation(Annotation& a)
{
    const QPointF p = mapToPosition(a.value, a.series);
    const QRectF r = a.item->boundingRect();
    switch (a.anchor) {
    case Annotation::Anchor::Centre: a.item->setPos(p - QPointF(r.width() / 2, r.height() / 2)); break;
    case Annotation::Anchor::LeftOf: a.item->setPos(p - QPointF(r.width() + 9, r.height() / 2)); break;
    case Annotation::Anchor::Below: a.item->setPos(p + QPointF(-r.width() / 2, 6)); break;
    case Annotation::Anchor::Above: a.item->setPos(p + QPointF(-r.width() / 2, -r.height() - 3)); break;
    case Annotation::Anchor::RightOf: a.item->setPos(p + QPointF(6, -r.height() / 2)); break;
    }
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
