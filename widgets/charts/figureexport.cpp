// SPDX-License-Identifier: MIT
#include "figureexport.h"

#include "stats_tables.h"

#include <QFile>
#include <QFileInfo>
#include <QFontMetricsF>
#include <QImage>
#include <QImageWriter>
#include <QPageLayout>
#include <QPageSize>
#include <QPainter>
#include <QPdfWriter>
#include <QSaveFile>
#include <QSvgGenerator>

#include <QCheckBox>
#include <QComboBox>
#include <QDialog>
#include <QDialogButtonBox>
#include <QDoubleSpinBox>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QRegularExpression>

#include <cmath>

#ifndef KBX_VERSION
#define KBX_VERSION "unknown"
#endif

namespace kbx::gui {
namespace {

namespace an = kbx::analysis;

QString q(const std::string& s) { return QString::fromStdString(s); }
QString num(double v, int prec = 4) { return QString::number(v, 'f', prec); }
QString num(int v) { return QString::number(v); }

QStringList rateCols(const an::Rate& r)
{
    const auto ci = r.ci();
    return {num(r.k), num(r.value()), num(ci.lo), num(ci.hi)};
}

QString csvField(const QString& f)
{
    if (f.contains(QLatin1Char(',')) || f.contains(QLatin1Char('"')) || f.contains(QLatin1Char('\n'))) {
        QString e = f;
        e.replace(QLatin1String("\""), QLatin1String("\"\""));
        return QLatin1Char('"') + e + QLatin1Char('"');
    }
    return f;
}

QString latexEscape(const QString& s)
{
    QString out;
    for (QChar c : s) {
        switch (c.unicode()) {
        case '\\': out += QLatin1String("\\textbackslash{}"); break;
        case '&': case '%': case '$': case '#': case '_': case '{': case '}':
            out += QLatin1Char('\\');
            out += c;
            break;
        case '~': out += QLatin1String("\\textasciitilde{}"); break;
        case '^': out += QLatin1String("\\textasciicircum{}"); break;
        default: out += c;
        }
    }
    return out;
}

QString latexTabular(const QStringList& header, const QList<QStringList>& rows, const QString& align, const FigureInput& in,
                     int midruleBeforeLast = -1)
{
    QString t;
    t += QStringLiteral("% %1\n% %2\n").arg(figureTitle(in.name), in.provenance.text());
    t += QStringLiteral("\\begin{tabular}{%1}\n\\toprule\n").arg(align);
    QStringList h;
    for (const auto& c : header)
        h << latexEscape(c);
    t += h.join(QLatin1String(" & ")) + QLatin1String(" \\\\\n\\midrule\n");
    for (int i = 0; i < rows.size(); ++i) {
        if (i == midruleBeforeLast)
            t += QLatin1String("\\midrule\n");
        QStringList cells;
        for (const auto& c : rows[i])
            cells << latexEscape(c);
        t += cells.join(QLatin1String(" & ")) + QLatin1String(" \\\\\n");
    }
    t += QLatin1String("\\bottomrule\n\\end{tabular}\n");
    return t;
}

Table taxonomyTable(const an::Taxonomy& t, const QString& groupName)
{
    Table out;
    out.header << groupName << QStringLiteral("series") << QStringLiteral("n");
    for (const auto& c : t.classes)
        out.header << q(c);
    for (std::size_t g = 0; g < t.groups.size(); ++g) {
        auto add = [&](const QString& series, const std::vector<int>& counts) {
            QStringList row{q(t.groups[g]), series, num(t.evaluations[g])};
            for (int v : counts)
                row << num(v);
            out.rows << row;
        };
        add(QStringLiteral("automatic"), t.automatic[g]);
        if (t.reviewed)
            add(QStringLiteral("reviewed"), (*t.reviewed)[g]);
    }
    return out;
}

bool writeText(const QString& file, const QString& text, QString* error)
{
    QSaveFile f(file);
    if (!f.open(QIODevice::WriteOnly | QIODevice::Text)) {
        if (error)
            *error = QStringLiteral("cannot write %1: %2").arg(file, f.errorString());
        return false;
    }
    f.write(text.toUtf8());
    if (!f.commit()) {
        if (error)
            *error = QStringLiteral("cannot write %1: %2").arg(file, f.errorString());
        return false;
    }
    return true;
}

QString creator() { return QStringLiteral("kbx-workbench %1").arg(kbxVersion()); }

/// The columns of a call rate and an exe rate (rateCols() of each).
QStringList rateHeaderColumns()
{
    return {QStringLiteral("call_ok"), QStringLiteral("call_rate"), QStringLiteral("call_lo95"),
            QStringLiteral("call_hi95"), QStringLiteral("exe_ok"), QStringLiteral("exe_rate"),
            QStringLiteral("exe_lo95"), QStringLiteral("exe_hi95")};
}

/// The table of an analysis figure (kbx report --figure; core/stats_tables) of kind; t unchanged for
/// another kind.
void statsFigureTable(const QString& kind, const kbx::stats::Bundle& s, Table& t)
{
    const QStringList rateHeader = rateHeaderColumns();
    if (kind == QLatin1String("method-summary")) {
        t.header << QStringLiteral("gpu") << QStringLiteral("method") << QStringLiteral("round") << QStringLiteral("n") << rateHeader
                 << QStringLiteral("correct_per_compile") << QStringLiteral("cpc_lo95") << QStringLiteral("cpc_hi95");
        for (const auto& m : s.methods) {
            const auto ci = m.exeGivenCall.ci();
            t.rows << (QStringList{q(m.gpu), q(m.method), num(m.round), num(m.n)} + rateCols(m.call) + rateCols(m.exe) +
                       QStringList{num(m.exeGivenCall.value()), num(ci.lo), num(ci.hi)});
        }
    } else if (kind == QLatin1String("deviance")) {
        t.header << QStringLiteral("gpu") << QStringLiteral("round") << QStringLiteral("n") << QStringLiteral("null_deviance")
                 << QStringLiteral("model") << QStringLiteral("chi2") << QStringLiteral("df") << QStringLiteral("p") << QStringLiteral("share");
        for (const auto& g : s.deviance) {
            for (const auto& f : g.analysis.alone)
                t.rows << QStringList{q(g.gpu), num(g.round), num(g.analysis.n), num(g.analysis.nullDeviance), q(f.factor) + QStringLiteral(" alone"),
                                      num(f.chi2), num(f.df), QString::number(f.p, 'g', 6), num(f.share)};
            t.rows << QStringList{q(g.gpu), num(g.round), num(g.analysis.n), num(g.analysis.nullDeviance), QStringLiteral("category + method"),
                                  num(g.analysis.jointChi2), num(g.analysis.jointDf), QString::number(g.analysis.jointP, 'g', 6),
                                  num(g.analysis.jointShare)};
        }
    } else if (kind == QLatin1String("rescued")) {
        t.header << QStringLiteral("gpu") << QStringLiteral("method") << QStringLiteral("cohort") << QStringLiteral("kernels")
                 << QStringLiteral("timed") << QStringLiteral("geomean") << QStringLiteral("lo95") << QStringLiteral("hi95");
        for (const auto& c : s.rescued.cohorts) {
            QStringList row{q(c.gpu), q(c.method), q(c.cohort), num(c.kernels), num(c.speedup.n)};
            if (c.speedup.geomean)
                row << num(*c.speedup.geomean) << num(c.speedup.geomeanCI->lo) << num(c.speedup.geomeanCI->hi);
            else
                row << QString() << QString() << QString();
            t.rows << row;
        }
    } else if (kind == QLatin1String("cross-hardware")) {
        t.header << QStringLiteral("what") << QStringLiteral("name") << QStringLiteral("gpus") << QStringLiteral("fastest_gpu")
                 << QStringLiteral("slowest_gpu") << QStringLiteral("spread");
        for (const auto& k : s.cross.kernels)
            t.rows << QStringList{QStringLiteral("kernel speedup"), QStringLiteral("%1 / %2 r%3").arg(q(k.taskId), q(k.method)).arg(k.round),
                                  num(int(k.speedups.size())), q(k.fastestGpu), q(k.slowestGpu), num(k.spread)};
        for (const auto& g : s.cross.golden)
            t.rows << QStringList{QStringLiteral("golden eager time"), q(g.taskId.empty() ? g.task : g.taskId), num(int(g.ms.size())),
                                  q(g.fastestGpu), q(g.slowestGpu), num(g.spread)};
    } else if (kind == QLatin1String("slow-fraction")) {
        t.header << QStringLiteral("gpu") << QStringLiteral("method") << QStringLiteral("timed") << QStringLiteral("slower")
                 << QStringLiteral("fraction") << QStringLiteral("lo95") << QStringLiteral("hi95");
        for (const auto& sf : s.cross.slow) {
            const auto ci = sf.slower.ci();
            t.rows << QStringList{q(sf.gpu), q(sf.method), num(sf.slower.n), num(sf.slower.k), num(sf.slower.value()), num(ci.lo), num(ci.hi)};
        }
    }
}

}  // namespace

QString kbxVersion() { return QStringLiteral(KBX_VERSION); }

Table figureTable(const FigureInput& in)
{
    const auto& d = in.data;
    Table t;
    const QStringList rateHeader = rateHeaderColumns();
    if (figureKind(in.name) == QLatin1String("correctness_heatmap")) {
        t.header << QStringLiteral("category") << QStringLiteral("method") << QStringLiteral("n") << rateHeader;
        const auto& m = d.correctness;
        auto add = [&](const QString& cat, std::size_t mi, const an::CorrectnessCell& c) {
            if (c.call.n == 0)
                return;
            t.rows << (QStringList{cat, q(m.methods[mi]), num(c.call.n)} + rateCols(c.call) + rateCols(c.exe));
        };
        for (std::size_t ci = 0; ci < m.categories.size(); ++ci)
            for (std::size_t mi = 0; mi < m.methods.size(); ++mi)
                add(q(m.categories[ci]), mi, m.cells[ci][mi]);
        for (std::size_t mi = 0; mi < m.methods.size(); ++mi)
            add(QStringLiteral("All"), mi, m.totals[mi]);
    } else if (figureKind(in.name) == QLatin1String("compile_vs_correct")) {
        t.header << QStringLiteral("method") << QStringLiteral("n") << rateHeader;
        for (const auto& r : d.compile)
            t.rows << (QStringList{q(r.method), num(r.call.n)} + rateCols(r.call) + rateCols(r.exe));
    } else if (figureKind(in.name) == QLatin1String("speedup_box")) {
        t.header << QStringList{QStringLiteral("method"), QStringLiteral("evaluations"), QStringLiteral("correct"),
                                QStringLiteral("timed"), QStringLiteral("min"), QStringLiteral("q1"), QStringLiteral("median"),
                                QStringLiteral("q3"), QStringLiteral("max"), QStringLiteral("geomean")};
        for (const auto& s : d.speedup) {
            QStringList row{q(s.method), num(s.total), num(s.correct), num(int(s.speedups.size()))};
            if (s.speedups.empty()) {
                row << QString() << QString() << QString() << QString() << QString() << QString();
            } else {
                const auto b = an::boxStats(s.speedups);
                double logSum = 0;
                for (double v : s.speedups)
                    logSum += std::log(v);
                row << num(b.min) << num(b.q1) << num(b.median) << num(b.q3) << num(b.max)
                    << num(std::exp(logSum / double(s.speedups.size())));
            }
            t.rows << row;
        }
    } else if (figureKind(in.name) == QLatin1String("speedup_ecdf")) {
        t.header << QStringLiteral("method") << QStringLiteral("speedup") << QStringLiteral("ecdf");
        for (const auto& s : d.speedup)
            for (std::size_t i = 0; i < s.speedups.size(); ++i)
                t.rows << QStringList{q(s.method), num(s.speedups[i]), num(double(i + 1) / double(s.speedups.size()))};
    } else if (figureKind(in.name) == QLatin1String("fast_p")) {
        t.header << QStringLiteral("p");
        for (const auto& c : d.fastp)
            t.header << QStringLiteral("%1 (n=%2)").arg(q(c.method)).arg(c.n);
        const std::size_t points = d.fastp.empty() ? 0 : d.fastp.front().p.size();
        for (std::size_t i = 0; i < points; ++i) {
            QStringList row{num(d.fastp.front().p[i])};
            for (const auto& c : d.fastp)
                row << num(c.fraction[i]);
            t.rows << row;
        }
    } else if (figureKind(in.name) == QLatin1String("taxonomy_by_category")) {
        t = taxonomyTable(d.taxonomyByCategory, QStringLiteral("category"));
    } else if (figureKind(in.name) == QLatin1String("taxonomy_by_method")) {
        t = taxonomyTable(d.taxonomyByMethod, QStringLiteral("method"));
    } else if (figureKind(in.name) == QLatin1String("round_trajectories")) {
        t.header << QStringLiteral("method") << QStringLiteral("round") << QStringLiteral("n") << QStringLiteral("pass")
                 << QStringLiteral("pass_rate") << QStringLiteral("lo95") << QStringLiteral("hi95") << QStringLiteral("compile")
                 << QStringLiteral("compile_rate") << QStringLiteral("timed") << QStringLiteral("geomean_speedup") << QStringLiteral("gpu");
        for (const auto& tr : d.rounds)
            for (const auto& p : tr.points) {
                const auto ci = p.pass.ci();
                t.rows << QStringList{q(tr.method), num(p.round), num(p.pass.n), num(p.pass.k), num(p.pass.value()),
                                      num(ci.lo), num(ci.hi), num(p.compile.k), num(p.compile.value()), num(p.timed),
                                      p.geomeanSpeedup ? num(*p.geomeanSpeedup) : QString(), q(tr.gpu)};
            }
    } else if (d.stats) {
        statsFigureTable(figureKind(in.name), *d.stats, t);
    }
    return t;
}

QString toCsv(const Table& t)
{
    QString out;
    auto line = [&](const QStringList& cells) {
        QStringList f;
        for (const auto& c : cells)
            f << csvField(c);
        out += f.join(QLatin1Char(',')) + QLatin1Char('\n');
    };
    line(t.header);
    for (const auto& r : t.rows)
        line(r);
    return out;
}

QString toLatex(const FigureInput& in)
{
    if (figureKind(in.name) == QLatin1String("correctness_heatmap")) {
        // Wide: category x method, "call / exe" in percent, with n.
        const auto& m = in.data.correctness;
        QStringList header{QStringLiteral("Category")};
        QString align = QStringLiteral("l");
        for (const auto& method : m.methods) {
            header << QStringLiteral("%1 call (%)").arg(q(method)) << QStringLiteral("%1 exe (%)").arg(q(method))
                   << QStringLiteral("%1 n").arg(q(method));
            align += QStringLiteral("rrr");
        }
        QList<QStringList> rows;
        auto row = [&](const QString& name, const std::vector<an::CorrectnessCell>& cells) {
            QStringList r{name};
            for (const auto& c : cells) {
                if (c.call.n == 0)
                    r << QStringLiteral("--") << QStringLiteral("--") << QStringLiteral("0");
                else
                    r << num(100.0 * c.call.value(), 1) << num(100.0 * c.exe.value(), 1) << num(c.call.n);
            }
            rows << r;
        };
        for (std::size_t ci = 0; ci < m.categories.size(); ++ci)
            row(q(m.categories[ci]), m.cells[ci]);
        row(QStringLiteral("All"), m.totals);
        return latexTabular(header, rows, align, in, int(rows.size()) - 1);
    }
    const Table t = figureTable(in);
    QString align;
    for (int i = 0; i < t.header.size(); ++i)
        align += i == 0 ? QLatin1Char('l') : QLatin1Char('r');
    return latexTabular(t.header, t.rows, align, in);
}

namespace {

/// The figure into target; with in.provenanceLine, the chart above and the provenance in small
/// grey type on the figure's last lines (the papers' "generated from" line).
void paintFigure(FigureRenderer& renderer, QPainter* p, const QRectF& target, const FigureInput& in)
{
    if (!in.provenanceLine) {
        renderer.paint(p, target, in);
        return;
    }
    QFont font = p->font();
    font.setPixelSize(11);
    const QFontMetricsF fm(font);
    const QString text = in.provenance.text();
    const QRectF textArea(target.left() + 10, 0, target.width() - 20, 1e6);
    const qreal h = fm.boundingRect(textArea, Qt::TextWordWrap | Qt::AlignLeft, text).height() + 10;
    renderer.paint(p, QRectF(target.topLeft(), QSizeF(target.width(), target.height() - h)), in);
    p->save();
    p->setFont(font);
    p->setPen(QColor(90, 90, 90));
    p->drawText(QRectF(target.left() + 10, target.bottom() - h + 3, target.width() - 20, h - 3), Qt::TextWordWrap | Qt::AlignLeft,
                text);
    p->restore();
}

}  // namespace

bool exportFigureInput(FigureRenderer& renderer, const FigureInput& in, const QString& file, QString* error, QString* warning)
{
    if (warning)
        warning->clear();
    const QString suffix = QFileInfo(file).suffix().toLower();
    const QString title = figureTitle(in.name);
    const QString prov = in.provenance.text();
    if (suffix == QLatin1String("csv"))
        return writeText(file, toCsv(figureTable(in)), error);
    if (suffix == QLatin1String("tex"))
        return writeText(file, toLatex(in), error);

    const QSize size = in.options.resolve(renderer.preferredSize(in));
    const QRectF target(QPointF(0, 0), QSizeF(size));
    if (warning && (suffix == QLatin1String("svg") || suffix == QLatin1String("pdf") || suffix == QLatin1String("png")))
        *warning = renderer.crowdingWarning(in, size);
    if (suffix == QLatin1String("svg")) {
        QSvgGenerator gen;
        gen.setFileName(file);
        gen.setSize(size);
        gen.setViewBox(target);
        gen.setResolution(96);
        gen.setTitle(title);
        gen.setDescription(QStringLiteral("%1. %2").arg(creator(), prov));
        QPainter p;
        if (!p.begin(&gen)) {
            if (error)
                *error = QStringLiteral("cannot write %1").arg(file);
            return false;
        }
        paintFigure(renderer, &p, target, in);
        p.end();
        return true;
    }
    if (suffix == QLatin1String("pdf")) {
        QPdfWriter pdf(file);
        pdf.setTitle(title);
        pdf.setCreator(QStringLiteral("%1; %2").arg(creator(), prov));
        pdf.setResolution(96);
        // XMP (plain XML in the file) with title, provenance and tool: readable by any PDF tool.
        const QString xmp = QStringLiteral(
            "<?xpacket begin='' id='W5M0MpCehiHzreSzNTczkc9d'?>\n"
            "<x:xmpmeta xmlns:x='adobe:ns:meta/'><rdf:RDF xmlns:rdf='http://www.w3.org/1999/02/22-rdf-syntax-ns#'>\n"
            "<rdf:Description rdf:about='' xmlns:dc='http://purl.org/dc/elements/1.1/' xmlns:xmp='http://ns.adobe.com/xap/1.0/'>\n"
            "<dc:title><rdf:Alt><rdf:li xml:lang='x-default'>%1</rdf:li></rdf:Alt></dc:title>\n"
            "<dc:description><rdf:Alt><rdf:li xml:lang='x-default'>%2</rdf:li></rdf:Alt></dc:description>\n"
            "<xmp:CreatorTool>%3</xmp:CreatorTool>\n"
            "</rdf:Description></rdf:RDF></x:xmpmeta>\n<?xpacket end='w'?>")
                                .arg(title.toHtmlEscaped(), prov.toHtmlEscaped(), creator().toHtmlEscaped());
        pdf.setDocumentXmpMetadata(xmp.toUtf8());
        // One page exactly the figure's size (96 px = 72 pt).
        pdf.setPageLayout(QPageLayout(QPageSize(QSizeF(size.width() * 0.75, size.height() * 0.75), QPageSize::Point),
                                      QPageLayout::Portrait, QMarginsF(0, 0, 0, 0)));
        QPainter p;
        if (!p.begin(&pdf)) {
            if (error)
                *error = QStringLiteral("cannot write %1").arg(file);
            return false;
        }
        const QRect page = p.viewport();
        p.setWindow(QRect(QPoint(0, 0), size));
        p.setViewport(page);
        paintFigure(renderer, &p, target, in);
        p.end();
        return true;
    }
    if (suffix == QLatin1String("png")) {
        const qreal scale = 2.0;
        QImage img(size * scale, QImage::Format_ARGB32_Premultiplied);
        img.setDevicePixelRatio(scale);
        img.fill(Qt::white);
        {
            QPainter p(&img);
            paintFigure(renderer, &p, target, in);
        }
        img.setText(QStringLiteral("Title"), title);
        img.setText(QStringLiteral("Description"), prov);
        img.setText(QStringLiteral("Software"), creator());
        img.setText(QStringLiteral("Source"), in.provenance.database);
        img.setText(QStringLiteral("Creation Time"), in.provenance.date.toUTC().toString(Qt::ISODate));
        QImageWriter w(file, "png");
        if (!w.write(img)) {
            if (error)
                *error = QStringLiteral("cannot write %1: %2").arg(file, w.errorString());
            return false;
        }
        return true;
    }
    if (error)
        *error = QStringLiteral("unknown export format '.%1' (use .svg, .pdf, .png, .csv or .tex)").arg(suffix);
    return false;
}

double parseLength(const QString& text, QString* error)
{
    static const QRegularExpression re(QStringLiteral("^\\s*([0-9]*\\.?[0-9]+)\\s*(px|pt|in|cm|mm)?\\s*$"),
                                       QRegularExpression::CaseInsensitiveOption);
    const auto m = re.match(text);
    if (!m.hasMatch()) {
        if (error)
            *error = QStringLiteral("'%1' is not a length (a number with px, pt, in, cm or mm, e.g. 3.5in)").arg(text);
        return -1;
    }
    const double v = m.captured(1).toDouble();
    const QString unit = m.captured(2).toLower();
    const double px = unit == QLatin1String("pt")   ? v * 96.0 / 72.0
                      : unit == QLatin1String("in") ? v * 96.0
                      : unit == QLatin1String("cm") ? v * 96.0 / 2.54
                      : unit == QLatin1String("mm") ? v * 96.0 / 25.4
                                                    : v;
    if (px < 64 || px > 20000) {
        if (error)
            *error = QStringLiteral("'%1' is outside 64 to 20000 pixels (0.67 to 208 in)").arg(text);
        return -1;
    }
    return px;
}

double parseAspect(const QString& text, QString* error)
{
    static const QRegularExpression re(QStringLiteral("^\\s*([0-9]*\\.?[0-9]+)\\s*(?:[:/]\\s*([0-9]*\\.?[0-9]+))?\\s*$"));
    const auto m = re.match(text);
    double a = -1;
    if (m.hasMatch()) {
        a = m.captured(1).toDouble();
        if (!m.captured(2).isEmpty())
            a = m.captured(2).toDouble() > 0 ? a / m.captured(2).toDouble() : -1;
    }
    if (!(a >= 0.1 && a <= 10)) {
        if (error)
            *error = QStringLiteral("'%1' is not an aspect between 0.1 and 10 (width/height: 1.6, 16:9, 4/3)").arg(text);
        return -1;
    }
    return a;
}

bool askFigureOptions(QWidget* parent, const QSize& preferred, FigureOptions* opts)
{
    QDialog dlg(parent);
    dlg.setObjectName(QStringLiteral("figureOptionsDialog"));
    dlg.setWindowTitle(QObject::tr("Figure size"));
    auto* form = new QFormLayout(&dlg);
    struct Unit {
        const char* name;
        double px;
        int decimals;
    };
    static const Unit units[] = {{"px", 1.0, 0}, {"pt", 96.0 / 72.0, 1}, {"in", 96.0, 2}, {"cm", 96.0 / 2.54, 2}, {"mm", 96.0 / 25.4, 1}};
    auto* unit = new QComboBox(&dlg);
    unit->setObjectName(QStringLiteral("unit"));
    for (const auto& u : units)
        unit->addItem(QString::fromLatin1(u.name), u.px);
    auto* preset = new QComboBox(&dlg);
    preset->setObjectName(QStringLiteral("preset"));
    preset->addItem(QObject::tr("The figure's own (%1 × %2 px)").arg(preferred.width()).arg(preferred.height()), 0.0);
    preset->addItem(QObject::tr("One column (3.5 in wide)"), 3.5 * 96);
    preset->addItem(QObject::tr("Two columns (7 in wide)"), 7.0 * 96);
    preset->addItem(QObject::tr("Slide (13.3 in wide)"), 13.33 * 96);
    auto* width = new QDoubleSpinBox(&dlg);
    auto* height = new QDoubleSpinBox(&dlg);
    width->setObjectName(QStringLiteral("width"));
    height->setObjectName(QStringLiteral("height"));
    auto* lock = new QCheckBox(QObject::tr("Keep the aspect"), &dlg);
    lock->setChecked(true);
    auto* font = new QDoubleSpinBox(&dlg);
    font->setObjectName(QStringLiteral("fontSize"));
    font->setRange(4, 48);
    font->setDecimals(1);
    font->setSingleStep(0.5);
    font->setSuffix(QStringLiteral(" pt"));
    font->setValue(opts->fontPt > 0 ? opts->fontPt : 9.0);
    auto* title = new QCheckBox(QObject::tr("Draw the title (papers put it in the caption)"), &dlg);
    title->setChecked(opts->title);
    const QSize start = opts->resolve(preferred);
    double wPx = start.width(), hPx = start.height();
    bool updating = false;
    auto show = [&] {
        updating = true;
        const double per = unit->currentData().toDouble();
        const int dec = units[unit->currentIndex()].decimals;
        for (auto* s : {width, height}) {
            s->setDecimals(dec);
            s->setRange(64 / per, 20000 / per);
        }
        width->setValue(wPx / per);
        height->setValue(hPx / per);
        updating = false;
    };
    auto* sizeRow = new QHBoxLayout;
    sizeRow->addWidget(width);
    sizeRow->addWidget(new QLabel(QStringLiteral("×"), &dlg));
    sizeRow->addWidget(height);
    sizeRow->addWidget(unit);
    form->addRow(QObject::tr("Preset:"), preset);
    form->addRow(QObject::tr("Size:"), sizeRow);
    form->addRow(QString(), lock);
    form->addRow(QObject::tr("Font size:"), font);
    form->addRow(QString(), title);
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, &dlg);
    form->addRow(buttons);
    QObject::connect(buttons, &QDialogButtonBox::accepted, &dlg, &QDialog::accept);
    QObject::connect(buttons, &QDialogButtonBox::rejected, &dlg, &QDialog::reject);
    QObject::connect(unit, &QComboBox::currentIndexChanged, &dlg, [&](int) { show(); });
    QObject::connect(width, &QDoubleSpinBox::valueChanged, &dlg, [&](double v) {
        if (updating)
            return;
        const double ratio = hPx / wPx;
        wPx = v * unit->currentData().toDouble();
        if (lock->isChecked())
            hPx = wPx * ratio;
        show();
    });
    QObject::connect(height, &QDoubleSpinBox::valueChanged, &dlg, [&](double v) {
        if (updating)
            return;
        const double ratio = wPx / hPx;
        hPx = v * unit->currentData().toDouble();
        if (lock->isChecked())
            wPx = hPx * ratio;
        show();
    });
    QObject::connect(preset, &QComboBox::currentIndexChanged, &dlg, [&](int i) {
        const double w = preset->itemData(i).toDouble();
        const double ratio = double(preferred.height()) / preferred.width();
        wPx = w > 0 ? w : preferred.width();
        hPx = wPx * ratio;
        if (w > 0)
            unit->setCurrentIndex(2);  // inches
        show();
    });
    show();
    if (dlg.exec() != QDialog::Accepted)
        return false;
    opts->widthPx = wPx;
    opts->heightPx = hPx;
    opts->fontPt = font->value();
    opts->title = title->isChecked();
    return true;
}

}  // namespace kbx::gui
