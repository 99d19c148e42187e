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

QFont font(int pixelSize, bool bold = false)
{
    QFont f(QStringLiteral("DejaVu Sans"));
    f.setStyleHint(QFont::SansSerif);
    f.setPixelSize(pixelSize);
    f.setBold(bold);
    return f;
}

// Five colours with CIE lightness about 22, 55, 88, 38, 72 (in this order, so that neighbours differ
// by at least 17): distinct in grey as well as in hue.
constexpr std::array<QRgb, 5> kPalette = {0x08306b, 0xd95f0e, 0xfdd49e, 0x8c2d04, 0x6baed6};

}  // namespace

QFont titleFont() { return font(16, true); }
QFont axisTitleFont() { return font(13); }
QFont labelFont() { return font(12); }
QFont legendFont() { return font(12); }
QFont messageFont() { return font(17, true); }
QColor textColour() { return QColor(25, 25, 25); }
QColor axisColour() { return QColor(60, 60, 60); }
QColor gridColour() { return QColor(225, 225, 225); }

QColor categorical(int i)
{
    return QColor(kPalette[std::size_t(std::abs(i)) % kPalette.size()]);
}

QBrush categoricalBrush(int i)
{
    const QColor base = categorical(i);
    const int pattern = std::abs(i) / int(kPalette.size());
    if (pattern == 0)
        return QBrush(base);
    QPixmap tile(8, 8);
    tile.fill(base);
    QPainter p(&tile);
    p.setRenderHint(QPainter::Antialiasing, false);
    const QColor ink = qGray(base.rgb()) > 140 ? QColor(0, 0, 0) : QColor(255, 255, 255);
    p.setPen(QPen(ink, 1.5));
    if (pattern % 3 == 1) {
        p.drawLine(0, 8, 8, 0);
    } else if (pattern % 3 == 2) {
        p.drawLine(0, 4, 8, 4);
        p.drawLine(4, 0, 4, 8);
    } else {
        p.drawLine(0, 0, 8, 8);
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
    // Lines need contrast against white: skip the lightest palette entry.
    static const std::array<QRgb, 4> colours = {0x08306b, 0xd95f0e, 0x6baed6, 0x8c2d04};
    QPen pen{QColor(colours[std::size_t(std::abs(i)) % colours.size()])};
    pen.setWidthF(2.2);
    pen.setStyle(styles[std::size_t(std::abs(i)) % styles.size()]);
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
