// SPDX-License-Identifier: MIT
#pragma once
#include "database.h"

#include <QJsonValue>
#include <QWidget>

class QComboBox;
class QLabel;
class QLineEdit;
class QPlainTextEdit;
class QPushButton;
class QTableWidget;

namespace kbx::gui {

class ErrorHeatmap;
class PerfPanel;

/// One evaluation under the magnifier: stage, class, traceback/detail, the seeds of its inputs, the
/// numeric evidence (max abs/rel error, mismatch fraction, NaN/Inf counts, the tolerance that would
/// pass), per-case results, an error heatmap when the evidence carries one, and manual relabelling
/// (class + note, stored beside the automatic class) with the agreement of manual and automatic labels,
/// and the perf stage of a timed evaluation (PerfPanel).
class FailureInspector : public QWidget {
    Q_OBJECT
public:
    explicit FailureInspector(QWidget* parent = nullptr);

    void setDatabase(const QString& path);
    bool showEvaluation(qint64 id);
    const EvaluationDetails& details() const { return m_details; }
    void clear();

    QLabel* headerLabel() const { return m_header; }
    QTableWidget* evidenceTable() const { return m_evidence; }
    QTableWidget* casesTable() const { return m_cases; }
    QPlainTextEdit* tracebackView() const { return m_traceback; }
    ErrorHeatmap* heatmap() const { return m_heatmap; }
    PerfPanel* perfPanel() const { return m_perf; }
    QComboBox* labelBox() const { return m_label; }
    QLineEdit* noteEdit() const { return m_note; }
    QPushButton* saveButton() const { return m_save; }
    QLabel* agreementLabel() const { return m_agreement; }

    /// An evidence value as the inspector shows it: element values (ref_at_worst, cand_at_worst, the
    /// errors) with the digits their dtype carries (the shortest text that reads back as the same
    /// float32/float64/half value), so that two values that differ never look alike; other numbers
    /// with 6 significant digits.
    static QString evidenceValueText(const QString& key, const QJsonValue& v, const QString& dtype);
    /// "cand − ref = d (n ulp of dtype)": the worst element's difference in units in the last place
    /// of the reference value in its dtype; empty where it cannot be said (non-finite, unknown dtype).
    static QString ulpDifference(double ref, double cand, const QString& dtype);

    /// Shows one case's own stored evidence in the Numeric evidence tab and its error map in the
    /// heatmap (what selecting a row of the Cases tab does); -1: the evaluation's first failure again.
    /// False when the case has no numeric evidence (the tabs then say so).
    bool showCase(int row);
    /// Whose evidence the Numeric evidence tab shows ("first failing case X", "case Y").
    QLabel* evidenceSourceLabel() const { return m_evidenceOf; }

    /// Stores the label chosen in the box with the note (what the Save button does).
    bool saveLabel(QString* error = nullptr);

signals:
    void labelChanged(qint64 evaluationId);
    void showCodeRequested(qint64 evaluationId);

private:
    /// The constructor's first part: the settings of the labels, tables, traceback and label box.
    void setUpFields();
    void updateAgreement();
    void fillEvidence(const QJsonObject& ev);
    /// The line above the Numeric evidence table: whose numbers these are, or why there are none.
    QString evidenceSourceText(const EvaluationDetails& d) const;

    QString m_db;
    EvaluationDetails m_details;
    QLabel* m_header;
    QLabel* m_detail;
    QLabel* m_seeds;
    QTableWidget* m_evidence;
    QLabel* m_evidenceOf = nullptr;
    QTableWidget* m_cases;
    QPlainTextEdit* m_traceback;
    ErrorHeatmap* m_heatmap;
    PerfPanel* m_perf;
    QComboBox* m_label;
    QLineEdit* m_note;
    QPushButton* m_save;
    QPushButton* m_code;
    QLabel* m_agreement;
    QLabel* m_status;
};

}  // namespace kbx::gui
