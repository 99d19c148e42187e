// SPDX-License-Identifier: MIT
#pragma once
#include <QList>
#include <QMetaType>
#include <QObject>
#include <QString>
#include <QStringList>

#include <atomic>
#include <memory>
#include <thread>

namespace kbx {
struct PlanRequest;
class RunPlanError;
}  // namespace kbx

namespace kbx::gui {

class SlurmRun;

/// kbx eval --backend slurm's own options (docs/SCALING.md), as the run panel sets them.
struct SlurmOptions {
    QString partition;          ///< --partition (empty: the cluster's default)
    int gpusPerTask = 0;        ///< --gpus-per-task (--gres=gpu:N; 0: none)
    int cpusPerTask = 0;        ///< --cpus-per-task (0: Slurm's default)
    int maxJobs = 0;            ///< --max-jobs: array tasks running at once (0: no limit)
    int shards = 0;             ///< --shards (0: min(submissions, maxJobs or 8))
    QString timeLimit;          ///< --time-limit, sbatch --time of each array task (empty: the partition's)
    QString workDir;            ///< --work-dir, shared with the nodes (empty: <database's folder>/kbx-slurm-<date-time>)
    int retries = 1;            ///< --retries: automatic re-submissions of a failed shard
    double pollSeconds = 10;    ///< --poll: seconds between squeue/sacct polls
    QString resubmit;           ///< continue the run of this work directory (--resubmit); sources are then ignored
};

/// What to evaluate and how (the GUI's `kbx eval`).
struct RunRequest {
    QStringList sources;        ///< files or directories in any seed submission format
    QString database;           ///< written by the run (created when missing)
    QString device = QStringLiteral("cpu");  ///< cpu (Triton interpreter) | cuda | auto
    QString method = QStringLiteral("default");
    int round = 0;
    int jobs = 1;               ///< candidates at once (per GPU); 0 = picked from the host's cores and memory, as kbx eval
    double timeoutSeconds = 0;  ///< candidate stage limit; 0 = 300 s on cpu, 120 s on cuda
    QString tasksDir;           ///< default kbx::findTasksDir()
    QString worker;             ///< default kbx::findWorker()
    bool skipUnknown = false;   ///< leave out records for tasks the benchmark does not have
    QStringList tasks;          ///< only these tasks ("Category/stem") or categories; empty = all
    QStringList gpus;           ///< CUDA: one worker pool of `jobs` per GPU (kbx eval --gpus); "all" = every visible one
                                ///< (device, GPUs, jobs and timeout resolve as kbx eval's: one run plan, core/runplan.h)
    QString backend = QStringLiteral("local");  ///< local (kbx::Evaluator here) | slurm (core's Slurm driver here)
    SlurmOptions slurm;         ///< with backend slurm
    QString kbx;                ///< with backend slurm: the kbx executable the array tasks run (default
                                ///< SlurmRun::kbxForArrayTasks(); need not exist on this machine)
};

/// One shard of a Slurm run as the run panel shows it (from the Slurm driver's events).
struct ShardStatus {
    int shard = 0;
    int shards = 0;
    QString jobId;              ///< the array job running it now ("" before it is submitted)
    QString state;              ///< Slurm's state (PENDING, RUNNING, COMPLETED, FAILED, CANCELLED, ...) or ours
                                ///< (MERGED, COMPLETE, RESUBMITTING, NOT SUBMITTED)
    QString phase;              ///< pending | running | done | failed
    QString nodes;
    int evaluations = -1;       ///< merged evaluations of this shard (-1: none yet)
    int passed = 0;
    QString detail;             ///< why it failed; how it was merged
};

/// Where a Slurm run stands: shards per phase (the panel's view of squeue/sacct) and what is merged.
struct SlurmProgress {
    int shards = 0;
    int submissions = 0;
    int pending = 0;
    int running = 0;
    int done = 0;               ///< array tasks that ended well (COMPLETED, shard complete)
    int failed = 0;             ///< array tasks that ended otherwise (a re-submitted one counts again as pending)
    int mergedShards = 0;
    int mergedEvaluations = 0;  ///< evaluations merged into the database so far
    double elapsedSeconds = 0;
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
    // Slurm runs (backend "slurm"): total/passed/failed count the merged evaluations; runId is 0.
    QString backend = QStringLiteral("local");
    int exitCode = 0;           ///< the Slurm driver's result as kbx's exit code (docs/SCALING.md)
    QString workDir;            ///< the run's work directory (for --resubmit)
    int shards = 0;
    int mergedShards = 0;
    QList<int> incompleteShards;  ///< shards that did not finish (re-run them with resubmitCommand)
    QString resubmitCommand;    ///< "kbx eval --backend slurm --resubmit WORK" when there is something to continue
};

/// Runs kbx::Evaluator (the core's supervisor pipeline) on a worker thread: validates the sources,
/// probes the worker, plans the run as kbx eval does (core/runplan.h), evaluates, and reports each
/// candidate as it lands, with progress and ETA.
/// cancel() stops after the candidates in flight (their worker processes are killed).
///
/// With backend "slurm" it runs core's Slurm driver instead (a SlurmRun: the driver on a thread of
/// its own, in this process, as `kbx eval --backend slurm` runs it) and reports the shards of its job
/// array (slurmStarted, shardChanged, slurmProgress, shardMerged) from the driver's events; cancel()
/// sets the driver's cancel flag: it scancels the array tasks. The shards are merged into the
/// request's database as they complete.
class RunController : public QObject {
    Q_OBJECT
public:
    explicit RunController(QObject* parent = nullptr);
    ~RunController() override;

    /// Starts a run; false (and `error`) when one is already running or the request is empty.
    bool start(const RunRequest& request, QString* error = nullptr);
    bool isRunning() const { return m_running.load(); }
    /// Blocks until the current run's thread ended (tests, shutdown). A Slurm run is given
    /// `slurmTimeoutMs` to end (after cancel(): its scancel); after that it is cancelled and waited
    /// for (SlurmRun::waitForFinished: array tasks are never left behind).
    void wait(int slurmTimeoutMs = 180000);
    /// The kbx command line that does what the current (or last) Slurm run does, program first
    /// (tests, the log; the workbench runs the driver itself).
    QStringList slurmCommand() const { return m_slurmCommand; }

public slots:
    void cancel();

signals:
    void started(int total, const QString& device);
    void candidateFinished(const kbx::gui::CandidateResult& result);
    void progress(int done, int total, double elapsedSeconds, double etaSeconds);
    void logMessage(const QString& line);
    void finished(const kbx::gui::RunResult& result);
    // Slurm runs only:
    void slurmStarted(int submissions, int shards, const QString& workDir);
    void shardChanged(const kbx::gui::ShardStatus& shard);
    void slurmProgress(const kbx::gui::SlurmProgress& progress);
    /// A shard's results are in the database (the views may refresh).
    void shardMerged(int shard, int evaluations);

private:
    void runThread(RunRequest request);
    void startSlurm(const RunRequest& request);

    std::thread m_thread;
    std::atomic<bool> m_running{false};
    std::shared_ptr<std::atomic<bool>> m_cancel;
    SlurmRun* m_slurm = nullptr;
    QStringList m_slurmCommand;
};

/// Why the Slurm backend cannot be used here ("" when it can): sbatch, squeue and scancel must be on PATH.
QString slurmUnavailableReason();
/// The kbx command line program: $KBX_CLI, else kbx beside this executable (build tree and installed
/// bin/), else kbx on PATH; "" when there is none.
QString findKbxCli();

/// The run plan's request of a RunRequest (core/runplan.h: the same rules as kbx eval); local runs
/// resolve it on this host, Slurm runs check it here (kbx::checkRequest) and every array task
/// resolves it on its node.
kbx::PlanRequest planRequest(const RunRequest& request);
/// Why the plan cannot be made, in the run panel's words.
QString planErrorText(const kbx::RunPlanError& error);

/// "1m05s"-style durations for progress displays.
QString formatDuration(double seconds);

}  // namespace kbx::gui

Q_DECLARE_METATYPE(kbx::gui::CandidateResult)
Q_DECLARE_METATYPE(kbx::gui::RunResult)
Q_DECLARE_METATYPE(kbx::gui::ShardStatus)
Q_DECLARE_METATYPE(kbx::gui::SlurmProgress)
