// SPDX-License-Identifier: MIT
// Tests of kbx_charts: every figure renders (PNG, SVG, PDF) from a database with several methods,
// categories, failure classes, rounds and timings; exports carry provenance; tables are exact.
#include "analysis.h"
#include "chartpanel.h"
#include "chartparts.h"
#include "figureexport.h"
#include "figurestyle.h"
#include "seed_import.h"
#include "stats_tables.h"
#include "store.h"

#include <QApplication>
#include <QComboBox>
#include <QGraphicsRectItem>
#include <QGraphicsView>
#include <QLabel>
#include <QDir>
#include <QFile>
#include <QImage>
#include <QRegularExpression>
#include <QSet>
#include <QSignalSpy>
#include <QTabWidget>
#include <QTest>

#include <gtest/gtest.h>
#include <unistd.h>

#include <random>
#include <set>
#include <tuple>

namespace fs = std::filesystem;
namespace an = kbx::analysis;
using kbx::gui::exportFigure;
using kbx::gui::figureNames;

namespace {

QString outDir()
{
    const QString d = QStringLiteral(KBX_CHARTS_TEST_OUT);
    QDir().mkpath(d);
    return d;
}

QString tempDbPath(const QString& name)
{
    const QString p = QDir::tempPath() + QStringLiteral("/kbx-charts-%1-%2.sqlite").arg(name).arg(getpid());
    for (const char* s : {"", "-wal", "-shm"})
        QFile::remove(p + QLatin1String(s));
    return p;
}

std::int64_t addEval(kbx::Store& s, std::int64_t run, std::int64_t sub, const std::string& task, const std::string& cls)
{
    kbx::EvaluationRecord r;
    r.runId = run;
    r.submissionId = sub;
    r.taskId = task;
    r.pass = cls == "pass";
    r.exeOk = r.pass;
    static const std::set<std::string> exeStage = {"shape_mismatch", "dtype_mismatch", "nan_inf_mismatch", "value_mismatch",
                                                   "input_mutated", "not_triton_kernel"};
    r.callOk = r.pass || exeStage.count(cls) > 0;
    if (!r.pass)
        r.failureClass = cls;
    r.startedAt = r.finishedAt = kbx::nowIso8601();
    return s.addEvaluation(r);
}

void addTiming(kbx::Store& s, std::int64_t eval, const std::string& shape, double candMs, double baseMs)
{
    s.query("INSERT INTO timings(evaluation_id, shape, candidate_ms, baseline_ms) VALUES(" + std::to_string(eval) + ", '" +
            shape + "', " + std::to_string(candMs) + ", " + std::to_string(baseMs) + ")");
}

/// Three methods, five categories x 4 tasks, rounds 0-2, a CPU and an H200 run, seven failure
/// classes, timings for the correct kernels of the H200 run, a few manual labels.
QString makeRichDb(bool withTimings = true)
{
    const QString path = tempDbPath(withTimings ? QStringLiteral("rich") : QStringLiteral("notiming"));
    kbx::Store s(path.toStdString());
    const std::vector<std::string> methods = {"zero-shot", "reflexion", "kbx-agent"};
    const std::vector<std::string> cats = {"Activation", "Fusion", "Math", "Normalization", "Reduction"};
    const std::vector<std::string> classes = {"syntax_error",   "triton_compile_error", "runtime_error", "shape_mismatch",
                                              "value_mismatch", "nan_inf_mismatch",     "timeout"};
    std::mt19937 rng(1234);
    const auto cpu = s.beginRun("cpu", {{"torch", "2.13"}}, {0, 1}, 11, {});
    const auto gpu = s.beginRun("cuda", {{"devices", {{{"name", "NVIDIA H200"}}}}}, {0, 1}, 12, {});
    int labelled = 0;
    for (std::size_t mi = 0; mi < methods.size(); ++mi) {
        const auto m = s.ensureMethod(methods[mi]);
        for (int round = 0; round < 3; ++round)
            for (const auto& cat : cats)
                for (int t = 0; t < 4; ++t) {
                    const std::string task = cat + "/task" + std::to_string(t);
                    const auto cand = s.ensureCandidate(task, methods[mi] + task + std::to_string(round)).first;
                    const auto sub = s.ensureSubmission(cand, m, round, "test");
                    // Better methods and later rounds pass more often.
                    const double pPass = 0.25 + 0.15 * double(mi) + 0.1 * round;
                    std::uniform_real_distribution<double> u(0, 1);
                    const bool pass = u(rng) < pPass;
                    const std::string cls = pass ? "pass" : classes[rng() % classes.size()];
                    const auto run = (rng() % 3 == 0) ? cpu : gpu;
                    const auto e = addEval(s, run, sub, task, cls);
                    if (pass && run == gpu && withTimings) {
                        std::lognormal_distribution<double> speed(0.1 * double(mi), 0.8);
                        addTiming(s, e, "a", 1.0, speed(rng));
                        addTiming(s, e, "b", 2.0, 2.0 * speed(rng));
                    }
                    if (!pass && labelled < 6 && cls == "value_mismatch") {
                        s.setManualLabel(e, labelled % 2 ? "nan_inf_mismatch" : "pass", "reviewed", "test");
                        ++labelled;
                    }
                }
    }
    return path;
}

/// Small database with hand-checkable tables:
///   A: Activation/relu pass, Activation/gelu value_mismatch, Math/add pass
///   B: Activation/relu syntax_error, Math/add pass
QString makeSmallDb()
{
    const QString path = tempDbPath(QStringLiteral("small"));
    kbx::Store s(path.toStdString());
    const auto a = s.ensureMethod("A");
    const auto b = s.ensureMethod("B");
    const auto run = s.beginRun("cpu", {{"torch", "2.13"}}, {0}, 1, {});
    auto add = [&](std::int64_t m, const std::string& task, const std::string& cls) {
        const auto cand = s.ensureCandidate(task, std::to_string(m) + task).first;
        return addEval(s, run, s.ensureSubmission(cand, m, 0, "t"), task, cls);
    };
    add(a, "Activation/relu", "pass");
    add(a, "Activation/gelu", "value_mismatch");
    add(a, "Math/add", "pass");
    add(b, "Activation/relu", "syntax_error");
    add(b, "Math/add", "pass");
    return path;
}

QByteArray readAll(const QString& file)
{
    QFile f(file);
    if (!f.open(QIODevice::ReadOnly))
        return {};
    return f.readAll();
}

/// Distinct colours, and pixels clearly coloured (not grey).
std::pair<int, int> colourStats(const QImage& img)
{
    QSet<QRgb> colours;
    int chromatic = 0;
    const QImage im = img.convertToFormat(QImage::Format_RGB32);
    for (int y = 0; y < im.height(); ++y) {
        const auto* line = reinterpret_cast<const QRgb*>(im.constScanLine(y));
        for (int x = 0; x < im.width(); ++x) {
            colours.insert(line[x]);
            const int r = qRed(line[x]), g = qGreen(line[x]), b = qBlue(line[x]);
            if (std::max({r, g, b}) - std::min({r, g, b}) > 60)
                ++chromatic;
        }
    }
    return {int(colours.size()), chromatic};
}

class Charts : public ::testing::Test {
protected:
    static void SetUpTestSuite()
    {
        rich = new QString(makeRichDb(true));
        noTiming = new QString(makeRichDb(false));
        small = new QString(makeSmallDb());
    }
    static void TearDownTestSuite()
    {
        for (QString* p : {rich, noTiming, small}) {
            for (const char* s : {"", "-wal", "-shm"})
                QFile::remove(*p + QLatin1String(s));
            delete p;
        }
    }
    static QString* rich;
    static QString* noTiming;
    static QString* small;
};
QString* Charts::rich = nullptr;
QString* Charts::noTiming = nullptr;
QString* Charts::small = nullptr;

}  // namespace

TEST(ChartsApi, FigureNamesAreStable)
{
    EXPECT_EQ(figureNames(), (QStringList{"correctness_heatmap", "compile_vs_correct", "speedup_box", "speedup_ecdf", "fast_p",
                                          "taxonomy_by_category", "taxonomy_by_method", "round_trajectories", "method-summary",
                                          "category-method", "deviance", "rounds", "rescued", "cross-hardware", "slow-fraction",
                                          "taxonomy"}));
    EXPECT_EQ(kbx::gui::figureKind(QStringLiteral("category-method")), QStringLiteral("correctness_heatmap"));
    EXPECT_EQ(kbx::gui::figureKind(QStringLiteral("rounds")), QStringLiteral("round_trajectories"));
    EXPECT_EQ(kbx::gui::figureKind(QStringLiteral("deviance")), QStringLiteral("deviance"));
}

// The heatmap ramp (issue 23): lightness rises with the rate, so a low rate is never the brightest
// cell, and the ends are viridis's.
TEST(ChartsApi, HeatmapRampDarkForLowRatesLightForHigh)
{
    auto lightness = [](const QColor& c) { return 0.2126 * c.redF() + 0.7152 * c.greenF() + 0.0722 * c.blueF(); };
    double prev = -1;
    for (int i = 0; i <= 20; ++i) {
        const double l = lightness(kbx::gui::style::sequential(i / 20.0));
        EXPECT_GT(l, prev) << i;
        prev = l;
    }
    EXPECT_EQ(kbx::gui::style::sequential(0.0).name(), QStringLiteral("#440154"));
    EXPECT_EQ(kbx::gui::style::sequential(1.0).name(), QStringLiteral("#fde725"));
}

TEST_F(Charts, RichDatabaseHasWhatTheFiguresNeed)
{
    kbx::Store s(rich->toStdString());
    auto d = an::compute(s, {});
    EXPECT_EQ(d.rowCount, 180u);
    // three methods of three rounds each: one column per method and round, never pooled (issue 23)
    EXPECT_EQ(d.correctness.methods.size(), 9u);
    for (const auto& m : d.correctness.methods)
        EXPECT_NE(m.find(" · r"), std::string::npos) << m;
    EXPECT_EQ(d.correctness.categories.size(), 5u);
    EXPECT_TRUE(an::hasTimings(d.speedup));
    EXPECT_GE(d.taxonomyByCategory.classes.size(), 5u);
    EXPECT_TRUE(d.taxonomyByCategory.reviewed.has_value());
    EXPECT_EQ(d.rounds.size(), 3u);
}

TEST_F(Charts, EveryFigureRendersToPngWithColourAndProvenance)
{
    for (const auto& name : figureNames()) {
        if (name == QLatin1String("cross-hardware"))
            continue;  // one GPU per kernel here: CrossHardwareFigureFromTwoGpusAndGoldenTimings
        SCOPED_TRACE(name.toStdString());
        const QString file = outDir() + QStringLiteral("/%1.png").arg(name);
        QString error;
        ASSERT_TRUE(exportFigure(name, *rich, file, &error)) << error.toStdString();
        QImage img(file);
        ASSERT_FALSE(img.isNull());
        EXPECT_GE(img.width(), 1280);  // 2x scale of at least 640 logical pixels
        EXPECT_GE(img.height(), 720);
        const auto [distinct, chromatic] = colourStats(img);
        EXPECT_GT(distinct, 60) << "too few colours: blank figure?";
        EXPECT_GT(chromatic, 3000) << "hardly any coloured pixels: no data drawn?";
        EXPECT_TRUE(img.text(QStringLiteral("Description")).contains(*rich));
        EXPECT_TRUE(img.text(QStringLiteral("Description")).contains(QStringLiteral("runs=1,2")));
        EXPECT_TRUE(img.text(QStringLiteral("Software")).startsWith(QStringLiteral("kbx-workbench ")));
        EXPECT_EQ(img.text(QStringLiteral("Title")), kbx::gui::figureTitle(name));
    }
}

TEST_F(Charts, SvgCarriesProvenanceTitlesAndAxisTitles)
{
    const std::vector<std::pair<QString, QStringList>> expected = {
        {"correctness_heatmap", {"category", "method / stage", "Correctness by category and method", "zero-shot", "r0", "call"}},
        {"compile_vs_correct", {"rate (95% Wilson interval)", "compiles and runs (call)", "correct (exe)"}},
        {"speedup_box", {"speedup over PyTorch (log scale)", "method (correct kernels)"}},
        {"speedup_ecdf", {"speedup over PyTorch (log scale)"}},
        {"fast_p", {"speedup threshold p (log scale)", "fast_p: correct and speedup &gt; p"}},
        {"taxonomy_by_category", {"failed evaluations", "value_mismatch", "reviewed"}},
        {"taxonomy_by_method", {"failed evaluations", "kbx-agent"}},
        {"round_trajectories", {"round", "pass rate (95% Wilson interval)", "reflexion"}},
    };
    for (const auto& [name, texts] : expected) {
        SCOPED_TRACE(name.toStdString());
        const QString file = outDir() + QStringLiteral("/%1.svg").arg(name);
        QString error;
        ASSERT_TRUE(exportFigure(name, *rich, file, &error)) << error.toStdString();
        const QString svg = QString::fromUtf8(readAll(file));
        EXPECT_TRUE(svg.contains(QStringLiteral("<title>%1</title>").arg(kbx::gui::figureTitle(name).toHtmlEscaped())));
        EXPECT_TRUE(svg.contains(QStringLiteral("<desc>"))) << "no description";
        EXPECT_TRUE(svg.contains(*rich)) << "database path missing";
        EXPECT_TRUE(svg.contains(QStringLiteral("kbx 0.1.0")));
        EXPECT_TRUE(svg.contains(QStringLiteral("filters: method=all; round=all; gpu=all; category=all")));
        for (const auto& t : texts)
            EXPECT_TRUE(svg.contains(t)) << "missing text: " << t.toStdString();
    }
}

// --provenance-line (issue 23): the provenance printed under the figure, on request only.
TEST_F(Charts, ProvenanceLineUnderTheFigureOnRequest)
{
    QString error;
    const QString plain = outDir() + QStringLiteral("/prov_plain.png"), lined = outDir() + QStringLiteral("/prov_line.png");
    ASSERT_TRUE(exportFigure(QStringLiteral("compile_vs_correct"), *rich, plain, {}, false, &error)) << error.toStdString();
    ASSERT_TRUE(exportFigure(QStringLiteral("compile_vs_correct"), *rich, lined, {}, true, &error)) << error.toStdString();
    auto inkInBottomBand = [](const QImage& img) {
        int n = 0;
        for (int y = img.height() - 40; y < img.height(); ++y)
            for (int x = 0; x < img.width(); ++x)
                n += qGray(img.pixel(x, y)) < 200;
        return n;
    };
    const QImage a(plain), b(lined);
    ASSERT_FALSE(a.isNull());
    ASSERT_EQ(a.size(), b.size());
    EXPECT_EQ(inkInBottomBand(a), 0);
    EXPECT_GT(inkInBottomBand(b), 200) << "no provenance text under the figure";
}

TEST_F(Charts, PdfHasHeaderAndTitle)
{
    const QString file = outDir() + QStringLiteral("/correctness_heatmap.pdf");
    QString error;
    ASSERT_TRUE(exportFigure(QStringLiteral("correctness_heatmap"), *rich, file, &error)) << error.toStdString();
    const QByteArray pdf = readAll(file);
    ASSERT_TRUE(pdf.startsWith("%PDF-"));
    EXPECT_GT(pdf.size(), 5000);
    // The XMP packet is plain UTF-8; the Info dictionary strings are UTF-16BE.
    EXPECT_TRUE(pdf.contains(kbx::gui::figureTitle(QStringLiteral("correctness_heatmap")).toUtf8()));
    EXPECT_TRUE(pdf.contains(rich->toUtf8())) << "provenance (database path) missing";
    EXPECT_TRUE(pdf.contains("filters: method=all; round=all; gpu=all; category=all"));
    QByteArray utf16;
    for (QChar c : QStringLiteral("kbx-workbench 0.1.0")) {
        utf16.append(char(c.unicode() >> 8));
        utf16.append(char(c.unicode() & 0xff));
    }
    EXPECT_TRUE(pdf.contains(utf16) || pdf.contains("kbx-workbench 0.1.0")) << "creator with provenance missing";
}

TEST_F(Charts, EmptyTimingShowsMessageNotBlank)
{
    for (const QString& name : {QStringLiteral("speedup_box"), QStringLiteral("speedup_ecdf"), QStringLiteral("fast_p")}) {
        SCOPED_TRACE(name.toStdString());
        const QString png = outDir() + QStringLiteral("/notiming_%1.png").arg(name);
        const QString svg = outDir() + QStringLiteral("/notiming_%1.svg").arg(name);
        QString error;
        ASSERT_TRUE(exportFigure(name, *noTiming, png, &error)) << error.toStdString();
        ASSERT_TRUE(exportFigure(name, *noTiming, svg, &error)) << error.toStdString();
        EXPECT_TRUE(QString::fromUtf8(readAll(svg)).contains(QStringLiteral("No timing data in this database")));
        const auto [distinct, chromatic] = colourStats(QImage(png));
        EXPECT_GT(distinct, 10) << "blank image";   // the title and message are drawn
        EXPECT_LT(chromatic, 200) << "no data should be plotted";
    }
}

TEST_F(Charts, CorrectnessCsvExactRows)
{
    const QString file = outDir() + QStringLiteral("/small_correctness.csv");
    QString error;
    ASSERT_TRUE(exportFigure(QStringLiteral("correctness_heatmap"), *small, file, &error)) << error.toStdString();
    const QStringList lines = QString::fromUtf8(readAll(file)).split(QLatin1Char('\n'), Qt::SkipEmptyParts);
    auto w = [](int k, int n) {
        const auto ci = an::wilson(k, n);
        return QStringLiteral("%1,%2").arg(ci.lo, 0, 'f', 4).arg(ci.hi, 0, 'f', 4);
    };
    const QStringList expected = {
        "category,method,n,call_ok,call_rate,call_lo95,call_hi95,exe_ok,exe_rate,exe_lo95,exe_hi95",
        "Activation,A,2,2,1.0000," + w(2, 2) + ",1,0.5000," + w(1, 2),
        "Activation,B,1,0,0.0000," + w(0, 1) + ",0,0.0000," + w(0, 1),
        "Math,A,1,1,1.0000," + w(1, 1) + ",1,1.0000," + w(1, 1),
        "Math,B,1,1,1.0000," + w(1, 1) + ",1,1.0000," + w(1, 1),
        "All,A,3,3,1.0000," + w(3, 3) + ",2,0.6667," + w(2, 3),
        "All,B,2,1,0.5000," + w(1, 2) + ",1,0.5000," + w(1, 2),
    };
    EXPECT_EQ(lines, expected);
    EXPECT_EQ(w(1, 2), QStringLiteral("0.0945,0.9055"));
}

TEST_F(Charts, CorrectnessLatexBooktabsExactRows)
{
    const QString file = outDir() + QStringLiteral("/small_correctness.tex");
    QString error;
    ASSERT_TRUE(exportFigure(QStringLiteral("correctness_heatmap"), *small, file, &error)) << error.toStdString();
    const QString tex = QString::fromUtf8(readAll(file));
    EXPECT_TRUE(tex.contains(QStringLiteral("\\begin{tabular}{lrrrrrr}\n\\toprule\n")));
    EXPECT_TRUE(tex.contains(QStringLiteral("Category & A call (\\%) & A exe (\\%) & A n & B call (\\%) & B exe (\\%) & B n \\\\\n\\midrule\n")));
    EXPECT_TRUE(tex.contains(QStringLiteral("Activation & 100.0 & 50.0 & 2 & 0.0 & 0.0 & 1 \\\\\n")));
    EXPECT_TRUE(tex.contains(QStringLiteral("Math & 100.0 & 100.0 & 1 & 100.0 & 100.0 & 1 \\\\\n\\midrule\n")));
    EXPECT_TRUE(tex.contains(QStringLiteral("All & 100.0 & 66.7 & 3 & 50.0 & 50.0 & 2 \\\\\n\\bottomrule\n\\end{tabular}\n")));
    EXPECT_TRUE(tex.startsWith(QStringLiteral("% Correctness by category and method")));
    EXPECT_TRUE(tex.contains(*small));
}

TEST_F(Charts, OtherTablesCsv)
{
    QString error;
    const QString compile = outDir() + QStringLiteral("/small_compile.csv");
    ASSERT_TRUE(exportFigure(QStringLiteral("compile_vs_correct"), *small, compile, &error));
    const QStringList c = QString::fromUtf8(readAll(compile)).split(QLatin1Char('\n'), Qt::SkipEmptyParts);
    ASSERT_EQ(c.size(), 3);
    EXPECT_TRUE(c[1].startsWith(QStringLiteral("A,3,3,1.0000,")));
    EXPECT_TRUE(c[2].startsWith(QStringLiteral("B,2,1,0.5000,")));
    const QString tax = outDir() + QStringLiteral("/small_taxonomy.csv");
    ASSERT_TRUE(exportFigure(QStringLiteral("taxonomy_by_method"), *small, tax, &error));
    EXPECT_EQ(QString::fromUtf8(readAll(tax)),
              QStringLiteral("method,series,n,syntax_error,value_mismatch\nA,automatic,3,0,1\nB,automatic,2,1,0\n"));
    const QString rounds = outDir() + QStringLiteral("/small_rounds.csv");
    ASSERT_TRUE(exportFigure(QStringLiteral("round_trajectories"), *small, rounds, &error));
    EXPECT_TRUE(QString::fromUtf8(readAll(rounds)).contains(QStringLiteral("\nA,0,3,2,0.6667,")));
}

TEST_F(Charts, ErrorsAreReported)
{
    QString error;
    EXPECT_FALSE(exportFigure(QStringLiteral("pie_chart"), *small, outDir() + "/x.png", &error));
    EXPECT_TRUE(error.contains(QStringLiteral("unknown figure")));
    EXPECT_FALSE(exportFigure(QStringLiteral("fast_p"), *small, outDir() + "/x.bmp", &error));
    EXPECT_TRUE(error.contains(QStringLiteral(".bmp")));
    EXPECT_FALSE(exportFigure(QStringLiteral("fast_p"), QStringLiteral("/nonexistent/kbx.sqlite"), outDir() + "/x.png", &error));
    EXPECT_TRUE(error.contains(QStringLiteral("no such database")));
    EXPECT_FALSE(QFile::exists(QStringLiteral("/nonexistent/kbx.sqlite")));
}

TEST_F(Charts, PanelLoadsOffThreadFiltersAndScreenshot)
{
    kbx::gui::ChartPanel panel;
    panel.resize(1100, 700);
    panel.show();
    QSignalSpy ready(&panel, &kbx::gui::ChartPanel::figureReady);
    panel.setDatabase(*rich);
    EXPECT_TRUE(panel.isLoading());  // the load runs on a worker thread
    ASSERT_TRUE(ready.wait(20000));
    EXPECT_FALSE(panel.isLoading());
    EXPECT_EQ(ready.last().at(0).toString(), QStringLiteral("correctness_heatmap"));
    auto* gpu = panel.findChild<QComboBox*>(QStringLiteral("gpuFilter"));
    ASSERT_NE(gpu, nullptr);
    EXPECT_EQ(gpu->count(), 3);  // all, CPU, NVIDIA H200
    QImage shot = panel.grab().toImage();
    shot.save(outDir() + QStringLiteral("/panel_heatmap.png"));
    auto [distinct, chromatic] = colourStats(shot);
    EXPECT_GT(distinct, 60);
    EXPECT_GT(chromatic, 5000);

    // Figure switch: no reload, immediately drawn.
    panel.setCurrentFigure(QStringLiteral("fast_p"));
    EXPECT_EQ(ready.last().at(0).toString(), QStringLiteral("fast_p"));
    // GPU filter: reload in the background.
    const int before = ready.count();
    gpu->setCurrentIndex(gpu->findText(QStringLiteral("NVIDIA H200")));
    ASSERT_TRUE(ready.count() > before || ready.wait(20000));
    auto* status = panel.findChild<QLabel*>(QStringLiteral("status"));
    ASSERT_NE(status, nullptr);
    EXPECT_TRUE(status->text().contains(QStringLiteral("gpu=NVIDIA H200"))) << status->text().toStdString();
    shot = panel.grab().toImage();
    shot.save(outDir() + QStringLiteral("/panel_fast_p_h200.png"));
    std::tie(distinct, chromatic) = colourStats(shot);
    EXPECT_GT(chromatic, 1000);
}

int main(int argc, char** argv)
{
    qputenv("QT_QPA_PLATFORM", qgetenv("QT_QPA_PLATFORM").isEmpty() ? QByteArray("offscreen") : qgetenv("QT_QPA_PLATFORM"));
    QApplication app(argc, argv);
    ::testing::InitGoogleTest(&argc, argv);
    return RUN_ALL_TESTS();
}

TEST_F(Charts, AnalysisFiguresHaveTheirNumbers)
{
    kbx::Store s(rich->toStdString());
    const auto d = an::compute(s, {});
    ASSERT_TRUE(d.stats);
    std::set<std::tuple<std::string, std::string, int>> groups;  // (gpu, method, round), counted independently
    for (const auto& r : an::loadRows(s, {}, an::Latest::PerSubmissionAndGpu))
        groups.insert({r.gpu, r.method, r.round});
    EXPECT_EQ(d.stats->methods.size(), groups.size());
    EXPECT_FALSE(d.stats->deviance.empty());
    EXPECT_FALSE(d.stats->cross.slow.empty());
    const std::vector<std::pair<QString, QStringList>> expected = {
        {"method-summary", {"compile", "correct / compile", "rate (95% Wilson interval)"}},
        {"deviance", {"category alone", "method alone", "share of the null deviance"}},
        {"rescued", {"persistently correct", "geometric-mean speedup over eager"}},
        {"slow-fraction", {"H200 (", "correct kernels slower than eager"}},
    };
    for (const auto& [name, texts] : expected) {
        SCOPED_TRACE(name.toStdString());
        const QString file = outDir() + QStringLiteral("/%1.svg").arg(name);
        QString error;
        ASSERT_TRUE(exportFigure(name, *rich, file, &error)) << error.toStdString();
        const QString svg = QString::fromUtf8(readAll(file));
        for (const auto& t : texts)
            EXPECT_TRUE(svg.contains(t)) << "missing text: " << t.toStdString();
        const QString csv = outDir() + QStringLiteral("/%1.csv").arg(name);
        ASSERT_TRUE(exportFigure(name, *rich, csv, &error)) << error.toStdString();
        EXPECT_GT(QString::fromUtf8(readAll(csv)).count(QLatin1Char('\n')), 1);
    }
}

TEST(ChartsCross, CrossHardwareFigureFromTwoGpusAndGoldenTimings)
{
    const QString path = tempDbPath(QStringLiteral("cross"));
    {
        kbx::Store s(path.toStdString());
        const auto m = s.ensureMethod("A");
        const auto g1 = s.beginRun("cuda", {{"devices", {{{"name", "NVIDIA H200"}}}}}, {0}, 1, {});
        const auto g2 = s.beginRun("cuda", {{"devices", {{{"name", "NVIDIA A100"}}}}}, {0}, 2, {});
        for (int t = 0; t < 6; ++t) {
            const std::string task = "Math/t" + std::to_string(t);
            const auto sub = s.ensureSubmission(s.ensureCandidate(task, "code" + std::to_string(t)).first, m, 0, "t");
            addTiming(s, addEval(s, g1, sub, task, "pass"), "a", 1.0, 1.0 + t);
            addTiming(s, addEval(s, g2, sub, task, "pass"), "a", 1.0, 0.5 + 0.2 * t);
        }
        kbx::ImportBatch b;
        b.format = "golden-results";
        b.source = "t";
        b.sha256 = "cross";
        for (int t = 0; t < 4; ++t)
            for (const char* gpu : {"h800", "a100"}) {
                kbx::GoldenTiming g;
                g.gpu = gpu;
                g.task = "t" + std::to_string(t);
                g.inputSize = "[[4096]]";
                g.ms = std::string(gpu) == "h800" ? 1.0 : 1.5 + t;
                g.file = "f";
                b.golden.push_back(g);
            }
        s.writeImport(b);
    }
    const QString png = outDir() + QStringLiteral("/cross-hardware.png");
    const QString svg = outDir() + QStringLiteral("/cross-hardware.svg");
    QString error;
    ASSERT_TRUE(exportFigure(QStringLiteral("cross-hardware"), path, png, &error)) << error.toStdString();
    ASSERT_TRUE(exportFigure(QStringLiteral("cross-hardware"), path, svg, &error)) << error.toStdString();
    const QString text = QString::fromUtf8(readAll(svg));
    EXPECT_TRUE(text.contains(QStringLiteral("speedup: 6 kernels on 2 GPUs"))) << "kernel count missing";
    EXPECT_TRUE(text.contains(QStringLiteral("eager: 4 tasks on 2 GPUs")));
    // Spread of kernel t5: 6 / 1.5 = 4; golden t3: 4.5 / 1 = 4.5.
    EXPECT_TRUE(text.contains(QStringLiteral("max 4.00x")));
    EXPECT_TRUE(text.contains(QStringLiteral("max 4.50x")));
    const auto [distinct, chromatic] = colourStats(QImage(png));
    EXPECT_GT(distinct, 60);
    EXPECT_GT(chromatic, 3000);
    for (const char* x : {"", "-wal", "-shm"})
        QFile::remove(path + QLatin1String(x));
}

// ---- figures at scale (issue 24) ----------------------------------------------------------------

namespace {

/// methods methods (names of different lengths) x rounds rounds x cats categories x 2 tasks on one
/// GPU, every failure class of the taxonomy, timings for the correct kernels.
QString makeScaleDb(const QString& name, int methods, int rounds, int cats, bool shortNames = false)
{
    const QString path = tempDbPath(name);
    kbx::Store s(path.toStdString());
    static const std::vector<std::string> classes = {
        "syntax_error",  "no_entry_point", "import_error", "quant_contract_violated", "triton_compile_error", "runtime_error",
        "cuda_error",    "crash",          "timeout",      "out_of_memory",           "shape_mismatch",       "dtype_mismatch",
        "nan_inf_mismatch", "value_mismatch", "input_mutated", "not_triton_kernel", "empty"};
    std::mt19937 rng(24);
    const auto gpu = s.beginRun("cuda", {{"devices", {{{"name", "NVIDIA H200"}}}}}, {0}, 1, {});
    int k = 0;
    for (int mi = 0; mi < methods; ++mi) {
        const std::string method = "method-" + std::to_string(mi) + (mi % 3 == 0 && !shortNames ? "-with-a-longer-name" : "");
        const auto m = s.ensureMethod(method);
        for (int round = 0; round < rounds; ++round)
            for (int c = 0; c < cats; ++c)
                for (int t = 0; t < 2; ++t) {
                    const std::string task = "Category" + std::to_string(c) + "/task" + std::to_string(t);
                    const auto cand = s.ensureCandidate(task, method + task + std::to_string(round)).first;
                    const auto sub = s.ensureSubmission(cand, m, round, "t");
                    const bool pass = std::uniform_real_distribution<double>(0, 1)(rng) < 0.2 + 0.05 * (mi % 8) + 0.1 * round;
                    const auto e = addEval(s, gpu, sub, task, pass ? "pass" : classes[std::size_t(k++) % classes.size()]);
                    if (pass)
                        addTiming(s, e, "a", 1.0, std::lognormal_distribution<double>(0.1 * (mi % 8), 0.7)(rng));
                }
    }
    return path;
}

kbx::gui::FigureInput figureInput(const QString& name, const QString& db)
{
    kbx::Store s(db.toStdString());
    kbx::gui::FigureInput in;
    in.name = name;
    in.data = an::compute(s, {});
    in.provenance.database = db;
    return in;
}

class ChartsScale : public ::testing::Test {
protected:
    static void SetUpTestSuite()
    {
        eight = new QString(makeScaleDb(QStringLiteral("eight"), 8, 3, 4));
        many = new QString(makeScaleDb(QStringLiteral("many"), 28, 2, 2));
    }
    static void TearDownTestSuite()
    {
        for (QString* p : {eight, many}) {
            for (const char* s : {"", "-wal", "-shm"})
                QFile::remove(*p + QLatin1String(s));
            delete p;
        }
    }
    static QString* eight;
    static QString* many;
};
QString* ChartsScale::eight = nullptr;
QString* ChartsScale::many = nullptr;

/// Every text of the figure lies inside it, none is elided.
void expectTextsInside(const QList<kbx::gui::TextBox>& texts, const QSize& size)
{
    const QRectF figure = QRectF(QPointF(0, 0), QSizeF(size)).adjusted(-0.5, -0.5, 0.5, 0.5);
    for (const auto& t : texts) {
        EXPECT_TRUE(figure.contains(t.rect)) << t.role.toStdString() << " '" << t.text.toStdString() << "' at " << t.rect.x() << ","
                                             << t.rect.y() << " " << t.rect.width() << "x" << t.rect.height() << " outside "
                                             << size.width() << "x" << size.height();
        EXPECT_FALSE(t.text.contains(QChar(0x2026)) || t.text.contains(QStringLiteral("..."))) << "elided: " << t.text.toStdString();
    }
}

/// The export dialog's options for a paper figure: width, font, aspect 1.25.
kbx::gui::FigureInput atExportSize(kbx::gui::FigureInput in, const QString& width, double fontPt)
{
    in.options.widthPx = kbx::gui::parseLength(width);
    in.options.aspect = 1.25;
    in.options.fontPt = fontPt;
    return in;
}

/// A double-column figure at a larger font, and a one-column one.
const std::pair<QString, double> kPaperSizes[] = {{QStringLiteral("7in"), 11.0}, {QStringLiteral("3.5in"), 7.0}};

}  // namespace

TEST(ChartsStyle, TwelveDistinctColoursThenHatchesAndDashes)
{
    namespace st = kbx::gui::style;
    QSet<QRgb> colours;
    for (int i = 0; i < st::kPaletteSize; ++i)
        colours.insert(st::categorical(i).rgb());
    EXPECT_EQ(colours.size(), 12);
    for (int i = 0; i < st::kPaletteSize; ++i) {
        EXPECT_EQ(st::categoricalBrush(i).style(), Qt::SolidPattern) << i;
        EXPECT_EQ(st::linePen(i).style(), Qt::SolidLine) << i;
    }
    // Beyond the palette: the colour again, told apart by a hatch (bars) or dash (lines).
    for (int i = 12; i < 17; ++i) {
        EXPECT_EQ(st::categorical(i), st::categorical(i - 12));
        EXPECT_EQ(st::categoricalBrush(i).style(), Qt::TexturePattern) << i;
        EXPECT_NE(st::linePen(i).style(), Qt::SolidLine) << i;
    }
    // The font size option scales every font.
    const int base = st::labelFont().pixelSize();
    {
        st::FontSizeGuard big(18);
        EXPECT_EQ(st::labelFont().pixelSize(), 2 * base);
    }
    EXPECT_EQ(st::labelFont().pixelSize(), base);
}

TEST(ChartsStyle, LengthsAndAspects)
{
    EXPECT_DOUBLE_EQ(kbx::gui::parseLength(QStringLiteral("3.5in")), 336.0);
    EXPECT_DOUBLE_EQ(kbx::gui::parseLength(QStringLiteral("252pt")), 336.0);
    EXPECT_NEAR(kbx::gui::parseLength(QStringLiteral("88.9 mm")), 336.0, 1e-9);
    EXPECT_DOUBLE_EQ(kbx::gui::parseLength(QStringLiteral("640")), 640.0);
    QString error;
    EXPECT_LT(kbx::gui::parseLength(QStringLiteral("wide"), &error), 0);
    EXPECT_TRUE(error.contains(QStringLiteral("not a length")));
    EXPECT_LT(kbx::gui::parseLength(QStringLiteral("1px")), 0);
    EXPECT_DOUBLE_EQ(kbx::gui::parseAspect(QStringLiteral("16:9")), 16.0 / 9.0);
    EXPECT_DOUBLE_EQ(kbx::gui::parseAspect(QStringLiteral("1.6")), 1.6);
    EXPECT_LT(kbx::gui::parseAspect(QStringLiteral("0:1")), 0);
    kbx::gui::FigureOptions o;
    EXPECT_EQ(o.resolve({800, 500}), QSize(800, 500));
    o.widthPx = 400;
    EXPECT_EQ(o.resolve({800, 500}), QSize(400, 250));  // the figure's own shape
    o.aspect = 2;
    EXPECT_EQ(o.resolve({800, 500}), QSize(400, 200));
    o.heightPx = 300;
    EXPECT_EQ(o.resolve({800, 500}), QSize(400, 300));  // both given: the aspect is not needed
}

TEST_F(ChartsScale, EightMethodsLegendWholeDistinctColoursTextsInside)
{
    auto renderer = kbx::gui::makeDefaultRenderer();
    for (const QString name : {"fast_p", "speedup_ecdf", "round_trajectories", "compile_vs_correct", "taxonomy_by_method",
                               "correctness_heatmap", "method-summary", "speedup_box"}) {
        SCOPED_TRACE(name.toStdString());
        const auto in = figureInput(name, *eight);
        const QSize size = renderer->preferredSize(in);
        const auto texts = renderer->textBoxes(in, size);
        expectTextsInside(texts, size);
        QString error;
        if (name == QLatin1String("fast_p") || name == QLatin1String("taxonomy_by_method") || name == QLatin1String("round_trajectories")) {
            ASSERT_TRUE(kbx::gui::exportFigureInput(*renderer, in, outDir() + QStringLiteral("/scale8_%1.png").arg(name), &error))
                << error.toStdString();
        }
    }
    // fast_p: one line per method and round (24), every name in the legend, whole.
    const auto in = figureInput(QStringLiteral("fast_p"), *eight);
    ASSERT_EQ(in.data.fastp.size(), 24u);
    QStringList legend;
    for (const auto& t : renderer->textBoxes(in, renderer->preferredSize(in)))
        if (t.role == QLatin1String("legend"))
            legend << t.text;
    for (const auto& c : in.data.fastp)
        EXPECT_TRUE(legend.contains(QStringLiteral("%1 (n=%2)").arg(QString::fromStdString(c.method)).arg(c.n))) << c.method;
    // The lines of the first twelve are drawn in twelve different colours.
    const QImage img(outDir() + QStringLiteral("/scale8_fast_p.png"));
    ASSERT_FALSE(img.isNull());
    QSet<QRgb> present;
    const QImage rgb = img.convertToFormat(QImage::Format_RGB32);
    for (int y = 0; y < rgb.height(); ++y)
        for (int x = 0; x < rgb.width(); ++x)
            present.insert(rgb.pixel(x, y) & 0xffffff);
    int found = 0;
    for (int i = 0; i < kbx::gui::style::kPaletteSize; ++i)
        found += present.contains(kbx::gui::style::categorical(i).rgb() & 0xffffff);
    EXPECT_EQ(found, 12);
}

TEST_F(ChartsScale, TaxonomyOfSeventeenClassesHasAWholeLegend)
{
    auto renderer = kbx::gui::makeDefaultRenderer();
    const auto in = figureInput(QStringLiteral("taxonomy_by_method"), *eight);
    ASSERT_EQ(in.data.taxonomyByMethod.classes.size(), 17u);
    const QSize size = renderer->preferredSize(in);
    QStringList legend;
    QList<QRectF> rects;
    for (const auto& t : renderer->textBoxes(in, size))
        if (t.role == QLatin1String("legend")) {
            legend << t.text;
            rects << t.rect;
        }
    for (const auto& c : in.data.taxonomyByMethod.classes)
        EXPECT_TRUE(legend.contains(QString::fromStdString(c))) << c;
    for (int i = 0; i < rects.size(); ++i)
        for (int j = i + 1; j < rects.size(); ++j)
            EXPECT_FALSE(rects[i].intersects(rects[j])) << legend[i].toStdString() << " overlaps " << legend[j].toStdString();
}

// Three methods, one without a timed kernel ("default (3 timed)", "fixtures (0 timed)", "known-good
// (17 timed)", as in the demo): at 3.5 in the third label overlapped the second and Qt hid it, and no
// test saw it (a hidden label is no visible text). Hidden category labels count as crowding now: every
// label shows, broken in two lines, and the export warns of nothing.
TEST(ChartsCrowd, ALabelQtWouldHideBesideItsNeighbourIsShown)
{
    const QString path = tempDbPath(QStringLiteral("threemethods"));
    {
        kbx::Store s(path.toStdString());
        const auto run = s.beginRun("cuda", {{"devices", {{{"name", "NVIDIA H200"}}}}}, {0}, 1, {});
        for (const auto& [method, timed] : {std::pair{std::string("default"), 3}, std::pair{std::string("fixtures"), 0},
                                            std::pair{std::string("known-good"), 17}}) {
            const auto m = s.ensureMethod(method);
            for (int i = 0; i < std::max(timed, 4); ++i) {
                const std::string task = "Math/task" + std::to_string(i);
                const auto sub = s.ensureSubmission(s.ensureCandidate(task, method + task).first, m, 0, "t");
                const auto e = addEval(s, run, sub, task, i < timed ? "pass" : "value_mismatch");
                if (i < timed)
                    addTiming(s, e, "a", 1.0, 0.5 + 0.1 * i);
            }
        }
    }
    struct RemoveOnExit {
        QString p;
        ~RemoveOnExit()
        {
            for (const char* x : {"", "-wal", "-shm"})
                QFile::remove(p + QLatin1String(x));
        }
    } cleanup{path};
    auto renderer = kbx::gui::makeDefaultRenderer();
    for (const QString name : {"speedup_box", "compile_vs_correct"}) {
        SCOPED_TRACE(name.toStdString());
        const auto in = atExportSize(figureInput(name, path), kPaperSizes[1].first, kPaperSizes[1].second);
        const QSize size = in.options.resolve(renderer->preferredSize(in));
        QStringList shown;
        for (const auto& t : renderer->textBoxes(in, size))
            if (t.role == QLatin1String("axis") && (t.text.startsWith(QStringLiteral("default")) || t.text.startsWith(QStringLiteral("fixtures")) ||
                                                    t.text.startsWith(QStringLiteral("known-good"))))
                shown << t.text.section(QLatin1Char('\n'), 0, 0).section(QLatin1Char(' '), 0, 0);
        EXPECT_EQ(shown, (QStringList{QStringLiteral("default"), QStringLiteral("fixtures"), QStringLiteral("known-good")}));
        QString error, warning;
        ASSERT_TRUE(kbx::gui::exportFigureInput(*renderer, in, outDir() + QStringLiteral("/three_%1_3.5in.png").arg(name), &error, &warning))
            << error.toStdString();
        EXPECT_TRUE(warning.isEmpty()) << warning.toStdString();
    }
}

// Issue 24: bar figures of many groups at paper sizes. Upright labels need a line of at least 7 px
// per group and per line: at 3.5 in (7 pt) more than about a dozen groups do not fit, and Qt would
// elide them. The export numbers the groups then and names them in a key under the axis (every name
// whole, in order); where even the key would not fit (more than 40 % of the height), Qt elides and
// the export says how many labels it could not show and what would show them. Where every label
// shows, it warns of nothing. 16 groups at 7 in (11 pt) keep every label whole and apart; 16 groups
// of short names keep them at 3.5 in too, one line each.
TEST(ChartsCrowd, ManyGroupsWarnWhereLabelsCannotFitAndSixteenFitSevenInches)
{
    const QString sixteen = makeScaleDb(QStringLiteral("sixteen"), 16, 1, 2);
    const QString many = makeScaleDb(QStringLiteral("twentyeight"), 28, 1, 2);
    const QString shortNames = makeScaleDb(QStringLiteral("sixteenshort"), 16, 1, 2, true);
    struct RemoveOnExit {
        QStringList paths;
        ~RemoveOnExit()
        {
            for (const QString& p : paths)
                for (const char* s : {"", "-wal", "-shm"})
                    QFile::remove(p + QLatin1String(s));
        }
    } cleanup{{sixteen, many, shortNames}};
    auto renderer = kbx::gui::makeDefaultRenderer();
    auto methodLabels = [&](const kbx::gui::FigureInput& in, const QSize& size, QList<kbx::gui::TextBox>* boxes) {
        QStringList out;
        for (const auto& t : renderer->textBoxes(in, size))
            if (t.role == QLatin1String("axis") && t.text.contains(QStringLiteral("method-")) && !t.text.contains(QChar(0x2026))) {
                if (boxes)
                    *boxes << t;
                out << QString(t.text).remove(QLatin1Char('\n')).remove(QChar(0x2028)).remove(QLatin1Char(' '));
            }
        return out;
    };
    int warned = 0, keyed = 0;
    for (const auto& [db, groups] : {std::pair{sixteen, 16}, std::pair{many, 28}, std::pair{shortNames, 16}})
        for (const QString name : {"method-summary", "speedup_box", "compile_vs_correct"}) {
            const auto plain = figureInput(name, db);
            const QStringList wanted = methodLabels(plain, renderer->preferredSize(plain), nullptr);
            ASSERT_EQ(wanted.size(), groups) << name.toStdString();
            for (const auto& [width, font] : kPaperSizes) {
                SCOPED_TRACE((name + QStringLiteral(" %1 groups at ").arg(groups) + width).toStdString());
                const auto in = atExportSize(plain, width, font);
                const QSize size = in.options.resolve(renderer->preferredSize(in));
                QList<kbx::gui::TextBox> labels;
                QStringList shown = methodLabels(in, size, &labels);
                // Numbered groups: the axis shows 1..N, the key names them in order.
                QString key;
                QStringList numbers;
                for (const auto& t : renderer->textBoxes(in, size)) {
                    if (t.role == QLatin1String("key"))
                        key += t.text;
                    else if (t.role == QLatin1String("axis") && QRegularExpression(QStringLiteral("^\\d+$")).match(t.text.trimmed()).hasMatch())
                        numbers << t.text.trimmed();
                }
                if (!key.isEmpty()) {
                    ++keyed;
                    EXPECT_TRUE(shown.isEmpty()) << shown.join(QStringLiteral(" | ")).toStdString();
                    const QString flat = QString(key).replace(QChar(0x00a0), QLatin1Char(' ')).remove(QLatin1Char(' '));
                    qsizetype at = 0;
                    for (int i = 0; i < wanted.size(); ++i) {
                        const QString entry = QString::number(i + 1) + wanted[i];
                        const auto found = flat.indexOf(entry, at);
                        EXPECT_GE(found, at) << entry.toStdString() << " not in the key, in order: " << key.toStdString();
                        at = std::max(at, found);
                    }
                    QStringList oneToN;
                    for (int i = 1; i <= groups; ++i)
                        oneToN << QString::number(i);
                    numbers.sort();
                    oneToN.sort();
                    if (numbers == oneToN)
                        shown = wanted;  // every group shows, by its number
                    else
                        shown.clear();
                    expectTextsInside(renderer->textBoxes(in, size), size);
                }
                const int hidden = groups - int(shown.size());
                QString error, warning;
                ASSERT_TRUE(kbx::gui::exportFigureInput(*renderer, in,
                                                        outDir() + QStringLiteral("/crowd%1%4_%2_%3.png").arg(groups).arg(name, width, db == shortNames ? QStringLiteral("s") : QString()),
                                                        &error, &warning))
                    << error.toStdString();
                if (hidden > 0) {
                    ++warned;
                    EXPECT_TRUE(warning.startsWith(QStringLiteral("%1 of %2 category labels do not fit").arg(hidden).arg(groups)))
                        << warning.toStdString();
                    EXPECT_TRUE(warning.contains(QStringLiteral("a wider figure"))) << warning.toStdString();
                } else {
                    EXPECT_EQ(shown, wanted);
                    EXPECT_TRUE(warning.isEmpty()) << warning.toStdString();
                }
                // 16 groups fit 7 in; 16 short names ("method-12 (n=4)") fit 3.5 in too, one line each.
                if (groups == 16 && (width == kPaperSizes[0].first || db == shortNames)) {
                    EXPECT_EQ(hidden, 0) << "shown: " << shown.join(QStringLiteral(" | ")).toStdString();
                    expectTextsInside(labels, size);
                    for (int i = 0; i < labels.size(); ++i)
                        for (int j = i + 1; j < labels.size(); ++j)
                            EXPECT_FALSE(labels[i].rect.adjusted(1, 1, -1, -1).intersects(labels[j].rect.adjusted(1, 1, -1, -1)))
                                << "'" << labels[i].text.toStdString() << "' overlaps '" << labels[j].text.toStdString() << "'";
                }
                // Texts over the plot ("no data: no timed correct kernel" in an empty group) stay in
                // their group's slot: shortened or left out, never over each other.
                QList<QRectF> notes;
                for (const auto& t : renderer->textBoxes(in, size))
                    if (t.role == QLatin1String("annotation"))
                        notes << t.rect;
                for (int i = 0; i < notes.size(); ++i)
                    for (int j = i + 1; j < notes.size(); ++j)
                        EXPECT_FALSE(notes[i].adjusted(0.5, 0.5, -0.5, -0.5).intersects(notes[j])) << "annotations overlap: " << i << ", " << j;
                // The figure's table has every group and never warns.
                ASSERT_TRUE(kbx::gui::exportFigureInput(*renderer, in, outDir() + QStringLiteral("/crowd%1_%2.csv").arg(groups).arg(name), &error,
                                                        &warning));
                EXPECT_TRUE(warning.isEmpty());
            }
        }
    EXPECT_GT(keyed, 0) << "no export numbered its groups";
    EXPECT_GT(keyed + warned, 0) << "the crowded exports this test is about did not happen";
}

TEST_F(ChartsScale, ManyMethodsHeatmapCellTextFitsOrHides)
{
    auto renderer = kbx::gui::makeDefaultRenderer();
    const auto in = figureInput(QStringLiteral("correctness_heatmap"), *many);
    ASSERT_EQ(in.data.correctness.methods.size(), 56u);  // 28 methods x 2 rounds
    const QSize size = renderer->preferredSize(in);
    const auto texts = renderer->textBoxes(in, size);
    expectTextsInside(texts, size);
    int cells = 0;
    QList<QRectF> columnLabels;
    for (const auto& t : texts) {
        if (t.role == QLatin1String("cell")) {
            ++cells;
            EXPECT_TRUE(t.container.adjusted(-0.5, -0.5, 0.5, 0.5).contains(t.rect)) << "cell text wider than its cell: " << t.text.toStdString();
        }
        if (t.role == QLatin1String("axis") && (t.text.endsWith(QStringLiteral(" · call")) || t.text.endsWith(QStringLiteral(" · exe"))))
            columnLabels << t.rect;
    }
    EXPECT_EQ(columnLabels.size(), 112);
    for (int i = 0; i + 1 < columnLabels.size(); ++i)
        for (int j = i + 1; j < columnLabels.size(); ++j)
            EXPECT_FALSE(columnLabels[i].adjusted(0.5, 0.5, -0.5, -0.5).intersects(columnLabels[j])) << "column labels overlap: " << i << ", " << j;
    QString error;
    ASSERT_TRUE(kbx::gui::exportFigureInput(*renderer, in, outDir() + QStringLiteral("/scale28_heatmap.png"), &error)) << error.toStdString();
    // At a figure half as wide, the cells are narrower: their text fits or is left out, never overflows.
    auto narrow = in;
    narrow.options.widthPx = size.width() / 2;
    narrow.options.heightPx = size.height();
    const QSize nsize = narrow.options.resolve(size);
    int shown = 0;
    for (const auto& t : renderer->textBoxes(narrow, nsize))
        if (t.role == QLatin1String("cell")) {
            ++shown;
            EXPECT_TRUE(t.container.adjusted(-0.5, -0.5, 0.5, 0.5).contains(t.rect)) << t.text.toStdString();
        }
    EXPECT_LE(shown, cells);
    for (const QString name : {"compile_vs_correct", "method-summary", "round_trajectories"}) {
        SCOPED_TRACE(name.toStdString());
        const auto fin = figureInput(name, *many);
        expectTextsInside(renderer->textBoxes(fin, renderer->preferredSize(fin)), renderer->preferredSize(fin));
        ASSERT_TRUE(kbx::gui::exportFigureInput(*renderer, fin, outDir() + QStringLiteral("/scale28_%1.png").arg(name), &error))
            << error.toStdString();
    }
}

TEST_F(ChartsScale, MethodSummaryOverRoundsShowsTheLastRoundOfEach)
{
    auto renderer = kbx::gui::makeDefaultRenderer();
    const auto in = figureInput(QStringLiteral("method-summary"), *eight);
    ASSERT_TRUE(in.data.stats);
    ASSERT_EQ(in.data.stats->methods.size(), 24u);  // 8 methods x 3 rounds
    int groups = 0;
    bool titled = false;
    for (const auto& t : renderer->textBoxes(in, renderer->preferredSize(in))) {
        if (t.role == QLatin1String("axis") && t.text.contains(QStringLiteral("(n=")))
            ++groups;
        titled = titled || t.text.contains(QStringLiteral("last of each"));
    }
    EXPECT_EQ(groups, 8);
    EXPECT_TRUE(titled) << "the axis title should say which round is drawn";
    // The CSV keeps every round.
    const QString csv = outDir() + QStringLiteral("/scale8_summary.csv");
    QString error;
    ASSERT_TRUE(exportFigure(QStringLiteral("method-summary"), *eight, csv, &error)) << error.toStdString();
    EXPECT_EQ(QString::fromUtf8(readAll(csv)).count(QLatin1Char('\n')), 25);
}

TEST_F(ChartsScale, ValuesOverBarsStayOffTheWhiskers)
{
    auto renderer = kbx::gui::makeDefaultRenderer();
    for (const QString& db : {*eight, *many}) {
        const auto in = figureInput(QStringLiteral("compile_vs_correct"), db);
        for (const auto& t : renderer->textBoxes(in, renderer->preferredSize(in))) {
            if (t.role == QLatin1String("value")) {
                EXPECT_LE(t.rect.width(), t.container.width() + 0.5) << "value wider than its bar: " << t.text.toStdString();
            }
        }
    }
}

TEST_F(ChartsScale, ExportSizeAndFontOptionsAreHonoured)
{
    kbx::analysis::Filters none;
    kbx::gui::FigureOptions o;
    o.widthPx = kbx::gui::parseLength(QStringLiteral("3.5in"));
    o.aspect = 1.4;
    o.fontPt = 8;
    o.title = false;
    QString error;
    const QString svg = outDir() + QStringLiteral("/sized.svg"), pdf = outDir() + QStringLiteral("/sized.pdf"),
                  png = outDir() + QStringLiteral("/sized.png");
    for (const auto& f : {svg, pdf, png})
        ASSERT_TRUE(exportFigure(QStringLiteral("compile_vs_correct"), *eight, f, none, false, o, &error)) << error.toStdString();
    const QString s = QString::fromUtf8(readAll(svg));
    EXPECT_TRUE(s.contains(QStringLiteral("viewBox=\"0 0 336 240\""))) << s.left(600).toStdString();
    EXPECT_FALSE(s.contains(kbx::gui::figureTitle(QStringLiteral("compile_vs_correct")) + QStringLiteral("</text>")));
    // 336 x 240 px = 252 x 180 pt.
    const QByteArray p = readAll(pdf);
    const auto box = QRegularExpression(QStringLiteral("/MediaBox \\[0 0 ([0-9.]+) ([0-9.]+)\\]")).match(QString::fromLatin1(p));
    ASSERT_TRUE(box.hasMatch());
    EXPECT_DOUBLE_EQ(box.captured(1).toDouble(), 252.0);
    EXPECT_DOUBLE_EQ(box.captured(2).toDouble(), 180.0);
    EXPECT_EQ(QImage(png).size(), QSize(672, 480));
    // Defaults: the preferred size.
    const QString plain = outDir() + QStringLiteral("/unsized.svg");
    ASSERT_TRUE(exportFigure(QStringLiteral("compile_vs_correct"), *eight, plain, &error));
    const QSize preferred = kbx::gui::makeDefaultRenderer()->preferredSize(figureInput(QStringLiteral("compile_vs_correct"), *eight));
    EXPECT_TRUE(QString::fromUtf8(readAll(plain)).contains(QStringLiteral("viewBox=\"0 0 %1 %2\"").arg(preferred.width()).arg(preferred.height())));
}

// Drill-down: hovering a heatmap cell gives its numbers, a click asks for its evaluations.
TEST_F(Charts, ClickOnACellRequestsItsFilter)
{
    kbx::gui::ChartPanel panel;
    panel.resize(1300, 800);
    panel.show();
    QSignalSpy ready(&panel, &kbx::gui::ChartPanel::figureReady);
    QSignalSpy requested(&panel, &kbx::gui::ChartPanel::filterRequested);
    panel.setDatabase(*rich);
    ASSERT_TRUE(ready.wait(20000));
    auto* view = panel.findChild<QGraphicsView*>(QStringLiteral("figureView"));
    ASSERT_NE(view, nullptr);
    QGraphicsItem* cell = nullptr;
    for (auto* item : view->scene()->items())
        if (item->type() == QGraphicsRectItem::Type && item->toolTip().contains(QStringLiteral("correct (exe)")) &&
            item->toolTip().contains(QStringLiteral("Fusion"))) {
            cell = item;
            break;
        }
    ASSERT_NE(cell, nullptr) << "no hover region on the heatmap cells";
    EXPECT_TRUE(cell->toolTip().contains(QStringLiteral("95% CI"))) << cell->toolTip().toStdString();
    const QPoint at = view->mapFromScene(cell->sceneBoundingRect().center());
    QTest::mouseClick(view->viewport(), Qt::LeftButton, {}, at);
    ASSERT_EQ(requested.count(), 1);
    const QVariantMap f = requested.first().at(0).toMap();
    EXPECT_EQ(f.value(QStringLiteral("figure")).toString(), QStringLiteral("correctness_heatmap"));
    EXPECT_EQ(f.value(QStringLiteral("category")).toString(), QStringLiteral("Fusion"));
    EXPECT_EQ(f.value(QStringLiteral("stage")).toString(), QStringLiteral("exe"));
    EXPECT_TRUE(QStringList({"zero-shot", "reflexion", "kbx-agent"}).contains(f.value(QStringLiteral("method")).toString()));
    EXPECT_TRUE(f.contains(QStringLiteral("round")));
    EXPECT_TRUE(cell->toolTip().startsWith(f.value(QStringLiteral("method")).toString()));
    // A bar of compile_vs_correct: method and stage.
    panel.setCurrentFigure(QStringLiteral("compile_vs_correct"));
    QGraphicsItem* bar = nullptr;
    for (auto* item : view->scene()->items())
        if (item->type() == QGraphicsRectItem::Type && item->toolTip().contains(QStringLiteral("compiles and runs (call)")))
            bar = item;
    ASSERT_NE(bar, nullptr);
    QTest::mouseClick(view->viewport(), Qt::LeftButton, {}, view->mapFromScene(bar->sceneBoundingRect().center()));
    ASSERT_EQ(requested.count(), 2);
    EXPECT_EQ(requested.last().at(0).toMap().value(QStringLiteral("stage")).toString(), QStringLiteral("call"));
    panel.grab().save(outDir() + QStringLiteral("/panel_compile_hover.png"));
}

// A one-column paper figure (3.5 x 2.8 in, 7 pt) of three methods in three rounds: every text inside, none elided.
TEST_F(Charts, OneColumnFigureKeepsEveryTextInside)
{
    auto renderer = kbx::gui::makeDefaultRenderer();
    for (const QString name : {"compile_vs_correct", "speedup_box", "speedup_ecdf", "fast_p", "round_trajectories", "method-summary",
                               "slow-fraction", "deviance"}) {
        SCOPED_TRACE(name.toStdString());
        auto in = figureInput(name, *rich);
        in.options.widthPx = kbx::gui::parseLength(QStringLiteral("3.5in"));
        in.options.heightPx = kbx::gui::parseLength(QStringLiteral("2.8in"));
        in.options.fontPt = 7;
        const QSize size = in.options.resolve(renderer->preferredSize(in));
        expectTextsInside(renderer->textBoxes(in, size), size);
        QString error, warning;
        ASSERT_TRUE(kbx::gui::exportFigureInput(*renderer, in, outDir() + QStringLiteral("/onecol_%1.png").arg(name), &error, &warning))
            << error.toStdString();
        // No category label hidden either (Qt hides one that would overlap its neighbour: the third
        // method of speedup_box and compile_vs_correct was missing here).
        EXPECT_TRUE(warning.isEmpty()) << warning.toStdString();
    }
}

// A larger font or a narrower export (the export dialog's options): the bar figures' category labels
// collided and Qt hid the outer ones (method-summary at 7 in and 11 pt showed two of four, on top of each
// other). They are broken in two lines, then turned upright: every text shown at the preferred size is
// shown, whole and apart from the others.
TEST_F(Charts, LargerFontsAndNarrowerExportsKeepEveryAxisLabelApart)
{
    auto renderer = kbx::gui::makeDefaultRenderer();
    auto axisTexts = [&](const kbx::gui::FigureInput& in, const QSize& size) {
        QList<kbx::gui::TextBox> out;
        for (const auto& t : renderer->textBoxes(in, size))
            if (t.role == QLatin1String("axis") || t.role == QLatin1String("legend"))
                out << t;
        return out;
    };
    for (const QString name : {"compile_vs_correct", "method-summary", "slow-fraction", "speedup_box"}) {
        const auto plain = figureInput(name, *rich);
        const auto shown = axisTexts(plain, renderer->preferredSize(plain)).size();
        for (const auto& [width, font] : kPaperSizes) {
            SCOPED_TRACE((name + QLatin1Char(' ') + width).toStdString());
            const auto in = atExportSize(plain, width, font);
            const QSize size = in.options.resolve(renderer->preferredSize(in));
            const auto texts = axisTexts(in, size);
            expectTextsInside(texts, size);
            EXPECT_EQ(texts.size(), shown) << "a label shown at the preferred size is hidden";
            QString error;
            ASSERT_TRUE(kbx::gui::exportFigureInput(*renderer, in, outDir() + QStringLiteral("/fonts_%1_%2.png").arg(name, width), &error))
                << error.toStdString();
            for (int i = 0; i < texts.size(); ++i)
                for (int j = i + 1; j < texts.size(); ++j)
                    EXPECT_FALSE(texts[i].rect.adjusted(1, 1, -1, -1).intersects(texts[j].rect.adjusted(1, 1, -1, -1)))
                        << "'" << texts[i].text.toStdString() << "' overlaps '" << texts[j].text.toStdString() << "'";
        }
    }
}

// Issue 24: a database of many rounds drew one "method · rN" series per round (thousands at 1M, minutes
// to render). Drawn figures show the latest 8 rounds without a round filter and say so (filters in the
// provenance, the panel's footer); tables (.csv) keep every round; 8 rounds or fewer are never bounded.
TEST(ChartsBound, DrawnFiguresShowTheLatestEightRoundsAndSaySo)
{
    auto make = [](int rounds) {
        const QString path = tempDbPath(QStringLiteral("rounds%1").arg(rounds));
        kbx::Store s(path.toStdString());
        const auto m = s.ensureMethod("m");
        const auto run = s.beginRun("cpu", {{"torch", "2.13"}}, {0}, 1, {});
        for (int round = 0; round < rounds; ++round)
            for (const std::string task : {"Activation/relu", "Math/add"}) {
                const auto cand = s.ensureCandidate(task, task + std::to_string(round)).first;
                addEval(s, run, s.ensureSubmission(cand, m, round, "test"), task, round % 2 ? "pass" : "value_mismatch");
            }
        return path;
    };
    const QString many = make(10), eight = make(8);
    struct RemoveOnExit {  // after the panel below (declared later, destroyed first) has let go
        QStringList paths;
        ~RemoveOnExit()
        {
            for (const QString& p : paths)
                for (const char* s : {"", "-wal", "-shm"})
                    QFile::remove(p + QLatin1String(s));
        }
    } cleanup{{many, eight}};
    QString error;
    const QString png = outDir() + QStringLiteral("/bounded_heatmap.png");
    ASSERT_TRUE(exportFigure(QStringLiteral("correctness_heatmap"), many, png, &error)) << error.toStdString();
    const QString description = QImage(png).text(QStringLiteral("Description"));
    EXPECT_TRUE(description.contains(QStringLiteral("round=2,3,4,5,6,7,8,9"))) << description.toStdString();
    // The table of the same figure: every round, 2 counted evaluations each.
    const QString csv = outDir() + QStringLiteral("/bounded_heatmap.csv");
    ASSERT_TRUE(exportFigure(QStringLiteral("correctness_heatmap"), many, csv, &error)) << error.toStdString();
    QFile f(csv);
    ASSERT_TRUE(f.open(QIODevice::ReadOnly));
    const QString text = QString::fromUtf8(f.readAll());
    for (int round = 0; round < 10; ++round)
        EXPECT_TRUE(text.contains(QStringLiteral("m · r%1,").arg(round))) << round << text.toStdString();
    // Eight rounds: all drawn.
    const QString png8 = outDir() + QStringLiteral("/unbounded_heatmap.png");
    ASSERT_TRUE(exportFigure(QStringLiteral("correctness_heatmap"), eight, png8, &error)) << error.toStdString();
    EXPECT_TRUE(QImage(png8).text(QStringLiteral("Description")).contains(QStringLiteral("round=all")));
    // The panel: the footer says what is drawn.
    kbx::gui::ChartPanel panel;
    panel.resize(1100, 700);
    panel.show();
    QSignalSpy ready(&panel, &kbx::gui::ChartPanel::figureReady);
    panel.setDatabase(many);
    ASSERT_TRUE(ready.wait(20000));
    auto* status = panel.findChild<QLabel*>(QStringLiteral("status"));
    ASSERT_NE(status, nullptr);
    EXPECT_TRUE(status->text().contains(QStringLiteral("16 of 16 evaluations counted"))) << status->text().toStdString();
    EXPECT_TRUE(status->text().contains(QStringLiteral("the latest 8 of 10 rounds"))) << status->text().toStdString();
}

// Issue 24: a panel hidden in a shown window (another tab current) computes nothing until it is shown;
// a newer database while hidden replaces the pending one.
TEST_F(Charts, HiddenPanelLoadsWhenShown)
{
    QTabWidget tabs;
    tabs.addTab(new QLabel(QStringLiteral("another view")), QStringLiteral("Other"));
    auto* panel = new kbx::gui::ChartPanel;
    tabs.addTab(panel, QStringLiteral("Charts"));
    tabs.resize(1100, 700);
    tabs.show();
    QApplication::processEvents();
    ASSERT_FALSE(panel->isVisible());
    QSignalSpy ready(panel, &kbx::gui::ChartPanel::figureReady);
    panel->setDatabase(*small);
    panel->setDatabase(*rich);
    EXPECT_FALSE(panel->isLoading());
    EXPECT_FALSE(ready.wait(1000));
    auto* status = panel->findChild<QLabel*>(QStringLiteral("status"));
    ASSERT_NE(status, nullptr);
    EXPECT_TRUE(status->text().contains(QStringLiteral("computed when this tab is shown"))) << status->text().toStdString();
    tabs.setCurrentIndex(1);
    ASSERT_TRUE(ready.count() > 0 || ready.wait(20000));
    EXPECT_EQ(ready.count(), 1);
    EXPECT_EQ(panel->database(), *rich);
    EXPECT_TRUE(status->text().contains(QStringLiteral("evaluations counted"))) << status->text().toStdString();
    // Shown: a new database loads at once.
    panel->setDatabase(*small);
    EXPECT_TRUE(panel->isLoading());
    ASSERT_TRUE(ready.wait(20000));
}

// GPU names as torch reports them are long ("NVIDIA A100-SXM4-80GB"); in a category label they left
// no room at paper sizes (method-summary's "method · GPU · rN (n=...)" was cut at 3.5 in). A figure
// names each GPU as briefly as its set of GPUs allows ("A100" beside "H800"; "A100 80GB" beside
// "A100 40GB"; the whole name where only that tells them apart), and every label stays whole.
TEST(ChartsGpuNames, AsShortAsTheFiguresGpusAllow)
{
    using kbx::gui::qtcharts::GpuLabels;
    const GpuLabels three({"NVIDIA A100-SXM4-80GB", "NVIDIA H800", "NVIDIA GeForce RTX 4090", "CPU (Triton interpreter)"});
    EXPECT_EQ(three("NVIDIA A100-SXM4-80GB"), QStringLiteral("A100"));
    EXPECT_EQ(three("NVIDIA H800"), QStringLiteral("H800"));
    EXPECT_EQ(three("NVIDIA GeForce RTX 4090"), QStringLiteral("RTX 4090"));
    EXPECT_EQ(three("CPU (Triton interpreter)"), QStringLiteral("CPU"));
    const GpuLabels memory({"NVIDIA A100-SXM4-80GB", "NVIDIA A100-SXM4-40GB"});
    EXPECT_EQ(memory("NVIDIA A100-SXM4-80GB"), QStringLiteral("A100 80GB"));
    EXPECT_EQ(memory("NVIDIA A100-SXM4-40GB"), QStringLiteral("A100 40GB"));
    // Same model and memory, another form factor: only the whole name tells them apart.
    const GpuLabels form({"NVIDIA A100-SXM4-40GB", "NVIDIA A100-PCIE-40GB", "NVIDIA H200"});
    EXPECT_EQ(form("NVIDIA A100-SXM4-40GB"), QStringLiteral("A100-SXM4-40GB"));
    EXPECT_EQ(form("NVIDIA A100-PCIE-40GB"), QStringLiteral("A100-PCIE-40GB"));
    EXPECT_EQ(form("NVIDIA H200"), QStringLiteral("H200"));
    EXPECT_EQ(GpuLabels({"NVIDIA H100 80GB HBM3"})("NVIDIA H100 80GB HBM3"), QStringLiteral("H100"));
    // A name the set does not hold gets the whole name without the vendor.
    EXPECT_EQ(three("NVIDIA L20"), QStringLiteral("L20"));
    EXPECT_EQ(GpuLabels({})("NVIDIA A100-SXM4-80GB"), QStringLiteral("A100-SXM4-80GB"));
}

TEST(ChartsGpuNames, LongGpuNamesKeepEveryAxisLabelWholeAtPaperSizes)
{
    // Three methods x two rounds x three GPUs with torch's long names, five categories x two tasks.
    const QString path = tempDbPath(QStringLiteral("gpunames"));
    {
        kbx::Store s(path.toStdString());
        std::vector<std::int64_t> runs;
        for (const char* g : {"NVIDIA A100-SXM4-80GB", "NVIDIA H800", "NVIDIA GeForce RTX 4090"})
            runs.push_back(s.beginRun("cuda", {{"devices", {{{"name", g}}}}}, {0}, 1, {}));
        std::mt19937 rng(7);
        for (const std::string method : {"zero-shot", "reflexion", "kbx-agent"}) {
            const auto m = s.ensureMethod(method);
            for (int round = 0; round < 2; ++round)
                for (int c = 0; c < 5; ++c)
                    for (int t = 0; t < 2; ++t) {
                        const std::string task = "Category" + std::to_string(c) + "/task" + std::to_string(t);
                        const auto sub = s.ensureSubmission(s.ensureCandidate(task, method + task + std::to_string(round)).first, m, round, "t");
                        for (const auto run : runs) {
                            const bool pass = rng() % 2 == 0;
                            const auto e = addEval(s, run, sub, task, pass ? "pass" : "value_mismatch");
                            if (pass)
                                addTiming(s, e, "a", 1.0, std::lognormal_distribution<double>(0.0, 0.5)(rng));
                        }
                    }
        }
    }
    auto renderer = kbx::gui::makeDefaultRenderer();
    for (const QString name : {"method-summary", "slow-fraction", "deviance", "rescued", "compile_vs_correct"}) {
        const auto plain = figureInput(name, path);
        for (const auto& [width, font] : kPaperSizes) {
            SCOPED_TRACE((name + QLatin1Char(' ') + width).toStdString());
            const auto in = atExportSize(plain, width, font);
            const QSize size = in.options.resolve(renderer->preferredSize(in));
            QList<kbx::gui::TextBox> axis;
            for (const auto& t : renderer->textBoxes(in, size))
                if (t.role == QLatin1String("axis"))
                    axis << t;
            expectTextsInside(axis, size);
            for (const auto& t : axis)
                EXPECT_FALSE(t.text.contains(QStringLiteral("SXM4"))) << "a GPU's whole name where a short one tells them apart: "
                                                                      << t.text.toStdString();
            QString error;
            ASSERT_TRUE(kbx::gui::exportFigureInput(*renderer, in, outDir() + QStringLiteral("/gpunames_%1_%2.png").arg(name, width), &error))
                << error.toStdString();
        }
    }
    for (const char* x : {"", "-wal", "-shm"})
        QFile::remove(path + QLatin1String(x));
}
