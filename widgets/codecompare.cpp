// SPDX-License-Identifier: MIT
#include "codecompare.h"

#include "codeview.h"
#include "textdiff.h"

#include <QFile>
#include <QLabel>
#include <QRegularExpression>
#include <QScrollBar>
#include <QSplitter>
#include <QVBoxLayout>

namespace kbx::gui {

namespace {
QWidget* titled(QLabel* title, QWidget* body)
{
    auto* w = new QWidget;
    auto* l = new QVBoxLayout(w);
    l->setContentsMargins(0, 0, 0, 0);
    l->setSpacing(2);
    title->setTextFormat(Qt::PlainText);
    QFont f = title->font();
    f.setBold(true);
    title->setFont(f);
    l->addWidget(title);
    l->addWidget(body, 1);
    return w;
}

void syncScroll(CodeView* a, CodeView* b)
{
    QObject::connect(a->verticalScrollBar(), &QScrollBar::valueChanged, b->verticalScrollBar(), [b](int v) {
        if (b->verticalScrollBar()->value() != v)
            b->verticalScrollBar()->setValue(v);
    });
    QObject::connect(b->verticalScrollBar(), &QScrollBar::valueChanged, a->verticalScrollBar(), [a](int v) {
        if (a->verticalScrollBar()->value() != v)
            a->verticalScrollBar()->setValue(v);
    });
}
}  // namespace

CodeCompareView::CodeCompareView(QWidget* parent)
    : QWidget(parent), m_refTitle(new QLabel(tr("Reference"))), m_candTitle(new QLabel(tr("Candidate"))),
      m_ref(new CodeView), m_cand(new CodeView)
{
    m_ref->setObjectName(QStringLiteral("referenceView"));
    m_cand->setObjectName(QStringLiteral("candidateView"));
    auto* split = new QSplitter(Qt::Horizontal);
    split->addWidget(titled(m_refTitle, m_ref));
    split->addWidget(titled(m_candTitle, m_cand));
    auto* l = new QVBoxLayout(this);
    l->setContentsMargins(0, 0, 0, 0);
    l->addWidget(split);

    // The two texts are different files, each opened at its own line: they scroll together by the
    // same number of lines (however one was scrolled), not to the same position.
    connect(m_ref, &CodeView::scrolled, this, [this](int lines) { follow(m_cand, lines); });
    connect(m_cand, &CodeView::scrolled, this, [this](int lines) { follow(m_ref, lines); });
}

void CodeCompareView::follow(CodeView* other, int lines)
{
    if (m_syncing)
        return;
    m_syncing = true;
    other->verticalScrollBar()->setValue(other->verticalScrollBar()->value() + lines);
    m_syncing = false;
}

int CodeCompareView::findReferenceLine(const QString& code)
{
    static const QRegularExpression def(QStringLiteral("^def\\s+reference\\s*\\("), QRegularExpression::MultilineOption);
    const auto m = def.match(code);
    if (!m.hasMatch())
        return 0;
    return int(QStringView(code).left(m.capturedStart()).count(QLatin1Char('\n'))) + 1;
}

void CodeCompareView::setReference(const QString& title, const QString& code)
{
    m_refTitle->setText(title);
    m_syncing = true;
    m_ref->setCode(code);
    m_referenceLine = findReferenceLine(code);
    if (m_referenceLine > 0)
        m_ref->showLineAtTop(m_referenceLine);
    m_syncing = false;
}

bool CodeCompareView::setReferenceFile(const QString& title, const QString& path)
{
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly | QIODevice::Text)) {
        setReference(title, tr("# reference source not found: %1").arg(path));
        return false;
    }
    setReference(title, QString::fromUtf8(f.readAll()));
    return true;
}

void CodeCompareView::setCandidate(const QString& title, const QString& code, const QMap<int, QString>& markers)
{
    m_candTitle->setText(title);
    m_syncing = true;
    m_cand->setCode(code, markers);
    m_syncing = false;
}

void CodeCompareView::clear()
{
    setReference(tr("Reference"), {});
    setCandidate(tr("Candidate"), {});
}

QColor DiffView::addedColor(bool dark)
{
    return dark ? QColor(35, 90, 45) : QColor(205, 240, 205);
}

QColor DiffView::removedColor(bool dark)
{
    return dark ? QColor(110, 40, 40) : QColor(250, 210, 210);
}

DiffView::DiffView(QWidget* parent)
    : QWidget(parent), m_titleA(new QLabel), m_titleB(new QLabel), m_summary(new QLabel), m_left(new CodeView),
      m_right(new CodeView)
{
    m_left->setObjectName(QStringLiteral("diffLeft"));
    m_right->setObjectName(QStringLiteral("diffRight"));
    auto* split = new QSplitter(Qt::Horizontal);
    split->addWidget(titled(m_titleA, m_left));
    split->addWidget(titled(m_titleB, m_right));
    auto* l = new QVBoxLayout(this);
    l->setContentsMargins(0, 0, 0, 0);
    l->addWidget(m_summary);
    l->addWidget(split, 1);
    syncScroll(m_left, m_right);
    m_summary->setText(tr("Select two evaluations in the results table and choose “Diff” to compare their code."));
}

void DiffView::setTexts(const QString& titleA, const QString& a, const QString& titleB, const QString& b)
{
    m_titleA->setText(titleA);
    m_titleB->setText(titleB);
    const auto diff = diffTexts(a, b);
    QStringList left, right, leftLabels, rightLabels;
    QMap<int, QColor> leftBg, rightBg;
    const bool dark = palette().color(QPalette::Base).lightness() < 128;
    QColor filler = palette().color(QPalette::AlternateBase);
    m_added = m_removed = 0;
    // Removed and added runs are paired line by line so that a changed line sits beside its new form.
    int i = 0;
    while (i < diff.size()) {
        if (diff[i].kind == DiffLine::Same) {
            left << diff[i].text;
            right << diff[i].text;
            leftLabels << QString::number(diff[i].lineA);
            rightLabels << QString::number(diff[i].lineB);
            ++i;
            continue;
        }
        QList<DiffLine> rem, add;
        while (i < diff.size() && diff[i].kind != DiffLine::Same) {
            (diff[i].kind == DiffLine::Removed ? rem : add).append(diff[i]);
            ++i;
        }
        m_removed += int(rem.size());
        m_added += int(add.size());
        const auto n = qMax(rem.size(), add.size());
        for (qsizetype k = 0; k < n; ++k) {
            const int row = int(left.size()) + 1;
            if (k < rem.size()) {
                left << rem[k].text;
                leftLabels << QString::number(rem[k].lineA);
                leftBg[row] = removedColor(dark);
            } else {
                left << QString();
                leftLabels << QString();
                leftBg[row] = filler;
            }
            if (k < add.size()) {
                right << add[k].text;
                rightLabels << QString::number(add[k].lineB);
                rightBg[row] = addedColor(dark);
            } else {
                right << QString();
                rightLabels << QString();
                rightBg[row] = filler;
            }
        }
    }
    m_left->setCode(left.join(QLatin1Char('\n')));
    m_right->setCode(right.join(QLatin1Char('\n')));
    m_left->setGutterLabels(leftLabels);
    m_right->setGutterLabels(rightLabels);
    m_left->setLineBackgrounds(leftBg);
    m_right->setLineBackgrounds(rightBg);
    m_summary->setText(a == b ? tr("The two candidates are identical.")
                              : tr("%1 line(s) removed, %2 line(s) added").arg(m_removed).arg(m_added));
}

}  // namespace kbx::gui
