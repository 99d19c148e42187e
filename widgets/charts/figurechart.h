// SPDX-License-Identifier: MIT
#pragma once
// The chart every Qt Charts figure is drawn on (kbx_charts internal; FigureRenderer is the interface
// the rest of the workbench sees): texts placed in plot coordinates and fitted to their room, the
// invisible hit marks of interactive views, our own wrapping legend and title, and the layout that
// grows the margins until every text lies inside the figure.
#include "figurerenderer.h"
#include "figurestyle.h"

#include <QAbstractSeries>
#include <QBarCategoryAxis>
#include <QBrush>
#include <QChart>
#include <QCursor>
#include <QFont>
#include <QGraphicsRectItem>
#include <QGraphicsSimpleTextItem>
#include <QGraphicsTextItem>
#include <QPen>
#include <QScatterSeries>
#include <QStringList>
#include <QVariantMap>

#include <functional>
#include <string>
#include <vector>

namespace kbx::gui::qtcharts {

namespace an = kbx::analysis;

inline QString q(const std::string& s) { return QString::fromStdString(s); }

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

/// The point marker of series i (a circle, a square, a triangle, a diamond, then again).
QScatterSeries::MarkerShape markerShape(int i);

class Swatch;

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
    explicit FigureChart(bool interactive = false);

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
                                      Annotation::Anchor anchor = Annotation::Anchor::Centre);
    /// A text that must fit inside box (series coordinates): the first of texts that fits, at up to
    /// 35 % smaller type, else none.
    void annotateCell(QAbstractSeries* s, const QRectF& box, const QStringList& texts, const QColor& colour, const QFont& font);
    /// A value over a bar (above the point at), no wider than the bar's slot (series x units).
    void annotateValue(QAbstractSeries* s, QPointF at, const QString& text, double slotWidth);
    /// A text centred on at, no wider than a category's slot (series x units): the first of texts
    /// (longest first) that fits, at up to 30 % smaller type, else none (many groups in a narrow figure).
    void annotateInSlot(QAbstractSeries* s, QPointF at, const QStringList& texts, double slotWidth, const QColor& colour,
                        const QFont& font);
    void addHit(QAbstractSeries* s, const QRectF& value, const QString& tip, const QVariantMap& filter);
    void addLegend(const LegendEntry& e) { m_legend.push_back(e); }
    bool hasLegend() const { return !m_legend.empty(); }
    void setMessage(const QString& text);
    /// Runs after every layout pass of fit(), with the plot area known (e.g. to size axis labels);
    /// returns true when it changed something that needs another layout.
    void setLayoutHook(std::function<bool(FigureChart*)> hook) { m_hook = std::move(hook); }
    /// Fits and places the annotations, the hit marks and the message in the current plot area.
    void place();

    /// The title: our own text item, centred, wrapped into lines where the figure is narrow (Qt's
    /// title elides).
    void setFigureTitle(const QString& t);

    /// Lays the chart out at its current size: the legend wrapped into as many rows as it needs
    /// below the plot, then margins grown until every text (tick labels, titles, annotations) lies
    /// inside the figure. Call after every resize.
    void fit();

    /// Every visible text item with its role, in chart coordinates.
    QList<TextBox> texts(bool withHidden = false) const;
    /// After fit(): empty, or what the figure could not show at its size, e.g. "9 of 28 category
    /// labels do not fit ..." (upright labels of more groups than the width holds at the smallest font).
    QString crowdingWarning() const;
    /// A label's text without markup, line breaks and spaces (a category and its drawn text compare equal).
    static QString plainLabel(const QString& text);
    /// The category labels (plainLabel) of the horizontal category axes, in order.
    QStringList categoryLabels() const;

private:
    static constexpr int kMargin = 8;
    static constexpr int kLegendGap = 6;
    static constexpr int kLegendBelow = 14;  ///< white under the legend, as under the axis title

    /// Turned tick labels that Qt could not give their room (it then gives them one line's) run into
    /// the axis title or the legend: their type shrinks (to 7 px); then the bottom axis's title
    /// leaves the axis for the margin under it (Qt gives an axis at most 40 % of the chart's height,
    /// its title included: a short export elided long upright labels); only then may Qt shorten
    /// them ("…"), which reads better than text over text. True when it changed something.
    bool relieveCrowding();
    /// Axis titles longer than their axis: smaller type (to 70 %), then in lines (up to three),
    /// never elided.
    bool fitAxisTitles();
    /// The bottom axis's title once it left the axis: its text and type follow the axis's, under
    /// the axis labels and above the legend; then the category key (numberCategories), if any, under
    /// it, as wide as the figure. Returns their height (0: none).
    qreal placeDetachedTitle();
    /// An exported figure's last remedy before Qt elides category labels: the categories become
    /// 1..N, level, and a key under the axis names each ("1 name  2 name ..."), wrapped to the
    /// figure's width. Not where the key would take more than 40 % of the figure's height, nor in an
    /// interactive chart (which is resized; its tooltips name the groups). True when it numbered them.
    bool numberCategories(QBarCategoryAxis* bar);
    /// The title in one line, its type up to a quarter smaller where the figure is narrow; two lines
    /// where that is not enough (Qt would elide it).
    qreal fitTitle();
    /// Where a fitted text must fit, in pixels.
    QRectF room(const Annotation& a);
    /// One choice for all fitted texts of a kind (cells; values over bars), so that a figure's cells
    /// read alike: the longest form at full size, else a little smaller, else the short form, down
    /// to 70 % of the size; a text that does not fit even so is left out (its tooltip has it).
    void fitGroup(bool cells);
    void placeAnnotation(Annotation& a);
    /// Creates (once) and places the legend: a grid of entries, as many columns as the width takes,
    /// filled column by column; nothing elided. Returns its height (0: no legend).
    qreal layoutLegend();

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
    QGraphicsTextItem* m_xTitle = nullptr;  ///< the bottom axis's title, out of the axis (relieveCrowding)
    QAbstractAxis* m_xTitleAxis = nullptr;
    QGraphicsTextItem* m_key = nullptr;     ///< the numbered categories' key (numberCategories)
    QStringList m_keyNames;                 ///< its entries' names, group 1 first
    /// The key's text for a width: entries packed greedily into lines, never broken inside.
    QString keyHtml(qreal width) const;
    ActivationHandler m_activate;
    QGraphicsSimpleTextItem* m_message = nullptr;
};

}  // namespace kbx::gui::qtcharts
