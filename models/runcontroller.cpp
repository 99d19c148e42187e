// SPDX-License-Identifier: MIT
#include "runcontroller.h"

#include "slurmrun.h"

#include "catalogue.h"
#include "evaluator.h"
#include "importers.h"
#include "paths.h"
#include "runplan.h"
#include "store.h"

#include <QMetaObject>

#include <algorithm>
#include <chrono>
#include <filesystem>

namespace kbx::gui {

kbx::PlanRequest planRequest(const RunRequest& req)
{
    kbx::PlanRequest r;
    r.device = req.device.isEmpty() ? std::string("cpu") : req.device.toStdString();
    for (const auto& g : req.gpus)
        r.gpus.push_back(g.toStdString());
    r.jobs = qMax(0, req.jobs);
    r.timeout = req.timeoutSeconds;
    return r;
}

QString planErrorText(const kbx::RunPlanError& e)
{
    using Code = kbx::RunPlanError::Code;
    switch (e.code()) {
    case Code::NoCuda:
        return RunController::tr("device cuda asked for, but the worker's torch sees no CUDA device");
    case Code::GpusNeedCuda:
        return RunController::tr("GPUs were chosen, but the run is not on CUDA");
    case Code::BadGpus:
        return RunController::tr("GPUs: %1").arg(QString::fromStdString(e.detail()));
    default:
        return QString::fromStdString(e.what());
    }
}

QString formatDuration(double s)
{
    if (s < 0)
        s = 0;
    const auto n = static_cast<long long>(s + 0.5);
    if (n < 60)
        return QStringLiteral("%1s").arg(n);
    if (n < 3600)
        return QStringLiteral("%1m%2s").arg(n / 60).arg(n % 60, 2, 10, QLatin1Char('0'));
    return QStringLiteral("%1h%2m").arg(n / 3600).arg((n % 3600) / 60, 2, 10, QLatin1Char('0'));
}

RunController::RunController(QObject* parent) : QObject(parent)
{
    qRegisterMetaType<kbx::gui::CandidateResult>();
    qRegisterMetaType<kbx::gui::RunResult>();
    qRegisterMetaType<kbx::gui::ShardStatus>();
    qRegisterMetaType<kbx::gui::SlurmProgress>();
}

RunController::~RunController()
{
    // A Slurm run reports on this thread, directly: while its driver ends (scancel) nothing may reach
    // receivers that are being destroyed (the run panel owns this controller).
    if (m_slurm)
        disconnect(m_slurm, nullptr, this, nullptr);
    cancel();
    wait();
}

void RunController::wait(int slurmTimeoutMs)
{
    if (m_slurm)
        m_slurm->waitForFinished(slurmTimeoutMs);
    if (m_thread.joinable())
        m_thread.join();
}

void RunController::cancel()
{
    if (m_slurm && m_running.load()) {
        m_slurm->cancel();
        return;
    }
    if (m_cancel && m_running.load()) {
        m_cancel->store(true);
        emit logMessage(tr("Cancelling: candidates in flight are stopped…"));
    }
}

bool RunController::start(const RunRequest& request, QString* error)
{
    if (m_running.load()) {
        if (error)
            *error = tr("a run is already in progress");
        return false;
    }
    const bool slurm = request.backend == QLatin1String("slurm");
    if (!slurm && request.backend != QLatin1String("local")) {
        if (error)
            *error = tr("unknown backend '%1' (local or slurm)").arg(request.backend);
        return false;
    }
    if (request.sources.isEmpty() && !(slurm && !request.slurm.resubmit.isEmpty())) {
        if (error)
            *error = tr("no submission files or folders chosen");
        return false;
    }
    if (request.database.isEmpty()) {
        if (error)
            *error = tr("no database chosen");
        return false;
    }
    wait();  // the previous thread has ended (m_running false); reap it
    if (slurm) {
        startSlurm(request);
        return true;
    }
    if (m_slurm) {  // the last run went to Slurm; this one is local
        m_slurm->deleteLater();
        m_slurm = nullptr;
    }
    m_cancel = std::make_shared<std::atomic<bool>>(false);
    m_running.store(true);
    m_thread = std::thread([this, request] { runThread(request); });
    return true;
}

void RunController::startSlurm(const RunRequest& request)
{
    if (m_slurm) {
        m_slurm->deleteLater();
        m_slurm = nullptr;
    }
    m_slurmCommand.clear();
    m_running.store(true);
    auto* run = new SlurmRun(request, this);
    m_slurm = run;
    connect(run, &SlurmRun::logMessage, this, &RunController::logMessage);
    connect(run, &SlurmRun::slurmStarted, this, &RunController::slurmStarted);
    connect(run, &SlurmRun::shardChanged, this, &RunController::shardChanged);
    connect(run, &SlurmRun::slurmProgress, this, &RunController::slurmProgress);
    connect(run, &SlurmRun::shardMerged, this, &RunController::shardMerged);
    connect(run, &SlurmRun::finished, this, [this, run](const RunResult& r) {
        m_slurmCommand = run->command();
        m_running.store(false);
        emit finished(r);
    });
    // Started from the event loop, like a local run's thread: start() has returned before anything
    // (an error included) is reported.
    QMetaObject::invokeMethod(
        run,
        [this, run] {
            run->start();
            if (m_slurm == run)
                m_slurmCommand = run->command();
        },
        Qt::QueuedConnection);
}

void RunController::runThread(RunRequest req)
{
    RunResult result;
    const auto cancel = m_cancel;
    auto finish = [&] {
        m_running.store(false);
        emit finished(result);
    };
    auto fail = [&](const QString& msg) {
        result.error = msg;
        emit logMessage(tr("Error: %1").arg(msg));
        finish();
    };
    try {
        const auto tasksDir = req.tasksDir.isEmpty() ? kbx::findTasksDir() : std::filesystem::path(req.tasksDir.toStdString());
        const auto catalogue = kbx::TaskCatalogue::load(tasksDir);
        std::vector<kbx::Submission> subs;
        for (const auto& src : req.sources) {
            std::vector<std::string> skipped;
            auto part = kbx::loadSubmissions(src.toStdString(), catalogue, req.skipUnknown ? &skipped : nullptr);
            for (const auto& s : skipped)
                emit logMessage(tr("Skipped %1").arg(QString::fromStdString(s)));
            emit logMessage(tr("%1: %n candidate(s)", nullptr, int(part.size())).arg(src));
            subs.insert(subs.end(), std::make_move_iterator(part.begin()), std::make_move_iterator(part.end()));
        }
        if (!req.tasks.isEmpty()) {
            const auto before = subs.size();
            std::erase_if(subs, [&](const kbx::Submission& s) {
                const QString id = QString::fromStdString(s.taskId);
                return !req.tasks.contains(id) && !req.tasks.contains(id.section(QLatin1Char('/'), 0, 0));
            });
            emit logMessage(tr("Task selection %1: %2 of %3 candidate(s)")
                                .arg(req.tasks.join(QStringLiteral(", ")))
                                .arg(subs.size())
                                .arg(before));
            if (subs.empty())
                return fail(tr("no submission for the chosen tasks (%1)").arg(req.tasks.join(QStringLiteral(", "))));
        }
        if (subs.empty())
            return fail(tr("no submission for a known task in the chosen sources"));

        kbx::WorkerConfig wc;
        wc.worker = req.worker.isEmpty() ? kbx::findWorker() : std::filesystem::path(req.worker.toStdString());
        if (wc.worker.empty() || !std::filesystem::exists(wc.worker))
            return fail(tr("kbx-worker not found (set KBX_WORKER or build with KBX_BUILD_WORKER=ON)"));
        emit logMessage(tr("Probing the worker (%1)…").arg(QString::fromStdString(wc.worker.string())));
        const auto probe = kbx::Evaluator::probe(wc);
        kbx::RunPlan plan;
        try {
            plan = kbx::resolvePlan(planRequest(req), kbx::HostFacts::fromProbe(probe));
        } catch (const kbx::RunPlanError& e) {
            return fail(planErrorText(e));
        }
        kbx::EvalOptions opt = kbx::toEvalOptions(plan);
        opt.method = req.method.isEmpty() ? std::string("default") : req.method.toStdString();
        opt.round = req.round;
        if (cancel->load()) {
            result.cancelled = true;
            return finish();
        }
        kbx::Store store(req.database.toStdString());
        kbx::Evaluator ev(catalogue, store, wc, opt);
        ev.setProbe(probe);
        const QString deviceName = plan.cuda() && !probe["devices"].empty()
                                       ? QString::fromStdString(probe["devices"][0].value("name", "cuda"))
                                       : tr("CPU (Triton interpreter)");
        emit started(int(subs.size()), deviceName);
        emit logMessage(tr("Evaluating %n candidate(s) on %1 into %2", nullptr, int(subs.size())).arg(deviceName, req.database));
        const auto t0 = std::chrono::steady_clock::now();
        auto onProgress = [&](const kbx::Outcome& o, int done, int total) {
            CandidateResult c;
            c.index = done;
            c.total = total;
            c.taskId = QString::fromStdString(o.taskId);
            c.origin = QString::fromStdString(o.origin);
            c.method = QString::fromStdString(o.method);
            c.round = o.round;
            c.verdict = o.harnessError ? QStringLiteral("error") : (o.record.pass ? QStringLiteral("pass") : QStringLiteral("fail"));
            c.failureClass = QString::fromStdString(o.record.failureClass.value_or(""));
            c.detail = QString::fromStdString(o.harnessError ? o.harnessMessage : o.record.failureDetail);
            c.evaluationId = o.evaluationId;
            c.seconds = o.seconds;
            const double el = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
            const double eta = done ? el / done * (total - done) : 0;
            emit candidateFinished(c);
            emit progress(done, total, el, eta);
            emit logMessage(QStringLiteral("[%1/%2] %3 %4 %5 (%6 s)")
                                .arg(done).arg(total).arg(c.verdict, -5).arg(c.taskId, c.failureClass)
                                .arg(c.seconds, 0, 'f', 1));
        };
        nlohmann::json args = {{"source", req.sources.join(QLatin1Char(',')).toStdString()},
                               {"method", opt.method},
                               {"round", opt.round},
                               {"device", opt.device},
                               {"jobs", opt.jobs},
                               {"front_end", "kbx-workbench"}};
        const auto sum = ev.run(subs, onProgress, cancel.get(), args);
        result.runId = sum.runId;
        result.total = sum.total;
        result.passed = sum.passed;
        result.failed = sum.failed;
        result.notJudged = sum.harnessErrors;
        result.cancelled = sum.cancelled;
        result.seconds = sum.seconds;
        emit logMessage(tr("Run %1 %2: %3 passed, %4 failed, %5 not judged, of %6 in %7")
                            .arg(sum.runId)
                            .arg(sum.cancelled ? tr("cancelled") : tr("finished"))
                            .arg(sum.passed).arg(sum.failed).arg(sum.harnessErrors).arg(sum.total)
                            .arg(formatDuration(sum.seconds)));
        finish();
    } catch (const std::exception& e) {
        fail(QString::fromStdString(e.what()));
    }
}

}  // namespace kbx::gui
