// SPDX-License-Identifier: MIT
// FigureRenderer on Qt Charts. Everything Qt Charts specific lives in this file.
#include "figurerenderer.h"
#include "figurestyle.h"
#include "stats_tables.h"

#include <QAreaSeries>
#include <QBarCategoryAxis>
#include <QBarSeries>
#include <QBarSet>
#include <QBoxPlotSeries>
#include <QBoxSet>
#include <QCategoryAxis>
#include <QChart>
#include <QChartView>
#include <QGraphicsLayout>
#include <QGraphicsScene>
#include <QGraphicsSimpleTextItem>
#include <QHorizontalStackedBarSeries>
#include <QLegend>
#include <QLegendMarker>
#include <QLineSeries>
#include <QLogValueAxis>
#include <QPainter>
#include <QScatterSeries>
#include <QValueAxis>
#include <QTextDocument>
#include <QTextOption>
#include <QToolTip>
#include <QCursor>
#include <QFontMetricsF>
#include <QGraphicsRectItem>
#include <QGraphicsSceneMouseEvent>
#include <QMouseEvent>
#include <QRegularExpression>
#include <QAbstractBarSeries>

#include <functional>

#include <algorithm>
#include <array>
#include <cmath>
#include <map>
#include <set>

namespace kbx::gui {
namespace {

namespace an = kbx::analysis;

QString q(const std::string& s) { return QString::fromStdString(s); }

/// Text items placed in plot coordinates, re-placed whenever the plot area changes.
struct Annotation {
    QGraphicsSimpleTextItem* item;
    QPointF value;  ///< in series coordinates
    QAbstractSeries* series;
    /// Where the text sits: centred on the point, or (tick labels) right-aligned left of it, or below
    /// it, or (values over bars) above it, or left-aligned right of it.
    enum class Anchor { Centre, LeftOf, Below, Above, RightOf } anchor = Anchor::Centre;
    /// Fitting (cells, values over bars): the texts to try, longest first, each at shrinking sizes;
    /// the first that fits is shown, none fitting hides the text (the tooltip still has it).
    QStringList alternatives;
    QRectF box;              ///< series coordinates: the text must fit inside (heatmap cells)
    double slotWidth = 0;    ///< series x units: the text may not be wider (a bar's slot)
    QFont font;
};

/// What the legend shows for one series.
struct LegendEntry {
    enum class Kind { Fill, Line, Marker } kind = Kind::Fill;
    QString label;
    QBrush brush;
    QPen pen;
    int marker = -1;  ///< Line/Marker: -1 none, else the marker shape (markerShape())
};

QScatterSeries::MarkerShape markerShape(int i)
{
    static const std::array<QScatterSeries::MarkerShape, 4> shapes = {
        QScatterSeries::MarkerShapeCircle, QScatterSeries::MarkerShapeRectangle, QScatterSeries::MarkerShapeTriangle,
        QScatterSeries::MarkerShapeRotatedRectangle};
    return shapes[std::size_t(std::abs(i)) % shapes.size()];
}

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

/// An invisible mark over a bar, cell, box or point: its numbers as a tooltip, a thin outline on
/// hover, and the filter of a click (interactive views only; exports have none).
class HitItem : public QGraphicsRectItem {
public:
    HitItem(const QString& tip, const QVariantMap& filter, QGraphicsItem* parent) : QGraphicsRectItem(parent), m_filter(filter)
    {
        setToolTip(tip);
        setPen(Qt::NoPen);
        setBrush(Qt::NoBrush);
        setAcceptHoverEvents(true);
        setZValue(25);
        if (!filter.isEmpty())
            setCursor(Qt::PointingHandCursor);
    }
    const QVariantMap& filter() const { return m_filter; }

protected:
    void hoverEnterEvent(QGraphicsSceneHoverEvent*) override
    {
        QPen pen(QColor(20, 20, 20));
        pen.setWidthF(2.0);
        setPen(pen);
    }
    void hoverLeaveEvent(QGraphicsSceneHoverEvent*) override { setPen(Qt::NoPen); }

private:
    QVariantMap m_filter;
};

struct Hit {
    HitItem* item;
    QRectF value;  ///< series coordinates; a point (empty) gets a small square around it
    QAbstractSeries* series;
};

constexpr int kRoleKey = 0;       ///< QGraphicsItem::data: the TextBox role of our texts
constexpr int kContainerKey = 1;  ///< QGraphicsItem::data: the TextBox container (QRectF)

class FigureChart : public QChart {
public:
    explicit FigureChart(bool interactive = false) : m_interactive(interactive)
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
    bool interactive() const { return m_interactive; }
    void setFigureName(const QString& name) { m_figure = name; }
    QString figureName() const { return m_figure; }
    /// The click handler of the view (interactive charts).
    void setActivationHandler(ActivationHandler h) { m_activate = std::move(h); }
    void activate(const QVariantMap& filter) const
    {
        if (m_activate && !filter.isEmpty())
            m_activate(filter);
    }

    QGraphicsSimpleTextItem* annotate(QAbstractSeries* s, QPointF at, const QString& text, const QColor& colour, const QFont& font,
                                      Annotation::Anchor anchor = Annotation::Anchor::Centre)
    {
        auto* item = new QGraphicsSimpleTextItem(text, this);
        item->setFont(font);
        item->setBrush(colour);
        item->setZValue(20);
        item->setData(kRoleKey, QStringLiteral("annotation"));
        m_annotations.push_back({item, at, s, anchor, {}, {}, 0, font});
        return item;
    }
    /// A text that must fit inside box (series coordinates): the first of texts that fits, at up to
    /// 35 % smaller type, else none.
    void annotateCell(QAbstractSeries* s, const QRectF& box, const QStringList& texts, const QColor& colour, const QFont& font)
    {
        auto* item = annotate(s, box.center(), texts.value(0), colour, font);
        item->setData(kRoleKey, QStringLiteral("cell"));
        m_annotations.back().alternatives = texts;
        m_annotations.back().box = box;
    }
    /// A value over a bar (above the point at), no wider than the bar's slot (series x units).
    void annotateValue(QAbstractSeries* s, QPointF at, const QString& text, double slotWidth)
    {
        auto* item = annotate(s, at, text, style::textColour(), style::labelFont(), Annotation::Anchor::Above);
        item->setData(kRoleKey, QStringLiteral("value"));
        m_annotations.back().alternatives = {text};
        m_annotations.back().slotWidth = slotWidth;
    }
    void addHit(QAbstractSeries* s, const QRectF& value, const QString& tip, const QVariantMap& filter)
    {
        if (!m_interactive)
            return;
        auto* item = new HitItem(tip, filter, this);
        m_hits.push_back({item, value, s});
    }
    void addLegend(const LegendEntry& e) { m_legend.push_back(e); }
    bool hasLegend() const { return !m_legend.empty(); }
    void setMessage(const QString& text)
    {
        m_message = new QGraphicsSimpleTextItem(text, this);
        m_message->setFont(style::messageFont());
        m_message->setBrush(style::textColour());
        m_message->setZValue(30);
        m_message->setData(kRoleKey, QStringLiteral("annotation"));
    }
    /// Runs after every layout pass of fit(), with the plot area known (e.g. to size axis labels);
    /// returns true when it changed something that needs another layout.
    void setLayoutHook(std::function<bool(FigureChart*)> hook) { m_hook = std::move(hook); }

    void place()
    {
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

    /// Lays the chart out at its current size: the legend wrapped into as many rows as it needs
    /// below the plot, then margins grown until every text (tick labels, titles, annotations) lies
    /// inside the figure. Call after every resize.
    /// The title: our own text item, centred, wrapped into lines where the figure is narrow (Qt's
    /// title elides).
    void setFigureTitle(const QString& t)
    {
        m_title = t;
        m_titleItem = new QGraphicsTextItem(this);
        m_titleItem->setPlainText(t);
        m_titleItem->setDefaultTextColor(style::textColour());
        m_titleItem->setData(kRoleKey, QStringLiteral("title"));
        m_titleItem->setZValue(22);
        QTextOption centred(Qt::AlignHCenter);
        centred.setWrapMode(QTextOption::WordWrap);
        m_titleItem->document()->setDefaultTextOption(centred);
        m_titleItem->document()->setDocumentMargin(0);
    }

    void fit()
    {
        const qreal titleH = fitTitle();
        QMarginsF extra;
        std::vector<QRectF> staleHidden;
        for (int pass = 0; pass < 8; ++pass) {
            const qreal legendH = layoutLegend();
            setMargins(QMargins(kMargin + int(std::ceil(extra.left())), kMargin + int(std::ceil(extra.top() + titleH)),
                                kMargin + int(std::ceil(extra.right())),
                                kMargin + int(std::ceil(extra.bottom())) + (legendH > 0 ? int(std::ceil(legendH)) + kLegendGap : 0)));
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

    /// Every visible text item with its role, in chart coordinates.
    QList<TextBox> texts(bool withHidden = false) const
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

private:
    static constexpr int kMargin = 8;
    static constexpr int kLegendGap = 6;
    static constexpr int kLegendBelow = 14;  ///< white under the legend, as under the axis title

    /// Turned tick labels that Qt could not give their room (it then gives them one line's) run into
    /// the axis title or the legend: their type shrinks (to 7 px), and then Qt may shorten them
    /// ("…"), which reads better than text over text. True when it changed something.
    bool relieveCrowding()
    {
        QList<QRectF> boxes;
        for (const auto& t : texts())
            if (t.role == QLatin1String("axis") || t.role == QLatin1String("legend"))
                boxes << t.rect.adjusted(1, 1, -1, -1);
        bool crowded = false;
        for (int i = 0; i < boxes.size() && !crowded; ++i)
            for (int j = i + 1; j < boxes.size() && !crowded; ++j)
                crowded = boxes[i].intersects(boxes[j]);
        if (!crowded)
            return false;
        bool changed = false;
        for (auto* a : axes()) {
            if (a->orientation() != Qt::Horizontal || a->labelsAngle() == 0 || a->truncateLabels())
                continue;
            QFont f = a->labelsFont();
            if (f.pixelSize() > 7) {
                f.setPixelSize(std::max(7, int(std::floor(f.pixelSize() * 0.85))));
                a->setLabelsFont(f);
            } else {
                a->setTruncateLabels(true);
            }
            changed = true;
        }
        return changed;
    }

    /// Axis titles longer than their axis: smaller type (to 70 %), then two lines, never elided.
    bool fitAxisTitles()
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
                if (QFontMetricsF(f).horizontalAdvance(t) > room) {
                    int cut = -1;
                    for (int i = 0; i < t.size(); ++i)
                        if (t[i] == QLatin1Char(' ') && (cut < 0 || std::abs(i - t.size() / 2) < std::abs(cut - t.size() / 2)))
                            cut = i;
                    if (cut > 0)
                        text = t.left(cut).toHtmlEscaped() + QStringLiteral("<br>") + t.mid(cut + 1).toHtmlEscaped();
                }
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

    /// The title in one line, its type up to a quarter smaller where the figure is narrow; two lines
    /// where that is not enough (Qt would elide it).
    qreal fitTitle()
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

    /// Where a fitted text must fit, in pixels.
    QRectF room(const Annotation& a)
    {
        if (a.box.isValid())
            return QRectF(mapToPosition(a.box.topLeft(), a.series), mapToPosition(a.box.bottomRight(), a.series)).normalized().adjusted(2, 1, -2, -1);
        const double w = std::abs(mapToPosition({a.value.x() + a.slotWidth / 2, a.value.y()}, a.series).x() -
                                  mapToPosition({a.value.x() - a.slotWidth / 2, a.value.y()}, a.series).x());
        const QPointF p = mapToPosition(a.value, a.series);
        return QRectF(p.x() - std::max(0.0, w - 2) / 2, 0, std::max(0.0, w - 2), 1e6);
    }

    /// One choice for all fitted texts of a kind (cells; values over bars), so that a figure's cells
    /// read alike: the longest form at full size, else a little smaller, else the short form, down
    /// to 70 % of the size; a text that does not fit even so is left out (its tooltip has it).
    void fitGroup(bool cells)
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

    void placeAnnotation(Annotation& a)
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

    /// Creates (once) and places the legend: a grid of entries, as many columns as the width takes,
    /// filled column by column; nothing elided. Returns its height (0: no legend).
    qreal layoutLegend()
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
                m_legendItems.push_back({swatch, label, e.kind == LegendEntry::Kind::Fill});
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

    struct LegendItem {
        Swatch* swatch;
        QGraphicsSimpleTextItem* label;
        bool fill;
        QSizeF swatchSize;
    };
    bool m_interactive = false;
    std::vector<Annotation> m_annotations;
    std::vector<Hit> m_hits;
    std::vector<LegendEntry> m_legend;
    std::vector<LegendItem> m_legendItems;
    std::function<bool(FigureChart*)> m_hook;
    QString m_figure;
    QString m_title;
    QGraphicsTextItem* m_titleItem = nullptr;
    ActivationHandler m_activate;
    QGraphicsSimpleTextItem* m_message = nullptr;
};

/// The legend of c from its series (bar sets as filled boxes, named lines as lines with their dash),
/// where the figure did not write its own; Qt's legend (one row, elided) is never shown.
void legendFromSeries(FigureChart* c)
{
    for (auto* s : c->series()) {
        if (auto* bars = qobject_cast<QAbstractBarSeries*>(s)) {
            for (auto* set : bars->barSets())
                c->addLegend({LegendEntry::Kind::Fill, set->label(), set->brush(), set->pen(), -1});
        } else if (auto* line = qobject_cast<QLineSeries*>(s)) {
            if (!line->name().isEmpty())
                c->addLegend({LegendEntry::Kind::Line, line->name(), {}, line->pen(), line->pointsVisible() ? 0 : -1});
        }
    }
}

/// "method · r2" -> {"method", 2}; a name without the suffix keeps round -1.
std::pair<QString, int> splitRound(const QString& label)
{
    static const QRegularExpression re(QStringLiteral("^(.*) · r(-?\\d+)$"));
    const auto m = re.match(label);
    if (m.hasMatch())
        return {m.captured(1), m.captured(2).toInt()};
    return {label, -1};
}

/// The filter of a mark of method label (maybe "method · rN") in figure name.
QVariantMap methodFilter(const QString& figure, const QString& methodLabel)
{
    QVariantMap f{{QStringLiteral("figure"), figure}};
    if (methodLabel.isEmpty())
        return f;
    const auto [method, round] = splitRound(methodLabel);
    f.insert(QStringLiteral("method"), method);
    if (round >= 0)
        f.insert(QStringLiteral("round"), round);
    return f;
}

QString pct(const an::Rate& r)
{
    if (r.n == 0)
        return QStringLiteral("no evaluations");
    const auto ci = r.ci();
    return QStringLiteral("%1% (%2/%3), 95% CI %4–%5%")
        .arg(100.0 * r.value(), 0, 'f', 1)
        .arg(r.k)
        .arg(r.n)
        .arg(100.0 * ci.lo, 0, 'f', 1)
        .arg(100.0 * ci.hi, 0, 'f', 1);
}

/// Hover and click on a line (ECDF, fast_p): its name as a tooltip, its method as the filter.
void lineInteraction(FigureChart* c, QLineSeries* line, const QString& tip, const QVariantMap& filter)
{
    if (!c->interactive())
        return;
    QObject::connect(line, &QXYSeries::clicked, c, [c, filter](const QPointF&) { c->activate(filter); });
    QObject::connect(line, &QXYSeries::hovered, c, [tip](const QPointF&, bool on) {
        if (on)
            QToolTip::showText(QCursor::pos(), tip);
        else
            QToolTip::hideText();
    });
}

void styleAxis(QAbstractAxis* a, const QString& title)
{
    a->setTitleText(title);
    a->setTitleFont(style::axisTitleFont());
    a->setTitleBrush(QBrush(style::textColour()));
    a->setLabelsFont(style::labelFont());
    a->setLabelsColor(style::textColour());
    a->setTruncateLabels(false);  // never "method-6-with-a-lo...": fit() makes the room
    a->setLinePenColor(style::axisColour());
    a->setGridLineColor(style::gridColour());
}

void attach(QChart* c, QAbstractSeries* s, QAbstractAxis* x, QAbstractAxis* y)
{
    c->addSeries(s);
    s->attachAxis(x);
    s->attachAxis(y);
}

void hideFromLegend(QChart* c, QAbstractSeries* s)
{
    for (auto* m : c->legend()->markers(s))
        m->setVisible(false);
}

/// A thin line from a to b, not in the legend (reference lines, interval whiskers).
QLineSeries* segment(QChart* c, QAbstractAxis* x, QAbstractAxis* y, QPointF a, QPointF b, const QPen& pen)
{
    auto* s = new QLineSeries;
    s->append(a);
    s->append(b);
    s->setPen(pen);
    attach(c, s, x, y);
    hideFromLegend(c, s);
    return s;
}

QPen referencePen()
{
    QPen p(QColor(60, 60, 60));
    p.setWidthF(1.2);
    p.setStyle(Qt::DashLine);
    return p;
}

QValueAxis* rateAxis(const QString& title, bool percent)
{
    auto* a = new QValueAxis;
    a->setRange(0, percent ? 100 : 1);
    a->setTickCount(6);
    a->setLabelFormat(percent ? "%.0f%%" : "%.1f");
    styleAxis(a, title);
    return a;
}

/// A value axis from 0 to a round value above `top`, with ticks on round values (a step of 1, 2, 2.5
/// or 5 times a power of ten) and as many decimals as the step needs: never "0.8x" for 0.75.
void niceAxis(QValueAxis* a, double top, const char* suffix)
{
    top = std::isfinite(top) && top > 0 ? top : 1.0;
    const double raw = top / 5.0;
    const double mag = std::pow(10.0, std::floor(std::log10(raw)));
    double step = mag;
    for (double m : {1.0, 2.0, 2.5, 5.0, 10.0})
        if (m * mag >= raw - 1e-12) {
            step = m * mag;
            break;
        }
    const double hi = std::ceil(top / step - 1e-9) * step;
    int decimals = 0;
    while (decimals < 6 && std::abs(step * std::pow(10.0, decimals) - std::round(step * std::pow(10.0, decimals))) > 1e-9)
        ++decimals;
    a->setRange(0, hi);
    a->setTickCount(int(std::lround(hi / step)) + 1);
    a->setLabelFormat(QStringLiteral("%.%1f%2").arg(decimals).arg(QLatin1String(suffix)));
}

FigureChart* messageChart(FigureChart* c, const QString& message)
{
    // Axes so that the frame of a figure is still recognisable; the message sits in the plot area.
    auto* x = new QValueAxis;
    auto* y = new QValueAxis;
    x->setLabelsVisible(false);
    y->setLabelsVisible(false);
    x->setGridLineVisible(false);
    y->setGridLineVisible(false);
    styleAxis(x, QString());
    styleAxis(y, QString());
    c->addAxis(x, Qt::AlignBottom);
    c->addAxis(y, Qt::AlignLeft);
    c->legend()->hide();
    c->setMessage(message);
    return c;
}

// ---- figures ------------------------------------------------------------------------------------

/// A heatmap has dense columns (one line of text per column label, turned upright) from this many
/// columns on; below it, each label is the method name over its round and stage.
constexpr int kDenseHeatmapColumns = 12;

QString heatmapColumnLabel(const std::string& method, bool exe, bool dense)
{
    const QString m = q(method).toHtmlEscaped();
    const QString stage = exe ? QStringLiteral("exe") : QStringLiteral("call");
    if (dense)
        return m + QStringLiteral(" · ") + stage;
    // One line per part (method, round, stage): narrow columns keep the whole method name.
    return QString(m).replace(QStringLiteral(" · "), QStringLiteral("<br>")) + QStringLiteral("<br>") + stage;
}

void correctnessHeatmap(FigureChart* c, const an::CorrectnessMatrix& m)
{
    // Columns: per method "call" and "exe"; rows: categories top to bottom, then "All".
    const int cols = int(m.methods.size()) * 2;
    const int rowsN = int(m.categories.size()) + 1;
    const bool dense = cols > kDenseHeatmapColumns;
    auto* x = new QCategoryAxis;
    auto* y = new QCategoryAxis;
    x->setLabelsPosition(QCategoryAxis::AxisLabelsPositionCenter);
    y->setLabelsPosition(QCategoryAxis::AxisLabelsPositionCenter);
    for (std::size_t mi = 0; mi < m.methods.size(); ++mi) {
        x->append(heatmapColumnLabel(m.methods[mi], false, dense), double(2 * mi + 1));
        x->append(heatmapColumnLabel(m.methods[mi], true, dense), double(2 * mi + 2));
    }
    // QCategoryAxis wants increasing end values: "All" at the bottom (0..1), categories above it.
    y->append(QStringLiteral("All categories"), 1);
    for (int r = int(m.categories.size()) - 1; r >= 0; --r)
        y->append(q(m.categories[std::size_t(r)]), double(m.categories.size() - std::size_t(r) + 1));
    y->setRange(0, rowsN);
    x->setGridLineVisible(false);
    y->setGridLineVisible(false);
    styleAxis(x, QStringLiteral("method / stage"));
    styleAxis(y, QStringLiteral("category"));
    if (dense)
        x->setLabelsAngle(-90);
    c->addAxis(x, Qt::AlignBottom);
    c->addAxis(y, Qt::AlignLeft);
    c->legend()->hide();
    const QFont cellFont = style::labelFont();
    auto cell = [&](int col, int row, const an::Rate& rate, std::size_t mi, const QString& category) {
        // row: 0 = "All" at the bottom.
        auto* lo = new QLineSeries;
        auto* hi = new QLineSeries;
        lo->append(col, row);
        lo->append(col + 1, row);
        hi->append(col, row + 1);
        hi->append(col + 1, row + 1);
        auto* area = new QAreaSeries(hi, lo);
        const QColor fill = rate.n > 0 ? style::sequential(rate.value()) : QColor(235, 235, 235);
        area->setBrush(fill);
        QPen edge(Qt::white);
        edge.setWidthF(dense ? 1.0 : 1.5);
        area->setPen(edge);
        attach(c, area, x, y);
        const QString percent = QStringLiteral("%1%").arg(std::lround(100.0 * rate.value()));
        // The whole value where the cell has room, the percentage where it has less, none where
        // even that does not fit (the tooltip and the colour bar still give it).
        const QStringList texts = rate.n > 0 ? QStringList{QStringLiteral("%1 (%2/%3)").arg(percent).arg(rate.k).arg(rate.n), percent}
                                             : QStringList{QStringLiteral("–")};
        const QRectF box(col, row, 1, 1);
        c->annotateCell(area, box, texts, style::onColour(fill), cellFont);
        const bool exe = col % 2 == 1;
        QVariantMap f = methodFilter(c->figureName(), q(m.methods[mi]));
        f.insert(QStringLiteral("stage"), exe ? QStringLiteral("exe") : QStringLiteral("call"));
        if (!category.isEmpty())
            f.insert(QStringLiteral("category"), category);
        c->addHit(area, box,
                  QStringLiteral("%1\n%2 · %3\n%4").arg(q(m.methods[mi]), category.isEmpty() ? QStringLiteral("all categories") : category,
                                                          exe ? QStringLiteral("correct (exe)") : QStringLiteral("compiles and runs (call)"),
                                                          pct(rate)),
                  f);
    };
    for (std::size_t ci = 0; ci < m.categories.size(); ++ci) {
        const int row = int(m.categories.size() - ci);
        for (std::size_t mi = 0; mi < m.methods.size(); ++mi) {
            cell(int(2 * mi), row, m.cells[ci][mi].call, mi, q(m.categories[ci]));
            cell(int(2 * mi + 1), row, m.cells[ci][mi].exe, mi, q(m.categories[ci]));
        }
    }
    for (std::size_t mi = 0; mi < m.methods.size(); ++mi) {
        cell(int(2 * mi), 0, m.totals[mi].call, mi, QString());
        cell(int(2 * mi + 1), 0, m.totals[mi].exe, mi, QString());
    }
    // The colour bar: the rate each colour stands for, right of the cells (grey: no evaluation). Its
    // width in column units: dense columns are narrow, so the bar takes more of them.
    const double barLeft = cols + (dense ? 0.5 : 0.2), barRight = cols + (dense ? 1.3 : 0.4);
    constexpr int kSlices = 48;
    QAreaSeries* last = nullptr;
    for (int i = 0; i < kSlices; ++i) {
        auto* lo = new QLineSeries;
        auto* hi = new QLineSeries;
        const double y0 = rowsN * double(i) / kSlices, y1 = rowsN * double(i + 1) / kSlices;
        lo->append(barLeft, y0);
        lo->append(barRight, y0);
        hi->append(barLeft, y1);
        hi->append(barRight, y1);
        last = new QAreaSeries(hi, lo);
        const QColor colour = style::sequential((i + 0.5) / kSlices);
        last->setBrush(colour);
        last->setPen(QPen(colour, 1.0));  // no seams between the slices
        attach(c, last, x, y);
    }
    for (int pct : {0, 25, 50, 75, 100})
        c->annotate(last, QPointF(barRight, rowsN * pct / 100.0), QStringLiteral("%1%").arg(pct), style::textColour(), cellFont,
                    Annotation::Anchor::RightOf);
    // The tick labels (right of the bar) lie outside the plot area: fit() gives them a margin.
    const double range = barRight + (dense ? 0.1 : 0.05);
    x->setRange(0, range);
    // Upright column labels never overlap: at a size too small for the font, a smaller font.
    if (dense)
        c->setLayoutHook([x, range](FigureChart* ch) {
            const double colPx = ch->plotArea().width() / range;
            QFont f = x->labelsFont();  // only ever smaller (fit() may have made it smaller already)
            const double room = colPx - 1;
            if (QFontMetricsF(f).height() <= room)
                return false;
            f.setPixelSize(std::max(6, int(std::floor(room / 1.2))));
            if (x->labelsFont() == f)
                return false;
            x->setLabelsFont(f);
            return true;
        });
}

/// Category labels of a bar or box axis turned when there are many (long "method · r2 (n=40)"
/// labels stay whole and apart).
/// Upright, not slanted: Qt centres a turned label's box on its tick and hides the first one when
/// the box leaves the axis at the left, which a slanted long label always does.
/// Width of the widest of texts in the label font.
int widest(const QStringList& texts);

/// Long labels are also broken in two lines ("method" over "r2 (n=40)"), which halves their length.
QString brokenLabel(const QString& label)
{
    if (label.size() <= 12)
        return label;
    int cut = label.indexOf(QStringLiteral(" · "));
    if (cut > 0)
        return label.left(cut).toHtmlEscaped() + QStringLiteral("<br>") + label.mid(cut + 3).toHtmlEscaped();
    cut = label.lastIndexOf(QStringLiteral(" ("));
    if (cut > 0)
        return label.left(cut).toHtmlEscaped() + QStringLiteral("<br>") + label.mid(cut + 1).toHtmlEscaped();
    return label;
}

void turnLabels(QBarCategoryAxis* x, int count, int from = 5)
{
    if (count <= from)
        return;
    x->setLabelsAngle(-90);
    for (const auto& c : x->categories())
        if (const QString b = brokenLabel(c); b != c)
            x->replace(c, b);
}

/// The room (pixels) upright labels take below a bar axis: the longest line of their broken form.
int turnedLabelsExtent(const QStringList& labels)
{
    QStringList lines;
    for (const auto& l : labels)
        lines << brokenLabel(l).split(QStringLiteral("<br>"));
    return widest(lines);
}

void compileVsCorrect(FigureChart* c, const std::vector<an::MethodRates>& rates)
{
    auto* series = new QBarSeries;
    auto* call = new QBarSet(QStringLiteral("compiles and runs (call)"));
    auto* exe = new QBarSet(QStringLiteral("correct (exe)"));
    style::applyBar(call, 0);
    style::applyBar(exe, 1);
    QStringList cats;
    for (const auto& r : rates) {
        call->append(100.0 * r.call.value());
        exe->append(100.0 * r.exe.value());
        cats << QStringLiteral("%1 (n=%2)").arg(q(r.method)).arg(r.call.n);
    }
    series->append(call);
    series->append(exe);
    const double width = 0.6;
    series->setBarWidth(width);
    auto* x = new QBarCategoryAxis;
    x->append(cats);
    styleAxis(x, QStringLiteral("method"));
    turnLabels(x, int(cats.size()));
    auto* y = rateAxis(QStringLiteral("rate (95% Wilson interval)"), true);
    // Room above 100% for the values over the whiskers; ticks stay at 0, 20, ..., 100.
    y->setRange(0, 110);
    y->setTickType(QValueAxis::TicksDynamic);
    y->setTickAnchor(0);
    y->setTickInterval(20);
    c->addAxis(x, Qt::AlignBottom);
    c->addAxis(y, Qt::AlignLeft);
    attach(c, series, x, y);
    // Interval whiskers: bar centres at i -/+ width/4 for two sets.
    QPen whisker(QColor(20, 20, 20));
    whisker.setWidthF(1.3);
    for (std::size_t i = 0; i < rates.size(); ++i) {
        for (int s = 0; s < 2; ++s) {
            const auto& rate = s == 0 ? rates[i].call : rates[i].exe;
            const double xc = double(i) + (s == 0 ? -width / 4 : width / 4);
            QVariantMap f = methodFilter(c->figureName(), q(rates[i].method));
            f.insert(QStringLiteral("stage"), s == 0 ? QStringLiteral("call") : QStringLiteral("exe"));
            c->addHit(series, QRectF(xc - width / 4, 0, width / 2, std::max(2.0, 100 * rate.value())),
                      QStringLiteral("%1\n%2: %3").arg(q(rates[i].method), s == 0 ? call->label() : exe->label(), pct(rate)), f);
            if (rate.n == 0)
                continue;
            const auto ci = rate.ci();
            segment(c, x, y, {xc, 100 * ci.lo}, {xc, 100 * ci.hi}, whisker);
            segment(c, x, y, {xc - 0.04, 100 * ci.lo}, {xc + 0.04, 100 * ci.lo}, whisker);
            segment(c, x, y, {xc - 0.04, 100 * ci.hi}, {xc + 0.04, 100 * ci.hi}, whisker);
            // Over the whisker's cap and no wider than the bar: never across a neighbour's whisker
            // (too narrow a bar: no label; the tooltip has it).
            c->annotateValue(series, {xc, 100 * ci.hi}, QStringLiteral("%1%").arg(100.0 * rate.value(), 0, 'f', 0), width / 2);
        }
    }
}

/// Log axis range covering values and 1x with some room.
std::pair<double, double> logRange(const std::vector<an::SpeedupSeries>& s)
{
    double lo = 1.0, hi = 1.0;
    for (const auto& x : s)
        for (double v : x.speedups) {
            lo = std::min(lo, v);
            hi = std::max(hi, v);
        }
    lo = std::pow(10.0, std::floor(std::log10(lo) - 1e-9));
    hi = std::pow(10.0, std::ceil(std::log10(hi) + 1e-9));
    return {lo, hi};
}

QLogValueAxis* logAxis(double lo, double hi, const QString& title)
{
    auto* a = new QLogValueAxis;
    a->setBase(10);
    // A hair wider than the decades, or Qt drops the label of the first one (rounding).
    a->setRange(lo * 0.999, hi * 1.001);
    a->setLabelFormat("%gx");
    // Qt's own labels would read "1e-05x" beside "1000x": they keep their room but are not drawn;
    // decadeLabels() writes every decade in one plain format.
    a->setMinorTickCount(8);
    a->setMinorGridLineColor(QColor(240, 240, 240));
    styleAxis(a, title);
    a->setLabelsBrush(QBrush(Qt::transparent));  // after styleAxis, which colours the labels
    return a;
}

/// A decade's label, in one plain format for the whole axis: 0.0001x, 0.01x, 1x, 100x.
QString decadeLabel(double d, const QString& suffix)
{
    const int decimals = d < 1 ? int(std::lround(-std::log10(d))) : 0;
    return QString::number(d, 'f', decimals) + suffix;
}

/// Labels of a log axis made by logAxis(), one per decade from lo to hi: under a horizontal axis
/// (at y = otherAt) or left of a vertical one (at x = otherAt), in coordinates of series s.
void decadeLabels(FigureChart* c, QAbstractSeries* s, double lo, double hi, Qt::Orientation o, double otherAt,
                  const QString& suffix = QStringLiteral("x"))
{
    for (int e = int(std::floor(std::log10(lo))); e <= int(std::ceil(std::log10(hi))); ++e) {
        const double d = std::pow(10.0, e);
        if (d < lo * 0.999 || d > hi * 1.001)
            continue;
        if (o == Qt::Horizontal)
            c->annotate(s, {d, otherAt}, decadeLabel(d, suffix), style::textColour(), style::labelFont(), Annotation::Anchor::Below);
        else
            c->annotate(s, {otherAt, d}, decadeLabel(d, suffix), style::textColour(), style::labelFont(), Annotation::Anchor::LeftOf);
    }
}

void speedupBox(FigureChart* c, const std::vector<an::SpeedupSeries>& s)
{
    auto [lo, hi] = logRange(s);
    auto* x = new QBarCategoryAxis;
    auto* y = logAxis(lo, hi, QStringLiteral("speedup over PyTorch (log scale)"));
    QStringList cats;
    for (const auto& m : s)
        cats << QStringLiteral("%1 (%2 timed)").arg(q(m.method)).arg(m.speedups.size());
    x->append(cats);
    styleAxis(x, QStringLiteral("method (correct kernels)"));
    turnLabels(x, int(cats.size()));
    c->addAxis(x, Qt::AlignBottom);
    c->addAxis(y, Qt::AlignLeft);
    auto* box = new QBoxPlotSeries;
    box->setName(QStringLiteral("speedup"));
    box->setBoxWidth(0.45);
    QBrush b(style::categorical(4));  // light: the black median reads on it
    box->setBrush(b);
    QPen pen(QColor(20, 20, 20));
    pen.setWidthF(1.3);
    box->setPen(pen);
    auto* outliers = new QScatterSeries;
    outliers->setName(QStringLiteral("outliers (beyond 1.5 IQR)"));
    outliers->setMarkerSize(7);
    outliers->setColor(Qt::white);
    outliers->setBorderColor(QColor(20, 20, 20));
    for (std::size_t i = 0; i < s.size(); ++i) {
        auto* set = new QBoxSet(cats[int(i)]);
        if (!s[i].speedups.empty()) {
            const auto st = an::boxStats(s[i].speedups);
            set->setValue(QBoxSet::LowerExtreme, st.lowerWhisker);
            set->setValue(QBoxSet::LowerQuartile, st.q1);
            set->setValue(QBoxSet::Median, st.median);
            set->setValue(QBoxSet::UpperQuartile, st.q3);
            set->setValue(QBoxSet::UpperExtreme, st.upperWhisker);
            for (double o : st.outliers)
                outliers->append(double(i), o);
            c->addHit(box, QRectF(double(i) - 0.225, st.lowerWhisker, 0.45, st.upperWhisker - st.lowerWhisker),
                      QStringLiteral("%1\n%2 timed correct kernels\nmedian %3x, quartiles %4x–%5x, range %6x–%7x")
                          .arg(q(s[i].method))
                          .arg(s[i].speedups.size())
                          .arg(st.median, 0, 'f', 2)
                          .arg(st.q1, 0, 'f', 2)
                          .arg(st.q3, 0, 'f', 2)
                          .arg(st.min, 0, 'f', 2)
                          .arg(st.max, 0, 'f', 2),
                      methodFilter(c->figureName(), q(s[i].method)));
        } else {
            for (int k = 0; k < 5; ++k)  // an invisible box at 1x keeps the category; the words say why
                set->setValue(k, 1.0);
            c->annotate(box, {double(i), std::sqrt(lo * hi) * 1.6}, QStringLiteral("no data: no timed correct kernel"),
                        style::textColour(), style::labelFont());
        }
        box->append(set);
        if (s[i].speedups.empty()) {  // after append, which gives the set the series' pen
            set->setPen(QPen(Qt::transparent));
            set->setBrush(QBrush(Qt::transparent));
        }
    }
    attach(c, box, x, y);
    attach(c, outliers, x, y);
    auto* ref = segment(c, x, y, {-0.5, 1.0}, {double(s.size()) - 0.5, 1.0}, referencePen());
    decadeLabels(c, ref, lo, hi, Qt::Vertical, -0.5);
    c->legend()->hide();
}

void speedupEcdf(FigureChart* c, const std::vector<an::SpeedupSeries>& s)
{
    auto [lo, hi] = logRange(s);
    auto* x = logAxis(lo, hi, QStringLiteral("speedup over PyTorch (log scale)"));
    auto* y = rateAxis(QStringLiteral("fraction of timed correct kernels ≤ x"), false);
    c->addAxis(x, Qt::AlignBottom);
    c->addAxis(y, Qt::AlignLeft);
    int idx = 0;
    for (const auto& m : s) {
        if (m.speedups.empty()) {
            ++idx;
            continue;
        }
        auto* line = new QLineSeries;
        line->setName(QStringLiteral("%1 (n=%2)").arg(q(m.method)).arg(m.speedups.size()));
        const double n = double(m.speedups.size());
        line->append(lo, 0.0);
        for (std::size_t i = 0; i < m.speedups.size(); ++i) {
            line->append(m.speedups[i], double(i) / n);
            line->append(m.speedups[i], double(i + 1) / n);
        }
        line->append(hi, 1.0);
        line->setPen(style::linePen(idx++));
        attach(c, line, x, y);
        lineInteraction(c, line, line->name(), methodFilter(c->figureName(), q(m.method)));
    }
    auto* ref = segment(c, x, y, {1.0, 0.0}, {1.0, 1.0}, referencePen());  // 1x
    decadeLabels(c, ref, lo, hi, Qt::Horizontal, 0.0);
}

void fastPCurves(FigureChart* c, const std::vector<an::FastPCurve>& curves)
{
    double lo = 0.1, hi = 10.0;
    if (!curves.empty() && !curves.front().p.empty()) {
        lo = curves.front().p.front();
        hi = curves.front().p.back();
    }
    auto* x = logAxis(lo, hi, QStringLiteral("speedup threshold p (log scale)"));
    x->setLabelFormat("%g");
    auto* y = rateAxis(QStringLiteral("fast_p: correct and speedup > p"), false);
    c->addAxis(x, Qt::AlignBottom);
    c->addAxis(y, Qt::AlignLeft);
    double top = 0.0;
    int idx = 0;
    for (const auto& curve : curves) {
        auto* line = new QLineSeries;
        line->setName(QStringLiteral("%1 (n=%2)").arg(q(curve.method)).arg(curve.n));
        for (std::size_t i = 0; i < curve.p.size(); ++i) {
            line->append(curve.p[i], curve.fraction[i]);
            top = std::max(top, curve.fraction[i]);
        }
        line->setPen(style::linePen(idx++));
        attach(c, line, x, y);
        lineInteraction(c, line, line->name(), methodFilter(c->figureName(), q(curve.method)));
    }
    // Rates are often small: zoom to the data, in steps of 0.1.
    const double yMax = std::min(1.0, std::max(0.1, std::ceil(top * 10.0 + 0.5) / 10.0));
    y->setRange(0, yMax);
    y->setTickCount(int(std::lround(yMax * 10.0)) + 1);
    auto* ref = segment(c, x, y, {1.0, 0.0}, {1.0, yMax}, referencePen());
    decadeLabels(c, ref, lo, hi, Qt::Horizontal, 0.0, QString());
}

void taxonomyBars(FigureChart* c, const an::Taxonomy& t, bool byCategory)
{
    auto* series = new QHorizontalStackedBarSeries;
    QStringList groups;
    // Rows top to bottom in sorted order: horizontal bar categories run bottom-up, so reverse.
    struct Row {
        QString name;
        const std::vector<int>* counts;
        std::size_t group;
        bool reviewed;
    };
    std::vector<Row> rows;
    for (std::size_t g = 0; g < t.groups.size(); ++g) {
        const QString name = QStringLiteral("%1 (n=%2)").arg(q(t.groups[g])).arg(t.evaluations[g]);
        if (t.reviewed) {
            rows.push_back({name + QStringLiteral(" · automatic"), &t.automatic[g], g, false});
            rows.push_back({name + QStringLiteral(" · reviewed"), &(*t.reviewed)[g], g, true});
        } else {
            rows.push_back({name, &t.automatic[g], g, false});
        }
    }
    std::reverse(rows.begin(), rows.end());
    for (const auto& r : rows)
        groups << r.name;
    int maxTotal = 0;
    for (const auto& r : rows) {
        int total = 0;
        for (int v : *r.counts)
            total += v;
        maxTotal = std::max(maxTotal, total);
    }
    for (std::size_t k = 0; k < t.classes.size(); ++k) {
        auto* set = new QBarSet(q(t.classes[k]));
        style::applyBar(set, int(k));
        for (const auto& r : rows)
            set->append((*r.counts)[k]);
        series->append(set);
    }
    const double barWidth = 0.7;
    series->setBarWidth(barWidth);
    auto* y = new QBarCategoryAxis;
    y->append(groups);
    styleAxis(y, byCategory ? QStringLiteral("category") : QStringLiteral("method"));
    auto* x = new QValueAxis;
    // The axis ends on a tick past the longest bar, so the longest bar reads off a labelled value.
    const double tick = std::max(1.0, std::ceil(maxTotal / 8.0));
    x->setRange(0, std::max(tick, std::ceil(std::max(1, maxTotal) / tick) * tick));
    x->setLabelFormat("%d");
    x->setTickType(QValueAxis::TicksDynamic);
    x->setTickAnchor(0);
    x->setTickInterval(tick);
    styleAxis(x, QStringLiteral("failed evaluations"));
    c->addAxis(x, Qt::AlignBottom);
    c->addAxis(y, Qt::AlignLeft);
    attach(c, series, x, y);
    // One mark per segment: the class's count (and share of the row's evaluations) on hover; a click
    // filters the group's failures of that class.
    for (std::size_t ri = 0; ri < rows.size(); ++ri) {
        const auto& r = rows[ri];
        double left = 0;
        for (std::size_t k = 0; k < t.classes.size(); ++k) {
            const int v = (*r.counts)[k];
            if (v <= 0)
                continue;
            QVariantMap f = byCategory ? QVariantMap{{QStringLiteral("figure"), c->figureName()},
                                                     {QStringLiteral("category"), q(t.groups[r.group])}}
                                       : methodFilter(c->figureName(), q(t.groups[r.group]));
            f.insert(QStringLiteral("failureClass"), q(t.classes[k]));
            if (t.reviewed)
                f.insert(QStringLiteral("reviewed"), r.reviewed);
            const int n = t.evaluations[r.group];
            c->addHit(series, QRectF(left, double(ri) - barWidth / 2, v, barWidth),
                      QStringLiteral("%1\n%2: %3 of %4 evaluations (%5%)")
                          .arg(r.name, q(t.classes[k]))
                          .arg(v)
                          .arg(n)
                          .arg(n > 0 ? 100.0 * v / n : 0.0, 0, 'f', 1),
                      f);
            left += v;
        }
    }
}

QString shortGpu(const std::string& gpu);

void roundTrajectories(FigureChart* c, const std::vector<an::Trajectory>& t)
{
    int rMin = 0, rMax = 1;
    bool first = true;
    for (const auto& m : t)
        for (const auto& p : m.points) {
            rMin = first ? p.round : std::min(rMin, p.round);
            rMax = first ? p.round : std::max(rMax, p.round);
            first = false;
        }
    auto* x = new QValueAxis;
    x->setRange(rMin - (rMax == rMin ? 0.5 : 0.3), rMax + (rMax == rMin ? 0.5 : 0.3));  // one round: no empty next one
    x->setTickType(QValueAxis::TicksDynamic);
    x->setTickAnchor(rMin);
    x->setTickInterval(std::max(1.0, std::ceil((rMax - rMin) / 10.0)));
    x->setLabelFormat("%d");
    styleAxis(x, QStringLiteral("round"));
    auto* y = rateAxis(QStringLiteral("pass rate (95% Wilson interval); compile rate dashed"), true);
    c->addAxis(x, Qt::AlignBottom);
    c->addAxis(y, Qt::AlignLeft);
    std::set<std::string> gpus;
    for (const auto& m : t)
        gpus.insert(m.gpu);
    const double jitterStep = t.size() > 1 ? 0.12 / double(t.size() - 1) : 0.0;
    // n and speedup under each point where there are few methods; with more they would pile up (the
    // tooltip of each point has them).
    const bool pointLabels = t.size() <= 3;
    std::vector<QGraphicsSimpleTextItem*> labels;
    const int roundsShown = rMax - rMin + 1;
    int idx = 0;
    for (const auto& m : t) {
        const double dx = t.size() > 1 ? -0.06 + jitterStep * idx : 0.0;  // keep intervals apart
        // Named with its GPU where the methods ran on different ones.
        const QString name = gpus.size() > 1 && !m.gpu.empty() ? QStringLiteral("%1 · %2").arg(q(m.method), shortGpu(m.gpu)) : q(m.method);
        QPen pen = style::linePen(idx);
        pen.setStyle(Qt::SolidLine);  // solid: pass; dashed: compile. Beyond the palette the marker differs.
        const int shape = style::variant(idx);
        auto* line = new QLineSeries;
        line->setName(name + QStringLiteral(" pass"));
        line->setPen(pen);
        auto* marks = new QScatterSeries;
        marks->setMarkerShape(markerShape(shape));
        marks->setMarkerSize(9);
        marks->setColor(pen.color());
        marks->setBorderColor(pen.color().darker(130));
        auto* compile = new QLineSeries;
        compile->setName(name + QStringLiteral(" compile"));
        QPen dashed = pen;
        dashed.setStyle(Qt::DashLine);
        dashed.setWidthF(1.5);
        compile->setPen(dashed);
        compile->setPointsVisible(true);  // seen also where a method has one round only
        compile->setMarkerSize(5);
        QPen whisker(pen.color());
        whisker.setWidthF(1.2);
        for (const auto& p : m.points) {
            line->append(p.round + dx, 100.0 * p.pass.value());
            marks->append(p.round + dx, 100.0 * p.pass.value());
            compile->append(p.round + dx, 100.0 * p.compile.value());
            const auto ci = p.pass.ci();
            segment(c, x, y, {p.round + dx, 100 * ci.lo}, {p.round + dx, 100 * ci.hi}, whisker);
        }
        attach(c, line, x, y);
        attach(c, compile, x, y);
        attach(c, marks, x, y);
        c->addLegend({LegendEntry::Kind::Line, name, {}, pen, shape});
        for (const auto& p : m.points) {
            // n per point, and the geometric-mean speedup of its timed correct kernels (the paper's figure)
            const QString sp = p.geomeanSpeedup ? QStringLiteral(" · %1x").arg(*p.geomeanSpeedup, 0, 'f', 2) : QString();
            if (pointLabels)
                labels.push_back(c->annotate(line, {p.round + dx, std::max(4.0, 100 * p.pass.ci().lo - 4)},
                                             QStringLiteral("n=%1%2").arg(p.pass.n).arg(sp), pen.color(), style::labelFont()));
            QVariantMap f{{QStringLiteral("figure"), c->figureName()}, {QStringLiteral("method"), q(m.method)}, {QStringLiteral("round"), p.round}};
            if (!m.gpu.empty())
                f.insert(QStringLiteral("gpu"), q(m.gpu));
            c->addHit(line, QRectF(p.round + dx, 100.0 * p.pass.value(), 0, 0),
                      QStringLiteral("%1, round %2\npass: %3\ncompile: %4%5")
                          .arg(name)
                          .arg(p.round)
                          .arg(pct(p.pass), pct(p.compile),
                               p.geomeanSpeedup ? QStringLiteral("\ngeometric-mean speedup %1x over %2 timed").arg(*p.geomeanSpeedup, 0, 'f', 2).arg(p.timed)
                                                : QString()),
                      f);
        }
        ++idx;
    }
    // The two line styles once, in grey, after the methods.
    QPen solid(QColor(90, 90, 90), 2.2);
    QPen dash(QColor(90, 90, 90), 1.5, Qt::DashLine);
    c->addLegend({LegendEntry::Kind::Line, QStringLiteral("pass rate"), {}, solid, -1});
    c->addLegend({LegendEntry::Kind::Line, QStringLiteral("compile rate"), {}, dash, -1});
    // The labels under the points only where a round is wide and the plot tall enough for them not
    // to run into each other (one-column figures: the tooltips have them).
    c->setLayoutHook([labels, roundsShown, methods = int(t.size())](FigureChart* ch) {
        const QRectF plot = ch->plotArea();
        const double perRound = plot.width() / std::max(1, roundsShown);
        const double need = QFontMetricsF(style::labelFont()).horizontalAdvance(QStringLiteral("n=100 · 1.00x")) * 1.4;
        const bool room = perRound >= need && plot.height() >= 90.0 * methods;
        for (auto* l : labels)
            l->setVisible(room);
        return false;
    });
}

// ---- analysis figures (kbx report --figure; core/stats_tables) ----------------------------------

/// A GPU name short enough for a category label ("CPU (Triton interpreter)" -> "CPU", "NVIDIA H200" -> "H200").
QString shortGpu(const std::string& gpu)
{
    QString g = q(gpu);
    if (g.startsWith(QLatin1String("CPU")))
        return QStringLiteral("CPU");
    if (g.startsWith(QLatin1String("NVIDIA ")))
        g = g.mid(7);
    return g;
}

QString groupLabel(const std::string& gpu, const std::string& method, int round, bool withGpu, bool withRound)
{
    QString s = q(method);
    if (withGpu)
        s += QStringLiteral(" · ") + shortGpu(gpu);
    if (withRound)
        s += QStringLiteral(" · r%1").arg(round);
    return s;
}

/// Bars of rates (in %) with Wilson whiskers; one bar set per series, one category per group.
void rateBars(FigureChart* c, const QStringList& cats, const QStringList& seriesNames, const std::vector<std::vector<an::Rate>>& rates,
              const QString& xTitle, const QString& yTitle, const std::vector<QVariantMap>& filters = {})
{
    auto* series = new QBarSeries;
    const int sets = int(seriesNames.size());
    for (int k = 0; k < sets; ++k) {
        auto* set = new QBarSet(seriesNames[k]);
        style::applyBar(set, k);
        for (const auto& g : rates)
            set->append(g[std::size_t(k)].n > 0 ? 100.0 * g[std::size_t(k)].value() : 0.0);
        series->append(set);
    }
    const double width = 0.75;
    series->setBarWidth(width);
    auto* x = new QBarCategoryAxis;
    x->append(cats);
    styleAxis(x, xTitle);
    turnLabels(x, int(cats.size()), 4);  // long "method · GPU · round" labels stay whole
    auto* y = rateAxis(yTitle, true);
    c->addAxis(x, Qt::AlignBottom);
    c->addAxis(y, Qt::AlignLeft);
    attach(c, series, x, y);
    QPen whisker(QColor(20, 20, 20));
    whisker.setWidthF(1.3);
    const double barW = width / double(sets);
    for (std::size_t i = 0; i < rates.size(); ++i)
        for (int k = 0; k < sets; ++k) {
            const auto& rate = rates[i][std::size_t(k)];
            const double xc = double(i) - width / 2 + barW * (k + 0.5);
            c->addHit(series, QRectF(xc - barW / 2, 0, barW, std::max(2.0, 100 * rate.value())),
                      QStringLiteral("%1\n%2: %3").arg(cats[int(i)], seriesNames[k], pct(rate)),
                      i < filters.size() ? filters[i] : QVariantMap{{QStringLiteral("figure"), c->figureName()}});
            if (rate.n == 0)
                continue;
            const auto ci = rate.ci();
            segment(c, x, y, {xc, 100 * ci.lo}, {xc, 100 * ci.hi}, whisker);
            segment(c, x, y, {xc - barW / 5, 100 * ci.lo}, {xc + barW / 5, 100 * ci.lo}, whisker);
            segment(c, x, y, {xc - barW / 5, 100 * ci.hi}, {xc + barW / 5, 100 * ci.hi}, whisker);
        }
}

/// The groups the method-summary figure draws: every (GPU, method, round) while there are few; with
/// many (8 methods x 10 rounds x 2 GPUs would be 160) and several rounds, the last round of each
/// (GPU, method), where the methods stand at the end; every round stays in the CSV.
constexpr std::size_t kSummaryGroups = 16;
std::vector<kbx::stats::MethodSummary> summaryGroups(const std::vector<kbx::stats::MethodSummary>& ms, bool* lastRoundOnly = nullptr)
{
    std::set<int> rounds;
    for (const auto& m : ms)
        rounds.insert(m.round);
    const bool reduce = ms.size() > kSummaryGroups && rounds.size() > 1;
    if (lastRoundOnly)
        *lastRoundOnly = reduce;
    if (!reduce)
        return ms;
    std::map<std::pair<std::string, std::string>, int> last;
    for (const auto& m : ms) {
        auto [it, fresh] = last.try_emplace({m.gpu, m.method}, m.round);
        if (!fresh)
            it->second = std::max(it->second, m.round);
    }
    std::vector<kbx::stats::MethodSummary> out;
    for (const auto& m : ms)
        if (last[{m.gpu, m.method}] == m.round)
            out.push_back(m);
    return out;
}

void methodSummaryBars(FigureChart* c, const std::vector<kbx::stats::MethodSummary>& all)
{
    bool lastOnly = false;
    const auto ms = summaryGroups(all, &lastOnly);
    std::set<std::string> gpus;
    std::set<int> rounds;
    for (const auto& m : ms) {
        gpus.insert(m.gpu);
        rounds.insert(m.round);
    }
    QStringList cats;
    std::vector<std::vector<an::Rate>> rates;
    std::vector<QVariantMap> filters;
    for (const auto& m : ms) {
        // With the last round of each, its round is in the label whenever the methods' last rounds differ.
        cats << QStringLiteral("%1 (n=%2)").arg(groupLabel(m.gpu, m.method, m.round, gpus.size() > 1, rounds.size() > 1)).arg(m.n);
        rates.push_back({m.call, m.exe, m.exeGivenCall});
        filters.push_back({{QStringLiteral("figure"), c->figureName()},
                           {QStringLiteral("method"), q(m.method)},
                           {QStringLiteral("round"), m.round},
                           {QStringLiteral("gpu"), q(m.gpu)}});
    }
    QString xTitle = QStringLiteral("method");
    if (lastOnly)
        xTitle += rounds.size() == 1 ? QStringLiteral(" (round %1, the last of each; every round in the CSV)").arg(*rounds.begin())
                                     : QStringLiteral(" (last round of each; every round in the CSV)");
    rateBars(c, cats, {QStringLiteral("compile"), QStringLiteral("correct"), QStringLiteral("correct / compile")}, rates, xTitle,
             QStringLiteral("rate (95% Wilson interval)"), filters);
}

void slowFractionBars(FigureChart* c, const std::vector<kbx::stats::SlowFraction>& slow)
{
    // One bar per GPU: all methods pooled (the per-method rows where a GPU has one method).
    QStringList cats;
    std::vector<std::vector<an::Rate>> rates;
    std::vector<QVariantMap> filters;
    std::map<std::string, int> methodsPerGpu;
    for (const auto& s : slow)
        if (s.method != "all methods")
            methodsPerGpu[s.gpu]++;
    for (const auto& s : slow) {
        const bool pooled = s.method == "all methods";
        if (!pooled && methodsPerGpu[s.gpu] > 1)
            continue;
        cats << QStringLiteral("%1 (%2 timed)").arg(shortGpu(s.gpu)).arg(s.slower.n);
        rates.push_back({s.slower});
        QVariantMap f{{QStringLiteral("figure"), c->figureName()}, {QStringLiteral("gpu"), q(s.gpu)}};
        if (!pooled)
            f.insert(QStringLiteral("method"), q(s.method));
        filters.push_back(f);
    }
    rateBars(c, cats, {QStringLiteral("slower than eager (speedup < 1)")}, rates, QStringLiteral("GPU"),
             QStringLiteral("correct kernels slower than eager (95% Wilson)"), filters);
    c->legend()->hide();
}

void devianceBars(FigureChart* c, const std::vector<kbx::stats::DevianceGroup>& groups)
{
    auto* series = new QBarSeries;
    auto* cat = new QBarSet(QStringLiteral("category alone"));
    auto* met = new QBarSet(QStringLiteral("method alone"));
    auto* joint = new QBarSet(QStringLiteral("category + method"));
    style::applyBar(cat, 0);
    style::applyBar(met, 1);
    style::applyBar(joint, 2);
    QStringList cats;
    double top = 0;
    for (const auto& g : groups) {
        const auto& a = g.analysis;
        cats << QStringLiteral("%1 · r%2 (n=%3)").arg(shortGpu(g.gpu)).arg(g.round).arg(a.n);
        const double sc = a.alone.size() > 0 ? 100 * a.alone[0].share : 0;
        const double sm = a.alone.size() > 1 ? 100 * a.alone[1].share : 0;
        cat->append(sc);
        met->append(sm);
        joint->append(100 * a.jointShare);
        top = std::max({top, sc, sm, 100 * a.jointShare});
    }
    series->append(cat);
    series->append(met);
    series->append(joint);
    series->setBarWidth(0.7);
    auto* x = new QBarCategoryAxis;
    x->append(cats);
    styleAxis(x, QStringLiteral("GPU · round"));
    turnLabels(x, int(cats.size()), 3);
    auto* y = new QValueAxis;
    // Room above the tallest bar for its label; ticks on round values.
    const double step = top > 50 ? 20.0 : (top > 20 ? 10.0 : 5.0);
    const double yMax = std::max(step, std::ceil((top * 1.12) / step) * step);
    y->setRange(0, yMax);
    y->setLabelFormat("%.0f%%");
    y->setTickCount(int(std::lround(yMax / step)) + 1);
    styleAxis(y, QStringLiteral("share of the null deviance (LR chi2 / null)"));
    c->addAxis(x, Qt::AlignBottom);
    c->addAxis(y, Qt::AlignLeft);
    attach(c, series, x, y);
    // Each bar's value above it, all with one decimal (Qt's own labels give "38%" beside "21.1%").
    const std::array<QBarSet*, 3> sets = {cat, met, joint};
    for (int k = 0; k < 3; ++k)
        for (int i = 0; i < sets[std::size_t(k)]->count(); ++i) {
            const double v = sets[std::size_t(k)]->at(i);
            const double xc = double(i) - 0.35 + 0.7 / 3.0 * (k + 0.5);
            c->annotateValue(series, {xc, v}, QString::number(v, 'f', 1) + QLatin1Char('%'), 0.7 / 3.0);
            const auto& g = groups[std::size_t(i)];
            c->addHit(series, QRectF(xc - 0.35 / 3.0, 0, 0.7 / 3.0, std::max(v, yMax * 0.01)),
                      QStringLiteral("%1 · round %2 (n=%3)\n%4: %5% of the null deviance")
                          .arg(shortGpu(g.gpu))
                          .arg(g.round)
                          .arg(g.analysis.n)
                          .arg(sets[std::size_t(k)]->label())
                          .arg(v, 0, 'f', 1),
                      QVariantMap{{QStringLiteral("figure"), c->figureName()}, {QStringLiteral("gpu"), q(g.gpu)}, {QStringLiteral("round"), g.round}});
        }
}

void rescuedBars(FigureChart* c, const kbx::stats::Rescued& r)
{
    // Geometric-mean speedup per (GPU, method) and cohort, with the bootstrap CI.
    std::vector<std::pair<QString, std::array<const kbx::stats::CohortStats*, 2>>> groups;
    for (const auto& cs : r.cohorts) {
        const QString label = QStringLiteral("%1 · %2").arg(q(cs.method), shortGpu(cs.gpu));
        if (groups.empty() || groups.back().first != label)
            groups.push_back({label, {nullptr, nullptr}});
        groups.back().second[cs.cohort == "rescued" ? 0 : 1] = &cs;
    }
    auto* series = new QBarSeries;
    auto* resc = new QBarSet(QStringLiteral("rescued (failed in the first round, correct in the last)"));
    auto* pers = new QBarSet(QStringLiteral("persistently correct"));
    style::applyBar(resc, 0);
    style::applyBar(pers, 1);
    QStringList cats;
    double top = 1.0;
    for (const auto& [label, pair] : groups) {
        QString l = label;
        for (int k = 0; k < 2; ++k) {
            const auto* cs = pair[std::size_t(k)];
            const double v = cs && cs->speedup.geomean ? *cs->speedup.geomean : 0.0;
            (k == 0 ? resc : pers)->append(v);
            if (cs && cs->speedup.geomeanCI)
                top = std::max(top, cs->speedup.geomeanCI->hi);
        }
        l += QStringLiteral(" (%1 / %2 timed)").arg(pair[0] ? pair[0]->speedup.n : 0).arg(pair[1] ? pair[1]->speedup.n : 0);
        cats << l;
    }
    series->append(resc);
    series->append(pers);
    const double width = 0.7;
    series->setBarWidth(width);
    auto* x = new QBarCategoryAxis;
    x->append(cats);
    styleAxis(x, QStringLiteral("method · GPU (timed kernels: rescued / persistent)"));
    turnLabels(x, int(cats.size()), 3);
    auto* y = new QValueAxis;
    niceAxis(y, top * 1.1, "x");
    styleAxis(y, QStringLiteral("geometric-mean speedup over eager (95% bootstrap CI)"));
    c->addAxis(x, Qt::AlignBottom);
    c->addAxis(y, Qt::AlignLeft);
    attach(c, series, x, y);
    QPen whisker(QColor(20, 20, 20));
    whisker.setWidthF(1.3);
    for (std::size_t i = 0; i < groups.size(); ++i)
        for (int k = 0; k < 2; ++k) {
            const auto* cs = groups[i].second[std::size_t(k)];
            const double xc = double(i) - width / 2 + width / 2 * (k + 0.5);
            if (cs && cs->speedup.geomean)
                c->addHit(series, QRectF(xc - width / 4, 0, width / 2, *cs->speedup.geomean),
                          QStringLiteral("%1 · %2\n%3: geometric-mean speedup %4x over %5 timed kernels%6")
                              .arg(q(cs->method), shortGpu(cs->gpu), q(cs->cohort))
                              .arg(*cs->speedup.geomean, 0, 'f', 2)
                              .arg(cs->speedup.n)
                              .arg(cs->speedup.geomeanCI ? QStringLiteral(" (95% CI %1x–%2x)")
                                                               .arg(cs->speedup.geomeanCI->lo, 0, 'f', 2)
                                                               .arg(cs->speedup.geomeanCI->hi, 0, 'f', 2)
                                                         : QString()),
                          cs->method == "all methods"
                              ? QVariantMap{{QStringLiteral("figure"), c->figureName()}, {QStringLiteral("gpu"), q(cs->gpu)}}
                              : QVariantMap{{QStringLiteral("figure"), c->figureName()}, {QStringLiteral("method"), q(cs->method)}, {QStringLiteral("gpu"), q(cs->gpu)}});
            if (!cs || !cs->speedup.geomeanCI)
                continue;
            segment(c, x, y, {xc, cs->speedup.geomeanCI->lo}, {xc, cs->speedup.geomeanCI->hi}, whisker);
        }
    segment(c, x, y, {-0.5, 1.0}, {double(groups.size()) - 0.5, 1.0}, referencePen());
}

void crossHardwareBoxes(FigureChart* c, const kbx::stats::CrossHardware& x)
{
    std::vector<an::SpeedupSeries> series;  // reuse the box layout: one box per distribution
    an::SpeedupSeries kernels;
    kernels.method = "kernels";
    for (const auto& k : x.kernels)
        kernels.speedups.push_back(k.spread);
    an::SpeedupSeries golden;
    golden.method = "golden";
    for (const auto& t : x.golden)
        golden.speedups.push_back(t.spread);
    std::sort(kernels.speedups.begin(), kernels.speedups.end());
    std::sort(golden.speedups.begin(), golden.speedups.end());
    series = {kernels, golden};
    auto [lo, hi] = logRange(series);
    lo = std::max(lo, 1.0);
    if (hi <= lo)
        hi = lo * 10;
    auto* xa = new QBarCategoryAxis;
    auto* ya = logAxis(lo, hi, QStringLiteral("max / min over GPUs (log scale)"));
    QStringList cats = {QStringLiteral("speedup: %1 kernels on %2 GPUs").arg(x.kernels.size()).arg(x.gpus.size()),
                        QStringLiteral("eager: %1 tasks on %2 GPUs").arg(x.golden.size()).arg(x.goldenGpus.size())};
    xa->append(cats);
    styleAxis(xa, QStringLiteral("speedup of the same kernel (code, method, round); eager time of the same task (golden timings)"));
    c->addAxis(xa, Qt::AlignBottom);
    c->addAxis(ya, Qt::AlignLeft);
    auto* box = new QBoxPlotSeries;
    box->setBoxWidth(0.4);
    box->setBrush(QBrush(style::categorical(4)));
    QPen pen(QColor(20, 20, 20));
    pen.setWidthF(1.3);
    box->setPen(pen);
    auto* outliers = new QScatterSeries;
    outliers->setMarkerSize(7);
    outliers->setColor(Qt::white);
    outliers->setBorderColor(QColor(20, 20, 20));
    for (std::size_t i = 0; i < series.size(); ++i) {
        auto* set = new QBoxSet(cats[int(i)]);
        if (!series[i].speedups.empty()) {
            const auto st = an::boxStats(series[i].speedups);
            set->setValue(QBoxSet::LowerExtreme, st.lowerWhisker);
            set->setValue(QBoxSet::LowerQuartile, st.q1);
            set->setValue(QBoxSet::Median, st.median);
            set->setValue(QBoxSet::UpperQuartile, st.q3);
            set->setValue(QBoxSet::UpperExtreme, st.upperWhisker);
            for (double o : st.outliers)
                outliers->append(double(i), o);
            c->annotate(box, {double(i) + 0.32, st.max}, QStringLiteral("max %1x").arg(st.max, 0, 'f', 2), style::textColour(),
                        style::labelFont());
        } else {
            // No data: an invisible box (the category keeps its place), and the words, never a line at 1x.
            for (int k = 0; k < 5; ++k)
                set->setValue(k, std::sqrt(lo * hi));
            c->annotate(box, {double(i), std::sqrt(lo * hi)},
                        i == 0 ? QStringLiteral("no data: no kernel timed on 2+ GPUs") : QStringLiteral("no data: no golden timings on 2+ GPUs"),
                        style::textColour(), style::labelFont());
        }
        box->append(set);
        if (series[i].speedups.empty()) {
            set->setPen(QPen(Qt::transparent));
            set->setBrush(QBrush(Qt::transparent));
        }
    }
    attach(c, box, xa, ya);
    attach(c, outliers, xa, ya);
    decadeLabels(c, box, lo, hi, Qt::Vertical, -0.5);
    c->legend()->hide();
}

FigureChart* buildChart(const FigureInput& in, bool interactive = false)
{
    auto* c = new FigureChart(interactive);
    c->setFigureName(in.name);
    if (in.options.title)
        c->setFigureTitle(figureTitle(in.name));
    const QString empty = emptyMessage(in);
    if (!empty.isEmpty())
        return messageChart(c, empty);
    const auto& d = in.data;
    if (figureKind(in.name) == QLatin1String("correctness_heatmap"))
        correctnessHeatmap(c, d.correctness);
    else if (figureKind(in.name) == QLatin1String("compile_vs_correct"))
        compileVsCorrect(c, d.compile);
    else if (figureKind(in.name) == QLatin1String("speedup_box"))
        speedupBox(c, d.speedup);
    else if (figureKind(in.name) == QLatin1String("speedup_ecdf"))
        speedupEcdf(c, d.speedup);
    else if (figureKind(in.name) == QLatin1String("fast_p"))
        fastPCurves(c, d.fastp);
    else if (figureKind(in.name) == QLatin1String("taxonomy_by_category"))
        taxonomyBars(c, d.taxonomyByCategory, true);
    else if (figureKind(in.name) == QLatin1String("taxonomy_by_method"))
        taxonomyBars(c, d.taxonomyByMethod, false);
    else if (figureKind(in.name) == QLatin1String("round_trajectories"))
        roundTrajectories(c, d.rounds);
    else if (d.stats && figureKind(in.name) == QLatin1String("method-summary"))
        methodSummaryBars(c, d.stats->methods);
    else if (d.stats && figureKind(in.name) == QLatin1String("deviance"))
        devianceBars(c, d.stats->deviance);
    else if (d.stats && figureKind(in.name) == QLatin1String("rescued"))
        rescuedBars(c, d.stats->rescued);
    else if (d.stats && figureKind(in.name) == QLatin1String("cross-hardware"))
        crossHardwareBoxes(c, d.stats->cross);
    else if (d.stats && figureKind(in.name) == QLatin1String("slow-fraction"))
        slowFractionBars(c, d.stats->cross.slow);
    // Our own legend (wrapping into rows, line series as lines, large swatches) replaces Qt's, which
    // is one row that elides.
    const bool wantLegend = c->legend()->isVisible();
    c->legend()->hide();
    if (wantLegend && !c->hasLegend())
        legendFromSeries(c);
    return c;
}

/// Lays c out at size (the fonts of opts in force).
void layOut(FigureChart* c, QGraphicsScene& scene, const QSizeF& size)
{
    scene.addItem(c);
    c->setGeometry(QRectF(QPointF(0, 0), size));
    scene.setSceneRect(QRectF(QPointF(0, 0), size));
    c->fit();
}

class ChartsView : public QChartView {
public:
    explicit ChartsView(QWidget* parent) : QChartView(parent)
    {
        setRenderHint(QPainter::Antialiasing);
        setChart(new FigureChart(true));
        setMouseTracking(true);
    }
    void setHandler(ActivationHandler h)
    {
        m_handler = std::move(h);
        if (auto* c = dynamic_cast<FigureChart*>(chart()))
            c->setActivationHandler(m_handler);
    }
    const ActivationHandler& handler() const { return m_handler; }
    void setFontPt(double pt) { m_fontPt = pt; }
    void refit()
    {
        style::FontSizeGuard fonts(m_fontPt);
        if (auto* c = dynamic_cast<FigureChart*>(chart())) {
            c->fit();
            setSceneRect(c->geometry());
        }
    }
    void resizeEvent(QResizeEvent* e) override
    {
        QChartView::resizeEvent(e);
        refit();
    }
    void mousePressEvent(QMouseEvent* e) override
    {
        if (e->button() == Qt::LeftButton)
            for (auto* item : items(e->pos()))
                if (auto* hit = dynamic_cast<HitItem*>(item)) {
                    if (m_handler && !hit->filter().isEmpty()) {
                        m_handler(hit->filter());
                        e->accept();
                        return;
                    }
                }
        QChartView::mousePressEvent(e);
    }

private:
    ActivationHandler m_handler;
    double m_fontPt = 0;
};

int widest(const QStringList& texts)
{
    const QFontMetricsF fm(style::labelFont());
    qreal w = 0;
    for (const auto& t : texts)
        w = std::max(w, fm.horizontalAdvance(t));
    return int(std::ceil(w));
}

/// Rows a bottom legend of n entries of about entryW pixels takes at width w.
int legendRows(int n, int entryW, int w)
{
    if (n <= 0)
        return 0;
    const int cols = std::clamp((w - 16) / std::max(1, entryW + 18), 1, n);
    return (n + cols - 1) / cols;
}

class QtChartsRenderer final : public FigureRenderer {
public:
    QString backendName() const override { return QStringLiteral("Qt Charts"); }

    QSize preferredSize(const FigureInput& in) const override
    {
        style::FontSizeGuard fonts(in.options.fontPt);
        const auto& d = in.data;
        const QString kind = figureKind(in.name);
        const bool empty = !emptyMessage(in).isEmpty();
        const int lineH = int(std::ceil(QFontMetricsF(style::legendFont()).height())) + 4;
        if (kind == QLatin1String("correctness_heatmap") && !empty) {
            const int cols = int(d.correctness.methods.size()) * 2;
            const int rows = int(d.correctness.categories.size() + 1);
            if (cols > kDenseHeatmapColumns) {
                // Upright one-line labels: a column as wide as a line of text and a little more.
                QStringList labels;
                for (const auto& m : d.correctness.methods)
                    labels << q(m) + QStringLiteral(" · call");
                // A column as wide as "100%" (the short form of a cell) and a line of its label.
                const int colW = std::max({22, lineH + 6, widest({QStringLiteral("100%")}) + 8});
                return {std::clamp(260 + colW * cols, 640, 8000), std::max(360, 200 + 34 * rows + widest(labels))};
            }
            return {std::clamp(220 + 120 * cols, 640, 1800), std::max(360, 170 + 30 * rows)};
        }
        if (kind.startsWith(QLatin1String("taxonomy_by")) && !empty) {
            const auto& t = kind == QLatin1String("taxonomy_by_category") ? d.taxonomyByCategory : d.taxonomyByMethod;
            const int rows = int(t.groups.size()) * (t.reviewed ? 2 : 1);
            QStringList classes;
            for (const auto& c : t.classes)
                classes << q(c);
            const int legend = legendRows(int(classes.size()), widest(classes) + 30, 960) * lineH;
            return {960, std::max(420, 140 + 28 * rows) + legend};
        }
        if (kind == QLatin1String("cross-hardware"))
            return {1000, 560};
        if ((kind == QLatin1String("method-summary") || kind == QLatin1String("rescued") || kind == QLatin1String("deviance")) && d.stats) {
            const std::size_t groups = kind == QLatin1String("rescued")    ? d.stats->rescued.cohorts.size() / 2
                                       : kind == QLatin1String("deviance") ? d.stats->deviance.size()
                                                                           : summaryGroups(d.stats->methods).size();
            const int per = groups > 12 ? 100 : 150;
            int extent = 120;
            if (kind == QLatin1String("method-summary")) {
                QStringList cats;
                for (const auto& m : summaryGroups(d.stats->methods))
                    cats << q(m.method) + QStringLiteral(" · ") + shortGpu(m.gpu) + QStringLiteral(" · r10 (n=1000)");
                extent = turnedLabelsExtent(cats);
            }
            return {std::clamp(int(260 + per * groups), 800, 4000), groups > 4 ? 480 + extent : 520};
        }
        if (kind == QLatin1String("compile_vs_correct") && !empty) {
            QStringList cats;
            for (const auto& r : d.compile)
                cats << QStringLiteral("%1 (n=%2)").arg(q(r.method)).arg(r.call.n);
            return {std::clamp(int(200 + 80 * d.compile.size()), 800, 4000), cats.size() > 5 ? 440 + turnedLabelsExtent(cats) : 500};
        }
        if (kind == QLatin1String("speedup_box") && !empty) {
            QStringList cats;
            for (const auto& m : d.speedup)
                cats << QStringLiteral("%1 (%2 timed)").arg(q(m.method)).arg(m.speedups.size());
            return {std::clamp(int(200 + 70 * d.speedup.size()), 800, 4000), cats.size() > 5 ? 440 + turnedLabelsExtent(cats) : 500};
        }
        if ((kind == QLatin1String("speedup_ecdf") || kind == QLatin1String("fast_p") || kind == QLatin1String("round_trajectories")) &&
            !empty) {
            QStringList names;
            if (kind == QLatin1String("fast_p"))
                for (const auto& c : d.fastp)
                    names << QStringLiteral("%1 (n=%2)").arg(q(c.method)).arg(c.n);
            else if (kind == QLatin1String("speedup_ecdf"))
                for (const auto& s : d.speedup)
                    names << QStringLiteral("%1 (n=%2)").arg(q(s.method)).arg(s.speedups.size());
            else
                for (const auto& t : d.rounds)
                    names << q(t.method) + QStringLiteral(" · H200");
            const int rows = legendRows(int(names.size()) + (kind == QLatin1String("round_trajectories") ? 2 : 0), widest(names) + 40, 800);
            return {800, 480 + rows * lineH};
        }
        return {800, 500};
    }

    void paint(QPainter* painter, const QRectF& target, const FigureInput& in) override
    {
        style::FontSizeGuard fonts(in.options.fontPt);
        QGraphicsScene scene;
        auto* chart = buildChart(in);
        const QSizeF size = target.size();
        layOut(chart, scene, size);
        painter->save();
        painter->setRenderHint(QPainter::Antialiasing);
        painter->setRenderHint(QPainter::TextAntialiasing);
        scene.render(painter, target, QRectF(QPointF(0, 0), size));
        painter->restore();
    }

    QList<TextBox> textBoxes(const FigureInput& in, const QSize& size) override
    {
        style::FontSizeGuard fonts(in.options.fontPt);
        QGraphicsScene scene;
        auto* chart = buildChart(in);
        layOut(chart, scene, QSizeF(size));
        return chart->texts();
    }

    QWidget* createView(QWidget* parent) override { return new ChartsView(parent); }

    void show(QWidget* view, const FigureInput& in) override
    {
        auto* v = static_cast<ChartsView*>(view);
        style::FontSizeGuard fonts(in.options.fontPt);
        v->setFontPt(in.options.fontPt);
        QChart* old = v->chart();
        auto* c = buildChart(in, true);
        c->setActivationHandler(v->handler());
        v->setChart(c);
        delete old;
        v->refit();
    }

    void setActivationHandler(QWidget* view, ActivationHandler handler) override
    {
        static_cast<ChartsView*>(view)->setHandler(std::move(handler));
    }
};

}  // namespace

std::unique_ptr<FigureRenderer> makeQtChartsRenderer()
{
    return std::make_unique<QtChartsRenderer>();
}

std::unique_ptr<FigureRenderer> makeDefaultRenderer()
{
    return makeQtChartsRenderer();
}

}  // namespace kbx::gui
