// SPDX-License-Identifier: MIT
// FigureChart: fitting its texts to the room they have (titles, category labels, annotations) and
// relieving a crowded figure. Placing and the legend: figurechart.cpp.
#include "figurechart.h"

#include "chartparts.h"

#include <QBarCategoryAxis>
#include <QFontMetricsF>
#include <QRegularExpression>
#include <QSet>
#include <QTextDocumentFragment>
#include <QTextOption>

#include <algorithm>
#include <cmath>

namespace kbx::gui::qtcharts {

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

}  // namespace

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

}  // namespace kbx::gui::qtcharts
