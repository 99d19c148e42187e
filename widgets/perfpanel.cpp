// SPDX-License-Identifier: MIT
#include "perfpanel.h"

#include "perfdescribe.h"

#include <QHeaderView>
#include <QJsonArray>
#include <QJsonDocument>
#include <QLabel>
#include <QMap>
#include <QTableWidget>
#include <QVBoxLayout>

namespace kbx::gui {

namespace {

const QColor kFaster(0x2a, 0x9a, 0x3c);
const QColor kSlower(0xcd, 0x32, 0x2d);

QString ms(double v) { return QString::fromStdString(kbx::perf::formatMs(v)); }

QString pct(double v, int prec = 1) { return QStringLiteral("%1 %").arg(100.0 * v, 0, 'f', prec); }

QString interval(const QJsonObject& i)
{
    return QStringLiteral("%1× [%2, %3]")
        .arg(i.value(QStringLiteral("estimate")).toDouble(), 0, 'f', 3)
        .arg(i.value(QStringLiteral("lo")).toDouble(), 0, 'f', 3)
        .arg(i.value(QStringLiteral("hi")).toDouble(), 0, 'f', 3);
}

/// A stored JSON object as the core's describing functions take it.
nlohmann::json toJson(const QJsonObject& o)
{
    return nlohmann::json::parse(QJsonDocument(o).toJson(QJsonDocument::Compact).toStdString(), nullptr, false);
}

QTableWidgetItem* item(const QString& text, const QString& tip = {})
{
    auto* it = new QTableWidgetItem(text);
    if (!tip.isEmpty())
        it->setToolTip(tip);
    return it;
}

QTableWidgetItem* numeric(const QString& text, const QString& tip = {})
{
    auto* it = item(text, tip);
    it->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
    return it;
}

void setupTable(QTableWidget* t, const QStringList& headers, const char* name, int rowHeight)
{
    t->setColumnCount(int(headers.size()));
    t->setHorizontalHeaderLabels(headers);
    t->horizontalHeader()->setStretchLastSection(true);
    t->verticalHeader()->hide();
    t->verticalHeader()->setDefaultSectionSize(rowHeight);
    t->setEditTriggers(QAbstractItemView::NoEditTriggers);
    t->setSelectionBehavior(QAbstractItemView::SelectRows);
    t->setObjectName(QLatin1String(name));
}

}  // namespace

PerfPanel::PerfPanel(QWidget* parent)
    : QWidget(parent), m_summary(new QLabel), m_shapes(new QTableWidget), m_shapeDetail(new QLabel), m_kernelsTitle(new QLabel),
      m_kernels(new QTableWidget)
{
    m_shapeDetail->setWordWrap(true);
    m_shapeDetail->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_shapeDetail->setObjectName(QStringLiteral("perfShapeDetail"));
    m_summary->setTextFormat(Qt::RichText);
    m_summary->setWordWrap(true);
    m_summary->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_summary->setObjectName(QStringLiteral("perfSummary"));
    // Wrapped, and never the window's minimum width (issue 24: laptop screens; a flag or a kernel
    // name is one long word).
    m_kernelsTitle->setWordWrap(true);
    for (QLabel* l : {m_summary, m_shapeDetail, m_kernelsTitle})
        l->setMinimumWidth(120);
    const int rowHeight = fontMetrics().height() + 6;
    setupTable(m_shapes,
               {tr("Shape"), tr("Candidate"), tr("Eager"), tr("Speedup [95 % interval]"), tr("Sample CV"), tr("Pairs"), tr("Achieved (of peak)"),
                tr("Launch gap"), tr("Notes")},
               "perfShapes", rowHeight);
    m_shapes->horizontalHeaderItem(Candidate)->setToolTip(tr("median of the candidate's timed calls (CUDA events)"));
    m_shapes->horizontalHeaderItem(Eager)->setToolTip(tr("median of PyTorch eager (the task's reference), timed ABAB with it"));
    m_shapes->horizontalHeaderItem(Spread)->setToolTip(tr("coefficient of variation of the samples within this run: candidate / eager"));
    m_shapes->horizontalHeaderItem(Reps)->setToolTip(tr("timed pairs, and why the loop stopped (converged, time_cap, max_reps)"));
    m_shapes->horizontalHeaderItem(Achieved)->setToolTip(
        tr("achieved bandwidth (and compute rate), with their share of the device's measured copy bandwidth and matmul peak"));
    m_shapes->horizontalHeaderItem(Gap)->setToolTip(
        tr("device time spun before each timed call so that the host has enqueued it first; first → final when starved samples widened it"));
    m_kernelsTitle->setObjectName(QStringLiteral("perfKernelsTitle"));
    setupTable(m_kernels, {tr("Kernel"), tr("Calls"), tr("GPU time"), tr("Share"), tr("Triton")}, "perfKernels", rowHeight);
    m_kernels->horizontalHeader()->setStretchLastSection(false);
    m_kernels->horizontalHeader()->setSectionResizeMode(0, QHeaderView::Stretch);

    auto* l = new QVBoxLayout(this);
    l->addWidget(m_summary);
    l->addWidget(m_shapes, 3);
    l->addWidget(m_shapeDetail);
    l->addWidget(m_kernelsTitle);
    l->addWidget(m_kernels, 2);
    connect(m_shapes, &QTableWidget::currentCellChanged, this, [this](int row) { showShapeDetail(row); });
    clear();
}

void PerfPanel::showShapeDetail(int row)
{
    m_shapeDetail->setText(row >= 0 && row < m_details.size() ? m_details[row] : QString());
}

void PerfPanel::clear(const QString& message)
{
    m_hasPerf = false;
    m_summary->setText(message.isEmpty() ? tr("<i>No evaluation chosen.</i>") : message.toHtmlEscaped());
    m_details.clear();
    m_shapes->setRowCount(0);
    m_shapeDetail->clear();
    m_kernels->setRowCount(0);
    m_kernelsTitle->clear();
    m_shapes->setEnabled(false);
    m_kernels->setEnabled(false);
}

void PerfPanel::setEvaluation(const EvaluationDetails& d)
{
    const auto perf = d.evidence.value(QStringLiteral("perf")).toObject();
    if (perf.isEmpty() && d.timings.isEmpty()) {
        clear(d.verdict == QLatin1String("pass")
                  ? tr("Not timed: this evaluation ran without --perf (kbx eval --perf, or Perf in the run panel).")
                  : tr("Not timed: only candidates that pass the correctness stage are timed."));
        return;
    }
    m_hasPerf = true;
    m_shapes->setEnabled(true);
    m_kernels->setEnabled(true);
    const int nShapes = int(d.timings.size());
    showSummary(perf, nShapes);
    showShapes(d);
    showKernels(perf.value(QStringLiteral("attribution")).toObject());
}

void PerfPanel::showSummary(const QJsonObject& perf, int nShapes)
{
    // The verdict against eager. Audit flags (an output re-check that failed, a time below the
    // roofline bound, device work outside the events, a speedup above 10x) come first, as a warning,
    // and take the emphasis off the speedup: it is not a result until they are explained (issue 24).
    QStringList lines;
    const auto g = perf.value(QStringLiteral("geomean_speedup")).toObject();
    QStringList audit;
    {
        QMap<QString, int> byKind;
        for (const auto& f : perf.value(QStringLiteral("flags")).toArray()) {
            const QString kind = f.toString().section(QLatin1Char(':'), 0, 0);
            if (kind == QLatin1String("output_recheck_failed") || kind == QLatin1String("faster_than_roofline") ||
                kind == QLatin1String("device_work_outside_events") || kind == QLatin1String("speedup_over_10x"))
                ++byKind[kind];
        }
        const QMap<QString, QString> words = {{QStringLiteral("output_recheck_failed"), tr("failed the output re-check")},
                                              {QStringLiteral("faster_than_roofline"), tr("ran faster than the roofline bound")},
                                              {QStringLiteral("device_work_outside_events"), tr("did device work outside the timing events")},
                                              {QStringLiteral("speedup_over_10x"), tr("claim a speedup above 10×")}};
        for (auto it = byKind.cbegin(); it != byKind.cend(); ++it)
            audit << tr("%1 of %2 shapes %3").arg(it.value()).arg(nShapes).arg(words.value(it.key()));
    }
    if (!audit.isEmpty())
        lines << tr("<b style='color:%1'>⚠ Audit: %2. The speedup below is not a result until this is explained.</b>")
                     .arg(kSlower.name(), audit.join(QStringLiteral("; ")));
    const QString em = audit.isEmpty() ? QStringLiteral("b") : QStringLiteral("span");
    if (!g.isEmpty()) {
        const QString vs = perf.value(QStringLiteral("vs_eager")).toString();
        const QColor c = vs == QLatin1String("faster") ? kFaster : vs == QLatin1String("slower") ? kSlower : palette().color(QPalette::WindowText);
        // kbx-perf-2: the interval covers a repeat (fresh processes); older runs: one process's CI.
        const bool repeat = g.value(QStringLiteral("interval")).toString() == QLatin1String("repeat");
        const QString kind = repeat ? tr("95 % repeat interval over %1 fresh processes").arg(g.value(QStringLiteral("processes")).toInt())
                                    : tr("95 % CI of one process");
        QString line = nShapes == 1 ? tr("<%2>Speedup against eager: %1</%2> (one shape, %3)").arg(interval(g), em, kind)
                                    : tr("<%3>Speedup against eager: %1</%3> (geometric mean over %2 shapes, %4)")
                                          .arg(interval(g))
                                          .arg(nShapes)
                                          .arg(em, kind);
        if (!vs.isEmpty()) {
            const auto band = perf.value(QStringLiteral("noise_band")).toObject();
            line += tr(" — <b style='color:%1'>%2</b>; a tie is an interval inside the noise band [%3, %4] (%5)")
                        .arg(c.name(), vs)
                        .arg(band.value(QStringLiteral("lo")).toDouble(0.98), 0, 'f', 3)
                        .arg(band.value(QStringLiteral("hi")).toDouble(1.02), 0, 'f', 3)
                        .arg(band.value(QStringLiteral("from")).toString().toHtmlEscaped());
        }
        if (perf.contains(QStringLiteral("sum_time_ratio")))
            line += tr(". Σ-time ratio %1.").arg(perf.value(QStringLiteral("sum_time_ratio")).toDouble(), 0, 'f', 3);
        lines << line;
        // Why more processes than the first ones (the perf stage's extra_processes, docs/PERF_PROTOCOL.md).
        const auto extra = perf.value(QStringLiteral("extra_processes")).toObject();
        if (repeat && !extra.isEmpty()) {
            QString text = QString::fromStdString(kbx::perf::extraProcessesText(toJson(extra)));
            text[0] = text[0].toUpper();
            lines << text.toHtmlEscaped() + QLatin1Char('.');
        }
    } else {
        lines << tr("<b>No speedup</b>: the samples cannot be trusted as a comparison with eager (see the flags).");
    }
    // Attribution.
    const auto att = perf.value(QStringLiteral("attribution")).toObject();
    if (att.value(QStringLiteral("available")).toBool()) {
        const QString shape = att.value(QStringLiteral("shape")).toString();
        lines << tr("Triton kernels launched by the candidate: <b>%1</b> of %2 of GPU time in one profiled call%3.")
                     .arg(pct(att.value(QStringLiteral("triton_share")).toDouble()), ms(att.value(QStringLiteral("gpu_us")).toDouble() / 1e3),
                          shape.isEmpty() ? QString() : tr(" (shape %1)").arg(shape.toHtmlEscaped()));
    } else if (!att.isEmpty()) {
        lines << tr("No kernel attribution: %1.").arg(att.value(QStringLiteral("reason")).toString().toHtmlEscaped());
    }
    // Where it ran.
    const auto gpu = perf.value(QStringLiteral("gpu")).toObject();
    const auto nv = perf.value(QStringLiteral("nvml_before")).toObject();
    QString where = gpu.value(QStringLiteral("name")).toString(perf.value(QStringLiteral("device")).toString());
    if (!nv.isEmpty())
        where += tr(" · before timing: SM %1 MHz, memory %2 MHz, %3 °C, %4 W")
                     .arg(nv.value(QStringLiteral("sm_clock_mhz")).toInt())
                     .arg(nv.value(QStringLiteral("mem_clock_mhz")).toInt())
                     .arg(nv.value(QStringLiteral("temperature_c")).toInt())
                     .arg(nv.value(QStringLiteral("power_w")).toDouble(), 0, 'f', 0);
    if (perf.contains(QStringLiteral("seconds")))
        where += tr(" · perf stage %1 s").arg(perf.value(QStringLiteral("seconds")).toDouble(), 0, 'f', 1);
    if (!where.isEmpty())
        lines << where.toHtmlEscaped();
    QStringList flags;
    for (const auto& f : perf.value(QStringLiteral("flags")).toArray())
        flags << QString::fromStdString(kbx::perf::flagText(f.toString().toStdString())).toHtmlEscaped();
    lines << (flags.isEmpty() ? tr("Flags: none.") : tr("<b>Flags:</b> %1.").arg(flags.join(QStringLiteral("; "))));
    m_summary->setText(lines.join(QStringLiteral("<br>")));
}

void PerfPanel::showShapes(const EvaluationDetails& d)
{
    // One row per shape.
    const int nShapes = int(d.timings.size());
    m_details.clear();
    m_shapes->setRowCount(nShapes);
    for (int r = 0; r < nShapes; ++r) {
        const auto& t = d.timings[r];
        const auto& s = t.samples;
        const QString params = QString::fromUtf8(QJsonDocument(s.value(QStringLiteral("params")).toObject()).toJson(QJsonDocument::Compact));
        m_details << QStringLiteral("%1 %2").arg(t.shape, params);
        m_shapes->setItem(r, Shape, item(t.shape, params));
        if (s.contains(QStringLiteral("error")) || !(t.candidateMs > 0)) {
            for (int c = Candidate; c < Notes; ++c)
                m_shapes->setItem(r, c, item(QStringLiteral("—")));
            const QString msg = s.value(QStringLiteral("error")).toString() + QStringLiteral(": ") + s.value(QStringLiteral("message")).toString();
            m_shapes->setItem(r, Notes, item(msg.left(300), msg));
            m_shapes->item(r, Notes)->setForeground(kSlower);
            m_details.last() += QStringLiteral(": ") + msg;
            continue;
        }
        m_shapes->setItem(r, Candidate, numeric(ms(t.candidateMs)));
        m_shapes->setItem(r, Eager, numeric(ms(t.baselineMs)));
        const auto sp = s.value(QStringLiteral("speedup")).toObject();
        auto* spItem = numeric(sp.isEmpty() ? QStringLiteral("—") : interval(sp));
        if (sp.value(QStringLiteral("lo")).toDouble() > 1.0)
            spItem->setForeground(kFaster);
        else if (!sp.isEmpty() && sp.value(QStringLiteral("hi")).toDouble() < 1.0)
            spItem->setForeground(kSlower);
        m_shapes->setItem(r, Speedup, spItem);
        const double cvc = s.value(QStringLiteral("candidate")).toObject().value(QStringLiteral("cv")).toDouble(-1);
        const double cve = s.value(QStringLiteral("reference")).toObject().value(QStringLiteral("cv")).toDouble(-1);
        m_shapes->setItem(r, Spread, numeric(cvc < 0 ? QStringLiteral("—") : QStringLiteral("%1 / %2").arg(pct(cvc), pct(cve))));
        m_shapes->setItem(r, Reps, numeric(QStringLiteral("%1 (%2)").arg(s.value(QStringLiteral("reps")).toInt()).arg(s.value(QStringLiteral("stop")).toString())));
        const auto rl = s.value(QStringLiteral("roofline")).toObject();
        QString achieved = QStringLiteral("—");
        if (!rl.isEmpty()) {
            const bool util = rl.contains(QStringLiteral("bandwidth_util"));
            achieved = QStringLiteral("%1 GB/s").arg(rl.value(QStringLiteral("gbs")).toDouble(), 0, 'f', 0);
            if (util)
                achieved += QStringLiteral(" (%1)").arg(pct(rl.value(QStringLiteral("bandwidth_util")).toDouble(), 0));
            const double tf = rl.value(QStringLiteral("tflops")).toDouble();
            if (tf >= 0.1) {
                achieved += QStringLiteral(", %1 TFLOP/s").arg(tf, 0, 'f', 1);
                if (util)
                    achieved += QStringLiteral(" (%1)").arg(pct(rl.value(QStringLiteral("compute_util")).toDouble(), 0));
            }
        }
        m_shapes->setItem(r, Achieved, numeric(achieved));
        const auto sj = toJson(s);
        m_shapes->setItem(r, Gap, numeric(QString::fromStdString(kbx::perf::launchGapText(sj))));
        const QString notes = QString::fromStdString(kbx::perf::shapeNotes(sj));
        m_shapes->setItem(r, Notes, item(notes, notes));
        m_details.last() += tr(": launch gap %1").arg(m_shapes->item(r, Gap)->text()) + (notes.isEmpty() ? QString() : QStringLiteral("; ") + notes) +
                            QStringLiteral(".");
    }
    m_shapes->resizeColumnsToContents();
    m_shapes->horizontalHeader()->setStretchLastSection(true);
    if (nShapes > 0)
        m_shapes->setCurrentCell(0, Shape);
    showShapeDetail(nShapes > 0 ? 0 : -1);
}

void PerfPanel::showKernels(const QJsonObject& att)
{
    // The profiled call's kernels.
    const auto kernels = att.value(QStringLiteral("kernels")).toArray();
    const double total = att.value(QStringLiteral("gpu_us")).toDouble();
    m_kernelsTitle->setText(kernels.isEmpty() ? tr("No kernels recorded for the profiled call.")
                                              : tr("Kernels of the profiled call (the largest %1):").arg(kernels.size()));
    m_kernels->setRowCount(int(kernels.size()));
    for (int r = 0; r < kernels.size(); ++r) {
        const auto k = kernels[r].toObject();
        const QString name = k.value(QStringLiteral("name")).toString();
        const double us = k.value(QStringLiteral("us")).toDouble();
        m_kernels->setItem(r, 0, item(name, name));
        m_kernels->setItem(r, 1, numeric(QString::number(k.value(QStringLiteral("calls")).toInt())));
        m_kernels->setItem(r, 2, numeric(ms(us / 1e3)));
        m_kernels->setItem(r, 3, numeric(total > 0 ? pct(us / total) : QStringLiteral("—")));
        auto* tr_ = item(k.value(QStringLiteral("triton")).toBool() ? tr("yes") : tr("no"));
        tr_->setForeground(k.value(QStringLiteral("triton")).toBool() ? kFaster : palette().color(QPalette::WindowText));
        m_kernels->setItem(r, 4, tr_);
    }
    m_kernels->resizeColumnToContents(1);
    m_kernels->resizeColumnToContents(2);
    m_kernels->resizeColumnToContents(3);
}

}  // namespace kbx::gui
