// SPDX-License-Identifier: MIT
#pragma once
#include <QJsonObject>
#include <QList>
#include <QWidget>

#include <utility>

namespace kbx::gui {

/// Where the errors are, per output element, as a heatmap (log colour scale, a legend with the range),
/// from evidence.error_map {"rows", "cols", "shape", "values", "measure"}. The values are what the
/// map's `measure` says (the comparison writes |cand - ref| / (atol + rtol |ref|): above 1 fails);
/// the title says so, the legend marks 1, cells above it are outlined, and hovering a cell shows its
/// index and value.
class ErrorHeatmap : public QWidget {
    Q_OBJECT
public:
    explicit ErrorHeatmap(QWidget* parent = nullptr);

    /// False (and an explanatory text is shown) when the object is not a usable error map.
    bool setErrorMap(const QJsonObject& map);
    void setValues(int rows, int cols, const QList<double>& values, const QString& caption = {});
    void clear(const QString& message = {});
    bool hasMap() const { return m_rows > 0 && m_cols > 0; }
    int rows() const { return m_rows; }
    int cols() const { return m_cols; }
    /// The colour of a value in the current scale (tests, legends).
    QColor colourFor(double v) const;
    /// What the values are (the map's measure, or "|error|" for plain values).
    QString measure() const { return m_measure; }
    /// True when the values are error / tolerance ratios (1 is the pass/fail threshold).
    bool isToleranceRatio() const { return m_ratio; }
    /// The cell under a widget position: {row, col}, or {-1, -1}.
    std::pair<int, int> cellAt(const QPoint& pos) const;
    /// The hover text of the cell under a position: "[r, c]: value (fails|passes)"; empty off the grid.
    QString toolTipAt(const QPoint& pos) const;

    QSize sizeHint() const override { return {360, 240}; }
    QSize minimumSizeHint() const override { return {160, 120}; }

protected:
    void paintEvent(QPaintEvent* e) override;
    bool event(QEvent* e) override;

private:
    int m_rows = 0;
    int m_cols = 0;
    QList<double> m_values;
    double m_min = 0;
    double m_max = 0;
    bool m_log = true;
    QString m_caption;
    QString m_message;
    QString m_measure;
    bool m_ratio = false;
    QRectF gridRect() const;
};

}  // namespace kbx::gui
