// SPDX-License-Identifier: MIT
#include "figurestyle.h"

#include <QBarSet>
#include <QPainter>
#include <QPixmap>

#include <algorithm>
#include <array>
#include <cmath>

namespace kbx::gui::style {
namespace {

double g_fontPt = kDefaultFontPt;

QFont font(double pixelSize, bool bold = false)
{
    QFont f(QStringLiteral("DejaVu Sans"));
    f.setStyleHint(QFont::SansSerif);
    f.setPixelSize(std::max(6, int(std::lround(pixelSize * fontScale()))));
    f.setBold(bold);
    return f;
}

// Paul Tol's colour-blind-safe qualitative scheme of twelve colours, ordered so that the first few
// (the common case: call/exe, a handful of methods) are far apart in hue and in lightness.
constexpr std::array<QRgb, kPaletteSize> kPalette = {0x332288, 0xddcc77, 0x117733, 0xcc6677, 0x88ccee, 0x882255,
                                                     0x44aa99, 0x999933, 0xaa4499, 0x6699cc, 0x661100, 0xaa4466};

}  // namespace

FontSizeGuard::FontSizeGuard(double pt) : m_previous(g_fontPt)
{
    if (std::isfinite(pt) && pt > 0)
        g_fontPt = std::clamp(pt, 4.0, 48.0);
}
FontSizeGuard::~FontSizeGuard() { g_fontPt = m_previous; }
double fontScale() { return g_fontPt / kDefaultFontPt; }

QFont titleFont() { return font(16, true); }
QFont axisTitleFont() { return font(13); }
QFont labelFont() { return font(12); }
QFont legendFont() { return font(12); }
QFont messageFont() { return font(17, true); }
QFont smallerLabelFont(double factor) { return font(12 * std::clamp(factor, 0.1, 1.0)); }
QColor textColour() { return QColor(25, 25, 25); }
QColor axisColour() { return QColor(60, 60, 60); }
QColor gridColour() { return QColor(225, 225, 225); }

QColor categorical(int i)
{
    return QColor(kPalette[std::size_t(std::abs(i)) % kPalette.size()]);
}

int variant(int i) { return std::abs(i) / kPaletteSize; }

QBrush categoricalBrush(int i)
{
    const QColor base = categorical(i);
    const int pattern = variant(i);
    if (pattern == 0)
        return QBrush(base);
    // A 12 px tile (at 2x: 24 device pixels) with 2 px strokes: visible in a legend swatch and in
    // print, not a grey haze.
    constexpr int s = 12;
    QPixmap tile(s, s);
    tile.fill(base);
    QPainter p(&tile);
    p.setRenderHint(QPainter::Antialiasing, true);
    const QColor ink = qGray(base.rgb()) > 140 ? QColor(0, 0, 0) : QColor(255, 255, 255);
    p.setPen(QPen(ink, 2.0, Qt::SolidLine, Qt::FlatCap));
    switch ((pattern - 1) % 4) {
    case 0:  // diagonal /
        p.drawLine(QPointF(-1, s + 1), QPointF(s + 1, -1));
        p.drawLine(QPointF(-1, 1), QPointF(1, -1));
        p.drawLine(QPointF(s - 1, s + 1), QPointF(s + 1, s - 1));
        break;
    case 1:  // cross +
        p.drawLine(QPointF(0, s / 2.0), QPointF(s, s / 2.0));
        p.drawLine(QPointF(s / 2.0, 0), QPointF(s / 2.0, s));
        break;
    case 2:  // back diagonal
        p.drawLine(QPointF(-1, -1), QPointF(s + 1, s + 1));
        p.drawLine(QPointF(s - 1, -1), QPointF(s + 1, 1));
        p.drawLine(QPointF(-1, s - 1), QPointF(1, s + 1));
        break;
    default:  // dots
        p.setPen(Qt::NoPen);
        p.setBrush(ink);
        p.drawEllipse(QPointF(s / 4.0, s / 4.0), 1.6, 1.6);
        p.drawEllipse(QPointF(3 * s / 4.0, 3 * s / 4.0), 1.6, 1.6);
        break;
    }
    p.end();
    return QBrush(tile);
}

void applyBar(QBarSet* set, int i)
{
    set->setBrush(categoricalBrush(i));
    QPen edge(QColor(30, 30, 30));
    edge.setWidthF(0.8);
    set->setPen(edge);
    set->setLabelColor(textColour());
    set->setLabelFont(labelFont());
}

QPen linePen(int i)
{
    static const std::array<Qt::PenStyle, 4> styles = {Qt::SolidLine, Qt::DashLine, Qt::DotLine, Qt::DashDotLine};
    QPen pen{categorical(i)};
    pen.setWidthF(2.2);
    pen.setStyle(styles[std::size_t(variant(i)) % styles.size()]);
    pen.setCapStyle(Qt::FlatCap);
    return pen;
}

QColor sequential(double v)
{
    // viridis (dark purple at 0, light yellow at 1): lightness rises monotonically with the rate, so
    // a low rate is never the brightest cell and the ramp stays ordered printed in grey.
    static const std::array<QRgb, 6> stops = {0x440154, 0x414487, 0x2a788e, 0x22a884, 0x7ad151, 0xfde725};
    v = std::clamp(std::isfinite(v) ? v : 0.0, 0.0, 1.0);
    const double pos = v * double(stops.size() - 1);
    const auto i = std::min(stops.size() - 2, std::size_t(pos));
    const double t = pos - double(i);
    const QColor a(stops[i]), b(stops[i + 1]);
    return QColor::fromRgbF(float(a.redF() + t * (b.redF() - a.redF())), float(a.greenF() + t * (b.greenF() - a.greenF())),
                            float(a.blueF() + t * (b.blueF() - a.blueF())));
}

QColor onColour(const QColor& fill)
{
    const double lum = 0.2126 * fill.redF() + 0.7152 * fill.greenF() + 0.0722 * fill.blueF();
    return lum > 0.45 ? QColor(0, 0, 0) : QColor(255, 255, 255);
}

}  // namespace kbx::gui::style
