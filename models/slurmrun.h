// SPDX-License-Identifier: MIT
#pragma once
// The workbench's Slurm backend: drives core's Slurm driver (core/slurm_driver.h, the one `kbx eval
// --backend slurm` runs) on a thread of its own, in this process, and turns its events (the JSON
// objects of docs/SCALING.md, "The workbench") into shard states, progress and a RunResult; the
// driver's lines for people go to the log. No kbx process is started here: only the array tasks on
// the nodes run `kbx eval` (the path written into the job-array script, kbxForArrayTasks()).
// Cancel sets the driver's cancel flag: it scancels the array tasks still pending or running and
// ends Interrupted (130). Qt Core only; the object lives on the thread that created it (the GUI's),
// where every signal is emitted.
#include "runcontroller.h"

#include "slurm_driver.h"

#include <nlohmann/json.hpp>

#include <QElapsedTimer>
#include <QMap>
#include <QObject>
#include <QStringList>

#include <atomic>
#include <condition_variable>
#include <deque>
#include <mutex>
#include <string>
#include <thread>

class QJsonObject;

namespace kbx::gui {

class SlurmRun : public QObject {
    Q_OBJECT
public:
    SlurmRun(RunRequest request, QObject* parent = nullptr);
    ~SlurmRun() override;

    /// Prepares the run (the request checked as kbx eval would: core/runplan.h; the work directory;
    /// one source file for several sources or a task selection) and starts the driver's thread.
    /// Every problem ends the run through finished() with an error.
    void start();
    /// Stops the run: the driver scancels the array tasks still pending or running (a new run that
    /// submitted nothing yet leaves no work directory behind); before start() it just ends cancelled.
    void cancel();
    bool isRunning() const { return m_running; }
    /// Waits up to `ms` for the driver to end, then handles what it said (finished() is emitted on
    /// the way). Past `ms` the run is cancelled and waited for: its array tasks are scancelled, never
    /// left behind (every Slurm command of the driver has a time limit of its own).
    void waitForFinished(int ms);
    /// The kbx command line that does the same as this run (program first) once start() built it:
    /// shown in the log, for the command line; nothing runs it here.
    QStringList command() const { return m_command; }
    /// The kbx executable the array tasks run (written into the job-array script): request.kbx,
    /// else $KBX_CLI, else kbx beside this executable, else kbx on PATH, else plain "kbx" (the
    /// nodes' PATH). It need not exist on this machine.
    static QString kbxForArrayTasks(const RunRequest& request);

    /// kbx eval's arguments for `request` with the given source and work directory (new runs), or
    /// for request.slurm.resubmit. Public for tests.
    static QStringList arguments(const RunRequest& request, const QString& source, const QString& workDir);

signals:
    void logMessage(const QString& line);
    void slurmStarted(int submissions, int shards, const QString& workDir);
    void shardChanged(const kbx::gui::ShardStatus& shard);
    void slurmProgress(const kbx::gui::SlurmProgress& progress);
    void shardMerged(int shard, int evaluations);
    void finished(const kbx::gui::RunResult& result);

private:
    /// What the driver's thread hands to this object: one of its events, or its end.
    struct DriverNote {
        std::string text;
        nlohmann::json json;
        bool end = false;
        int exitCode = 0;
        std::string exception;  ///< the driver stopped on an exception (with end)
    };
    void fail(const QString& message);
    void finish();
    /// The driver's thread: runs core's driver to its end, every event handed over through post().
    void driverThread(kbx::SlurmDriverOptions options);
    void post(DriverNote note);
    /// Handles on this object's thread what the driver said so far (queued from post()).
    void drain();
    void onText(const std::string& text);
    void onDriverEnded(int exitCode, const QString& exception);
    void onEvent(const QJsonObject& e);
    // onEvent()'s parts, one per kind of the driver's events.
    void onPlan(const QJsonObject& e);
    void onShardEvent(const QString& ev, int shard, const QJsonObject& e);
    void onMerged(int shard, const QJsonObject& e);
    void onCancelled(const QJsonObject& e);
    void onEnd(const QJsonObject& e);
    /// Shard s as shown now (a fresh one where none is known yet), with the run's shard count.
    ShardStatus currentShard(int s) const;
    /// Why the run plan refuses the request ("" when it does not): core/runplan.h's checks that need no host.
    QString planProblem() const;
    /// start()'s part for several sources or a task selection: WORK/sources.jsonl of the chosen
    /// candidates (the work directory made when missing). "" after fail() said why.
    QString writeCombinedSource();
    /// start()'s last part: the driver started on source on a thread (its events handled as they come).
    void launch(const QString& source);
    void updateShard(const ShardStatus& s);
    void emitProgress();
    void cleanUpUnusedWorkDir();

    RunRequest m_req;
    std::thread m_thread;
    std::atomic<bool> m_cancel{false};   ///< the driver's cancel flag
    std::mutex m_mutex;                  ///< guards m_notes and m_driverDone
    std::condition_variable m_doneCv;
    std::deque<DriverNote> m_notes;
    bool m_driverDone = false;
    QStringList m_command;
    bool m_running = false;
    bool m_cancelRequested = false;
    bool m_finished = false;
    QString m_workDir;
    bool m_createdWorkDir = false;   ///< made here (removed again when kbx never wrote run.json into it)
    QString m_combinedSource;        ///< written here (several sources, or a task selection)
    QStringList m_kbxErrors;         ///< the driver's "kbx: ..." lines, for a failure without an event
    QMap<int, ShardStatus> m_shards;
    SlurmProgress m_progress;
    QElapsedTimer m_clock;
    RunResult m_result;
    bool m_gotEnd = false;
    QString m_errorEvent;            ///< the message of the driver's "error" event
    QStringList m_sbatchErrors;
};

}  // namespace kbx::gui
