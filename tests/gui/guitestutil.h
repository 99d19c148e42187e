// SPDX-License-Identifier: MIT
#pragma once
// Screenshot helpers of the GUI tests: grab a widget, save it under the build dir, measure colours.
#include "../models/testutil.h"

#include <QApplication>
#include <QDir>
#include <QImage>
#include <QPixmap>
#include <QSet>
#include <QWidget>

#include <string>

namespace kbx::gui::test {

inline QString screenshotDir()
{
    const QString d = QStringLiteral(KBX_SCREENSHOT_DIR);
    QDir().mkpath(d);
    return d;
}

/// Shows the widget offscreen at `size`, lets layouts and highlighters settle, grabs it and saves
/// it as <screenshotDir>/<name>.png. Returns the image.
inline QImage screenshot(QWidget* w, const QString& name, QSize size = {1100, 700})
{
    w->resize(size);
    w->show();
    for (int i = 0; i < 20; ++i) {
        QApplication::processEvents();
        QThread::msleep(5);
    }
    const QImage img = w->grab().toImage().convertToFormat(QImage::Format_RGB32);
    img.save(QDir(screenshotDir()).filePath(name + QStringLiteral(".png")));
    return img;
}

/// Distinct colours inside `r` of `img`.
inline int distinctColours(const QImage& img, QRect r = {})
{
    if (r.isNull())
        r = img.rect();
    r = r.intersected(img.rect());
    QSet<QRgb> s;
    for (int y = r.top(); y <= r.bottom(); ++y)
        for (int x = r.left(); x <= r.right(); ++x)
            s.insert(img.pixel(x, y) & 0xffffff);
    return int(s.size());
}

/// Pixels that differ clearly from `background` inside `r` (text, markers).
inline int inkPixels(const QImage& img, QRect r, QColor background, int threshold = 60)
{
    r = r.intersected(img.rect());
    int n = 0;
    for (int y = r.top(); y <= r.bottom(); ++y)
        for (int x = r.left(); x <= r.right(); ++x) {
            const QColor c(img.pixel(x, y));
            if (std::abs(c.red() - background.red()) + std::abs(c.green() - background.green()) + std::abs(c.blue() - background.blue()) > threshold)
                ++n;
        }
    return n;
}

/// Hue buckets (30 degrees) of clearly coloured (saturated, not dark) pixels inside `r`, counted only
/// when at least `minPixels` pixels fall in the bucket: "text in several colours".
inline int hueBuckets(const QImage& img, QRect r, int minPixels = 20)
{
    r = r.intersected(img.rect());
    int buckets[12] = {};
    for (int y = r.top(); y <= r.bottom(); ++y)
        for (int x = r.left(); x <= r.right(); ++x) {
            const QColor c = QColor(img.pixel(x, y)).toHsv();
            if (c.hsvSaturation() > 90 && c.value() > 60 && c.hsvHue() >= 0)
                ++buckets[c.hsvHue() / 30];
        }
    int n = 0;
    for (int b : buckets)
        n += b >= minPixels;
    return n;
}

/// Pixels close to colour `c` inside `r`.
inline int pixelsNear(const QImage& img, QRect r, QColor c, int tol = 40)
{
    r = r.intersected(img.rect());
    int n = 0;
    for (int y = r.top(); y <= r.bottom(); ++y)
        for (int x = r.left(); x <= r.right(); ++x) {
            const QColor p(img.pixel(x, y));
            if (std::abs(p.red() - c.red()) + std::abs(p.green() - c.green()) + std::abs(p.blue() - c.blue()) <= tol)
                ++n;
        }
    return n;
}

/// The first column of the first row `sql` gives on database `db` (counts the tests compare with).
inline qint64 queryInt64(const QString& db, const QString& sql)
{
    return TestSql(db).int64(sql);
}

}  // namespace kbx::gui::test
