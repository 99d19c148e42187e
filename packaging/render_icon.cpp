// SPDX-License-Identifier: MIT
// Build-time tool: renders the application icon (SVG) to PNG files of the hicolor sizes.
//   kbx-render-icon ICON.svg OUTDIR SIZE...   writes OUTDIR/<SIZE>x<SIZE>/kbx-workbench.png
#include <QDir>
#include <QFileInfo>
#include <QGuiApplication>
#include <QImage>
#include <QPainter>
#include <QSvgRenderer>

#include <cstdio>

int main(int argc, char** argv)
{
    if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM"))
        qputenv("QT_QPA_PLATFORM", "offscreen");
    QGuiApplication app(argc, argv);
    if (argc < 4) {
        std::fprintf(stderr, "usage: kbx-render-icon ICON.svg OUTDIR SIZE...\n");
        return 2;
    }
    QSvgRenderer svg(QString::fromLocal8Bit(argv[1]));
    if (!svg.isValid()) {
        std::fprintf(stderr, "kbx-render-icon: %s is not a valid SVG file\n", argv[1]);
        return 1;
    }
    const QString base = QString::fromLocal8Bit(argv[2]);
    const QString name = QFileInfo(QString::fromLocal8Bit(argv[1])).completeBaseName() + QStringLiteral(".png");
    for (int i = 3; i < argc; ++i) {
        bool ok = false;
        const int size = QString::fromLocal8Bit(argv[i]).toInt(&ok);
        if (!ok || size < 8 || size > 1024) {
            std::fprintf(stderr, "kbx-render-icon: bad size '%s' (8..1024)\n", argv[i]);
            return 2;
        }
        QImage img(size, size, QImage::Format_ARGB32_Premultiplied);
        img.fill(Qt::transparent);
        {
            QPainter p(&img);
            p.setRenderHint(QPainter::Antialiasing);
            p.setRenderHint(QPainter::SmoothPixmapTransform);
            svg.render(&p, QRectF(0, 0, size, size));
        }
        const QString dir = QStringLiteral("%1/%2x%2").arg(base).arg(size);
        const QString out = dir + QLatin1Char('/') + name;
        if (!QDir().mkpath(dir) || !img.save(out, "PNG")) {
            std::fprintf(stderr, "kbx-render-icon: cannot write %s\n", qPrintable(out));
            return 1;
        }
    }
    return 0;
}
