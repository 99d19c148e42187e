// SPDX-License-Identifier: MIT
#include "errorheatmap.h"

#include <QHelpEvent>
#include <QJsonArray>
#include <QPainter>
#include <QPen>
#include <QPaintEvent>
#include <QToolTip>

#include <algorithm>
#include <cmath>
#include <limits>

namespace kbx::gui {

namespace {
/// A perceptually ordered map (dark blue -> teal -> yellow) that stays ordered in grey print.
QColor ramp(double t)
{
    static const QColor stops[] = {QColor(13, 8, 135), QColor(84, 2, 163), QColor(139, 10, 165), QColor(185, 50, 137),
                                   QColor(219, 92, 104), QColor(244, 136, 73), QColor(254, 188, 43), QColor(240, 249, 33)};
    constexpr int n = int(std::size(stops));
    t = std::clamp(t, 0.0, 1.0) * (n - 1);
    const int i = std::min(int(t), n - 2);
    const double f = t - i;
    const QColor& a = stops[i];
    const QColor& b = stops[i + 1];
    return QColor(int(a.red() + f * (b.red() - a.red())), int(a.green() + f * (b.green() - a.green())),
                  int(a.blue() + f * (b.blue() - a.blue())));
}
}  // namespace

ErrorHeatmap::ErrorHeatmap(QWidget* parent) : QWidget(parent)
{
    setObjectName(QStringLiteral("errorHeatmap"));
    setMouseTracking(true);
    clear();
}

void ErrorHeatmap::clear(const QString& message)
{
    m_rows = m_cols = 0;
    m_values.clear();
    m_message = message.isEmpty() ? tr("No error map in this evaluation's evidence.") : message;
    update();
}

bool ErrorHeatmap::setErrorMap(const QJsonObject& map)
{
    const int rows = map.value(QStringLiteral("rows")).toInt();
    const int cols = map.value(QStringLiteral("cols")).toInt();
    const QJsonArray vals = map.value(QStringLiteral("values")).toArray();
    if (rows <= 0 || cols <= 0 || vals.size() != qsizetype(rows) * cols) {
        clear(map.isEmpty() ? QString() : tr("The error map in the evidence is malformed."));
        return false;
    }
    QList<double> v;
    v.reserve(vals.size());
    for (const auto& x : vals)
        v << (x.isDouble() ? x.toDouble() : std::numeric_limits<double>::quiet_NaN());
    QStringList shape;
    for (const auto& s : map.value(QStringLiteral("shape")).toArray())
        shape << QString::number(s.toInteger());
    setValues(rows, cols, v, shape.isEmpty() ? QString() : tr("output shape [%1]").arg(shape.join(QStringLiteral(", "))));
    // The comparison writes what its values are; "> 1 fails" marks a tolerance ratio.
    const QString measure = map.value(QStringLiteral("measure")).toString();
    if (!measure.isEmpty()) {
        m_measure = measure;
        m_ratio = measure.contains(QStringLiteral("> 1 fails"));
    }
    update();
    return true;
}

void ErrorHeatmap::setValues(int rows, int cols, const QList<double>& values, const QString& caption)
{
    m_rows = rows;
    m_cols = cols;
    m_values = values;
    m_caption = caption;
    m_measure = tr("|error|");
    m_ratio = false;
    m_min = std::numeric_limits<double>::infinity();
    m_max = 0;
    for (double v : values) {
        if (!std::isfinite(v))
            continue;
        const double a = std::abs(v);
        m_max = std::max(m_max, a);
        if (a > 0)
            m_min = std::min(m_min, a);
    }
    if (!std::isfinite(m_min))
        m_min = m_max > 0 ? m_max : 1;
    m_log = m_max > 0 && m_max / m_min > 100;
    m_message.clear();
    update();
}

QColor ErrorHeatmap::colourFor(double v) const
{
    if (!std::isfinite(v))
        return QColor(255, 255, 255);  // NaN / Inf: white, outlined by the grid
    const double a = std::abs(v);
    if (a == 0 || m_max <= 0)
        return ramp(0);
    double t;
    if (m_log)
        t = (std::log10(a) - std::log10(m_min)) / std::max(1e-12, std::log10(m_max) - std::log10(m_min));
    else
        t = a / m_max;
    return ramp(0.08 + 0.92 * t);
}

QRectF ErrorHeatmap::gridRect() const
{
    const int fh = fontMetrics().height();
    // room on the right for the legend bar and its widest label
    const int legendRoom = 12 + 14 + 4 + fontMetrics().horizontalAdvance(QStringLiteral("-8.8e+88")) + 6;
    const QRect area = rect().adjusted(8, 2 * fh + 10, -legendRoom, -8);
    const double cell = std::min(double(area.width()) / std::max(1, m_cols), double(area.height()) / std::max(1, m_rows));
    return {double(area.left()), double(area.top()), cell * m_cols, cell * m_rows};
}

std::pair<int, int> ErrorHeatmap::cellAt(const QPoint& pos) const
{
    if (!hasMap())
        return {-1, -1};
    const QRectF g = gridRect();
    if (!g.contains(pos))
        return {-1, -1};
    const double cell = g.width() / m_cols;
    return {std::clamp(int((pos.y() - g.top()) / cell), 0, m_rows - 1), std::clamp(int((pos.x() - g.left()) / cell), 0, m_cols - 1)};
}

QString ErrorHeatmap::toolTipAt(const QPoint& pos) const
{
    const auto [r, c] = cellAt(pos);
    if (r < 0)
        return {};
    const double v = m_values[r * m_cols + c];
    QString text = tr("[%1, %2]: %3").arg(r).arg(c).arg(std::isfinite(v) ? QString::number(v, 'g', 6) : tr("NaN/Inf"));
    if (m_ratio && std::isfinite(v))
        text += v > 1 ? tr(" (outside the tolerance: fails)") : tr(" (within the tolerance)");
    return text;
}

bool ErrorHeatmap::event(QEvent* e)
{
    if (e->type() == QEvent::ToolTip) {
        auto* he = static_cast<QHelpEvent*>(e);
        const QString t = toolTipAt(he->pos());
        if (t.isEmpty())
            QToolTip::hideText();
        else
            QToolTip::showText(he->globalPos(), t, this);
        return true;
    }
    return QWidget::event(e);
}

void ErrorHeatmap::paintEvent(QPaintEvent*)
{
    QPainter p(this);
    p.fillRect(rect(), palette().color(QPalette::Base));
    p.setPen(palette().color(QPalette::Text));
    if (!hasMap()) {
        p.drawText(rect().adjusted(8, 8, -8, -8), Qt::AlignCenter | Qt::TextWordWrap, m_message);
        return;
    }
    const int fh = fontMetrics().height();
    // Two lines: what the values are (the measure the comparison wrote), then the shape and scale.
    p.drawText(QRect(8, 2, width() - 16, fh + 4), Qt::AlignLeft | Qt::AlignVCenter,
               tr("%1 per element").arg(m_measure));
    p.drawText(QRect(8, fh + 4, width() - 16, fh + 4), Qt::AlignLeft | Qt::AlignVCenter,
               tr("%1 × %2 %3%4").arg(m_rows).arg(m_cols).arg(m_caption.isEmpty() ? QString() : QStringLiteral("— ") + m_caption,
                                                     m_log ? tr(" (log scale)") : QString()));
    const QRectF grid = gridRect();
    const double cell = grid.width() / m_cols;
    for (int r = 0; r < m_rows; ++r)
        for (int c = 0; c < m_cols; ++c)
            p.fillRect(QRectF(grid.left() + c * cell, grid.top() + r * cell, cell + 0.5, cell + 0.5), colourFor(m_values[r * m_cols + c]));
    // Cells outside the tolerance (a ratio above 1), outlined where a cell is big enough to see it.
    if (m_ratio && cell >= 5) {
        p.setPen(QPen(QColor(255, 255, 255), 1));
        for (int r = 0; r < m_rows; ++r)
            for (int c = 0; c < m_cols; ++c)
                if (const double v = m_values[r * m_cols + c]; std::isfinite(v) && v > 1)
                    p.drawRect(QRectF(grid.left() + c * cell + 1, grid.top() + r * cell + 1, cell - 2, cell - 2));
    }
    p.setPen(palette().color(QPalette::Mid));
    p.drawRect(grid);
    // Legend, with the pass/fail threshold where the values are tolerance ratios.
    const QRect legend(int(grid.right()) + 12, int(grid.top()), 14, int(grid.height()));
    for (int y = 0; y < legend.height(); ++y)
        p.fillRect(QRect(legend.left(), legend.bottom() - y, legend.width(), 1), ramp(0.08 + 0.92 * y / std::max(1, legend.height() - 1)));
    p.setPen(palette().color(QPalette::Text));
    p.drawRect(legend);
    p.drawText(QPoint(legend.right() + 4, legend.top() + fh / 2), QString::number(m_max, 'g', 2));
    p.drawText(QPoint(legend.right() + 4, legend.bottom()), QString::number(m_log ? m_min : 0.0, 'g', 2));
    const double lo = m_log ? m_min : 0.0;
    if (m_ratio && m_max > 1 && lo < 1) {
        const double t = m_log ? (0 - std::log10(m_min)) / std::max(1e-12, std::log10(m_max) - std::log10(m_min)) : 1.0 / m_max;
        const int y = legend.bottom() - int(t * legend.height());
        p.setPen(QPen(palette().color(QPalette::Text), 2));
        p.drawLine(legend.left() - 3, y, legend.right() + 3, y);
        p.drawText(QPoint(legend.right() + 4, y + fh / 3), tr("1 fails"));
    }
}

}  // namespace kbx::gui
