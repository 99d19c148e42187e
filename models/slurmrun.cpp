// SPDX-License-Identifier: MIT
#include "slurmrun.h"

#include "catalogue.h"
#include "importers.h"
#include "paths.h"
#include "runplan.h"
#include "slurm_driver.h"

#include <QCoreApplication>
#include <QDateTime>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QMetaObject>
#include <QStandardPaths>

#include <chrono>
#include <exception>
#include <filesystem>

namespace kbx::gui {

QString slurmUnavailableReason()
{
    QStringList missing;
    for (const char* tool : {"sbatch", "squeue", "scancel"})
        if (QStandardPaths::findExecutable(QString::fromLatin1(tool)).isEmpty())
            missing << QString::fromLatin1(tool);
    if (missing.isEmpty())
        return {};
    return QCoreApplication::translate("SlurmRun", "%1 not on PATH: the Slurm backend needs Slurm's client tools (sbatch, squeue, scancel)")
        .arg(missing.join(QStringLiteral(", ")));
}

QString findKbxCli()
{
    const QString env = qEnvironmentVariable("KBX_CLI");
    if (!env.isEmpty())
        return QFileInfo(env).isExecutable() ? env : QString();
    const QString beside = QDir(QString::fromStdString(kbx::executableDir().string())).filePath(QStringLiteral("kbx"));
    if (QFileInfo(beside).isExecutable())
        return beside;
    return QStandardPaths::findExecutable(QStringLiteral("kbx"));
}

QString SlurmRun::kbxForArrayTasks(const RunRequest& request)
{
    if (!request.kbx.isEmpty())
        return request.kbx;
    if (const QString env = qEnvironmentVariable("KBX_CLI"); !env.isEmpty())
        return env;
    if (const QString found = findKbxCli(); !found.isEmpty())
        return found;
    return QStringLiteral("kbx");
}

SlurmRun::SlurmRun(RunRequest request, QObject* parent) : QObject(parent), m_req(std::move(request)) {}

SlurmRun::~SlurmRun()
{
    if (m_thread.joinable()) {
        // Never leave array tasks behind: the driver scancels them before its thread ends. What it
        // says on the way is no longer handled (nothing may reach receivers being destroyed).
        m_cancel.store(true);
        m_thread.join();
    }
}

QStringList SlurmRun::arguments(const RunRequest& r, const QString& source, const QString& workDir)
{
    const SlurmOptions& o = r.slurm;
    QStringList a{QStringLiteral("eval")};
    if (!o.resubmit.isEmpty()) {
        a << QStringLiteral("--backend") << QStringLiteral("slurm") << QStringLiteral("--resubmit") << o.resubmit;
    } else {
        a << source << QStringLiteral("--backend") << QStringLiteral("slurm") << QStringLiteral("--work-dir") << workDir;
        // kbx eval's own options: forwarded to every array task.
        a << QStringLiteral("--device") << (r.device.isEmpty() ? QStringLiteral("cpu") : r.device);
        a << QStringLiteral("--method") << (r.method.isEmpty() ? QStringLiteral("default") : r.method);
        a << QStringLiteral("--round") << QString::number(r.round);
        a << QStringLiteral("--jobs") << QString::number(qMax(1, r.jobs));
        if (r.timeoutSeconds > 0)
            a << QStringLiteral("--timeout") << QString::number(r.timeoutSeconds);
        if (!r.gpus.isEmpty())
            a << QStringLiteral("--gpus") << r.gpus.join(QLatin1Char(','));
        if (r.skipUnknown)
            a << QStringLiteral("--skip-unknown");
        // The job array.
        if (!o.partition.trimmed().isEmpty())
            a << QStringLiteral("--partition") << o.partition.trimmed();
        if (o.gpusPerTask > 0)
            a << QStringLiteral("--gpus-per-task") << QString::number(o.gpusPerTask);
        if (o.cpusPerTask > 0)
            a << QStringLiteral("--cpus-per-task") << QString::number(o.cpusPerTask);
        if (o.maxJobs > 0)
            a << QStringLiteral("--max-jobs") << QString::number(o.maxJobs);
        if (o.shards > 0)
            a << QStringLiteral("--shards") << QString::number(o.shards);
        if (!o.timeLimit.trimmed().isEmpty())
            a << QStringLiteral("--time-limit") << o.timeLimit.trimmed();
    }
    a << QStringLiteral("--db") << QFileInfo(r.database).absoluteFilePath();
    a << QStringLiteral("--retries") << QString::number(o.retries);
    a << QStringLiteral("--poll") << QString::number(o.pollSeconds > 0 ? o.pollSeconds : 10);
    a << QStringLiteral("--json");
    return a;
}

void SlurmRun::fail(const QString& message)
{
    m_result.error = message;
    emit logMessage(tr("Error: %1").arg(message));
    finish();
}

void SlurmRun::finish()
{
    if (m_finished)
        return;
    m_finished = true;
    m_running = false;
    cleanUpUnusedWorkDir();
    emit finished(m_result);
}

void SlurmRun::cleanUpUnusedWorkDir()
{
    // A work directory made here for a run the driver never recorded (refused, cancelled early): removed again.
    if (!m_createdWorkDir || m_workDir.isEmpty() || QFileInfo::exists(QDir(m_workDir).filePath(QStringLiteral("run.json"))))
        return;
    if (!m_combinedSource.isEmpty())
        QFile::remove(m_combinedSource);
    QDir().rmdir(QDir(m_workDir).filePath(QStringLiteral("logs")));
    QDir().rmdir(m_workDir);
}

void SlurmRun::start()
{
    m_running = true;
    m_result.backend = QStringLiteral("slurm");
    m_clock.start();
    if (m_cancelRequested) {
        m_result.cancelled = true;
        emit logMessage(tr("Cancelled before anything was submitted"));
        return finish();
    }
    if (const QString why = slurmUnavailableReason(); !why.isEmpty())
        return fail(why);
    if (m_req.database.isEmpty())
        return fail(tr("no database chosen"));

    QString source;
    const SlurmOptions& o = m_req.slurm;
    if (!o.resubmit.isEmpty()) {
        m_workDir = QFileInfo(o.resubmit).absoluteFilePath();
        if (!QFileInfo::exists(QDir(m_workDir).filePath(QStringLiteral("run.json"))))
            return fail(tr("%1 holds no Slurm run to continue (no run.json)").arg(m_workDir));
    } else {
        if (const QString why = planProblem(); !why.isEmpty())
            return fail(why);
        if (m_req.sources.isEmpty())
            return fail(tr("no submission files or folders chosen"));
        m_workDir = o.workDir.trimmed().isEmpty()
                        ? QDir(QFileInfo(m_req.database).absolutePath())
                              .filePath(QStringLiteral("kbx-slurm-%1").arg(QDateTime::currentDateTime().toString(QStringLiteral("yyyyMMdd-HHmmss"))))
                        : QFileInfo(o.workDir.trimmed()).absoluteFilePath();
        if (QFileInfo::exists(QDir(m_workDir).filePath(QStringLiteral("run.json"))))
            return fail(tr("%1 already holds a Slurm run: continue it with Resubmit, or choose another work directory").arg(m_workDir));
        if (m_req.sources.size() == 1 && m_req.tasks.isEmpty())
            source = QFileInfo(m_req.sources.front()).absoluteFilePath();
        else if ((source = writeCombinedSource()).isEmpty())
            return;  // failed, and said why
    }

    launch(source);
}

QString SlurmRun::planProblem() const
{
    // What every array task would refuse (e.g. kbx eval --gpus needs CUDA): said now, not after the
    // retries. The run plan's checks that need no host (core/runplan.h); each array task resolves the
    // rest (auto device, GPUs, jobs) on its node, as kbx eval does.
    try {
        kbx::checkRequest(planRequest(m_req));
    } catch (const kbx::RunPlanError& e) {
        if (e.code() == kbx::RunPlanError::Code::GpusNeedCuda)
            return tr("GPUs were chosen, but the run is not on CUDA (choose the CUDA device, or clear GPUs)");
        return planErrorText(e);
    }
    return {};
}

QString SlurmRun::writeCombinedSource()
{
    // kbx eval takes one source: several sources, or a task selection, become one JSONL in the work
    // directory (which the nodes share), in the seed's format with each record's own method and round.
    if (!QFileInfo::exists(m_workDir)) {
        if (!QDir().mkpath(m_workDir)) {
            fail(tr("cannot create the work directory %1").arg(m_workDir));
            return {};
        }
        m_createdWorkDir = true;
    }
    const QString source = QDir(m_workDir).filePath(QStringLiteral("sources.jsonl"));
    try {
        const auto tasksDir = m_req.tasksDir.isEmpty() ? kbx::findTasksDir() : std::filesystem::path(m_req.tasksDir.toStdString());
        const auto catalogue = kbx::TaskCatalogue::load(tasksDir);
        QFile out(source);
        if (!out.open(QIODevice::WriteOnly | QIODevice::Truncate)) {
            fail(tr("cannot write %1").arg(source));
            return {};
        }
        m_combinedSource = source;  // from now on: removed again with a work directory made here when nothing ran
        int kept = 0, all = 0;
        for (const auto& src : m_req.sources) {
            std::vector<std::string> skipped;
            auto subs = kbx::loadSubmissions(src.toStdString(), catalogue, m_req.skipUnknown ? &skipped : nullptr);
            for (const auto& s : skipped)
                emit logMessage(tr("Skipped %1").arg(QString::fromStdString(s)));
            for (const auto& s : subs) {
                ++all;
                const QString id = QString::fromStdString(s.taskId);
                if (!m_req.tasks.isEmpty() && !m_req.tasks.contains(id) && !m_req.tasks.contains(id.section(QLatin1Char('/'), 0, 0)))
                    continue;
                QJsonObject rec{{QStringLiteral("predict"), QString::fromStdString(s.code)},
                                {QStringLiteral("file"), QString(id + QStringLiteral(".py"))},
                                {QStringLiteral("origin"), QString::fromStdString(s.origin)}};
                if (s.method)
                    rec[QStringLiteral("method")] = QString::fromStdString(*s.method);
                if (s.round)
                    rec[QStringLiteral("round")] = *s.round;
                out.write(QJsonDocument(rec).toJson(QJsonDocument::Compact));
                out.write("\n");
                ++kept;
            }
        }
        out.close();
        if (!m_req.tasks.isEmpty())
            emit logMessage(tr("Task selection %1: %2 of %3 candidate(s)").arg(m_req.tasks.join(QStringLiteral(", "))).arg(kept).arg(all));
        if (kept == 0) {
            fail(m_req.tasks.isEmpty() ? tr("no submission for a known task in the chosen sources")
                                       : tr("no submission for the chosen tasks (%1)").arg(m_req.tasks.join(QStringLiteral(", "))));
            return {};
        }
        emit logMessage(tr("%n candidate(s) from %1 source(s) written to %2 (one source for the job array)", nullptr, kept)
                            .arg(m_req.sources.size())
                            .arg(source));
    } catch (const std::exception& e) {
        fail(QString::fromStdString(e.what()));
        return {};
    }
    return source;
}

namespace {

/// kbx eval's own options for every array task, as `kbx eval --backend slurm` forwards them (in the
/// order it registers them).
std::vector<std::string> forwardedEvalArgs(const RunRequest& r)
{
    std::vector<std::string> a{"--method", r.method.isEmpty() ? std::string("default") : r.method.toStdString(),
                               "--round", std::to_string(r.round),
                               "--device", r.device.isEmpty() ? std::string("cpu") : r.device.toStdString(),
                               "--jobs", std::to_string(qMax(1, r.jobs))};
    if (r.timeoutSeconds > 0) {
        a.push_back("--timeout");
        a.push_back(QString::number(r.timeoutSeconds).toStdString());
    }
    if (!r.gpus.isEmpty()) {
        a.push_back("--gpus");
        a.push_back(r.gpus.join(QLatin1Char(',')).toStdString());
    }
    if (r.skipUnknown)
        a.push_back("--skip-unknown");
    return a;
}

}  // namespace

void SlurmRun::launch(const QString& source)
{
    const QString kbxProgram = kbxForArrayTasks(m_req);
    m_command = QStringList{kbxProgram} + arguments(m_req, source, m_workDir);
    m_result.workDir = m_workDir;
    const SlurmOptions& o = m_req.slurm;
    kbx::SlurmDriverOptions d;
    d.db = QFileInfo(m_req.database).absoluteFilePath().toStdString();
    d.retries = o.retries;
    d.poll = o.pollSeconds > 0 ? o.pollSeconds : 10;
    // sbatch (and so every array task) starts in the database's folder, as kbx eval run from there would.
    if (const QString dbDir = QFileInfo(m_req.database).absolutePath(); QFileInfo(dbDir).isDir())
        d.submitDir = dbDir.toStdString();
    // sbatch hands its environment to the array tasks: these reach the nodes too.
    if (!m_req.tasksDir.isEmpty())
        d.env["KBX_TASKS_DIR"] = m_req.tasksDir.toStdString();
    if (!m_req.worker.isEmpty())
        d.env["KBX_WORKER"] = m_req.worker.toStdString();
    if (!o.resubmit.isEmpty()) {
        d.resubmit = m_workDir.toStdString();
    } else {
        d.source = source.toStdString();
        d.skipUnknown = m_req.skipUnknown;
        d.kbx = kbxProgram.toStdString();
        d.evalArgs = forwardedEvalArgs(m_req);
        if (!m_req.tasksDir.isEmpty())
            d.tasksDir = m_req.tasksDir.toStdString();
        d.partition = o.partition.trimmed().toStdString();
        d.gpusPerTask = o.gpusPerTask;
        d.cpusPerTask = o.cpusPerTask;
        d.maxJobs = o.maxJobs;
        d.shards = o.shards;
        d.workDir = m_workDir.toStdString();
        d.timeLimit = o.timeLimit.trimmed().toStdString();
    }
    QStringList shown;
    for (const auto& a : m_command)
        shown << (a.contains(QLatin1Char(' ')) || a.isEmpty() ? QStringLiteral("'%1'").arg(a) : a);
    emit logMessage(tr("Slurm backend (driven by the workbench; on the command line: %1)").arg(shown.join(QLatin1Char(' '))));
    if (o.resubmit.isEmpty() && !QFileInfo(kbxProgram).isExecutable())
        emit logMessage(tr("%1 is not an executable on this machine: the array tasks must find it on their nodes").arg(kbxProgram));
    {
        std::lock_guard lock(m_mutex);
        m_driverDone = false;
    }
    m_thread = std::thread([this, d = std::move(d)]() mutable { driverThread(std::move(d)); });
}

void SlurmRun::driverThread(kbx::SlurmDriverOptions options)
{
    DriverNote last;
    last.end = true;
    try {
        const auto rc = kbx::runSlurmDriver(options, [this](const kbx::SlurmEvent& e) { post({e.text, e.json, false, 0, {}}); }, &m_cancel);
        last.exitCode = static_cast<int>(rc);
    } catch (const std::exception& e) {
        last.exitCode = -1;
        last.exception = e.what();
    } catch (...) {
        last.exitCode = -1;
        last.exception = "unknown exception";
    }
    post(std::move(last));
    std::lock_guard lock(m_mutex);
    m_driverDone = true;
    m_doneCv.notify_all();
}

void SlurmRun::post(DriverNote note)
{
    {
        std::lock_guard lock(m_mutex);
        m_notes.push_back(std::move(note));
    }
    QMetaObject::invokeMethod(this, &SlurmRun::drain, Qt::QueuedConnection);
}

void SlurmRun::drain()
{
    for (;;) {
        DriverNote n;
        {
            std::lock_guard lock(m_mutex);
            if (m_notes.empty())
                return;
            n = std::move(m_notes.front());
            m_notes.pop_front();
        }
        if (n.end) {
            onDriverEnded(n.exitCode, QString::fromStdString(n.exception));
            continue;
        }
        if (!n.text.empty())
            onText(n.text);
        if (n.json.is_object()) {
            const auto text = n.json.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
            onEvent(QJsonDocument::fromJson(QByteArray::fromStdString(text)).object());
        }
    }
}

void SlurmRun::cancel()
{
    if (m_finished)
        return;
    m_cancelRequested = true;
    if (!m_thread.joinable())
        return;  // start() has not started the driver yet: it ends the run as cancelled
    if (!m_cancel.exchange(true))
        emit logMessage(tr("Cancelling: the array tasks still pending or running are scancelled…"));
}

void SlurmRun::waitForFinished(int ms)
{
    if (!m_thread.joinable())
        return;
    {
        std::unique_lock lock(m_mutex);
        if (!m_doneCv.wait_for(lock, std::chrono::milliseconds(qMax(0, ms)), [this] { return m_driverDone; })) {
            lock.unlock();
            emit logMessage(tr("The Slurm driver did not end in %1 s: cancelling the run (its array tasks are scancelled)").arg(ms / 1000));
            m_cancel.store(true);
        }
    }
    m_thread.join();
    drain();
}

void SlurmRun::onText(const std::string& text)
{
    for (const auto& part : QString::fromStdString(text).split(QLatin1Char('\n'))) {
        const QString line = part.trimmed();
        if (line.isEmpty())
            continue;
        if (line.startsWith(QLatin1String("kbx: ")))
            m_kbxErrors << line.mid(5);
        emit logMessage(line);
    }
}

void SlurmRun::updateShard(const ShardStatus& s)
{
    m_shards[s.shard] = s;
    emit shardChanged(s);
}

void SlurmRun::emitProgress()
{
    SlurmProgress p = m_progress;
    p.pending = p.running = p.done = p.failed = 0;
    for (const auto& s : m_shards) {
        if (s.phase == QLatin1String("pending"))
            ++p.pending;
        else if (s.phase == QLatin1String("running"))
            ++p.running;
        else if (s.phase == QLatin1String("done"))
            ++p.done;
        else if (s.phase == QLatin1String("failed"))
            ++p.failed;
    }
    p.elapsedSeconds = m_clock.isValid() ? m_clock.elapsed() / 1000.0 : 0;
    m_progress = p;
    emit slurmProgress(p);
}

void SlurmRun::onEvent(const QJsonObject& e)
{
    const QString ev = e.value(QStringLiteral("event")).toString();
    const int shard = e.value(QStringLiteral("shard")).toInt(-1);
    if (ev == QLatin1String("plan")) {
        onPlan(e);
    } else if (ev == QLatin1String("merged") && shard >= 0) {
        onMerged(shard, e);
    } else if (ev == QLatin1String("merge_failed") && shard >= 0) {
        auto st = currentShard(shard);
        st.detail = tr("merge failed: %1").arg(e.value(QStringLiteral("message")).toString());
        updateShard(st);
    } else if (ev == QLatin1String("cancelled")) {
        onCancelled(e);
    } else if (ev == QLatin1String("error")) {
        m_errorEvent = e.value(QStringLiteral("message")).toString();
    } else if (ev == QLatin1String("end")) {
        onEnd(e);
    } else {
        onShardEvent(ev, shard, e);
    }
}

ShardStatus SlurmRun::currentShard(int s) const
{
    ShardStatus st = m_shards.value(s);
    st.shard = s;
    st.shards = m_progress.shards;
    return st;
}

void SlurmRun::onPlan(const QJsonObject& e)
{
    m_progress.shards = e.value(QStringLiteral("shards")).toInt();
    m_progress.submissions = e.value(QStringLiteral("submissions")).toInt();
    m_workDir = e.value(QStringLiteral("work_dir")).toString(m_workDir);
    m_result.workDir = m_workDir;
    m_result.shards = m_progress.shards;
    m_shards.clear();
    emit slurmStarted(m_progress.submissions, m_progress.shards, m_workDir);
    for (int s = 0; s < m_progress.shards; ++s) {
        ShardStatus st;
        st.shard = s;
        st.shards = m_progress.shards;
        st.state = tr("NOT SUBMITTED");
        st.phase = QStringLiteral("pending");
        updateShard(st);
    }
    emitProgress();
}

void SlurmRun::onShardEvent(const QString& ev, int shard, const QJsonObject& e)
{
    if (ev == QLatin1String("shard_checked") && shard >= 0) {
        auto st = currentShard(shard);
        if (e.value(QStringLiteral("complete")).toBool()) {
            st.state = QStringLiteral("COMPLETE");
            st.phase = QStringLiteral("done");
            st.detail = tr("complete from an earlier submission (%n evaluation(s))", nullptr, e.value(QStringLiteral("evaluations")).toInt());
            st.nodes = e.value(QStringLiteral("node")).toString();
        } else {
            st.state = QStringLiteral("RESUBMITTING");
            st.phase = QStringLiteral("pending");
            st.detail = e.value(QStringLiteral("why")).toString();
        }
        updateShard(st);
        emitProgress();
    } else if (ev == QLatin1String("submitted")) {
        const QString job = e.value(QStringLiteral("job_id")).toString();
        for (const auto& v : e.value(QStringLiteral("shards")).toArray()) {
            auto st = currentShard(v.toInt());
            st.jobId = job;
            st.state = QStringLiteral("PENDING");
            st.phase = QStringLiteral("pending");
            st.nodes.clear();
            st.detail.clear();  // a re-submission starts afresh (the log keeps why)
            updateShard(st);
        }
        emitProgress();
    } else if (ev == QLatin1String("sbatch_failed")) {
        const QString msg = e.value(QStringLiteral("message")).toString();
        m_sbatchErrors << msg;
        for (const auto& v : e.value(QStringLiteral("shards")).toArray()) {
            auto st = currentShard(v.toInt());
            st.state = QStringLiteral("SBATCH FAILED");
            st.phase = QStringLiteral("failed");
            st.detail = msg;
            updateShard(st);
        }
        emitProgress();
    } else if (ev == QLatin1String("shard") && shard >= 0) {
        auto st = currentShard(shard);
        st.jobId = e.value(QStringLiteral("job_id")).toString(st.jobId);
        st.state = e.value(QStringLiteral("state")).toString();
        st.phase = e.value(QStringLiteral("phase")).toString();
        st.nodes = e.value(QStringLiteral("nodes")).toString();
        st.detail.clear();
        updateShard(st);
        emitProgress();
    } else if (ev == QLatin1String("shard_done") && shard >= 0) {
        auto st = currentShard(shard);
        st.state = QStringLiteral("COMPLETED");
        st.phase = QStringLiteral("done");
        st.evaluations = e.value(QStringLiteral("evaluations")).toInt();
        st.passed = e.value(QStringLiteral("passed")).toInt();
        if (!e.value(QStringLiteral("node")).toString().isEmpty())
            st.nodes = e.value(QStringLiteral("node")).toString();
        st.detail = e.value(QStringLiteral("exit")).toInt() == 1 ? tr("some candidates could not be judged") : QString();
        updateShard(st);
        emitProgress();
    } else if (ev == QLatin1String("shard_failed") && shard >= 0) {
        auto st = currentShard(shard);
        const bool retry = e.value(QStringLiteral("retry")).toBool();
        const QString why = e.value(QStringLiteral("why")).toString();
        if (retry) {
            st.state = QStringLiteral("RESUBMITTING");
            st.phase = QStringLiteral("pending");
            st.detail = tr("failed (%1): re-submitted from scratch").arg(why);
        } else {
            if (st.phase != QLatin1String("failed") || st.state.isEmpty())
                st.state = QStringLiteral("FAILED");
            st.phase = QStringLiteral("failed");
            st.detail = tr("%1; no retries left; logs in %2").arg(why, e.value(QStringLiteral("logs")).toString());
        }
        updateShard(st);
        emitProgress();
    }
}

void SlurmRun::onMerged(int shard, const QJsonObject& e)
{
    auto st = currentShard(shard);
    st.state = QStringLiteral("MERGED");
    st.phase = QStringLiteral("done");
    st.evaluations = e.value(QStringLiteral("evaluations")).toInt();
    st.passed = e.value(QStringLiteral("passed")).toInt();
    if (!e.value(QStringLiteral("node")).toString().isEmpty())
        st.nodes = e.value(QStringLiteral("node")).toString();
    const QString how = e.value(QStringLiteral("result")).toString();
    QStringList notes;
    if (how != QLatin1String("merged"))  // "replaced an earlier copy", "already merged"
        notes << how;
    if (e.value(QStringLiteral("exit")).toInt() == 1)
        notes << tr("some candidates could not be judged");
    st.detail = notes.join(QStringLiteral("; "));
    m_progress.mergedShards = e.value(QStringLiteral("merged_shards")).toInt();
    m_progress.mergedEvaluations = e.value(QStringLiteral("merged_evaluations")).toInt();
    m_result.passed += st.passed;
    m_result.failed += e.value(QStringLiteral("failed")).toInt();
    m_result.total = m_progress.mergedEvaluations;
    m_result.mergedShards = m_progress.mergedShards;
    updateShard(st);
    emitProgress();
    emit shardMerged(shard, st.evaluations);
}

void SlurmRun::onCancelled(const QJsonObject& e)
{
    m_result.cancelled = true;
    for (const auto& v : e.value(QStringLiteral("scancel")).toArray()) {
        const auto o = v.toObject();
        auto st = currentShard(o.value(QStringLiteral("shard")).toInt());
        st.state = QStringLiteral("CANCELLED");
        st.phase = QStringLiteral("failed");
        st.detail = o.value(QStringLiteral("exit")).toInt() == 0
                        ? tr("scancel %1").arg(o.value(QStringLiteral("task")).toString())
                        : tr("scancel %1 failed: %2").arg(o.value(QStringLiteral("task")).toString(), o.value(QStringLiteral("message")).toString());
        updateShard(st);
    }
    emitProgress();
}

void SlurmRun::onEnd(const QJsonObject& e)
{
    m_gotEnd = true;
    m_result.exitCode = e.value(QStringLiteral("exit")).toInt();
    m_result.cancelled = m_result.cancelled || e.value(QStringLiteral("cancelled")).toBool();
    m_result.mergedShards = e.value(QStringLiteral("merged")).toInt();
    m_result.shards = e.value(QStringLiteral("shards")).toInt(m_result.shards);
    m_result.total = e.value(QStringLiteral("merged_evaluations")).toInt(m_result.total);
    m_result.seconds = e.value(QStringLiteral("elapsed")).toDouble(m_clock.elapsed() / 1000.0);
    m_result.resubmitCommand = e.value(QStringLiteral("resubmit")).toString();
    m_result.incompleteShards.clear();
    for (const auto& v : e.value(QStringLiteral("incomplete")).toArray())
        m_result.incompleteShards << v.toInt();
    if (!m_result.incompleteShards.isEmpty()) {
        const auto why = e.value(QStringLiteral("why")).toObject();
        QStringList parts;
        for (int s : m_result.incompleteShards)
            parts << tr("shard %1/%2: %3").arg(s).arg(m_result.shards).arg(why.value(QString::number(s)).toString());
        m_result.error = tr("%n shard(s) did not finish (%1). Logs in %2. Re-run them with Resubmit, or: %3",
                            nullptr, int(m_result.incompleteShards.size()))
                             .arg(parts.join(QStringLiteral("; ")), e.value(QStringLiteral("logs")).toString(), m_result.resubmitCommand);
    } else if (e.value(QStringLiteral("message")).isString()) {
        m_result.error = e.value(QStringLiteral("message")).toString();
    }
    if (e.value(QStringLiteral("unjudged")).toBool())
        emit logMessage(tr("Some candidates could not be judged (a shard's kbx eval exited with 1: see its log in %1/logs)").arg(m_workDir));
}

void SlurmRun::onDriverEnded(int exitCode, const QString& exception)
{
    const bool crashed = !exception.isEmpty();
    if (!m_gotEnd)
        m_result.exitCode = crashed ? -1 : exitCode;
    if (exitCode == 130 && !crashed)
        m_result.cancelled = true;
    if (crashed && m_cancelRequested)
        m_result.cancelled = true;
    if (m_result.seconds <= 0)
        m_result.seconds = m_clock.elapsed() / 1000.0;
    if (m_result.error.isEmpty() && !m_result.cancelled) {
        if (crashed) {
            m_result.error = tr("the Slurm driver stopped: %1 (array tasks may be left: check squeue)").arg(exception);
        } else if (exitCode != 0 && exitCode != 1) {
            QString why = m_errorEvent;
            if (why.isEmpty() && !m_kbxErrors.isEmpty())
                why = m_kbxErrors.last();
            if (exitCode == 4 && !m_sbatchErrors.isEmpty() && !why.contains(m_sbatchErrors.last()))
                why += QStringLiteral(" (%1)").arg(m_sbatchErrors.last());
            m_result.error = why.isEmpty() ? tr("the Slurm driver ended with %1").arg(exitCode) : why;
        } else if (!m_gotEnd) {
            m_result.error = tr("the Slurm driver ended without saying how (exit %1)").arg(exitCode);
        }
    }
    if (m_result.cancelled) {
        emit logMessage(m_result.resubmitCommand.isEmpty()
                            ? tr("Slurm run cancelled")
                            : tr("Slurm run cancelled: its array tasks were scancelled; continue it with Resubmit, or: %1").arg(m_result.resubmitCommand));
    } else if (m_result.error.isEmpty()) {
        emit logMessage(tr("Slurm run finished: %1 of %2 shard(s) merged, %3 evaluation(s) (%4 passed, %5 failed) in %6")
                            .arg(m_result.mergedShards)
                            .arg(m_result.shards)
                            .arg(m_result.total)
                            .arg(m_result.passed)
                            .arg(m_result.failed)
                            .arg(formatDuration(m_result.seconds)));
    } else {
        emit logMessage(tr("Error: %1").arg(m_result.error));
    }
    finish();
}

}  // namespace kbx::gui
