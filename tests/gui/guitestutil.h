// SPDX-License-Identifier: MIT
#pragma once
// Screenshot helpers of the GUI tests: grab a widget, save it under the build dir, measure colours.
#include "../models/testutil.h"

#include <QAbstractButton>
#include <QApplication>
#include <QDialog>
#include <QDir>
#include <QImage>
#include <QMessageBox>
#include <QPixmap>
#include <QSet>
#include <QTimer>
#include <QWidget>

#include <functional>
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

/// Answers the next modal dialog, which blocks its caller, from a timer `delayMs` after this call
/// (in `context`'s thread and lifetime): `look` (optional) sees it first, e.g. to shoot it; `text`
/// (optional) keeps a message box's text, another dialog's title; then a message box's `button` is
/// clicked (its first button where it has no such button or none is given) and any other dialog
/// rejected. Nothing happens when no modal dialog is up by then.
inline void answerNextModal(QObject* context, QString* text, QMessageBox::StandardButton button = QMessageBox::NoButton,
                            std::function<void(QDialog*)> look = {}, int delayMs = 50)
{
    QTimer::singleShot(delayMs, context, [=] {
        auto* dlg = qobject_cast<QDialog*>(QApplication::activeModalWidget());
        if (!dlg)
            return;
        if (look)
            look(dlg);
        auto* box = qobject_cast<QMessageBox*>(dlg);
        if (text)
            *text = box ? box->text() : dlg->windowTitle();
        if (box && button != QMessageBox::NoButton && box->button(button))
            box->button(button)->click();
        else if (box && !box->buttons().isEmpty())
            box->buttons().first()->click();
        else
            dlg->reject();
    });
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
