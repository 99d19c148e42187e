// SPDX-License-Identifier: MIT
#include "runpanel.h"

#include "database.h"

#include <QComboBox>
#include <QDragEnterEvent>
#include <QDropEvent>
#include <QFileDialog>
#include <QFileInfo>
#include <QFontDatabase>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QMimeData>
#include <QPlainTextEdit>
#include <QProgressBar>
#include <QPushButton>
#include <QSpinBox>
#include <QSplitter>
#include <QTableWidget>
#include <QThread>
#include <QTime>
#include <QVBoxLayout>

namespace kbx::gui {

RunPanel::RunPanel(QWidget* parent)
    : QWidget(parent), m_controller(new RunController(this)), m_sources(new QListWidget), m_db(new QLineEdit),
      m_method(new QLineEdit(QStringLiteral("default"))), m_tasks(new QLineEdit), m_round(new QSpinBox), m_device(new QComboBox), m_jobs(new QSpinBox),
      m_gpus(new QLineEdit),
      m_start(new QPushButton(tr("Start run"))), m_cancel(new QPushButton(tr("Cancel"))), m_progress(new QProgressBar),
      m_eta(new QLabel), m_status(new QTableWidget(0, 5)), m_log(new QPlainTextEdit)
{
    setAcceptDrops(true);
    setObjectName(QStringLiteral("runPanel"));
    m_sources->setObjectName(QStringLiteral("runSources"));
    m_sources->setToolTip(tr("Submission files or folders in any seed format (JSONL, Category/stem.py, folders, "
                             "round-transition corpus). Drop files here."));
    m_sources->setSelectionMode(QAbstractItemView::ExtendedSelection);
    m_sources->setMinimumHeight(60);
    auto* addFiles = new QPushButton(tr("Add files…"));
    auto* addDir = new QPushButton(tr("Add folder…"));
    auto* remove = new QPushButton(tr("Remove"));
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
    m_log->setReadOnly(true);
    m_log->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    m_log->setMaximumBlockCount(5000);
    m_log->setObjectName(QStringLiteral("runLog"));

    auto* srcButtons = new QHBoxLayout;
    srcButtons->addWidget(addFiles);
    srcButtons->addWidget(addDir);
    srcButtons->addWidget(remove);
    srcButtons->addStretch(1);
    auto* form = new QFormLayout;
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
    auto* run = new QHBoxLayout;
    run->addWidget(m_start);
    run->addWidget(m_cancel);
    run->addWidget(m_progress, 1);
    run->addWidget(m_eta);

    auto* top = new QWidget;
    auto* tl = new QVBoxLayout(top);
    tl->setContentsMargins(0, 0, 0, 0);
    tl->addWidget(new QLabel(tr("Submissions:")));
    tl->addWidget(m_sources, 1);
    tl->addLayout(srcButtons);
    tl->addLayout(form);
    tl->addLayout(run);
    auto* split = new QSplitter(Qt::Vertical);
    split->addWidget(top);
    split->addWidget(m_status);
    split->addWidget(m_log);
    auto* l = new QVBoxLayout(this);
    l->setContentsMargins(4, 4, 4, 4);
    l->addWidget(split);

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
    updateButtons();
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
    return r;
}

bool RunPanel::start()
{
    QString err;
    const RunRequest r = request();
    // Create the database here, before the run's thread and the views open it.
    if (!r.database.isEmpty() && !isRunning() && !createDatabase(r.database, &err)) {
        appendLog(tr("Cannot start: %1").arg(err));
        return false;
    }
    m_status->setRowCount(0);
    m_progress->setRange(0, 0);  // busy until the sources are read and the worker answered
    m_eta->clear();
    if (!m_controller->start(r, &err)) {
        appendLog(tr("Cannot start: %1").arg(err));
        m_progress->setRange(0, 1);
        return false;
    }
    appendLog(tr("Run requested: %n source(s), device %1, method %2, round %3", nullptr, int(r.sources.size()))
                  .arg(r.device, r.method)
                  .arg(r.round));
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
    m_status->setItem(row, 0, new QTableWidgetItem(QString::number(c.index)));
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
    if (!r.error.isEmpty())
        m_eta->setText(tr("failed"));
    else if (r.cancelled)
        m_eta->setText(tr("cancelled after %1").arg(formatDuration(r.seconds)));
    updateButtons();
    emit runFinished(r);
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
