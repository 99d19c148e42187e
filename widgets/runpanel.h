// SPDX-License-Identifier: MIT
#pragma once
#include "runcontroller.h"

#include <QWidget>

class QComboBox;
class QDoubleSpinBox;
class QFormLayout;
class QGroupBox;
class QLabel;
class QLineEdit;
class QListWidget;
class QMenu;
class QPlainTextEdit;
class QProgressBar;
class QPushButton;
class QSpinBox;
class QTableWidget;
class QToolButton;

namespace kbx::gui {

/// Starts runs through the core's supervisor: submission files or folders in any seed format (also by
/// drag and drop), method, round, device (CPU interpreter or a local GPU), jobs; live progress with
/// ETA, a row per finished candidate, the log, and cancel.
///
/// Backend "Slurm cluster" (disabled, with a tooltip saying why, when sbatch/squeue/scancel are not on
/// PATH) runs the same request as `kbx eval --backend slurm` with the Slurm options below it; the
/// progress area then shows one row per shard (array task) with its Slurm state, node and merged
/// evaluations, the bar counts finished shards, Cancel scancels the array tasks, and Resubmit
/// continues a run that left shards unfinished (--resubmit).
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
    /// The evaluation a row of the status table stored (local runs), 0 for none (Slurm shards).
    qint64 evaluationIdAt(int row) const;
    /// The status table's context menu for its current row (tests; shown on right click).
    QMenu* createStatusMenu();

    // The backend and the Slurm options.
    QComboBox* backendBox() const { return m_backend; }
    QGroupBox* slurmOptionsBox() const { return m_slurmBox; }
    QLineEdit* partitionEdit() const { return m_partition; }
    QSpinBox* gpusPerTaskBox() const { return m_gpusPerTask; }
    QSpinBox* cpusPerTaskBox() const { return m_cpusPerTask; }
    QSpinBox* maxJobsBox() const { return m_maxJobs; }
    QSpinBox* shardsBox() const { return m_shards; }
    QLineEdit* timeLimitEdit() const { return m_timeLimit; }
    QSpinBox* retriesBox() const { return m_retries; }
    QDoubleSpinBox* pollBox() const { return m_poll; }
    QLineEdit* workDirEdit() const { return m_workDir; }
    QPushButton* resubmitButton() const { return m_resubmit; }
    /// Selects a backend by its id (local | slurm); false when it is not available here.
    bool setBackend(const QString& id);
    /// Checks again whether Slurm's client tools are on PATH (enables or disables the Slurm backend).
    void refreshBackends();
    /// The work directory Resubmit continues: the field's, else the last Slurm run's.
    QString resubmitWorkDir() const;

    /// The request the form describes (tests, scripting).
    RunRequest request() const;

public slots:
    bool start();
    void cancel();
    /// Continues the Slurm run of resubmitWorkDir(): re-submits the shards that did not finish, merges.
    bool resubmit();

signals:
    void runStarted(const QString& database);
    /// A candidate's result is in the database.
    void evaluationStored(qint64 evaluationId);
    void runFinished(const kbx::gui::RunResult& result);
    /// A Slurm shard's results were merged into the database (the views may refresh).
    void resultsMerged();
    /// A row of the status table was opened (double click, Enter, its context menu): that
    /// candidate's evaluation in the inspector.
    void evaluationActivated(qint64 evaluationId);
    /// The context menu asked for an evaluation's code beside the reference.
    void showCodeRequested(qint64 evaluationId);

protected:
    void dragEnterEvent(QDragEnterEvent* e) override;
    void dropEvent(QDropEvent* e) override;

private:
    // The constructor's parts: the fields' settings, the form, the Slurm options (returns its "…"
    // button) and the connections.
    void setUpFields();
    QFormLayout* buildForm();
    QToolButton* buildSlurmOptions();
    void connectSignals(QPushButton* addFiles, QPushButton* addDir, QPushButton* remove, QToolButton* browseWork);
    void onStarted(int total, const QString& device);
    void onCandidate(const kbx::gui::CandidateResult& c);
    void onProgress(int done, int total, double elapsed, double eta);
    void onFinished(const kbx::gui::RunResult& r);
    void onSlurmStarted(int submissions, int shards, const QString& workDir);
    void onShardChanged(const kbx::gui::ShardStatus& s);
    void onSlurmProgress(const kbx::gui::SlurmProgress& p);
    bool startRequest(const RunRequest& r);
    void appendLog(const QString& line);
    void updateButtons();
    void updateBackendWidgets();

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
    QComboBox* m_backend;
    QGroupBox* m_slurmBox;
    QLineEdit* m_partition;
    QSpinBox* m_gpusPerTask;
    QSpinBox* m_cpusPerTask;
    QSpinBox* m_maxJobs;
    QSpinBox* m_shards;
    QLineEdit* m_timeLimit;
    QSpinBox* m_retries;
    QDoubleSpinBox* m_poll;
    QLineEdit* m_workDir;
    QPushButton* m_resubmit;
    QString m_lastWorkDir;   ///< the work directory of the last Slurm run
    bool m_slurmRun = false; ///< the current (or last) run went to Slurm
};

}  // namespace kbx::gui
