// SPDX-License-Identifier: MIT
#pragma once
#include "runcontroller.h"

#include <QWidget>

class QComboBox;
class QLabel;
class QLineEdit;
class QListWidget;
class QPlainTextEdit;
class QProgressBar;
class QPushButton;
class QSpinBox;
class QTableWidget;

namespace kbx::gui {

/// Starts runs through the core's supervisor: submission files or folders in any seed format (also by
/// drag and drop), method, round, device (CPU interpreter or a local GPU), jobs; live progress with
/// ETA, a row per finished candidate, the log, and cancel.
class RunPanel : public QWidget {
    Q_OBJECT
public:
    explicit RunPanel(QWidget* parent = nullptr);

    RunController* controller() const { return m_controller; }
    /// The database results are written to.
    void setDatabase(const QString& path);
    QString database() const;
    QStringList sources() const;
    void addSources(const QStringList& paths);
    void clearSources();
    bool isRunning() const;

    QComboBox* deviceBox() const { return m_device; }
    QLineEdit* methodEdit() const { return m_method; }
    /// Tasks or categories to evaluate, comma-separated (empty: every task the sources have).
    QLineEdit* tasksEdit() const { return m_tasks; }
    QSpinBox* roundBox() const { return m_round; }
    QProgressBar* progressBar() const { return m_progress; }
    QTableWidget* statusTable() const { return m_status; }
    QPlainTextEdit* logView() const { return m_log; }
    QPushButton* startButton() const { return m_start; }
    QPushButton* cancelButton() const { return m_cancel; }
    QLabel* etaLabel() const { return m_eta; }

    /// The request the form describes (tests, scripting).
    RunRequest request() const;

public slots:
    bool start();
    void cancel();

signals:
    void runStarted(const QString& database);
    /// A candidate's result is in the database.
    void evaluationStored(qint64 evaluationId);
    void runFinished(const kbx::gui::RunResult& result);

protected:
    void dragEnterEvent(QDragEnterEvent* e) override;
    void dropEvent(QDropEvent* e) override;

private:
    void onStarted(int total, const QString& device);
    void onCandidate(const kbx::gui::CandidateResult& c);
    void onProgress(int done, int total, double elapsed, double eta);
    void onFinished(const kbx::gui::RunResult& r);
    void appendLog(const QString& line);
    void updateButtons();

    RunController* m_controller;
    QListWidget* m_sources;
    QLineEdit* m_db;
    QLineEdit* m_method;
    QLineEdit* m_tasks;
    QSpinBox* m_round;
    QComboBox* m_device;
    QSpinBox* m_jobs;
    QLineEdit* m_gpus;
    QPushButton* m_start;
    QPushButton* m_cancel;
    QProgressBar* m_progress;
    QLabel* m_eta;
    QTableWidget* m_status;
    QPlainTextEdit* m_log;
};

}  // namespace kbx::gui
