// SPDX-License-Identifier: MIT
#include "runpanel.h"

#include "database.h"

#include <QComboBox>
#include <QDir>
#include <QDoubleSpinBox>
#include <QDragEnterEvent>
#include <QDropEvent>
#include <QFileDialog>
#include <QFileInfo>
#include <QFontDatabase>
#include <QFormLayout>
#include <QGridLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QMenu>
#include <QApplication>
#include <QClipboard>
#include <QMimeData>
#include <QPlainTextEdit>
#include <QProgressBar>
#include <QPushButton>
#include <QSpinBox>
#include <QSplitter>
#include <QStandardItemModel>
#include <QTableWidget>
#include <QThread>
#include <QToolButton>
#include <QTime>
#include <QVBoxLayout>

namespace kbx::gui {

RunPanel::RunPanel(QWidget* parent)
    : QWidget(parent), m_controller(new RunController(this)), m_sources(new QListWidget), m_db(new QLineEdit),
      m_method(new QLineEdit(QStringLiteral("default"))), m_tasks(new QLineEdit), m_round(new QSpinBox), m_device(new QComboBox), m_jobs(new QSpinBox),
      m_gpus(new QLineEdit),
      m_start(new QPushButton(tr("Start run"))), m_cancel(new QPushButton(tr("Cancel"))), m_progress(new QProgressBar),
      m_eta(new QLabel), m_status(new QTableWidget(0, 5)), m_log(new QPlainTextEdit), m_backend(new QComboBox),
      m_slurmBox(new QGroupBox(tr("Slurm"))), m_partition(new QLineEdit), m_gpusPerTask(new QSpinBox), m_cpusPerTask(new QSpinBox),
      m_maxJobs(new QSpinBox), m_shards(new QSpinBox), m_timeLimit(new QLineEdit), m_retries(new QSpinBox), m_poll(new QDoubleSpinBox),
      m_workDir(new QLineEdit), m_resubmit(new QPushButton(tr("Resubmit")))
{
    setAcceptDrops(true);
    setObjectName(QStringLiteral("runPanel"));
    setUpFields();
    auto* addFiles = new QPushButton(tr("Add files…"));
    auto* addDir = new QPushButton(tr("Add folder…"));
    auto* remove = new QPushButton(tr("Remove"));

    auto* srcButtons = new QHBoxLayout;
    srcButtons->addWidget(addFiles);
    srcButtons->addWidget(addDir);
    srcButtons->addWidget(remove);
    srcButtons->addStretch(1);
    auto* form = buildForm();
    auto* browseWork = buildSlurmOptions();

    auto* run = new QHBoxLayout;
    run->addWidget(m_start);
    run->addWidget(m_cancel);
    run->addWidget(m_progress, 1);
    // The progress text on a line of its own: a Slurm run's (shards per state, merged evaluations)
    // is longer than a dock is wide.
    m_eta->setObjectName(QStringLiteral("runEta"));
    m_eta->setWordWrap(true);

    auto* top = new QWidget;
    auto* tl = new QVBoxLayout(top);
    tl->setContentsMargins(0, 0, 0, 0);
    tl->addWidget(new QLabel(tr("Submissions:")));
    tl->addWidget(m_sources, 1);
    tl->addLayout(srcButtons);
    tl->addLayout(form);
    tl->addWidget(m_slurmBox);
    tl->addLayout(run);
    tl->addWidget(m_eta);
    auto* split = new QSplitter(Qt::Vertical);
    split->addWidget(top);
    split->addWidget(m_status);
    split->addWidget(m_log);
    auto* l = new QVBoxLayout(this);
    l->setContentsMargins(4, 4, 4, 4);
    l->addWidget(split);

    connectSignals(addFiles, addDir, remove, browseWork);
    refreshBackends();
    updateBackendWidgets();
}

void RunPanel::setUpFields()
{
    m_sources->setObjectName(QStringLiteral("runSources"));
    m_sources->setToolTip(tr("Submission files or folders in any seed format (JSONL, Category/stem.py, folders, "
                             "round-transition corpus). Drop files here."));
    m_sources->setSelectionMode(QAbstractItemView::ExtendedSelection);
    m_sources->setMinimumHeight(60);
    m_device->addItem(tr("CPU (Triton interpreter)"), QStringLiteral("cpu"));
    m_device->addItem(tr("CUDA GPU"), QStringLiteral("cuda"));
    m_device->addItem(tr("Auto"), QStringLiteral("auto"));
    m_round->setRange(0, 1000);
    m_jobs->setRange(1, QThread::idealThreadCount() * 2);
    m_jobs->setValue(1);
    m_db->setPlaceholderText(tr("database the results go to"));
    m_cancel->setEnabled(false);
    m_progress->setRange(0, 1);
    m_progress->setValue(0);
    m_progress->setFormat(tr("%v of %m"));
    m_progress->setTextVisible(false);
    m_status->setHorizontalHeaderLabels({tr("#"), tr("Task"), tr("Verdict"), tr("Class"), tr("Seconds")});
    m_status->horizontalHeader()->setStretchLastSection(false);
    m_status->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    m_status->horizontalHeader()->setSectionResizeMode(1, QHeaderView::Stretch);
    m_status->verticalHeader()->hide();
    m_status->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_status->setObjectName(QStringLiteral("runStatus"));
    m_status->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_status->setContextMenuPolicy(Qt::CustomContextMenu);
    m_status->setToolTip(tr("Double click or Enter: the candidate's evaluation in the inspector"));
    m_log->setReadOnly(true);
    m_log->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    m_log->setMaximumBlockCount(5000);
    m_log->setObjectName(QStringLiteral("runLog"));
}

QFormLayout* RunPanel::buildForm()
{
    auto* form = new QFormLayout;
    // A narrow dock (a laptop screen, issue 24): a row that does not fit puts its field under its label.
    form->setRowWrapPolicy(QFormLayout::WrapLongRows);
    form->setFieldGrowthPolicy(QFormLayout::AllNonFixedFieldsGrow);
    form->addRow(tr("Database:"), m_db);
    m_tasks->setPlaceholderText(tr("all tasks in the sources (or e.g. Activation/relu, Math)"));
    m_tasks->setClearButtonEnabled(true);
    form->addRow(tr("Tasks:"), m_tasks);
    auto* mr = new QHBoxLayout;
    mr->addWidget(m_method, 1);
    mr->addWidget(new QLabel(tr("Round")));
    mr->addWidget(m_round);
    form->addRow(tr("Method:"), mr);
    auto* dj = new QHBoxLayout;
    dj->addWidget(m_device, 1);
    dj->addWidget(new QLabel(tr("Jobs")));
    dj->addWidget(m_jobs);
    dj->addWidget(new QLabel(tr("GPUs")));
    m_gpus->setObjectName(QStringLiteral("runGpus"));
    m_gpus->setPlaceholderText(tr("e.g. 0,1 or all"));
    m_gpus->setToolTip(tr("CUDA only: spread the run over these GPUs, one pool of Jobs workers per GPU, one timing at a "
                          "time per GPU; a GPU that fails its health probe leaves the pool (kbx eval --gpus)"));
    dj->addWidget(m_gpus);
    form->addRow(tr("Device:"), dj);

    // Backend: this machine, or a Slurm job array (kbx eval --backend slurm).
    m_backend->setObjectName(QStringLiteral("runBackend"));
    m_backend->addItem(tr("Local (this machine)"), QStringLiteral("local"));
    m_backend->addItem(tr("Slurm cluster (job array)"), QStringLiteral("slurm"));
    form->addRow(tr("Backend:"), m_backend);
    return form;
}

QToolButton* RunPanel::buildSlurmOptions()
{
    m_slurmBox->setObjectName(QStringLiteral("runSlurmOptions"));
    m_partition->setObjectName(QStringLiteral("runPartition"));
    m_partition->setPlaceholderText(tr("cluster default"));
    m_partition->setToolTip(tr("sbatch --partition of the array tasks (kbx eval --partition)"));
    m_gpusPerTask->setObjectName(QStringLiteral("runGpusPerTask"));
    m_gpusPerTask->setRange(0, 64);
    m_gpusPerTask->setSpecialValueText(tr("none"));
    m_gpusPerTask->setToolTip(tr("GPUs per array task, --gres=gpu:N (kbx eval --gpus-per-task)"));
    m_cpusPerTask->setObjectName(QStringLiteral("runCpusPerTask"));
    m_cpusPerTask->setRange(0, 1024);
    m_cpusPerTask->setSpecialValueText(tr("default"));
    m_cpusPerTask->setToolTip(tr("CPUs per array task (kbx eval --cpus-per-task)"));
    m_maxJobs->setObjectName(QStringLiteral("runMaxJobs"));
    m_maxJobs->setRange(0, 100000);
    m_maxJobs->setSpecialValueText(tr("no limit"));
    m_maxJobs->setToolTip(tr("Array tasks running at once, --array=...%M (kbx eval --max-jobs)"));
    m_shards->setObjectName(QStringLiteral("runShards"));
    m_shards->setRange(0, 100000);
    m_shards->setSpecialValueText(tr("auto"));
    m_shards->setToolTip(tr("Shards = array tasks; auto: min(submissions, max jobs or 8) (kbx eval --shards)"));
    m_timeLimit->setObjectName(QStringLiteral("runTimeLimit"));
    m_timeLimit->setPlaceholderText(tr("partition default, e.g. 2:00:00"));
    m_timeLimit->setToolTip(tr("sbatch --time of each array task (kbx eval --time-limit)"));
    m_retries->setObjectName(QStringLiteral("runRetries"));
    m_retries->setRange(0, 10);
    m_retries->setValue(1);
    m_retries->setToolTip(tr("Automatic re-submissions of a shard that failed (kbx eval --retries)"));
    m_poll->setObjectName(QStringLiteral("runPoll"));
    m_poll->setRange(0.2, 3600);
    m_poll->setDecimals(1);
    m_poll->setValue(10);
    m_poll->setSuffix(tr(" s"));
    m_poll->setToolTip(tr("Seconds between squeue/sacct polls (kbx eval --poll)"));
    m_workDir->setObjectName(QStringLiteral("runWorkDir"));
    m_workDir->setPlaceholderText(tr("beside the database: kbx-slurm-<date-time>"));
    m_workDir->setToolTip(tr("Script, shard databases and logs of the run; on a file system the nodes share, as kbx, the tasks "
                             "and the submissions must be (kbx eval --work-dir)"));
    m_workDir->setClearButtonEnabled(true);
    m_resubmit->setObjectName(QStringLiteral("runResubmit"));
    auto* browseWork = new QToolButton;
    browseWork->setText(tr("…"));
    browseWork->setToolTip(tr("Choose the work directory"));
    auto* sg = new QGridLayout(m_slurmBox);
    sg->addWidget(new QLabel(tr("Partition")), 0, 0);
    sg->addWidget(m_partition, 0, 1);
    sg->addWidget(new QLabel(tr("GPUs/task")), 0, 2);
    sg->addWidget(m_gpusPerTask, 0, 3);
    sg->addWidget(new QLabel(tr("Shards")), 1, 0);
    sg->addWidget(m_shards, 1, 1);
    sg->addWidget(new QLabel(tr("Max at once")), 1, 2);
    sg->addWidget(m_maxJobs, 1, 3);
    sg->addWidget(new QLabel(tr("Time limit")), 2, 0);
    sg->addWidget(m_timeLimit, 2, 1);
    sg->addWidget(new QLabel(tr("CPUs/task")), 2, 2);
    sg->addWidget(m_cpusPerTask, 2, 3);
    sg->addWidget(new QLabel(tr("Retries")), 3, 0);
    sg->addWidget(m_retries, 3, 1);
    sg->addWidget(new QLabel(tr("Poll every")), 3, 2);
    sg->addWidget(m_poll, 3, 3);
    auto* wd = new QHBoxLayout;
    wd->addWidget(m_workDir, 1);
    wd->addWidget(browseWork);
    wd->addWidget(m_resubmit);
    sg->addWidget(new QLabel(tr("Work dir")), 4, 0);
    sg->addLayout(wd, 4, 1, 1, 3);
    sg->setColumnStretch(1, 1);
    sg->setColumnStretch(3, 1);
    return browseWork;
}

void RunPanel::connectSignals(QPushButton* addFiles, QPushButton* addDir, QPushButton* remove, QToolButton* browseWork)
{
    connect(addFiles, &QPushButton::clicked, this, [this] {
        addSources(QFileDialog::getOpenFileNames(this, tr("Submission files"), {},
                                                 tr("Submissions (*.jsonl *.json *.py);;All files (*)")));
    });
    connect(addDir, &QPushButton::clicked, this, [this] {
        const QString d = QFileDialog::getExistingDirectory(this, tr("Folder of submissions"));
        if (!d.isEmpty())
            addSources({d});
    });
    connect(remove, &QPushButton::clicked, this, [this] { qDeleteAll(m_sources->selectedItems()); updateButtons(); });
    connect(m_start, &QPushButton::clicked, this, &RunPanel::start);
    connect(m_cancel, &QPushButton::clicked, this, &RunPanel::cancel);
    connect(m_controller, &RunController::started, this, &RunPanel::onStarted);
    connect(m_controller, &RunController::candidateFinished, this, &RunPanel::onCandidate);
    connect(m_controller, &RunController::progress, this, &RunPanel::onProgress);
    connect(m_controller, &RunController::logMessage, this, &RunPanel::appendLog);
    connect(m_controller, &RunController::finished, this, &RunPanel::onFinished);
    connect(m_controller, &RunController::slurmStarted, this, &RunPanel::onSlurmStarted);
    connect(m_controller, &RunController::shardChanged, this, &RunPanel::onShardChanged);
    connect(m_controller, &RunController::slurmProgress, this, &RunPanel::onSlurmProgress);
    connect(m_controller, &RunController::shardMerged, this, [this] { emit resultsMerged(); });
    connect(m_backend, &QComboBox::currentIndexChanged, this, [this] { updateBackendWidgets(); });
    connect(m_status, &QTableWidget::activated, this, [this](const QModelIndex& idx) {
        if (const qint64 id = evaluationIdAt(idx.row()); id > 0)
            emit evaluationActivated(id);
    });
    connect(m_status, &QWidget::customContextMenuRequested, this, [this](const QPoint& pos) {
        if (const QModelIndex idx = m_status->indexAt(pos); idx.isValid())
            m_status->setCurrentCell(idx.row(), idx.column());
        QMenu* menu = createStatusMenu();
        menu->setAttribute(Qt::WA_DeleteOnClose);
        menu->popup(m_status->viewport()->mapToGlobal(pos));
    });
    connect(m_resubmit, &QPushButton::clicked, this, &RunPanel::resubmit);
    connect(m_workDir, &QLineEdit::textChanged, this, [this] { updateButtons(); });
    connect(browseWork, &QToolButton::clicked, this, [this] {
        const QString d = QFileDialog::getExistingDirectory(this, tr("Work directory of the Slurm run (shared with the nodes)"),
                                                            m_workDir->text().isEmpty() ? QFileInfo(database()).absolutePath() : m_workDir->text());
        if (!d.isEmpty())
            m_workDir->setText(d);
    });
}

void RunPanel::refreshBackends()
{
    const QString why = slurmUnavailableReason();
    auto* model = qobject_cast<QStandardItemModel*>(m_backend->model());
    if (auto* item = model ? model->item(1) : nullptr) {
        item->setEnabled(why.isEmpty());
        item->setToolTip(why.isEmpty() ? tr("kbx eval --backend slurm: one job array of shards, polled with squeue/sacct, "
                                            "merged into the database as shards complete")
                                       : why);
    }
    m_backend->setToolTip(why.isEmpty() ? tr("Where the run goes: this machine, or a Slurm job array")
                                        : tr("Where the run goes. Slurm is not available: %1").arg(why));
    if (!why.isEmpty() && m_backend->currentIndex() == 1 && !isRunning())
        m_backend->setCurrentIndex(0);
    updateBackendWidgets();
}

bool RunPanel::setBackend(const QString& id)
{
    const int i = m_backend->findData(id);
    auto* model = qobject_cast<QStandardItemModel*>(m_backend->model());
    if (i < 0 || (model && !model->item(i)->isEnabled()))
        return false;
    m_backend->setCurrentIndex(i);
    return true;
}

void RunPanel::updateBackendWidgets()
{
    m_slurmBox->setVisible(m_backend->currentData().toString() == QLatin1String("slurm"));
    updateButtons();
}

QString RunPanel::resubmitWorkDir() const
{
    const QString field = m_workDir->text().trimmed();
    return field.isEmpty() ? m_lastWorkDir : QFileInfo(field).absoluteFilePath();
}

void RunPanel::setDatabase(const QString& path)
{
    if (!isRunning())
        m_db->setText(path);
}

QString RunPanel::database() const
{
    return m_db->text().trimmed();
}

QStringList RunPanel::sources() const
{
    QStringList s;
    for (int i = 0; i < m_sources->count(); ++i)
        s << m_sources->item(i)->data(Qt::UserRole).toString();
    return s;
}

void RunPanel::addSources(const QStringList& paths)
{
    const QStringList have = sources();
    for (const auto& p : paths) {
        if (p.isEmpty())
            continue;
        const QString abs = QFileInfo(p).absoluteFilePath();
        if (have.contains(abs))
            continue;
        auto* item = new QListWidgetItem(QFileInfo(abs).isDir() ? tr("%1/ (folder)").arg(abs) : abs);
        item->setData(Qt::UserRole, abs);
        m_sources->addItem(item);
    }
    updateButtons();
}

void RunPanel::clearSources()
{
    m_sources->clear();
    updateButtons();
}

bool RunPanel::isRunning() const
{
    return m_controller->isRunning();
}

RunRequest RunPanel::request() const
{
    RunRequest r;
    r.sources = sources();
    r.database = database();
    r.device = m_device->currentData().toString();
    r.method = m_method->text().trimmed();
    r.round = m_round->value();
    r.jobs = m_jobs->value();
    for (const auto& g : m_gpus->text().split(QLatin1Char(','), Qt::SkipEmptyParts))
        if (!g.trimmed().isEmpty())
            r.gpus << g.trimmed();
    for (const auto& t : m_tasks->text().split(QLatin1Char(','), Qt::SkipEmptyParts))
        if (!t.trimmed().isEmpty())
            r.tasks << t.trimmed().remove(QStringLiteral(".py"));
    r.backend = m_backend->currentData().toString();
    r.slurm.partition = m_partition->text().trimmed();
    r.slurm.gpusPerTask = m_gpusPerTask->value();
    r.slurm.cpusPerTask = m_cpusPerTask->value();
    r.slurm.maxJobs = m_maxJobs->value();
    r.slurm.shards = m_shards->value();
    r.slurm.timeLimit = m_timeLimit->text().trimmed();
    r.slurm.retries = m_retries->value();
    r.slurm.pollSeconds = m_poll->value();
    r.slurm.workDir = m_workDir->text().trimmed();
    return r;
}

bool RunPanel::start()
{
    return startRequest(request());
}

bool RunPanel::resubmit()
{
    RunRequest r = request();
    r.backend = QStringLiteral("slurm");
    r.slurm.resubmit = resubmitWorkDir();
    if (r.slurm.resubmit.isEmpty()) {
        appendLog(tr("Cannot resubmit: no work directory (set Work dir to a Slurm run's directory)"));
        return false;
    }
    return startRequest(r);
}

bool RunPanel::startRequest(const RunRequest& r)
{
    QString err;
    if (r.backend == QLatin1String("slurm")) {
        if (const QString why = slurmUnavailableReason(); !why.isEmpty()) {
            appendLog(tr("Cannot start: %1").arg(why));
            return false;
        }
    }
    // Create the database here, before the run's thread and the views open it.
    if (!r.database.isEmpty() && !isRunning() && !createDatabase(r.database, &err)) {
        appendLog(tr("Cannot start: %1").arg(err));
        return false;
    }
    m_status->setRowCount(0);
    m_slurmRun = r.backend == QLatin1String("slurm");
    m_status->setHorizontalHeaderLabels(m_slurmRun ? QStringList{tr("Shard"), tr("Job"), tr("State"), tr("Node"), tr("Evaluations")}
                                                   : QStringList{tr("#"), tr("Task"), tr("Verdict"), tr("Class"), tr("Seconds")});
    // The column that takes the room: the task (local), the state and why (Slurm).
    for (int c = 0; c < m_status->columnCount(); ++c)
        m_status->horizontalHeader()->setSectionResizeMode(c, c == (m_slurmRun ? 2 : 1) ? QHeaderView::Stretch : QHeaderView::ResizeToContents);
    m_progress->setRange(0, 0);  // busy until the sources are read and the worker answered
    m_progress->setFormat(m_slurmRun ? tr("%v of %m shards") : tr("%v of %m"));
    m_eta->clear();
    if (!m_controller->start(r, &err)) {
        appendLog(tr("Cannot start: %1").arg(err));
        m_progress->setRange(0, 1);
        return false;
    }
    if (m_slurmRun && !r.slurm.resubmit.isEmpty())
        appendLog(tr("Resubmit requested: %1, merged into %2").arg(r.slurm.resubmit, r.database));
    else
        appendLog(tr("Run requested: %n source(s), device %1, method %2, round %3%4", nullptr, int(r.sources.size()))
                      .arg(r.device, r.method)
                      .arg(r.round)
                      .arg(m_slurmRun ? tr(", on Slurm") : QString()));
    emit runStarted(r.database);
    updateButtons();
    return true;
}

void RunPanel::cancel()
{
    m_controller->cancel();
}

void RunPanel::onStarted(int total, const QString& device)
{
    m_progress->setTextVisible(true);
    m_progress->setRange(0, total);
    m_progress->setValue(0);
    m_eta->setText(tr("on %1").arg(device));
}

void RunPanel::onCandidate(const CandidateResult& c)
{
    const int row = m_status->rowCount();
    m_status->insertRow(row);
    auto* first = new QTableWidgetItem(QString::number(c.index));
    first->setData(Qt::UserRole, c.evaluationId);  // the row opens this evaluation in the inspector
    m_status->setItem(row, 0, first);
    m_status->setItem(row, 1, new QTableWidgetItem(c.taskId));
    auto* v = new QTableWidgetItem(c.verdict);
    v->setForeground(c.verdict == QLatin1String("pass") ? QColor(40, 150, 60)
                                                        : (c.verdict == QLatin1String("fail") ? QColor(205, 50, 45) : QColor(200, 130, 0)));
    v->setToolTip(c.detail);
    m_status->setItem(row, 2, v);
    auto* cls = new QTableWidgetItem(c.failureClass);
    cls->setToolTip(c.detail);
    m_status->setItem(row, 3, cls);
    m_status->setItem(row, 4, new QTableWidgetItem(QString::number(c.seconds, 'f', 1)));
    m_status->scrollToBottom();
    if (c.evaluationId > 0)
        emit evaluationStored(c.evaluationId);
}

void RunPanel::onProgress(int done, int total, double elapsed, double eta)
{
    m_progress->setRange(0, total);
    m_progress->setValue(done);
    m_eta->setText(done < total ? tr("elapsed %1, ETA %2").arg(formatDuration(elapsed), formatDuration(eta))
                                : tr("done in %1").arg(formatDuration(elapsed)));
}

void RunPanel::onFinished(const RunResult& r)
{
    if (m_progress->maximum() == 0)
        m_progress->setRange(0, 1);
    if (r.backend == QLatin1String("slurm")) {
        if (!r.workDir.isEmpty())
            m_lastWorkDir = r.workDir;
        // Something to continue: the work directory goes into the field, so Resubmit continues it
        // (and a new Start there is refused with a message that says so).
        if ((r.cancelled || !r.incompleteShards.isEmpty()) && !r.workDir.isEmpty() &&
            QFileInfo::exists(QDir(r.workDir).filePath(QStringLiteral("run.json"))))
            m_workDir->setText(r.workDir);
        if (r.cancelled)
            m_eta->setText(tr("cancelled after %1 (array tasks scancelled)").arg(formatDuration(r.seconds)));
        else if (!r.incompleteShards.isEmpty())
            m_eta->setText(tr("%1 of %2 shards merged; %n failed: Resubmit", nullptr, int(r.incompleteShards.size()))
                               .arg(r.mergedShards)
                               .arg(r.shards));
        else if (!r.error.isEmpty())
            m_eta->setText(tr("failed"));
        else
            m_eta->setText(tr("%1 shards merged, %2 evaluations, in %3").arg(r.mergedShards).arg(r.total).arg(formatDuration(r.seconds)));
        m_eta->setToolTip(r.error);
    } else if (!r.error.isEmpty()) {
        m_eta->setText(tr("failed"));
    } else if (r.cancelled) {
        m_eta->setText(tr("cancelled after %1").arg(formatDuration(r.seconds)));
    }
    updateButtons();
    emit runFinished(r);
}

void RunPanel::onSlurmStarted(int submissions, int shards, const QString& workDir)
{
    m_lastWorkDir = workDir;
    m_status->setRowCount(shards);
    m_progress->setTextVisible(true);
    m_progress->setRange(0, qMax(1, shards));
    m_progress->setValue(0);
    m_eta->setText(tr("Slurm: %n submission(s)", nullptr, submissions) + tr(" in %n shard(s)", nullptr, shards));
    m_eta->setToolTip(tr("Work directory %1").arg(workDir));
}

void RunPanel::onShardChanged(const ShardStatus& s)
{
    if (s.shard < 0)
        return;
    if (s.shard >= m_status->rowCount())
        m_status->setRowCount(s.shard + 1);
    const QString tip = s.detail.isEmpty() ? QString() : s.detail;
    auto put = [&](int col, const QString& text) {
        auto* it = new QTableWidgetItem(text);
        it->setToolTip(tip);
        m_status->setItem(s.shard, col, it);
        return it;
    };
    put(0, QStringLiteral("%1/%2").arg(s.shard).arg(s.shards));
    put(1, s.jobId.isEmpty() ? QString() : QStringLiteral("%1_%2").arg(s.jobId).arg(s.shard));
    auto* st = put(2, s.detail.isEmpty() ? s.state : QStringLiteral("%1 — %2").arg(s.state, s.detail));
    st->setForeground(s.phase == QLatin1String("done")      ? QColor(40, 150, 60)
                      : s.phase == QLatin1String("failed")  ? QColor(205, 50, 45)
                      : s.phase == QLatin1String("running") ? QColor(40, 110, 200)
                                                            : QColor(200, 130, 0));
    put(3, s.nodes);
    put(4, s.evaluations < 0 ? QString() : tr("%1 (%2 pass)").arg(s.evaluations).arg(s.passed));
}

void RunPanel::onSlurmProgress(const SlurmProgress& p)
{
    m_progress->setTextVisible(true);
    m_progress->setRange(0, qMax(1, p.shards));
    m_progress->setValue(p.done);
    m_eta->setText(tr("%1 pending · %2 running · %3 done · %4 failed · %n evaluation(s) merged", nullptr, p.mergedEvaluations)
                       .arg(p.pending)
                       .arg(p.running)
                       .arg(p.done)
                       .arg(p.failed) +
                   tr(" · %1").arg(formatDuration(p.elapsedSeconds)));
}

qint64 RunPanel::evaluationIdAt(int row) const
{
    const auto* it = m_slurmRun ? nullptr : m_status->item(row, 0);
    return it ? it->data(Qt::UserRole).toLongLong() : 0;
}

QMenu* RunPanel::createStatusMenu()
{
    auto* menu = new QMenu(this);
    menu->setObjectName(QStringLiteral("runStatusMenu"));
    const int row = m_status->currentRow();
    const qint64 id = row >= 0 ? evaluationIdAt(row) : 0;
    auto* open = menu->addAction(tr("Open in &inspector"), this, [this, id] { emit evaluationActivated(id); });
    open->setEnabled(id > 0);
    auto* code = menu->addAction(tr("Show &code beside the reference"), this, [this, id] { emit showCodeRequested(id); });
    code->setEnabled(id > 0);
    menu->addSeparator();
    auto* copy = menu->addAction(tr("&Copy the row"), this, [this, row] {
        QStringList f;
        for (int c = 0; c < m_status->columnCount(); ++c)
            f << (m_status->item(row, c) ? m_status->item(row, c)->text() : QString());
        QApplication::clipboard()->setText(f.join(QLatin1Char('\t')));
    });
    copy->setEnabled(row >= 0);
    auto* copyLog = menu->addAction(tr("Copy the &log"), this, [this] { QApplication::clipboard()->setText(m_log->toPlainText()); });
    copyLog->setEnabled(!m_log->toPlainText().isEmpty());
    return menu;
}

void RunPanel::appendLog(const QString& line)
{
    m_log->appendPlainText(QStringLiteral("%1  %2").arg(QTime::currentTime().toString(QStringLiteral("HH:mm:ss")), line));
}

void RunPanel::updateButtons()
{
    const bool running = isRunning();
    m_start->setEnabled(!running && m_sources->count() > 0);
    m_cancel->setEnabled(running);
    m_backend->setEnabled(!running);
    m_slurmBox->setEnabled(!running);
    const QString work = resubmitWorkDir();
    const bool canResubmit = !running && !work.isEmpty() && QFileInfo::exists(QDir(work).filePath(QStringLiteral("run.json")));
    m_resubmit->setEnabled(canResubmit);
    m_resubmit->setToolTip(canResubmit ? tr("Continue the Slurm run in %1: re-submit the shards that did not finish, then merge "
                                            "(kbx eval --backend slurm --resubmit)")
                                             .arg(work)
                                       : tr("Continue a Slurm run: set Work dir to its directory (kbx eval --backend slurm --resubmit)"));
}

void RunPanel::dragEnterEvent(QDragEnterEvent* e)
{
    if (e->mimeData()->hasUrls()) {
        for (const auto& u : e->mimeData()->urls())
            if (u.isLocalFile()) {
                e->acceptProposedAction();
                return;
            }
    }
    QWidget::dragEnterEvent(e);
}

void RunPanel::dropEvent(QDropEvent* e)
{
    QStringList paths;
    for (const auto& u : e->mimeData()->urls())
        if (u.isLocalFile())
            paths << u.toLocalFile();
    if (paths.isEmpty())
        return;
    addSources(paths);
    e->acceptProposedAction();
}

}  // namespace kbx::gui
