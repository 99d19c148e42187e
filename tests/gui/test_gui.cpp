// SPDX-License-Identifier: MIT
// Widget tests of the workbench's views and screenshots of them (saved under the build dir:
// tests/gui/screenshots/*.png). Offscreen (QT_QPA_PLATFORM=offscreen).
#include "codecompare.h"
#include "codeview.h"
#include "database.h"
#include "errorheatmap.h"
#include "evaluationtablemodel.h"
#include "facetmodel.h"
#include "failureinspector.h"
#include "guitestutil.h"
#include "mainwindow.h"
#include "palette.h"
#include "perfpanel.h"
#include "resultsview.h"
#include "runpanel.h"
#include "syntax.h"
#include "taskbrowser.h"
#include "tasktreemodel.h"

#include "catalogue.h"

#include <QAbstractItemModelTester>
#include <cmath>
#include <limits>
#include <QApplication>
#include <QMessageBox>
#include <QTimer>
#include <QComboBox>
#include <QDragEnterEvent>
#include <QDropEvent>
#include <QFile>
#include <QHeaderView>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLabel>
#include <QLineEdit>
#include <QMimeData>
#include <QPlainTextEdit>
#include <QProgressBar>
#include <QPushButton>
#include <QSettings>
#include <QSignalSpy>
#include <QStatusBar>
#include <QTabWidget>
#include <QTableView>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QTest>
#include <QTextBrowser>
#include <QTreeView>

#include <gtest/gtest.h>

using namespace kbx::gui;
using namespace kbx::gui::test;

namespace {

QString readFile(const QString& path)
{
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly))
        return {};
    return QString::fromUtf8(f.readAll());
}

class GuiDb : public ::testing::Test {
protected:
    void SetUp() override
    {
        ASSERT_TRUE(dir.isValid());
        db = copyBenchDatabase(dir.path());
        ASSERT_FALSE(db.isEmpty());
        QString err;
        ASSERT_TRUE(prepareDatabase(db, &err)) << err.toStdString();
        applyPalette(false);
    }
    qint64 idOf(const char* where) { return queryInt64(db, QStringLiteral("SELECT min(id) FROM evaluations WHERE %1").arg(QLatin1String(where))); }
    QTemporaryDir dir;
    QString db;
};

const QString kReluRuntimeError = QStringLiteral("failure_detail LIKE '%missing 1 required positional%'");

}  // namespace

TEST_F(GuiDb, CodeViewMarksTheTracebackLineAndShowsText)
{
    const auto d = loadEvaluation(db, idOf("failure_detail LIKE '%missing 1 required positional%'"));
    ASSERT_TRUE(d.valid);
    ASSERT_TRUE(d.markers.contains(17));
    CodeView view;
    view.setCode(d.code, d.markers);
    EXPECT_EQ(view.blockCount(), int(d.code.count(QLatin1Char('\n')) + (d.code.endsWith(QLatin1Char('\n')) ? 1 : 1)));
    EXPECT_EQ(view.markers().value(17), d.markers.value(17));
    EXPECT_EQ(view.isHighlighted(), syntaxHighlightingAvailable());
    EXPECT_GT(view.gutterWidth(), 10);
    // The marked line is a red band: its extra selection is there, and only there.
    bool band = false;
    for (const auto& s : view.extraSelections()) {
        band |= s.cursor.blockNumber() == 16 && s.format.background().color().red() > 200;
        EXPECT_TRUE(d.markers.contains(s.cursor.blockNumber() + 1)) << s.cursor.blockNumber();
    }
    EXPECT_TRUE(band);
    // Markers on lines the text does not have are ignored.
    QMap<int, QString> outside = d.markers;
    outside[500] = QStringLiteral("beyond the end");
    view.setMarkers(outside);
    EXPECT_EQ(view.extraSelections().size(), d.markers.size());
    view.setMarkers(d.markers);

    const QImage img = screenshot(&view, QStringLiteral("codeview-marker"), {760, 420});
    ASSERT_FALSE(img.isNull());
    const QRect text(view.gutterWidth() + 4, 0, img.width() - view.gutterWidth() - 30, img.height() - 20);
    EXPECT_GT(inkPixels(img, text, Qt::white), 1500) << "code text is not visible";
    EXPECT_GT(distinctColours(img, text), 12);
    // The band of line 17 (white blended with the marker colour).
    QColor band60 = CodeView::markerColor();
    const QColor blended(255 + (band60.red() - 255) * 60 / 255, 255 + (band60.green() - 255) * 60 / 255, 255 + (band60.blue() - 255) * 60 / 255);
    EXPECT_GT(pixelsNear(img, text, blended, 30), 2000) << "no marker band";
    // The marker dot in the gutter.
    EXPECT_GT(pixelsNear(img, QRect(0, 0, view.gutterWidth(), img.height()), CodeView::markerColor(), 60), 10);
}

TEST_F(GuiDb, CodeComparisonScreenshotPlainOrHighlighted)
{
    kbx::TaskCatalogue cat = kbx::TaskCatalogue::load(KBX_SOURCE_DIR "/tasks");
    const auto* relu = cat.find("Activation/relu");
    ASSERT_NE(relu, nullptr);
    const auto d = loadEvaluation(db, idOf("failure_detail LIKE '%missing 1 required positional%'"));
    CodeCompareView cmp;
    ASSERT_TRUE(cmp.setReferenceFile(QStringLiteral("Reference: Activation/relu.py"), QString::fromStdString(cat.taskFile(*relu).string())));
    // A known-good Triton fixture: decorators, tl.* calls and tl.constexpr to highlight.
    const QString good = readFile(QStringLiteral(KBX_SOURCE_DIR "/tests/fixtures/good/Activation/relu.py"));
    ASSERT_TRUE(good.contains(QStringLiteral("@triton.jit")));
    cmp.setCandidate(QStringLiteral("Candidate"), d.code, d.markers);
    EXPECT_TRUE(cmp.referenceView()->toPlainText().contains(QStringLiteral("def reference")));
    EXPECT_EQ(cmp.candidateView()->markers().size(), d.markers.size());

    const QString name = syntaxHighlightingAvailable() ? QStringLiteral("code-compare-highlighted") : QStringLiteral("code-compare-plain");
    const QImage img = screenshot(&cmp, name, {1200, 560});
    auto regionOf = [&](QWidget* w) {
        return QRect(w->mapTo(&cmp, QPoint(0, 0)), w->size()).adjusted(40, 4, -20, -20);
    };
    const QRect ref = regionOf(cmp.referenceView());
    const QRect cand = regionOf(cmp.candidateView());
    EXPECT_GT(inkPixels(img, ref, Qt::white), 1500) << "reference text not visible";
    EXPECT_GT(inkPixels(img, cand, Qt::white), 1500) << "candidate text not visible";
    if (syntaxHighlightingAvailable()) {
        // Highlighted text is visible: keywords, strings, tl.* in several hues.
        EXPECT_TRUE(cmp.candidateView()->isHighlighted());
        EXPECT_GE(hueBuckets(img, ref), 3) << "highlighted reference shows fewer than 3 colours";
        EXPECT_GE(hueBuckets(img, cand), 3) << "highlighted candidate shows fewer than 3 colours";
    } else {
        // Plain text: black on white, the only saturated colour is the failure marker.
        EXPECT_FALSE(cmp.candidateView()->isHighlighted());
        EXPECT_LE(hueBuckets(img, ref, 50), 1);
    }

    // The same with the known-good fixture and the dark palette.
    applyPalette(true);
    cmp.setCandidate(QStringLiteral("Known-good relu"), good);
    const QImage dark = screenshot(&cmp, name + QStringLiteral("-dark"), {1200, 560});
    EXPECT_GT(inkPixels(dark, regionOf(cmp.candidateView()), darkPalette().color(QPalette::Base)), 1500);
    applyPalette(false);
}

TEST(Syntax, TritonDefinitionIsBundled)
{
    initResources();
    QFile f(QStringLiteral(":/kbx/syntax/triton.xml"));
    ASSERT_TRUE(f.open(QIODevice::ReadOnly));
    const QString xml = QString::fromUtf8(f.readAll());
    EXPECT_TRUE(xml.contains(QStringLiteral("##Python")));
    EXPECT_TRUE(xml.contains(QStringLiteral("tl\\.constexpr")));
    EXPECT_TRUE(xml.contains(QStringLiteral("@triton")));
    if (syntaxHighlightingAvailable()) {
        EXPECT_TRUE(syntaxDefinitionNames().contains(QStringLiteral("Triton")));
    } else {
        EXPECT_TRUE(syntaxDefinitionNames().isEmpty());
    }
    QFile icon(QStringLiteral(":/kbx/icons/kbx-workbench.svg"));
    ASSERT_TRUE(icon.open(QIODevice::ReadOnly));
    EXPECT_TRUE(icon.readAll().contains("<svg"));
}

TEST(Diff, SideBySideDiffOfTwoCandidates)
{
    applyPalette(false);
    const QString a = readFile(QStringLiteral(KBX_SOURCE_DIR "/tests/fixtures/good/Activation/relu.py"));
    QString b = a;
    b.replace(QStringLiteral("BLOCK"), QStringLiteral("BLOCK_SIZE"));
    b += QStringLiteral("\n# tuned in round 2\n");
    ASSERT_NE(a, b);
    DiffView view;
    view.setTexts(QStringLiteral("round 1"), a, QStringLiteral("round 2"), b);
    EXPECT_GT(view.addedLines(), 1);
    EXPECT_GT(view.removedLines(), 0);
    EXPECT_EQ(view.leftView()->blockCount(), view.rightView()->blockCount());  // aligned
    const QImage img = screenshot(&view, QStringLiteral("diff"), {1200, 520});
    auto regionOf = [&](QWidget* w) { return QRect(w->mapTo(&view, QPoint(0, 0)), w->size()); };
    EXPECT_GT(pixelsNear(img, regionOf(view.leftView()), DiffView::removedColor(false), 12), 500);
    EXPECT_GT(pixelsNear(img, regionOf(view.rightView()), DiffView::addedColor(false), 12), 500);
    view.setTexts(QStringLiteral("a"), a, QStringLiteral("b"), a);
    EXPECT_EQ(view.addedLines() + view.removedLines(), 0);
}

TEST_F(GuiDb, TaskBrowserFiltersAndShowsTheTaskPage)
{
    TaskBrowser tb;
    QAbstractItemModelTester tester(tb.tree()->model(), QAbstractItemModelTester::FailureReportingMode::Fatal);
    QSignalSpy ready(tb.model(), &TaskTreeModel::statsReady);
    tb.setDatabase(db);
    ASSERT_TRUE(waitUntil([&] { return ready.count() > 0 && !tb.model()->isLoading(); }));
    const int all = tb.visibleTaskCount();
    EXPECT_EQ(all, int(tb.model()->catalogue()->tasks().size()));
    EXPECT_EQ(tb.tree()->model()->rowCount(), 15);

    int relus = 0;
    for (const auto& t : tb.model()->catalogue()->tasks())
        relus += QString::fromStdString(t.stem).contains(QStringLiteral("relu"), Qt::CaseInsensitive) ||
                 QString::fromStdString(t.category).contains(QStringLiteral("relu"), Qt::CaseInsensitive);
    QTest::keyClicks(tb.filterEdit(), QStringLiteral("relu"));
    EXPECT_EQ(tb.visibleTaskCount(), relus);
    EXPECT_GT(relus, 1);
    tb.filterEdit()->clear();
    EXPECT_EQ(tb.visibleTaskCount(), all);
    // A category name shows all its tasks.
    tb.filterEdit()->setText(QStringLiteral("Activation"));
    int act = 0;
    for (const auto& t : tb.model()->catalogue()->tasks())
        act += t.category == "Activation";
    EXPECT_GE(tb.visibleTaskCount(), act);
    tb.filterEdit()->clear();

    QSignalSpy selected(&tb, &TaskBrowser::taskSelected);
    ASSERT_TRUE(tb.selectTask(QStringLiteral("Activation/leaky_relu")));
    EXPECT_EQ(selected.count(), 1);
    EXPECT_EQ(tb.currentTaskId(), QStringLiteral("Activation/leaky_relu"));
    const auto* t = tb.model()->task(QStringLiteral("Activation/leaky_relu"));
    const QString page = tb.page()->browser()->toPlainText();
    EXPECT_TRUE(page.contains(QString::fromStdString(t->signature).left(30)));
    EXPECT_TRUE(page.contains(QStringLiteral("Precision contract")));
    EXPECT_TRUE(page.contains(QStringLiteral("float32")));
    EXPECT_TRUE(page.contains(QStringLiteral("Perf shapes")));
    EXPECT_TRUE(page.contains(QStringLiteral("evaluated")));  // stats line from the database
    const auto relu = tb.model()->indexOfTask(QStringLiteral("Activation/relu"));
    EXPECT_TRUE(tb.model()->index(relu.row(), TaskTreeModel::PassColumn, relu.parent()).data().toString().contains(QLatin1Char('%')));

    // Choosing a method filters the statistics; a reload of the facets keeps the choice.
    ASSERT_TRUE(waitUntil([&] { return tb.methodBox()->count() == 2; }));
    ready.clear();
    tb.methodBox()->setCurrentIndex(1);
    ASSERT_TRUE(waitUntil([&] { return ready.count() > 0 && !tb.model()->isLoading(); }));
    EXPECT_EQ(tb.model()->method(), QStringLiteral("fixtures"));
    QSignalSpy facetsLoaded(qobject_cast<FacetListModel*>(tb.methodBox()->model()), &FacetListModel::loaded);
    tb.refresh();
    ASSERT_TRUE(waitUntil([&] { return facetsLoaded.count() > 0 && !tb.model()->isLoading(); }));
    for (int i = 0; i < 20; ++i)
        QApplication::processEvents();
    EXPECT_EQ(tb.methodBox()->currentText(), QStringLiteral("fixtures"));
    EXPECT_EQ(tb.model()->method(), QStringLiteral("fixtures"));

    tb.tree()->expandAll();
    tb.tree()->collapse(tb.tree()->model()->index(1, 0));
    const QImage img = screenshot(&tb, QStringLiteral("task-browser"), {1200, 720});
    const QRect treeRect(tb.tree()->mapTo(&tb, QPoint(0, 0)), tb.tree()->size());
    EXPECT_GT(inkPixels(img, treeRect, Qt::white), 3000);
    EXPECT_GE(hueBuckets(img, treeRect, 30), 1);  // the pass-rate bars
    const QRect pageRect(tb.page()->mapTo(&tb, QPoint(0, 0)), tb.page()->size());
    EXPECT_GT(inkPixels(img, pageRect, Qt::white), 3000);
}

TEST_F(GuiDb, ResultsViewFiltersSortsAndSelects)
{
    ResultsView rv;
    QAbstractItemModelTester tester(rv.table()->model(), QAbstractItemModelTester::FailureReportingMode::Fatal);
    rv.setDatabase(db);
    ASSERT_TRUE(waitUntil([&] { return !rv.model()->isLoading() && rv.model()->totalCount() >= 0; }));
    const qint64 total = queryInt64(db, QStringLiteral("SELECT count(*) FROM evaluations"));
    EXPECT_EQ(rv.table()->model()->rowCount(), total);
    EXPECT_TRUE(rv.countLabel()->text().contains(QString::number(total)));

    // Class filter through the combo box.
    auto* cls = rv.facetBox(FacetListModel::FailureClass);
    ASSERT_NE(cls, nullptr);
    ASSERT_TRUE(waitUntil([&] { return cls->count() > 2; }));
    cls->setCurrentIndex(cls->findText(QStringLiteral("nan_inf_mismatch")));
    ASSERT_TRUE(waitUntil([&] { return !rv.model()->isLoading(); }));
    EXPECT_EQ(rv.table()->model()->rowCount(), queryInt64(db, QStringLiteral("SELECT count(*) FROM evaluations WHERE failure_class = 'nan_inf_mismatch'")));
    cls->setCurrentIndex(0);
    ASSERT_TRUE(waitUntil([&] { return !rv.model()->isLoading(); }));
    EXPECT_EQ(rv.table()->model()->rowCount(), total);

    // Text search (debounced).
    QTest::keyClicks(rv.textFilter(), QStringLiteral("sys.exit"));
    ASSERT_TRUE(waitUntil([&] { return rv.model()->filter().text == QStringLiteral("sys.exit") && !rv.model()->isLoading(); }));
    EXPECT_EQ(rv.table()->model()->rowCount(), 1);
    rv.textFilter()->clear();
    ASSERT_TRUE(waitUntil([&] { return rv.model()->filter().text.isEmpty() && !rv.model()->isLoading(); }));

    // A refresh (new results) reloads the facets and keeps the chosen filter.
    cls->setCurrentIndex(cls->findText(QStringLiteral("crash")));
    ASSERT_TRUE(waitUntil([&] { return !rv.model()->isLoading(); }));
    const int crashes = rv.table()->model()->rowCount();
    EXPECT_EQ(crashes, queryInt64(db, QStringLiteral("SELECT count(*) FROM evaluations WHERE failure_class = 'crash'")));
    QSignalSpy classesLoaded(qobject_cast<FacetListModel*>(cls->model()), &FacetListModel::loaded);
    rv.refresh();
    ASSERT_TRUE(waitUntil([&] { return classesLoaded.count() > 0 && !rv.model()->isLoading(); }));
    EXPECT_EQ(cls->currentText(), QStringLiteral("crash"));
    EXPECT_EQ(rv.model()->filter().failureClass.toString(), QStringLiteral("crash"));
    EXPECT_EQ(rv.table()->model()->rowCount(), crashes);
    cls->setCurrentIndex(0);
    ASSERT_TRUE(waitUntil([&] { return !rv.model()->isLoading(); }));

    // Sorting by clicking a header sorts in SQL.
    rv.table()->sortByColumn(EvaluationTableModel::ClassColumn, Qt::DescendingOrder);
    ASSERT_TRUE(waitUntil([&] { return !rv.model()->isLoading(); }));
    EXPECT_EQ(rv.model()->sortColumn(), int(EvaluationTableModel::ClassColumn));
    EXPECT_EQ(rv.table()->model()->index(0, EvaluationTableModel::ClassColumn).data().toString(), QStringLiteral("value_mismatch"));

    QSignalSpy sel(&rv, &ResultsView::evaluationSelected);
    rv.table()->setCurrentIndex(rv.table()->model()->index(2, 0));
    ASSERT_EQ(sel.count(), 1);
    EXPECT_EQ(sel.at(0).at(0).toLongLong(), rv.model()->evaluationId(2));
    // A refresh (new results landed) keeps the current evaluation.
    const qint64 current = rv.currentEvaluationId();
    rv.refresh();
    ASSERT_TRUE(waitUntil([&] { return !rv.model()->isLoading() && rv.model()->rowCount() > 0; }));
    EXPECT_EQ(rv.currentEvaluationId(), current);
    EXPECT_EQ(sel.count(), 1);  // no second selection signal for the same row
    QSignalSpy diff(&rv, &ResultsView::diffRequested);
    rv.table()->selectionModel()->select(rv.table()->model()->index(3, 0),
                                         QItemSelectionModel::Select | QItemSelectionModel::Rows);
    EXPECT_EQ(rv.selectedEvaluationIds().size(), 2);
    rv.findChild<QPushButton*>(QStringLiteral("diffButton"))->click();
    EXPECT_EQ(diff.count(), 1);
    QSignalSpy rerun(&rv, &ResultsView::rerunRequested);
    rv.findChild<QPushButton*>(QStringLiteral("rerunButton"))->click();
    ASSERT_EQ(rerun.count(), 1);
    EXPECT_EQ(rerun.at(0).at(0).value<QList<qint64>>(), rv.selectedEvaluationIds());

    const QImage img = screenshot(&rv, QStringLiteral("results"), {1300, 600});
    EXPECT_GE(hueBuckets(img, QRect(QPoint(0, 0), img.size()), 30), 2);  // red fails, green passes
}

TEST_F(GuiDb, FailureInspectorEvidenceHeatmapAndManualLabels)
{
    const qint64 vm = idOf("failure_class = 'value_mismatch'");
    // Put an error map into the evidence, as the comparison records it for a 2-D output.
    {
        kbx::gui::test::TestSql c(db);
        QStringList vals;
        for (int r = 0; r < 12; ++r)
            for (int k = 0; k < 16; ++k)
                vals << QString::number((r >= 4 && r < 8 && k >= 6) ? 1e-2 * (1 + k) : 1e-7 * (1 + (r * k) % 5));
        c.exec(QStringLiteral("UPDATE evaluations SET evidence = json_set(evidence, '$.error_map', json('{\"rows\":12,\"cols\":16,"
                              "\"shape\":[12,16],\"values\":[%1]}')) WHERE id = %2")
                   .arg(vals.join(QLatin1Char(',')))
                   .arg(vm));
    }
    FailureInspector fi;
    fi.setDatabase(db);
    ASSERT_TRUE(fi.showEvaluation(vm));
    EXPECT_TRUE(fi.headerLabel()->text().contains(QStringLiteral("value_mismatch")));
    EXPECT_TRUE(fi.headerLabel()->text().contains(QStringLiteral("Activation/leaky_relu")));
    QStringList keys;
    for (int r = 0; r < fi.evidenceTable()->rowCount(); ++r)
        keys << fi.evidenceTable()->item(r, 0)->text();
    EXPECT_TRUE(keys.contains(QStringLiteral("max_abs_err")));
    EXPECT_TRUE(keys.contains(QStringLiteral("mismatch_fraction")));
    EXPECT_TRUE(keys.contains(QStringLiteral("passing_rtol_at_atol")));
    EXPECT_LT(keys.indexOf(QStringLiteral("max_abs_err")), keys.indexOf(QStringLiteral("ref_nan")));
    EXPECT_GT(fi.casesTable()->rowCount(), 0);
    ASSERT_TRUE(fi.heatmap()->hasMap());
    EXPECT_EQ(fi.heatmap()->rows(), 12);
    EXPECT_EQ(fi.heatmap()->cols(), 16);
    EXPECT_NE(fi.heatmap()->colourFor(1e-7), fi.heatmap()->colourFor(1e-1));

    // Every case's own evidence opens from the Cases tab (issue 24, item 3), not only the first failure's.
    EXPECT_TRUE(fi.evidenceSourceLabel()->text().contains(QStringLiteral("first failing case"))) << fi.evidenceSourceLabel()->text().toStdString();
    {
        const auto& cs = fi.details().cases;
        int failing = -1, passing = -1;
        for (int r = 0; r < cs.size(); ++r) {
            if (cs[r].status != QLatin1String("pass") && (failing < 0 || cs[r].name != fi.details().failedCase))
                failing = r;
            if (cs[r].status == QLatin1String("pass") && passing < 0)
                passing = r;
        }
        ASSERT_GE(failing, 0);
        fi.casesTable()->setCurrentCell(failing, 1);
        EXPECT_TRUE(fi.evidenceSourceLabel()->text().contains(cs[failing].name)) << fi.evidenceSourceLabel()->text().toStdString();
        if (cs[failing].evidence.contains(QStringLiteral("max_abs_err")) || cs[failing].evidence.contains(QStringLiteral("leaves"))) {
            EXPECT_GT(fi.evidenceTable()->rowCount(), 0);
        }
        if (passing >= 0) {
            fi.casesTable()->setCurrentCell(passing, 1);
            EXPECT_TRUE(fi.evidenceSourceLabel()->text().contains(QStringLiteral("(pass)"))) << fi.evidenceSourceLabel()->text().toStdString();
            EXPECT_FALSE(fi.heatmap()->hasMap()) << "a passing case has no error map";
        }
        EXPECT_TRUE(fi.showCase(-1));
        EXPECT_TRUE(fi.heatmap()->hasMap());
        QStringList again;
        for (int r = 0; r < fi.evidenceTable()->rowCount(); ++r)
            again << fi.evidenceTable()->item(r, 0)->text();
        EXPECT_EQ(again, keys) << "back to the first failure's evidence";
    }

    // A passing evaluation's empty evidence table says why it is empty (it is not "nothing checked").
    {
        FailureInspector passed;
        passed.setDatabase(db);
        const qint64 passId = queryInt64(db, QStringLiteral("SELECT min(id) FROM evaluations WHERE verdict = 'pass'"));
        ASSERT_TRUE(passed.showEvaluation(passId));
        EXPECT_EQ(passed.evidenceTable()->rowCount(), 0);
        EXPECT_TRUE(passed.evidenceSourceLabel()->text().startsWith(QStringLiteral("Passed: every one of the")))
            << passed.evidenceSourceLabel()->text().toStdString();
        // A pass whose extended tier (beside the verdict) has failing cases says so, not "every case".
        {
            kbx::gui::test::TestSql c(db);
            c.exec(QStringLiteral("INSERT INTO case_results(evaluation_id, idx, name, status, failure_class, evidence, tier) "
                                  "VALUES(%1, 999, 'ext/odd_shape', 'fail', 'value_mismatch', '{}', 'extended')")
                       .arg(passId));
        }
        ASSERT_TRUE(passed.showEvaluation(passId));
        EXPECT_TRUE(passed.evidenceSourceLabel()->text().contains(QStringLiteral("extended-tier case(s) failed beside the verdict")))
            << passed.evidenceSourceLabel()->text().toStdString();
    }

    // Relabel: the automatic class is value_mismatch; say nan_inf_mismatch with a note.
    fi.labelBox()->setCurrentIndex(fi.labelBox()->findData(QStringLiteral("nan_inf_mismatch")));
    fi.noteEdit()->setText(QStringLiteral("the NaN propagation is what is wrong"));
    QSignalSpy changed(&fi, &FailureInspector::labelChanged);
    fi.saveButton()->click();
    ASSERT_EQ(changed.count(), 1);
    EXPECT_EQ(loadEvaluation(db, vm).manualClass, QStringLiteral("nan_inf_mismatch"));
    EXPECT_EQ(loadEvaluation(db, vm).manualNote, QStringLiteral("the NaN propagation is what is wrong"));
    EXPECT_TRUE(fi.agreementLabel()->text().contains(QStringLiteral("disagrees")));
    EXPECT_TRUE(fi.agreementLabel()->text().contains(QStringLiteral("0 of 1")));

    // Heatmap tab in the screenshot.
    auto* tabs = fi.findChild<QTabWidget*>(QStringLiteral("inspectorTabs"));
    ASSERT_NE(tabs, nullptr);
    tabs->setCurrentWidget(fi.heatmap());
    const QImage img = screenshot(&fi, QStringLiteral("failure-inspector-heatmap"), {1100, 720});
    const QRect hm(fi.heatmap()->mapTo(&fi, QPoint(0, 0)), fi.heatmap()->size());
    EXPECT_GE(hueBuckets(img, hm, 30), 2) << "heatmap not drawn";
    tabs->setCurrentIndex(0);
    screenshot(&fi, QStringLiteral("failure-inspector-evidence"), {1100, 720});

    // A call-stage failure: traceback shown, no heatmap; agreeing label.
    const qint64 rt = idOf("failure_detail LIKE '%missing 1 required positional%'");
    ASSERT_TRUE(fi.showEvaluation(rt));
    EXPECT_TRUE(fi.tracebackView()->toPlainText().contains(QStringLiteral("Traceback")));
    EXPECT_FALSE(fi.heatmap()->hasMap());
    fi.labelBox()->setCurrentIndex(fi.labelBox()->findData(QStringLiteral("runtime_error")));
    ASSERT_TRUE(fi.saveLabel());
    EXPECT_TRUE(fi.agreementLabel()->text().contains(QStringLiteral("agrees")));
    EXPECT_TRUE(fi.agreementLabel()->text().contains(QStringLiteral("1 of 2")));
    screenshot(&fi, QStringLiteral("failure-inspector-traceback"), {1100, 720});
    EXPECT_FALSE(fi.showEvaluation(987654));
}

TEST(GuiPerf, PerformanceTabShowsTheShapesTheVerdictAndTheLaunchGap)
{
    // A timed H200 evaluation of the demo database in the inspector's Performance tab: one row per
    // perf shape, the verdict against eager, the kernels of the profiled call. Then what the launch
    // gap caught (starved samples, a side that waits inside its call) and a flag, as the perf stage
    // stores them now, written into one shape; and an untimed evaluation says why it has no timings.
    applyPalette(false);
    QTemporaryDir dir;
    ASSERT_TRUE(dir.isValid());
    const QString db = dir.filePath(QStringLiteral("demo.sqlite"));
    ASSERT_TRUE(QFile::copy(QStringLiteral(KBX_SOURCE_DIR "/resources/demo/demo.sqlite"), db));
    QFile::setPermissions(db, QFile::ReadOwner | QFile::WriteOwner);
    QString err;
    ASSERT_TRUE(prepareDatabase(db, &err)) << err.toStdString();
    const qint64 id = queryInt64(db, QStringLiteral("SELECT min(t.evaluation_id) FROM timings t JOIN evaluations e ON e.id = t.evaluation_id "
                                                "WHERE json_extract(e.evidence, '$.perf.attribution.available') = 1 "
                                                "AND json_extract(e.evidence, '$.perf.geomean_speedup') IS NOT NULL"));
    ASSERT_GT(id, 0);
    const qint64 firstTiming = queryInt64(db, QStringLiteral("SELECT min(id) FROM timings WHERE evaluation_id = %1").arg(id));
    {
        kbx::gui::test::TestSql c(db);
        c.exec(QStringLiteral("UPDATE timings SET samples = json_set(samples, '$.launch_gap_start_us', 197.0, '$.launch_gap_us', 394.0, "
                              "'$.starved', json('{\"candidate\":2,\"reference\":1}'), '$.host_sync', json('{\"candidate\":false,\"reference\":true}'), "
                              "'$.starved_kept', json('[]')) WHERE id = %1").arg(firstTiming));
        c.exec(QStringLiteral("UPDATE evaluations SET evidence = json_set(evidence, '$.perf.flags', json('[\"faster_than_roofline:x\"]'), "
                              "'$.perf.geomean_speedup.interval', 'repeat', '$.perf.geomean_speedup.processes', 4, '$.perf.extra_processes', "
                              "json('{\"target_width\": 0.02, \"widths\": [{\"processes\": 3, \"width\": 0.0257}], \"processes\": 4}')) "
                              "WHERE id = %1").arg(id));
    }
    FailureInspector fi;
    fi.setDatabase(db);
    ASSERT_TRUE(fi.showEvaluation(id));
    PerfPanel* p = fi.perfPanel();
    ASSERT_NE(p, nullptr);
    ASSERT_TRUE(p->hasPerf());
    const auto d = loadEvaluation(db, id);
    ASSERT_EQ(p->shapesTable()->rowCount(), d.timings.size());
    for (int r = 0; r < p->shapesTable()->rowCount(); ++r) {
        EXPECT_EQ(p->shapesTable()->item(r, PerfPanel::Shape)->text(), d.timings[r].shape);
        EXPECT_TRUE(p->shapesTable()->item(r, PerfPanel::Speedup)->text().contains(QStringLiteral("× [")))
            << p->shapesTable()->item(r, PerfPanel::Speedup)->text().toStdString();
        EXPECT_TRUE(p->shapesTable()->item(r, PerfPanel::Candidate)->text().endsWith(QStringLiteral("s")));
    }
    const QString summary = p->summaryLabel()->text();
    EXPECT_TRUE(summary.contains(QStringLiteral("Speedup against eager"))) << summary.toStdString();
    EXPECT_TRUE(summary.contains(QStringLiteral("NVIDIA H200"))) << summary.toStdString();
    EXPECT_TRUE(summary.contains(QStringLiteral("faster than the roofline bound (audit) (x)"))) << summary.toStdString();
    // an audit flag leads, as a warning, and the speedup loses its emphasis (issue 24, item 3)
    EXPECT_TRUE(summary.startsWith(QStringLiteral("<b style='color:"))) << summary.toStdString();
    EXPECT_TRUE(summary.contains(QStringLiteral("⚠ Audit: 1 of %1 shapes ran faster than the roofline bound").arg(d.timings.size())))
        << summary.toStdString();
    EXPECT_FALSE(summary.contains(QStringLiteral("<b>Speedup against eager"))) << summary.toStdString();
    EXPECT_TRUE(summary.contains(QStringLiteral("95 % repeat interval over 4 fresh processes"))) << summary.toStdString();
    EXPECT_TRUE(summary.contains(QStringLiteral("Timed in 4 processes: its interval was wider than 2.00 % (2.57 % after 3)."))) << summary.toStdString();
    EXPECT_GT(p->kernelsTable()->rowCount(), 0);
    bool triton = false;
    for (int r = 0; r < p->kernelsTable()->rowCount(); ++r)
        triton |= p->kernelsTable()->item(r, 4)->text() == QStringLiteral("yes");
    EXPECT_TRUE(triton) << "a known-good kernel's profiled call runs its Triton kernel";
    EXPECT_EQ(p->shapesTable()->item(0, PerfPanel::Gap)->text(), QStringLiteral("197 → 394 µs"));
    const QString notes = p->shapesTable()->item(0, PerfPanel::Notes)->text();
    EXPECT_TRUE(notes.contains(QStringLiteral("starved samples dropped: candidate 2, eager 1"))) << notes.toStdString();
    EXPECT_TRUE(notes.contains(QStringLiteral("waits for the device inside: eager"))) << notes.toStdString();
    // The current row's parameters, gap and notes below the table (the columns may be scrolled away).
    p->shapesTable()->setCurrentCell(0, 0);
    const QString detail = p->shapeDetailLabel()->text();
    EXPECT_TRUE(detail.startsWith(d.timings[0].shape + QStringLiteral(" {"))) << detail.toStdString();
    EXPECT_TRUE(detail.contains(QStringLiteral("launch gap 197 → 394 µs; starved samples dropped"))) << detail.toStdString();
    if (d.timings.size() > 1) {
        p->shapesTable()->setCurrentCell(1, 0);
        EXPECT_TRUE(p->shapeDetailLabel()->text().startsWith(d.timings[1].shape)) << p->shapeDetailLabel()->text().toStdString();
        p->shapesTable()->setCurrentCell(0, 0);
    }

    auto* tabs = fi.findChild<QTabWidget*>(QStringLiteral("inspectorTabs"));
    ASSERT_NE(tabs, nullptr);
    tabs->setCurrentWidget(p);
    const QImage img = screenshot(&fi, QStringLiteral("failure-inspector-performance"), {1280, 760});
    const QRect table(p->shapesTable()->mapTo(&fi, QPoint(0, 0)), p->shapesTable()->size());
    EXPECT_GT(inkPixels(img, table, Qt::white), 1500) << "the shapes table is not drawn";

    // Timed, but no speedup: an early run whose candidate was judged to have modified torch.
    const qint64 tampered = queryInt64(db, QStringLiteral("SELECT min(t.evaluation_id) FROM timings t JOIN evaluations e ON e.id = t.evaluation_id "
                                                      "WHERE json_extract(e.evidence, '$.perf.geomean_speedup') IS NULL "
                                                      "AND json_array_length(json_extract(e.evidence, '$.perf.torch_modified')) > 0"));
    ASSERT_GT(tampered, 0);
    ASSERT_TRUE(fi.showEvaluation(tampered));
    EXPECT_TRUE(p->hasPerf());
    EXPECT_TRUE(p->summaryLabel()->text().contains(QStringLiteral("No speedup"))) << p->summaryLabel()->text().toStdString();
    EXPECT_TRUE(p->summaryLabel()->text().contains(QStringLiteral("modified torch functions"))) << p->summaryLabel()->text().toStdString();

    // Untimed: the panel says why.
    const qint64 untimed = queryInt64(db, QStringLiteral("SELECT min(id) FROM evaluations WHERE id NOT IN (SELECT evaluation_id FROM timings) "
                                                     "AND verdict = 'pass'"));
    ASSERT_GT(untimed, 0);
    ASSERT_TRUE(fi.showEvaluation(untimed));
    EXPECT_FALSE(p->hasPerf());
    EXPECT_EQ(p->shapesTable()->rowCount(), 0);
    EXPECT_TRUE(p->summaryLabel()->text().contains(QStringLiteral("Not timed"))) << p->summaryLabel()->text().toStdString();
}

TEST_F(GuiDb, RunPanelSourcesDropAndErrors)
{
    RunPanel rp;
    rp.setDatabase(dir.filePath(QStringLiteral("runs.sqlite")));
    EXPECT_FALSE(rp.startButton()->isEnabled());
    EXPECT_FALSE(rp.start());
    // Drag and drop of submission files.
    QMimeData mime;
    mime.setUrls({QUrl::fromLocalFile(QStringLiteral(KBX_SOURCE_DIR "/resources/examples/submission.jsonl")),
                  QUrl::fromLocalFile(QStringLiteral(KBX_SOURCE_DIR "/tests/fixtures/good/Activation/relu.py"))});
    QDragEnterEvent enter(QPoint(5, 5), Qt::CopyAction, &mime, Qt::LeftButton, Qt::NoModifier);
    QApplication::sendEvent(&rp, &enter);
    EXPECT_TRUE(enter.isAccepted());
    QDropEvent drop(QPointF(5, 5), Qt::CopyAction, &mime, Qt::LeftButton, Qt::NoModifier);
    QApplication::sendEvent(&rp, &drop);
    EXPECT_EQ(rp.sources().size(), 2);
    QApplication::sendEvent(&rp, &drop);
    EXPECT_EQ(rp.sources().size(), 2);  // no duplicates
    EXPECT_TRUE(rp.startButton()->isEnabled());
    rp.tasksEdit()->setText(QStringLiteral("Activation/relu.py, Math"));
    const auto req = rp.request();
    EXPECT_EQ(req.tasks, (QStringList{QStringLiteral("Activation/relu"), QStringLiteral("Math")}));
    rp.tasksEdit()->clear();
    EXPECT_EQ(req.device, QStringLiteral("cpu"));
    EXPECT_EQ(req.method, QStringLiteral("default"));

    // A source that is not a submission: the run reports the importer's error in the log.
    rp.clearSources();
    const QString bad = dir.filePath(QStringLiteral("bad.jsonl"));
    QFile f(bad);
    ASSERT_TRUE(f.open(QIODevice::WriteOnly));
    f.write("{\"predict\": \"x\", \"file\": \"NoSuchCategory/nothing.py\"}\n");
    f.close();
    rp.addSources({bad});
    QSignalSpy fin(&rp, &RunPanel::runFinished);
    ASSERT_TRUE(rp.start());
    ASSERT_TRUE(waitUntil([&] { return fin.count() == 1; }));
    EXPECT_FALSE(fin.at(0).at(0).value<RunResult>().error.isEmpty());
    EXPECT_TRUE(rp.logView()->toPlainText().contains(QStringLiteral("Error")));
    EXPECT_TRUE(rp.startButton()->isEnabled());
    EXPECT_FALSE(rp.cancelButton()->isEnabled());
    screenshot(&rp, QStringLiteral("run-panel-error"), {520, 640});
}

TEST_F(GuiDb, MainWindowOpensDatabasesRemembersSettingsAndTakesDrops)
{
    QSettings().clear();
    {
        MainWindow w;
        // No last database and (maybe) no demo: the window starts without failing.
        w.openInitialDatabase();
        if (demoDatabasePath().isEmpty()) {
            EXPECT_TRUE(w.database().isEmpty());
            EXPECT_FALSE(w.runPanel()->database().isEmpty());  // runs go to the user's default database
        }
        EXPECT_FALSE(w.openDatabase(dir.filePath(QStringLiteral("missing.sqlite"))));
        EXPECT_TRUE(w.statusBar()->currentMessage().contains(QStringLiteral("Cannot open")));
        ASSERT_TRUE(w.openDatabase(db));
        EXPECT_EQ(w.database(), db);
        EXPECT_EQ(w.runPanel()->database(), db);
        ASSERT_TRUE(waitUntil([&] { return !w.resultsView()->model()->isLoading(); }));
        EXPECT_EQ(w.resultsView()->model()->rowCount(), queryInt64(db, QStringLiteral("SELECT count(*) FROM evaluations")));

        // Keyboard navigation between tabs.
        w.show();
        EXPECT_TRUE(QTest::qWaitForWindowExposed(&w));
        QTest::keyClick(&w, Qt::Key_2, Qt::ControlModifier);
        EXPECT_EQ(w.tabs()->currentIndex(), int(MainWindow::ResultsTab));
        QTest::keyClick(&w, Qt::Key_5, Qt::ControlModifier);
        EXPECT_EQ(w.tabs()->currentIndex(), int(MainWindow::InspectorTab));
        QTest::keyClick(&w, Qt::Key_D, Qt::ControlModifier | Qt::ShiftModifier);
        EXPECT_TRUE(w.darkMode());
        EXPECT_LT(QApplication::palette().color(QPalette::Window).lightness(), 100);

        // An evaluation everywhere: inspector and code beside the reference, with the marker.
        const qint64 rt = idOf("failure_detail LIKE '%missing 1 required positional%'");
        w.showEvaluation(rt);
        EXPECT_EQ(w.inspector()->details().id, rt);
        EXPECT_TRUE(w.codeView()->referenceView()->toPlainText().contains(QStringLiteral("def reference")));
        EXPECT_TRUE(w.codeView()->candidateView()->markers().contains(17));
        w.diffEvaluations(rt, idOf("task_id = 'Activation/relu' AND verdict = 'pass'"));
        EXPECT_EQ(w.tabs()->currentIndex(), int(MainWindow::DiffTab));
        EXPECT_GT(w.diffView()->addedLines() + w.diffView()->removedLines(), 0);

        // Re-running existing candidates: the selected evaluations' code as a seed JSONL in the run panel.
        const QString rerun = w.rerunEvaluations({rt, idOf("task_id = 'Math/rsqrt'")});
        ASSERT_FALSE(rerun.isEmpty());
        EXPECT_TRUE(w.runPanel()->sources().contains(rerun));
        {
            QFile f(rerun);
            ASSERT_TRUE(f.open(QIODevice::ReadOnly));
            const QList<QByteArray> lines = f.readAll().trimmed().split('\n');
            ASSERT_EQ(lines.size(), 2);
            EXPECT_EQ(QJsonDocument::fromJson(lines[0]).object().value("file").toString(), QStringLiteral("Activation/relu.py"));
            EXPECT_EQ(QJsonDocument::fromJson(lines[1]).object().value("file").toString(), QStringLiteral("Math/rsqrt.py"));
            EXPECT_EQ(QJsonDocument::fromJson(lines[0]).object().value("predict").toString(), loadEvaluation(db, rt).code);
        }
        w.runPanel()->clearSources();

        // Drops: a submission goes to the run panel, a database is opened.
        QMimeData mime;
        mime.setUrls({QUrl::fromLocalFile(QStringLiteral(KBX_SOURCE_DIR "/tests/fixtures/good/Activation/relu.py"))});
        QDragEnterEvent enter(QPoint(10, 10), Qt::CopyAction, &mime, Qt::LeftButton, Qt::NoModifier);
        QApplication::sendEvent(&w, &enter);
        EXPECT_TRUE(enter.isAccepted());
        QDropEvent drop(QPointF(10, 10), Qt::CopyAction, &mime, Qt::LeftButton, Qt::NoModifier);
        QApplication::sendEvent(&w, &drop);
        EXPECT_EQ(w.runPanel()->sources().size(), 1);
        const QString other = dir.filePath(QStringLiteral("other.sqlite"));
        ASSERT_TRUE(QFile::copy(db, other));
        QMimeData mime2;
        mime2.setUrls({QUrl::fromLocalFile(other)});
        QDragEnterEvent enter2(QPoint(10, 10), Qt::CopyAction, &mime2, Qt::LeftButton, Qt::NoModifier);
        QApplication::sendEvent(&w, &enter2);
        QDropEvent drop2(QPointF(10, 10), Qt::CopyAction, &mime2, Qt::LeftButton, Qt::NoModifier);
        QApplication::sendEvent(&w, &drop2);
        EXPECT_EQ(w.database(), other);
        w.showTab(MainWindow::TasksTab);
        screenshot(&w, QStringLiteral("main-window-dark"), {1400, 860});
        w.close();  // saves the settings
    }
    QSettings s;
    EXPECT_TRUE(s.value(QStringLiteral("view/dark")).toBool());
    EXPECT_EQ(s.value(QStringLiteral("database/last")).toString(), dir.filePath(QStringLiteral("other.sqlite")));
    EXPECT_FALSE(s.value(QStringLiteral("window/state")).toByteArray().isEmpty());
    {
        // The next start restores the last database and the palette.
        MainWindow w;
        w.openInitialDatabase();
        EXPECT_EQ(w.database(), dir.filePath(QStringLiteral("other.sqlite")));
        EXPECT_TRUE(w.darkMode());
        w.setDarkMode(false);
        w.close();
    }
    applyPalette(false);
}

int main(int argc, char** argv)
{
    // Test discovery runs this without the test ENVIRONMENT: never try to reach a display.
    if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM"))
        qputenv("QT_QPA_PLATFORM", "offscreen");
    QApplication app(argc, argv);
    QApplication::setOrganizationName(QStringLiteral("kbx-tests"));
    QApplication::setApplicationName(QStringLiteral("kbx-workbench-gui-tests"));
    QTemporaryDir settings;
    QSettings::setDefaultFormat(QSettings::IniFormat);
    QSettings::setPath(QSettings::IniFormat, QSettings::UserScope, settings.path());
    initResources();
    ::testing::InitGoogleTest(&argc, argv);
    return RUN_ALL_TESTS();
}

// Issue 24, item 3: two worst-element values that differ must not look alike, and the difference is
// given in ULPs of the dtype. -1.02007 in float32 and its neighbour printed with 6 digits were equal.
TEST(InspectorDigits, ValuesCarryTheirDtypesDigitsAndTheDifferenceInUlps)
{
    const float ref = -1.0200700759887695f;
    const float cand = std::nextafter(ref, 0.0f);  // one float32 step away
    const QString r = FailureInspector::evidenceValueText(QStringLiteral("ref_at_worst"), QJsonValue(double(ref)), QStringLiteral("float32"));
    const QString c = FailureInspector::evidenceValueText(QStringLiteral("cand_at_worst"), QJsonValue(double(cand)), QStringLiteral("float32"));
    EXPECT_NE(r, c);
    EXPECT_EQ(r.toFloat(), ref);  // reads back as the same float
    EXPECT_EQ(c.toFloat(), cand);
    EXPECT_LE(r.size(), 11) << r.toStdString();  // float32's digits, not a double's 17
    EXPECT_EQ(QString::number(double(ref), 'g', 6), QString::number(double(cand), 'g', 6)) << "the old display";
    const QString u = FailureInspector::ulpDifference(ref, cand, QStringLiteral("float32"));
    EXPECT_TRUE(u.contains(QStringLiteral("(1 ulp of float32)"))) << u.toStdString();
    EXPECT_TRUE(FailureInspector::ulpDifference(1.0, 1.0 + 3 * std::ldexp(1.0, -52), QStringLiteral("float64"))
                    .contains(QStringLiteral("(3 ulp of float64)")));
    EXPECT_TRUE(FailureInspector::ulpDifference(1.0, 1.0 + 2.0 / 1024, QStringLiteral("float16")).contains(QStringLiteral("(2 ulp")));
    EXPECT_TRUE(FailureInspector::ulpDifference(1.0, std::numeric_limits<double>::infinity(), QStringLiteral("float32")).isEmpty());
    EXPECT_TRUE(FailureInspector::ulpDifference(1.0, 2.0, QStringLiteral("int64")).isEmpty());
    // other evidence keeps its short form
    EXPECT_EQ(FailureInspector::evidenceValueText(QStringLiteral("rtol"), QJsonValue(1.3e-6), QStringLiteral("float32")), QStringLiteral("1.3e-06"));
}

// Issue 24, item 3: the heatmap says what its values are (the comparison's measure: an error /
// tolerance ratio, above 1 fails), marks the threshold, and a cell under the mouse names its index and value.
TEST(ErrorHeatmapMeasure, SaysWhatItPlotsAndNamesTheCellUnderTheMouse)
{
    ErrorHeatmap h;
    QJsonObject map{{QStringLiteral("rows"), 2},
                    {QStringLiteral("cols"), 3},
                    {QStringLiteral("shape"), QJsonArray{2, 3}},
                    {QStringLiteral("measure"), QStringLiteral("|cand - ref| / (atol + rtol |ref|); > 1 fails")},
                    {QStringLiteral("values"), QJsonArray{0.0, 0.5, 3.0, 0.01, 250.0, 0.9}}};
    ASSERT_TRUE(h.setErrorMap(map));
    screenshot(&h, QStringLiteral("error-heatmap-measure"), {420, 300});
    EXPECT_TRUE(h.isToleranceRatio());
    EXPECT_TRUE(h.measure().contains(QStringLiteral("atol + rtol")));
    // a plain map (no measure) is |error| and has no threshold
    ErrorHeatmap plain;
    plain.setValues(1, 2, {1e-3, 2.0});
    EXPECT_FALSE(plain.isToleranceRatio());
    EXPECT_EQ(plain.measure(), QStringLiteral("|error|"));
    // hover: find the cell [1, 1] (value 250) by scanning the widget
    QString tip;
    for (int y = 0; y < h.height() && tip.isEmpty(); y += 2)
        for (int x = 0; x < h.width(); x += 2)
            if (h.cellAt(QPoint(x, y)) == std::make_pair(1, 1)) {
                tip = h.toolTipAt(QPoint(x, y));
                break;
            }
    EXPECT_EQ(tip, QStringLiteral("[1, 1]: 250 (outside the tolerance: fails)"));
    EXPECT_EQ(h.cellAt(QPoint(1, 1)), std::make_pair(-1, -1));
    EXPECT_TRUE(h.toolTipAt(QPoint(1, 1)).isEmpty());
}

// Issue 24, item 7: an empty file is made a kbx database only when the user says so; a database
// asked for on the command line that cannot be opened gets a dialog.
TEST_F(GuiDb, AnEmptyFileBecomesADatabaseOnlyWhenTheUserSaysSo)
{
    QSettings().clear();
    MainWindow w;
    const QString empty = dir.filePath(QStringLiteral("empty.sqlite"));
    QFile(empty).open(QIODevice::WriteOnly);
    ASSERT_EQ(QFileInfo(empty).size(), 0);
    // Unasked (a drop, the last database): left alone, said so.
    EXPECT_FALSE(w.openDatabase(empty, false));
    EXPECT_TRUE(w.statusBar()->currentMessage().contains(QStringLiteral("empty file"))) << w.statusBar()->currentMessage().toStdString();
    EXPECT_EQ(QFileInfo(empty).size(), 0);
    // Asked: the question's answer decides. The dialog is answered from a timer (it is modal).
    QString asked;
    answerNextModal(&w, &asked, QMessageBox::No);
    EXPECT_FALSE(w.openDatabase(empty, true));
    EXPECT_TRUE(asked.contains(QStringLiteral("empty file"))) << asked.toStdString();
    EXPECT_EQ(QFileInfo(empty).size(), 0);
    asked.clear();
    answerNextModal(&w, &asked, QMessageBox::Yes);
    EXPECT_TRUE(w.openDatabase(empty, true));
    EXPECT_FALSE(asked.isEmpty());
    EXPECT_GT(QFileInfo(empty).size(), 0);
    EXPECT_EQ(w.database(), QFileInfo(empty).absoluteFilePath());
    // A missing database named on the command line: a dialog says why.
    asked.clear();
    answerNextModal(&w, &asked);
    w.openInitialDatabase(dir.filePath(QStringLiteral("missing.sqlite")));
    EXPECT_TRUE(asked.contains(QStringLiteral("missing.sqlite"))) << asked.toStdString();
}

// Issue 24, item 7: a damaged kbx database (data pages overwritten) says what is wrong instead of
// "counting…" forever, and the file is left as it was.
TEST_F(GuiDb, ACorruptedDatabaseSaysWhatIsWrong)
{
    const QString bad = dir.filePath(QStringLiteral("corrupt.sqlite"));
    ASSERT_TRUE(QFile::copy(db, bad));
    {
        // Its schema intact, its data pages overwritten here and there (from a third of the file on).
        QFile f(bad);
        ASSERT_TRUE(f.open(QIODevice::ReadWrite));
        const qint64 size = f.size();
        for (qint64 off = size / 3; off < size - 4096; off += 3 * 4096) {
            f.seek(off + 100);
            f.write(QByteArray(200, '\xff'));
        }
    }
    const QByteArray before = [&] { QFile f(bad); f.open(QIODevice::ReadOnly); return f.readAll(); }();
    ResultsView rv;
    rv.setDatabase(bad);
    ASSERT_TRUE(waitUntil([&] { return !rv.model()->isLoading(); }));
    QTest::qWait(200);
    const QString label = rv.countLabel()->text();
    EXPECT_FALSE(label.contains(QStringLiteral("counting"))) << label.toStdString();
    EXPECT_TRUE(label.contains(QStringLiteral("Error"))) << label.toStdString();
    EXPECT_FALSE(rv.model()->lastError().isEmpty());
    const QByteArray after = [&] { QFile f(bad); f.open(QIODevice::ReadOnly); return f.readAll(); }();
    EXPECT_TRUE(before == after) << "the damaged file was changed";
    // The window says it in a box (once), without stopping the event loop.
    QSettings().clear();
    MainWindow w;
    // Opening it in the window: refused at the door with SQLite's reason (this damage reaches the
    // pages its open reads), or opened and then a box when its queries fail; either way said, and the
    // file as it was.
    if (w.openDatabase(bad)) {
        ASSERT_TRUE(waitUntil([&] { return w.findChild<QMessageBox*>(QStringLiteral("databaseErrorBox")) != nullptr; }));
        EXPECT_TRUE(w.findChild<QMessageBox*>(QStringLiteral("databaseErrorBox"))->text().contains(QStringLiteral("cannot be read")));
    } else {
        EXPECT_TRUE(w.statusBar()->currentMessage().contains(QStringLiteral("malformed"))) << w.statusBar()->currentMessage().toStdString();
    }
    const QByteArray afterWindow = [&] { QFile f(bad); f.open(QIODevice::ReadOnly); return f.readAll(); }();
    EXPECT_TRUE(before == afterWindow) << "opening it in the window changed the damaged file";
}
