// SPDX-License-Identifier: MIT
#pragma once
// The workbench's Slurm backend: runs `kbx eval --backend slurm --json` (app/cli/cmd_slurm.cpp, the
// same driver the command line uses) as a QProcess and turns its JSON events (one object a line on
// stdout; docs/SCALING.md, "The workbench") into shard states, progress and a RunResult. kbx's
// stderr goes to the log line by line. Cancel sends kbx SIGINT: kbx scancels the array tasks still
// pending or running and exits 130. Qt Core only; lives on the thread that created it (the GUI's).
#include "runcontroller.h"

#include <QElapsedTimer>
#include <QMap>
#include <QObject>
#include <QProcess>
#include <QStringList>

class QJsonObject;

namespace kbx::gui {

class SlurmRun : public QObject {
    Q_OBJECT
public:
    SlurmRun(RunRequest request, QObject* parent = nullptr);
    ~SlurmRun() override;

    /// Prepares the run (the kbx program, the work directory, one source file for several sources or
    /// a task selection) and starts kbx. Every problem ends the run through finished() with an error.
    void start();
    /// SIGINT to kbx (scancel of the array tasks); before kbx started, the run just ends cancelled.
    void cancel();
    bool isRunning() const { return m_running; }
    /// Waits up to `ms` for kbx to end (its finished() is emitted on the way); kills it after that.
    void waitForFinished(int ms);
    /// The command line (program first) once start() built it.
    QStringList command() const { return m_command; }

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
    void fail(const QString& message);
    void finish();
    void onStdout();
    void onStderr();
    void onFinished(int exitCode, QProcess::ExitStatus status);
    void onEvent(const QJsonObject& e);
    // onEvent()'s parts, one per kind of event of kbx eval --backend slurm --json.
    void onPlan(const QJsonObject& e);
    void onShardEvent(const QString& ev, int shard, const QJsonObject& e);
    void onMerged(int shard, const QJsonObject& e);
    void onCancelled(const QJsonObject& e);
    void onEnd(const QJsonObject& e);
    /// Shard s as shown now (a fresh one where none is known yet), with the run's shard count.
    ShardStatus currentShard(int s) const;
    /// start()'s last part: kbx eval --backend slurm --json started on source (its events read as they come).
    void launch(const QString& kbxProgram, const QString& source);
    void updateShard(const ShardStatus& s);
    void emitProgress();
    void cleanUpUnusedWorkDir();

    RunRequest m_req;
    QProcess* m_proc = nullptr;
    QStringList m_command;
    bool m_running = false;
    bool m_cancelRequested = false;
    bool m_finished = false;
    QString m_workDir;
    bool m_createdWorkDir = false;   ///< made here (removed again when kbx never wrote run.json into it)
    QString m_combinedSource;        ///< written here (several sources, or a task selection)
    QByteArray m_stdoutBuf, m_stderrBuf;
    QStringList m_kbxErrors;         ///< kbx's "kbx: ..." stderr lines, for a failure without an event
    QMap<int, ShardStatus> m_shards;
    SlurmProgress m_progress;
    QElapsedTimer m_clock;
    RunResult m_result;
    bool m_gotEnd = false;
    QString m_errorEvent;            ///< the message of kbx's "error" event
    QStringList m_sbatchErrors;
};

}  // namespace kbx::gui
