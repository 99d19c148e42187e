// SPDX-License-Identifier: MIT
#pragma once
#include <QJsonObject>
#include <QList>
#include <QWidget>

namespace kbx::gui {

/// Where the errors are: |candidate - reference| per output element as a heatmap (log colour scale,
/// a legend with the range), from evidence.error_map {"rows", "cols", "shape", "values"}.
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

    QSize sizeHint() const override { return {360, 240}; }
    QSize minimumSizeHint() const override { return {160, 120}; }

protected:
    void paintEvent(QPaintEvent* e) override;

private:
    int m_rows = 0;
    int m_cols = 0;
    QList<double> m_values;
    double m_min = 0;
    double m_max = 0;
    bool m_log = true;
    QString m_caption;
    QString m_message;
};

}  // namespace kbx::gui
