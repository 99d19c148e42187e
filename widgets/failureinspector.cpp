// SPDX-License-Identifier: MIT
#include "failureinspector.h"
#include "perfpanel.h"

#include "errorheatmap.h"

#include <QComboBox>
#include <QFontDatabase>
#include <QFormLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QJsonArray>
#include <QJsonDocument>
#include <QLabel>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QSignalBlocker>
#include <QSplitter>
#include <QTabWidget>
#include <QTableWidget>
#include <QVBoxLayout>

#include <charconv>
#include <limits>
#include <cmath>

namespace kbx::gui {

namespace {

QString jsonText(const QJsonValue& v)
{
    if (v.isDouble()) {
        const double d = v.toDouble();
        return d == std::floor(d) && std::abs(d) < 1e15 ? QString::number(qint64(d)) : QString::number(d, 'g', 6);
    }
    if (v.isString())
        return v.toString();
    if (v.isBool())
        return v.toBool() ? QStringLiteral("true") : QStringLiteral("false");
    if (v.isNull())
        return QStringLiteral("null");
    if (v.isArray())
        return QString::fromUtf8(QJsonDocument(v.toArray()).toJson(QJsonDocument::Compact));
    return QString::fromUtf8(QJsonDocument(v.toObject()).toJson(QJsonDocument::Compact));
}

/// The evidence keys people look at first, in this order; the rest follow alphabetically.
const char* const kEvidenceOrder[] = {"dtype",      "numel",          "max_abs_err", "max_rel_err",          "mismatch_count",
                                      "mismatch_fraction", "worst_index", "ref_at_worst", "cand_at_worst",    "atol",
                                      "rtol",       "passing_atol_at_rtol", "passing_rtol_at_atol", "ref_nan", "cand_nan",
                                      "ref_inf",    "cand_inf",       "nan_mismatches", "inf_mismatches",  "first_mismatch_index"};

QJsonObject findErrorMap(const EvaluationDetails& d)
{
    const QString key = QStringLiteral("error_map");
    if (d.evidence.contains(key))
        return d.evidence.value(key).toObject();
    if (d.numericEvidence.contains(key))
        return d.numericEvidence.value(key).toObject();
    for (const auto& c : d.cases) {
        if (c.evidence.contains(key))
            return c.evidence.value(key).toObject();
        for (const auto& l : c.evidence.value(QStringLiteral("leaves")).toArray())
            if (l.toObject().contains(key))
                return l.toObject().value(key).toObject();
    }
    return {};
}

}  // namespace

QString FailureInspector::evidenceValueText(const QString& key, const QJsonValue& v, const QString& dtype)
{
    static const QStringList elementKeys = {QStringLiteral("ref_at_worst"), QStringLiteral("cand_at_worst"),
                                            QStringLiteral("max_abs_err"), QStringLiteral("ref_value"), QStringLiteral("cand_value")};
    if (!v.isDouble() || !elementKeys.contains(key))
        return jsonText(v);
    const double d = v.toDouble();
    if (!std::isfinite(d))
        return jsonText(v);
    char buf[64];
    std::to_chars_result r;
    if (dtype == QLatin1String("float32") || dtype == QLatin1String("complex64"))
        r = std::to_chars(buf, buf + sizeof buf, static_cast<float>(d));  // shortest text that reads back as this float
    else if (dtype == QLatin1String("float16") || dtype == QLatin1String("bfloat16"))
        return QString::number(d, 'g', 5);  // every half value is told apart by 5 significant digits
    else
        r = std::to_chars(buf, buf + sizeof buf, d);
    return QString::fromLatin1(buf, int(r.ptr - buf));
}

QString FailureInspector::ulpDifference(double ref, double cand, const QString& dtype)
{
    if (!std::isfinite(ref) || !std::isfinite(cand))
        return {};
    double ulp = 0;
    if (dtype == QLatin1String("float32") || dtype == QLatin1String("complex64")) {
        const float f = static_cast<float>(ref);
        ulp = double(std::nextafter(std::abs(f), std::numeric_limits<float>::infinity())) - double(std::abs(f));
    } else if (dtype == QLatin1String("float64") || dtype == QLatin1String("complex128")) {
        ulp = std::nextafter(std::abs(ref), std::numeric_limits<double>::infinity()) - std::abs(ref);
    } else if (dtype == QLatin1String("float16") || dtype == QLatin1String("bfloat16")) {
        const int mant = dtype == QLatin1String("float16") ? 10 : 7;
        const int minExp = dtype == QLatin1String("float16") ? -14 : -126;  // below: subnormal spacing
        const int e = ref == 0 ? minExp : std::max(minExp, std::ilogb(ref));
        ulp = std::ldexp(1.0, e - mant);
    } else {
        return {};
    }
    const double diff = cand - ref;
    return tr("cand − ref = %1 (%2 ulp of %3)").arg(QString::number(diff, 'g', 6), QString::number(std::abs(diff) / ulp, 'g', 4), dtype);
}

void FailureInspector::fillEvidence(const QJsonObject& ev)
{
    // Numeric evidence: known keys first.
    QStringList keys;
    for (const char* k : kEvidenceOrder)
        if (ev.contains(QLatin1String(k)))
            keys << QString::fromLatin1(k);
    QStringList rest = ev.keys();
    rest.sort();
    for (const auto& k : rest)
        if (!keys.contains(k) && k != QLatin1String("traceback") && k != QLatin1String("error_map"))
            keys << k;
    const QString dtype = ev.value(QStringLiteral("dtype")).toString();
    const QJsonValue refW = ev.value(QStringLiteral("ref_at_worst")),
                     candW = ev.value(QStringLiteral("cand_at_worst"));
    const QString ulp = refW.isDouble() && candW.isDouble() ? ulpDifference(refW.toDouble(), candW.toDouble(), dtype) : QString();
    if (!ulp.isEmpty())  // right after the two values
        keys.insert(keys.contains(QStringLiteral("cand_at_worst")) ? keys.indexOf(QStringLiteral("cand_at_worst")) + 1 : keys.size(),
                    QStringLiteral("difference at worst"));
    m_evidence->setRowCount(int(keys.size()));
    for (int i = 0; i < keys.size(); ++i) {
        m_evidence->setItem(i, 0, new QTableWidgetItem(keys[i]));
        m_evidence->setItem(i, 1, new QTableWidgetItem(keys[i] == QLatin1String("difference at worst")
                                                           ? ulp
                                                           : evidenceValueText(keys[i], ev.value(keys[i]), dtype)));
    }
    m_evidence->resizeColumnToContents(0);

}

QString FailureInspector::evidenceSourceText(const EvaluationDetails& d) const
{
    if (!d.numericEvidence.isEmpty())
        return d.failedCase.isEmpty()
                   ? QString()
                   : tr("Evidence of the first failing case, %1 (select a row in Cases for another).").arg(d.failedCase);
    // An empty table must not read as "nothing was checked": say why there are no numbers.
    if (d.verdict == QLatin1String("pass")) {
        // The verdict is the contract tier's; extended-tier cases beside it may have failed.
        int contract = 0, extendedFailed = 0;
        for (const auto& c : d.cases) {
            if (c.tier == QLatin1String("extended"))
                extendedFailed += c.status != QLatin1String("pass");
            else
                ++contract;
        }
        QString text = tr("Passed: every one of the %n contract case(s) matched the reference within its tolerance. "
                          "Only a failing comparison stores numbers (errors, worst element); the Cases tab lists each case.",
                          nullptr, contract);
        if (extendedFailed > 0)
            text += QLatin1Char(' ') + tr("%n extended-tier case(s) failed beside the verdict: select one in Cases.", nullptr, extendedFailed);
        return text;
    }
    if (!d.failedCase.isEmpty())
        return tr("The first failing case, %1, stored no numbers: it failed before its output was compared (see the "
                  "detail and traceback below).").arg(d.failedCase);
    return tr("No numeric evidence: this evaluation failed before any output was compared (see the detail and "
              "traceback below).");
}

bool FailureInspector::showCase(int row)
{
    const auto& d = m_details;
    if (row < 0 || row >= d.cases.size()) {
        fillEvidence(d.numericEvidence);
        m_heatmap->setErrorMap(findErrorMap(d));
        m_evidenceOf->setText(evidenceSourceText(d));
        return !d.numericEvidence.isEmpty();
    }
    const auto& c = d.cases[row];
    // A case's numbers are its own evidence, or its first mismatching leaf's (multi-output results).
    QJsonObject ev = c.evidence;
    QJsonObject map = ev.value(QStringLiteral("error_map")).toObject();
    const auto leaves = ev.value(QStringLiteral("leaves")).toArray();
    if (!ev.contains(QStringLiteral("max_abs_err")) && !leaves.isEmpty()) {
        for (const auto& l : leaves)
            if (l.toObject().value(QStringLiteral("mismatch_count")).toInt() > 0 || l == leaves.last()) {
                ev = l.toObject();
                break;
            }
        map = ev.value(QStringLiteral("error_map")).toObject();
    }
    fillEvidence(ev);
    m_heatmap->setErrorMap(map);
    if (map.isEmpty())
        m_heatmap->clear(tr("Case %1 stored no error map (a passing case, or one that failed before a comparison).").arg(c.name));
    m_evidenceOf->setText(ev.isEmpty() || (ev.size() == 1 && ev.contains(QStringLiteral("seconds")))
                              ? tr("Evidence of case %1 (%2): none stored; only a failing comparison stores numbers.").arg(c.name, c.status)
                              : tr("Evidence of case %1 (%2).").arg(c.name, c.status));
    return !ev.isEmpty();
}

FailureInspector::FailureInspector(QWidget* parent)
    : QWidget(parent), m_header(new QLabel), m_detail(new QLabel), m_seeds(new QLabel), m_evidence(new QTableWidget(0, 2)),
      m_cases(new QTableWidget(0, 5)), m_traceback(new QPlainTextEdit), m_heatmap(new ErrorHeatmap), m_perf(new PerfPanel),
      m_label(new QComboBox),
      m_note(new QLineEdit), m_save(new QPushButton(tr("Save label"))), m_code(new QPushButton(tr("Show code"))),
      m_agreement(new QLabel), m_status(new QLabel)
{
    setUpFields();

    auto* facts = new QFormLayout;
    facts->addRow(tr("Detail:"), m_detail);
    facts->addRow(tr("Seeds:"), m_seeds);

    auto* labelBox = new QGroupBox(tr("Manual label"));
    labelBox->setMaximumWidth(480);
    auto* lb = new QFormLayout(labelBox);
    lb->addRow(tr("Class:"), m_label);
    lb->addRow(tr("Note:"), m_note);
    auto* buttons = new QHBoxLayout;
    buttons->addWidget(m_save);
    buttons->addWidget(m_code);
    buttons->addStretch(1);
    lb->addRow(buttons);
    lb->addRow(m_agreement);
    lb->addRow(m_status);
    m_agreement->setWordWrap(true);

    auto* tabs = new QTabWidget;
    auto* evidencePage = new QWidget;
    auto* evidenceLayout = new QVBoxLayout(evidencePage);
    evidenceLayout->setContentsMargins(0, 2, 0, 0);
    evidenceLayout->addWidget(m_evidenceOf);
    evidenceLayout->addWidget(m_evidence, 1);
    tabs->addTab(evidencePage, tr("Numeric evidence"));
    tabs->addTab(m_heatmap, tr("Error heatmap"));
    tabs->addTab(m_cases, tr("Cases"));
    tabs->addTab(m_perf, tr("Performance"));
    tabs->setObjectName(QStringLiteral("inspectorTabs"));

    auto* top = new QWidget;
    auto* tl = new QHBoxLayout(top);
    tl->setContentsMargins(0, 0, 0, 0);
    tl->addWidget(tabs, 1);
    auto* right = new QVBoxLayout;
    right->addWidget(labelBox);
    right->addStretch(1);
    tl->addLayout(right);

    auto* split = new QSplitter(Qt::Vertical);
    split->addWidget(top);
    auto* tbBox = new QGroupBox(tr("Traceback / detail"));
    auto* tbl = new QVBoxLayout(tbBox);
    tbl->addWidget(m_traceback);
    split->addWidget(tbBox);
    split->setStretchFactor(0, 3);
    split->setStretchFactor(1, 2);

    auto* l = new QVBoxLayout(this);
    l->setContentsMargins(6, 6, 6, 6);
    l->addWidget(m_header);
    l->addLayout(facts);
    l->addWidget(split, 1);

    connect(m_save, &QPushButton::clicked, this, [this] {
        QString err;
        if (!saveLabel(&err))
            m_status->setText(tr("Not saved: %1").arg(err));
    });
    connect(m_code, &QPushButton::clicked, this, [this] {
        if (m_details.valid)
            emit showCodeRequested(m_details.id);
    });
    clear();
}

void FailureInspector::setUpFields()
{
    m_header->setTextFormat(Qt::RichText);
    m_header->setWordWrap(true);
    m_header->setObjectName(QStringLiteral("inspectorHeader"));
    m_detail->setWordWrap(true);
    m_detail->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_seeds->setTextInteractionFlags(Qt::TextSelectableByMouse);
    // Long details, seeds and headers wrap and never set the window's width (issue 24: laptop
    // screens): an explicit minimum width overrides a label's minimum size hint, which is its longest
    // unbreakable word (a path in a traceback).
    m_seeds->setWordWrap(true);
    for (QLabel* l : {m_header, m_detail, m_seeds})
        l->setMinimumWidth(120);

    m_evidence->setHorizontalHeaderLabels({tr("Evidence"), tr("Value")});
    m_evidence->horizontalHeader()->setStretchLastSection(true);
    m_evidence->verticalHeader()->hide();
    m_evidence->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_evidence->setObjectName(QStringLiteral("evidenceTable"));
    m_evidence->verticalHeader()->setDefaultSectionSize(fontMetrics().height() + 6);
    m_cases->setHorizontalHeaderLabels({tr("#"), tr("Case"), tr("Status"), tr("Class"), tr("Tier")});
    m_cases->horizontalHeader()->setStretchLastSection(true);
    m_cases->verticalHeader()->hide();
    m_cases->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_cases->setObjectName(QStringLiteral("casesTable"));
    m_cases->setSelectionBehavior(QAbstractItemView::SelectRows);
    connect(m_cases, &QTableWidget::currentCellChanged, this, [this](int row, int, int, int) {
        if (row >= 0)
            showCase(row);
    });
    m_evidenceOf = new QLabel;
    m_evidenceOf->setObjectName(QStringLiteral("evidenceSource"));
    m_evidenceOf->setWordWrap(true);
    m_evidenceOf->setMinimumWidth(120);
    m_cases->verticalHeader()->setDefaultSectionSize(fontMetrics().height() + 6);
    m_traceback->setReadOnly(true);
    m_traceback->setLineWrapMode(QPlainTextEdit::NoWrap);
    m_traceback->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    m_traceback->setObjectName(QStringLiteral("tracebackView"));

    m_label->addItem(tr("(no manual label)"), QString());
    m_label->addItem(tr("pass — the automatic verdict is wrong"), QStringLiteral("pass"));
    for (const auto& id : failureClassIds())
        m_label->addItem(QStringLiteral("%1 — %2").arg(id, failureClassTitle(id)), id);
    m_label->setObjectName(QStringLiteral("manualLabel"));
    // The class titles are long: the box is as wide as the group allows, its list as wide as they are.
    m_label->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    m_label->setMinimumContentsLength(16);
    m_label->view()->setMinimumWidth(m_label->view()->sizeHintForColumn(0) + 24);
    m_note->setPlaceholderText(tr("Why (stored with the label)"));
}

void FailureInspector::setDatabase(const QString& path)
{
    m_db = path;
    clear();
}

void FailureInspector::clear()
{
    m_details = {};
    m_header->setText(tr("<h3>No evaluation chosen</h3><p>Pick one in the results table.</p>"));
    m_detail->clear();
    m_seeds->clear();
    m_evidence->setRowCount(0);
    m_evidenceOf->clear();
    {
        const QSignalBlocker block(m_cases);
        m_cases->setRowCount(0);
    }
    m_traceback->clear();
    m_heatmap->clear();
    m_perf->clear();
    m_save->setEnabled(false);
    m_code->setEnabled(false);
    m_status->clear();
    updateAgreement();
}

bool FailureInspector::showEvaluation(qint64 id)
{
    QString err;
    EvaluationDetails d = loadEvaluation(m_db, id, &err);
    if (!d.valid) {
        clear();
        m_header->setText(tr("<h3>Evaluation %1 not found</h3><p>%2</p>").arg(id).arg(err.toHtmlEscaped()));
        return false;
    }
    m_details = d;
    const bool pass = d.verdict == QLatin1String("pass");
    const QString colour = pass ? QStringLiteral("#2a9a3c") : QStringLiteral("#cd322d");
    QString cls = pass ? tr("passed") : d.failureClass;
    if (!pass && !failureClassTitle(d.failureClass).isEmpty())
        cls += QStringLiteral(" — ") + failureClassTitle(d.failureClass).toHtmlEscaped();
    m_header->setText(QStringLiteral("<h3>%1 &nbsp;<span style='color:%2'>%3</span></h3>"
                                     "<p>%4 #%5 · %6 %7, %8 %9 · %10 · %11 <b>%12</b> · %13 <b>%14</b></p>")
                          .arg(d.taskId.toHtmlEscaped(), colour, d.verdict.toUpper(), tr("evaluation"), QString::number(d.id),
                               tr("method"), d.method.toHtmlEscaped(), tr("round"), QString::number(d.round))
                          .arg(d.gpu.toHtmlEscaped(), tr("stage"), d.stage, tr("class"), cls));
    m_detail->setText(d.failureDetail.isEmpty() ? tr("—") : d.failureDetail.left(600));
    QString seeds = tr("public %1, secret %2 (run %3)").arg(d.publicSeeds).arg(d.secretSeed).arg(d.runId);
    if (!d.failedCase.isEmpty())
        seeds += tr("; first failing case %1").arg(d.failedCase);
    m_seeds->setText(seeds);

    fillEvidence(d.numericEvidence);
    m_evidenceOf->setText(evidenceSourceText(d));

    const QSignalBlocker block(m_cases);  // filling the table is not choosing a case
    m_cases->setRowCount(0);
    m_cases->setRowCount(int(d.cases.size()));
    for (int i = 0; i < d.cases.size(); ++i) {
        const auto& c = d.cases[i];
        m_cases->setItem(i, 0, new QTableWidgetItem(QString::number(c.index)));
        m_cases->setItem(i, 1, new QTableWidgetItem(c.name));
        auto* st = new QTableWidgetItem(c.status);
        st->setForeground(c.status == QLatin1String("pass") ? QColor(40, 150, 60) : QColor(205, 50, 45));
        m_cases->setItem(i, 2, st);
        m_cases->setItem(i, 3, new QTableWidgetItem(c.failureClass));
        // contract: the seed's own call patterns (decide the verdict); extended: beside it, with why
        auto* tier = new QTableWidgetItem(c.tier);
        if (c.tier == QLatin1String("extended"))
            tier->setToolTip(c.evidence.value(QStringLiteral("extended_because")).toString());
        m_cases->setItem(i, 4, tier);
    }
    m_cases->resizeColumnsToContents();

    // A traceback keeps its lines; a detail message wraps.
    m_traceback->setLineWrapMode(d.traceback.isEmpty() ? QPlainTextEdit::WidgetWidth : QPlainTextEdit::NoWrap);
    m_traceback->setPlainText(d.traceback.isEmpty() ? d.failureDetail : d.traceback);
    m_heatmap->setErrorMap(findErrorMap(d));
    m_perf->setEvaluation(d);

    const int row = m_label->findData(d.manualClass);
    m_label->setCurrentIndex(row < 0 ? 0 : row);
    m_note->setText(d.manualNote);
    m_save->setEnabled(true);
    m_code->setEnabled(true);
    m_status->clear();
    updateAgreement();
    return true;
}

bool FailureInspector::saveLabel(QString* error)
{
    if (!m_details.valid) {
        if (error)
            *error = tr("no evaluation shown");
        return false;
    }
    const QString cls = m_label->currentData().toString();
    if (!setManualLabel(m_db, m_details.id, cls, m_note->text(), error))
        return false;
    m_details.manualClass = cls;
    m_details.manualNote = m_note->text();
    m_status->setText(cls.isEmpty() ? tr("Manual label removed.") : tr("Saved."));
    updateAgreement();
    emit labelChanged(m_details.id);
    return true;
}

void FailureInspector::updateAgreement()
{
    QString text;
    if (m_details.valid && !m_details.manualClass.isEmpty()) {
        const QString automatic = m_details.failureClass.isEmpty() ? QStringLiteral("pass") : m_details.failureClass;
        text = automatic == m_details.manualClass ? tr("<b style='color:#2a9a3c'>Manual label agrees</b> with the automatic class.")
                                                  : tr("<b style='color:#cd322d'>Manual label disagrees</b>: automatic %1, manual %2.")
                                                        .arg(automatic, m_details.manualClass);
        text += QStringLiteral("<br>");
    }
    if (!m_db.isEmpty()) {
        const auto a = labelAgreement(m_db);
        text += a.labelled ? tr("Database: %1 of %2 manual labels agree with the automatic class (%3%).")
                                 .arg(a.agree)
                                 .arg(a.labelled)
                                 .arg(100.0 * a.fraction(), 0, 'f', 1)
                           : tr("Database: no manual labels yet.");
    }
    m_agreement->setText(text);
}

}  // namespace kbx::gui
