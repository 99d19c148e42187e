// SPDX-License-Identifier: MIT
#pragma once
#include <QMetaType>
#include <QObject>
#include <QString>
#include <QStringList>

#include <atomic>
#include <memory>
#include <thread>

namespace kbx::gui {

/// What to evaluate and how (the GUI's `kbx eval`).
struct RunRequest {
    QStringList sources;        ///< files or directories in any seed submission format
    QString database;           ///< written by the run (created when missing)
    QString device = QStringLiteral("cpu");  ///< cpu (Triton interpreter) | cuda | auto
    QString method = QStringLiteral("default");
    int round = 0;
    int jobs = 1;
    double timeoutSeconds = 0;  ///< candidate stage limit; 0 = 300 s on cpu, 120 s on cuda
    QString tasksDir;           ///< default kbx::findTasksDir()
    QString worker;             ///< default kbx::findWorker()
    bool skipUnknown = false;   ///< leave out records for tasks the benchmark does not have
    QStringList tasks;          ///< only these tasks ("Category/stem") or categories; empty = all
    QStringList gpus;           ///< CUDA: one worker pool of `jobs` per GPU (kbx eval --gpus); "all" = every visible one
};

/// One finished candidate.
struct CandidateResult {
    int index = 0;              ///< 1-based order of completion
    int total = 0;
    QString taskId;
    QString origin;
    QString method;
    int round = 0;
    QString verdict;            ///< pass | fail | error (not judged)
    QString failureClass;
    QString detail;
    qint64 evaluationId = 0;
    double seconds = 0;
};

struct RunResult {
    qint64 runId = 0;
    int total = 0;
    int passed = 0;
    int failed = 0;
    int notJudged = 0;
    bool cancelled = false;
    double seconds = 0;
    QString error;              ///< set when the run could not start or stopped on an error
};

/// Runs kbx::Evaluator (the core's supervisor pipeline) on a worker thread: validates the sources,
/// probes the worker, evaluates, and reports each candidate as it lands, with progress and ETA.
/// cancel() stops after the candidates in flight (their worker processes are killed).
class RunController : public QObject {
    Q_OBJECT
public:
    explicit RunController(QObject* parent = nullptr);
    ~RunController() override;

    /// Starts a run; false (and `error`) when one is already running or the request is empty.
    bool start(const RunRequest& request, QString* error = nullptr);
    bool isRunning() const { return m_running.load(); }
    /// Blocks until the current run's thread ended (tests, shutdown).
    void wait();

public slots:
    void cancel();

signals:
    void started(int total, const QString& device);
    void candidateFinished(const kbx::gui::CandidateResult& result);
    void progress(int done, int total, double elapsedSeconds, double etaSeconds);
    void logMessage(const QString& line);
    void finished(const kbx::gui::RunResult& result);

private:
    void runThread(RunRequest request);

    std::thread m_thread;
    std::atomic<bool> m_running{false};
    std::shared_ptr<std::atomic<bool>> m_cancel;
};

/// "1m05s"-style durations for progress displays.
QString formatDuration(double seconds);

}  // namespace kbx::gui

Q_DECLARE_METATYPE(kbx::gui::CandidateResult)
Q_DECLARE_METATYPE(kbx::gui::RunResult)
