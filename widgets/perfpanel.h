// SPDX-License-Identifier: MIT
#pragma once
#include "database.h"

#include <QWidget>

class QJsonObject;
class QLabel;
class QTableWidget;

namespace kbx::gui {

/// The perf stage of one evaluation (docs/PERF_PROTOCOL.md), read from its evidence and its timings:
/// - the verdict against eager: the geometric-mean speedup with its 95 % CI, the noise band it was
///   judged against, and the Σ-time ratio;
/// - the GPU and its clocks, temperature and power before timing, and the flags;
/// - one row per perf shape: both medians, the speedup with its CI, the run-to-run spread (CV),
///   repetitions and why they stopped, achieved GB/s and roofline utilisation, the launch gap and
///   what it caught (starved samples, sides that wait for the device inside their call);
/// - the kernels of the profiled call with their GPU time and whether the candidate's Triton
///   launched them.
class PerfPanel : public QWidget {
    Q_OBJECT
public:
    enum Column { Shape, Candidate, Eager, Speedup, Spread, Reps, Achieved, Gap, Notes, ColumnCount };

    explicit PerfPanel(QWidget* parent = nullptr);

    /// Shows d's perf stage, or says why there is none (not timed, a failed correctness stage).
    void setEvaluation(const EvaluationDetails& d);
    void clear(const QString& message = {});
    bool hasPerf() const { return m_hasPerf; }

    QLabel* summaryLabel() const { return m_summary; }
    QTableWidget* shapesTable() const { return m_shapes; }
    QTableWidget* kernelsTable() const { return m_kernels; }
    /// The current shape's parameters, launch gap and notes (the row selected in the shapes table).
    QLabel* shapeDetailLabel() const { return m_shapeDetail; }

private:
    // setEvaluation()'s parts: the summary (verdict, audit, attribution, where it ran, flags) of the
    // evidence's perf object, the row of each shape, and the profiled call's kernels.
    void showSummary(const QJsonObject& perf, int nShapes);
    void showShapes(const EvaluationDetails& d);
    void showKernels(const QJsonObject& attribution);
    void showShapeDetail(int row);

    bool m_hasPerf = false;
    QStringList m_details;  ///< per shape row: what shapeDetailLabel() shows
    QLabel* m_summary;
    QTableWidget* m_shapes;
    QLabel* m_shapeDetail;
    QLabel* m_kernelsTitle;
    QTableWidget* m_kernels;
};

}  // namespace kbx::gui
