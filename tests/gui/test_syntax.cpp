// SPDX-License-Identifier: MIT
// Issue 24, item 6 ("code without KF6"): the built-in Python/Triton highlighter that attachHighlighter
// uses when the build has no KSyntaxHighlighting, and the reference pane opening at `def reference(`.
// Linked into kbx_gui_tests (its main() makes the QApplication).
#include "codecompare.h"
#include "codeview.h"
#include "guitestutil.h"
#include "palette.h"
#include "pythonhighlighter.h"
#include "syntax.h"

#include <QFile>
#include <QPlainTextDocumentLayout>
#include <QScrollBar>
#include <QTextBlock>
#include <QTextCursor>
#include <QTextDocument>
#include <QTextLayout>

#include <gtest/gtest.h>

#include <cmath>

using namespace kbx::gui;
using namespace kbx::gui::test;

namespace {

// Every role appears below; line numbers (0-based) are used by the tests.
const char* kSnippet =
    "import triton\n"                                          // 0
    "import triton.language as tl\n"                           // 1
    "\n"                                                       // 2
    "@triton.jit\n"                                            // 3
    "def _kernel(x_ptr, n, BLOCK: tl.constexpr):  # a note\n"  // 4
    "    pid = tl.program_id(0)\n"                             // 5
    "    y = x.max(1) + len(s) * 0x1F + 3.5e-3 + 1_000j\n"     // 6
    "    s = r'\\d' + \"x\\\"y\" + f\"{n}\"\n"                 // 7
    "    doc = \"\"\"first line\n"                             // 8
    "    second 'line' # not a comment\n"                      // 9
    "    third\"\"\" + 'after'\n"                              // 10
    "    z = a @ b\n"                                          // 11
    "    return None\n"                                        // 12
    "class Foo(Exception):\n";                                 // 13

QString readFile(const QString& path)
{
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly))
        return {};
    return QString::fromUtf8(f.readAll());
}

/// The highlighter's foreground at column `col` of line `line` (invalid: no format there).
QColor colourAt(QTextDocument* doc, int line, int col)
{
    const QTextBlock b = doc->findBlockByNumber(line);
    if (!b.isValid() || !b.layout())
        return {};
    for (const auto& r : b.layout()->formats())
        if (col >= r.start && col < r.start + r.length && r.format.hasProperty(QTextFormat::ForegroundBrush))
            return r.format.foreground().color();
    return {};
}

/// Column of the `nth` occurrence of `needle` on `line`.
int col(QTextDocument* doc, int line, const QString& needle, int nth = 0)
{
    const QString t = doc->findBlockByNumber(line).text();
    int c = -1;
    for (int k = 0; k <= nth; ++k)
        c = int(t.indexOf(needle, c + 1));
    return c;
}

QColor roleColour(PythonHighlighter::Role r, bool dark)
{
    return PythonHighlighter::format(r, dark).foreground().color();
}

/// The text of the line at the top of `v`.
QString topText(const CodeView* v)
{
    return v->document()->findBlockByNumber(v->firstVisibleLine() - 1).text();
}

double luminance(const QColor& c)
{
    auto ch = [](double v) {
        v /= 255.0;
        return v <= 0.03928 ? v / 12.92 : std::pow((v + 0.055) / 1.055, 2.4);
    };
    return 0.2126 * ch(c.red()) + 0.7152 * ch(c.green()) + 0.0722 * ch(c.blue());
}

/// WCAG contrast ratio of two colours (1 to 21).
double contrast(const QColor& a, const QColor& b)
{
    const double la = luminance(a), lb = luminance(b);
    return (std::max(la, lb) + 0.05) / (std::min(la, lb) + 0.05);
}

}  // namespace

TEST(PythonSyntax, EngineIsNamedAndAlwaysHighlights)
{
    EXPECT_TRUE(syntaxHighlightingAvailable());
#ifdef KBX_HAVE_KSYNTAX
    EXPECT_EQ(syntaxEngine(), SyntaxEngine::KSyntaxHighlighting);
    EXPECT_EQ(syntaxEngineName(), QStringLiteral("KSyntaxHighlighting"));
#else
    EXPECT_EQ(syntaxEngine(), SyntaxEngine::BuiltinPython);
    EXPECT_EQ(syntaxEngineName(), QStringLiteral("built-in Python highlighter"));
    EXPECT_EQ(syntaxDefinitionNames(), (QStringList{QStringLiteral("Python"), QStringLiteral("Triton")}));
#endif
    EXPECT_TRUE(syntaxDefinitionNames().contains(QStringLiteral("Triton")));
    QTextDocument doc(QStringLiteral("x = 1"));
    EXPECT_EQ(attachHighlighter(&doc, QString(), false), nullptr) << "an empty definition means no highlighting";
}

TEST(PythonSyntax, FormatsEachKindOfToken)
{
    QTextDocument doc(QString::fromUtf8(kSnippet));
    doc.setDocumentLayout(new QPlainTextDocumentLayout(&doc));  // as in a CodeView: edits are reported
    new PythonHighlighter(&doc, false, true);                    // owned by the document
    // A new QSyntaxHighlighter highlights on the next event loop turn and ignores edits until then.
    QCoreApplication::processEvents();
    auto is = [&](int line, const QString& needle, PythonHighlighter::Role role, int nth = 0) {
        const int c = col(&doc, line, needle, nth);
        EXPECT_GE(c, 0) << needle.toStdString();
        for (int k = 0; k < needle.size(); ++k)  // every character of the token
            EXPECT_EQ(colourAt(&doc, line, c + k), roleColour(role, false))
                << "line " << line << " '" << needle.toStdString() << "' char " << k;
    };
    auto plain = [&](int line, const QString& needle, int nth = 0) {
        const int c = col(&doc, line, needle, nth);
        EXPECT_GE(c, 0) << needle.toStdString();
        EXPECT_FALSE(colourAt(&doc, line, c).isValid()) << "line " << line << " '" << needle.toStdString() << "' is formatted";
    };
    using R = PythonHighlighter;
    is(0, QStringLiteral("import"), R::Keyword);
    is(1, QStringLiteral("as"), R::Keyword);
    is(3, QStringLiteral("@triton.jit"), R::Decorator);
    is(4, QStringLiteral("def"), R::Keyword);
    is(4, QStringLiteral("_kernel"), R::Definition);
    is(4, QStringLiteral("tl.constexpr"), R::Triton);
    is(4, QStringLiteral("# a note"), R::Comment);
    plain(4, QStringLiteral("x_ptr"));
    is(5, QStringLiteral("tl.program_id"), R::Triton);
    is(5, QStringLiteral("0"), R::Number);
    plain(5, QStringLiteral("pid"));
    plain(6, QStringLiteral("max"));  // an attribute, not the builtin
    is(6, QStringLiteral("1"), R::Number);
    is(6, QStringLiteral("len"), R::Builtin);
    is(6, QStringLiteral("0x1F"), R::Number);
    is(6, QStringLiteral("3.5e-3"), R::Number);
    is(6, QStringLiteral("1_000j"), R::Number);
    is(7, QStringLiteral("r'\\d'"), R::String);
    is(7, QStringLiteral("\"x\\\"y\""), R::String);  // the escaped quote does not end it
    is(7, QStringLiteral("f\"{n}\""), R::String);
    plain(7, QStringLiteral("+"));
    // A triple-quoted string over three lines; a '#' inside it is no comment, what follows it is code.
    is(8, QStringLiteral("\"\"\"first line"), R::String);
    is(9, QStringLiteral("    second 'line' # not a comment"), R::String);
    is(10, QStringLiteral("    third\"\"\""), R::String);
    plain(10, QStringLiteral("+"));
    is(10, QStringLiteral("'after'"), R::String);
    EXPECT_EQ(doc.findBlockByNumber(8).userState(), int(R::InTripleDouble));
    EXPECT_EQ(doc.findBlockByNumber(9).userState(), int(R::InTripleDouble));
    EXPECT_EQ(doc.findBlockByNumber(10).userState(), int(R::Normal));
    plain(11, QStringLiteral("@"));  // matrix multiplication, not a decorator
    is(12, QStringLiteral("return"), R::Keyword);
    is(12, QStringLiteral("None"), R::Keyword);
    is(13, QStringLiteral("Foo"), R::Definition);
    is(13, QStringLiteral("Exception"), R::Builtin);

    // Removing the closing quotes turns the rest of the file into the string (states carry on)...
    QTextCursor c(doc.findBlockByNumber(10));
    c.movePosition(QTextCursor::Right, QTextCursor::MoveAnchor, col(&doc, 10, QStringLiteral("\"\"\"")));
    c.movePosition(QTextCursor::Right, QTextCursor::KeepAnchor, 3);
    c.removeSelectedText();
    is(12, QStringLiteral("    return None"), R::String);
    EXPECT_EQ(doc.lastBlock().userState(), int(R::InTripleDouble));
    // ... and putting them back restores the code after it.
    c.insertText(QStringLiteral("\"\"\""));
    is(12, QStringLiteral("return"), R::Keyword);
    is(13, QStringLiteral("Foo"), R::Definition);
}

TEST(PythonSyntax, PythonFlavourLeavesTritonNamesPlainAndStringsContinueAfterBackslash)
{
    QTextDocument doc(QStringLiteral("x = tl.load(p)\ns = 'one \\\ntwo' + 3\n"));
    auto* h = new PythonHighlighter(&doc, true, false);
    h->rehighlight();
    EXPECT_FALSE(colourAt(&doc, 0, 4).isValid()) << "tl.load highlighted in the Python flavour";
    EXPECT_FALSE(colourAt(&doc, 1, 0).isValid());                                  // s
    EXPECT_EQ(colourAt(&doc, 1, 4), roleColour(PythonHighlighter::String, true));  // 'one \ (continued)
    EXPECT_EQ(doc.findBlockByNumber(1).userState(), int(PythonHighlighter::InSingle));
    EXPECT_EQ(colourAt(&doc, 2, 0), roleColour(PythonHighlighter::String, true));  // two'
    EXPECT_EQ(colourAt(&doc, 2, 3), roleColour(PythonHighlighter::String, true));
    EXPECT_FALSE(colourAt(&doc, 2, 5).isValid());                                  // +
    EXPECT_EQ(colourAt(&doc, 2, 7), roleColour(PythonHighlighter::Number, true));  // 3
    EXPECT_EQ(doc.findBlockByNumber(2).userState(), int(PythonHighlighter::Normal));
}

TEST(PythonSyntax, ColoursAreReadableOnBothPalettes)
{
    const QColor light = lightPalette().color(QPalette::Base), dark = darkPalette().color(QPalette::Base);
    QSet<QRgb> lightColours, darkColours;
    for (int r = PythonHighlighter::Keyword; r <= PythonHighlighter::Triton; ++r) {
        const auto role = PythonHighlighter::Role(r);
        EXPECT_GE(contrast(roleColour(role, false), light), 4.5) << "role " << r << " on the light base";
        EXPECT_GE(contrast(roleColour(role, true), dark), 4.5) << "role " << r << " on the dark base";
        lightColours.insert(roleColour(role, false).rgb());
        darkColours.insert(roleColour(role, true).rgb());
    }
    // Each role has its own colour.
    EXPECT_EQ(lightColours.size(), PythonHighlighter::Triton + 1);
    EXPECT_EQ(darkColours.size(), PythonHighlighter::Triton + 1);
}

TEST(PythonSyntax, CodeViewUsesTheBuiltInHighlighterWithoutKF6AndFollowsThePalette)
{
    applyPalette(false);
    CodeView view;
    view.setCode(QString::fromUtf8(kSnippet));
    EXPECT_TRUE(view.isHighlighted());
    QTextDocument* doc = view.document();
#ifdef KBX_HAVE_KSYNTAX
    EXPECT_TRUE(colourAt(doc, 0, 0).isValid()) << "KSyntaxHighlighting left 'import' plain";
#else
    auto* h = doc->findChild<PythonHighlighter*>();
    ASSERT_NE(h, nullptr);
    EXPECT_FALSE(h->darkBackground());
    EXPECT_TRUE(h->tritonFlavour());
    // Highlighted as soon as setCode returns, without an event loop turn.
    EXPECT_EQ(colourAt(doc, 0, 0), roleColour(PythonHighlighter::Keyword, false));
    EXPECT_EQ(colourAt(doc, 5, col(doc, 5, QStringLiteral("tl.program_id"))), roleColour(PythonHighlighter::Triton, false));
    view.setPalette(darkPalette());
    auto* dh = doc->findChild<PythonHighlighter*>();
    ASSERT_NE(dh, nullptr);
    EXPECT_TRUE(dh->darkBackground());
    EXPECT_EQ(doc->findChildren<PythonHighlighter*>().size(), 1) << "the light highlighter was not removed";
    EXPECT_EQ(colourAt(doc, 0, 0), roleColour(PythonHighlighter::Keyword, true));
    view.setSyntax(QStringLiteral("Python"));
    EXPECT_FALSE(doc->findChild<PythonHighlighter*>()->tritonFlavour());
#endif
    view.setSyntax(QString());
    EXPECT_FALSE(view.isHighlighted());
}

TEST(CodeCompareReference, FindsTheReferenceFunction)
{
    EXPECT_EQ(CodeCompareView::findReferenceLine(QStringLiteral("import torch\n\ndef reference(x):\n    return x\n")), 3);
    EXPECT_EQ(CodeCompareView::findReferenceLine(QStringLiteral("def reference (x): pass")), 1);
    // Not a nested helper, a call, or a longer name.
    EXPECT_EQ(CodeCompareView::findReferenceLine(QStringLiteral("class A:\n    def reference(self):\n        pass\n")), 0);
    EXPECT_EQ(CodeCompareView::findReferenceLine(QStringLiteral("y = reference(x)\ndef reference_impl(x):\n")), 0);
    EXPECT_EQ(CodeCompareView::findReferenceLine(QString()), 0);
}

TEST(CodeCompareReference, ReferencePaneOpensAtDefReferenceAndScrollsWithTheCandidate)
{
    applyPalette(false);
    const QString taskFile = QStringLiteral(KBX_SOURCE_DIR "/tasks/Activation/relu.py");
    const QString task = readFile(taskFile);
    ASSERT_FALSE(task.isEmpty());
    const int defLine = int(task.left(task.indexOf(QStringLiteral("\ndef reference("))).count(QLatin1Char('\n'))) + 2;
    ASSERT_GT(defLine, 10) << "relu.py no longer has its META above reference()";
    const QString good = readFile(QStringLiteral(KBX_SOURCE_DIR "/tests/fixtures/good/Activation/relu.py"));
    ASSERT_TRUE(good.contains(QStringLiteral("@triton.jit")));
    // A longer candidate (so that both views can scroll), with a marker that centres it.
    QString candidate = good;
    for (int k = 0; k < 4; ++k)
        candidate += QStringLiteral("\n\n# padding %1\n").arg(k) + good;

    CodeCompareView cmp;
    ASSERT_TRUE(cmp.setReferenceFile(QStringLiteral("Reference: Activation/relu.py"), taskFile));
    EXPECT_EQ(cmp.referenceLine(), defLine);
    // The candidate comes second (as in the window) and is scrolled to its marker: the reference stays.
    cmp.setCandidate(QStringLiteral("Candidate"), candidate, {{60, QStringLiteral("IndexError: out of range")}});
    CodeView* ref = cmp.referenceView();
    CodeView* cand = cmp.candidateView();
    EXPECT_EQ(ref->textCursor().blockNumber() + 1, defLine);
    EXPECT_TRUE(topText(ref).startsWith(QStringLiteral("def reference("))) << topText(ref).toStdString();

    // Named by the engine: code-compare-builtin-{light,dark}.png without KF6.
    const QString shot = syntaxEngine() == SyntaxEngine::BuiltinPython ? QStringLiteral("code-compare-builtin")
                                                                       : QStringLiteral("code-compare-ksyntax");
    const QImage img = screenshot(&cmp, shot + QStringLiteral("-light"), {1200, 560});
    ASSERT_FALSE(img.isNull());
    // Still there once laid out at its real size.
    EXPECT_TRUE(topText(ref).startsWith(QStringLiteral("def reference("))) << topText(ref).toStdString();
    const int candTop = cand->firstVisibleLine() - 1;
    EXPECT_GT(candTop, 30) << "the candidate is not at its marker";
    auto regionOf = [&](QWidget* w) { return QRect(w->mapTo(&cmp, QPoint(0, 0)), w->size()).adjusted(40, 4, -20, -20); };
    EXPECT_GE(hueBuckets(img, regionOf(ref)), 3) << "the reference shows fewer than 3 colours";
    EXPECT_GE(hueBuckets(img, regionOf(cand)), 3) << "the candidate shows fewer than 3 colours";

    // Scrolling one view moves the other by as many lines, each from its own place.
    cand->verticalScrollBar()->setValue(cand->verticalScrollBar()->value() - 3);
    EXPECT_EQ(ref->firstVisibleLine(), defLine - 3);
    ref->verticalScrollBar()->setValue(ref->verticalScrollBar()->value() + 5);
    EXPECT_EQ(cand->firstVisibleLine() - 1, candTop + 2);
    // The candidate at its top: the reference follows as far as it goes (its top), and when the
    // candidate comes back down the reference moves by as much, without a jump.
    cand->verticalScrollBar()->setValue(0);
    EXPECT_EQ(ref->firstVisibleLine() - 1, 0);
    cand->verticalScrollBar()->setValue(2);
    EXPECT_EQ(ref->firstVisibleLine() - 1, 2);
    EXPECT_EQ(cand->firstVisibleLine() - 1, 2);

    // A new reference opens at its own def reference( whatever the candidate's position.
    cmp.setReferenceFile(QStringLiteral("Reference: Activation/relu.py"), taskFile);
    EXPECT_TRUE(topText(ref).startsWith(QStringLiteral("def reference(")));
    EXPECT_EQ(cand->firstVisibleLine() - 1, 2);

    // Dark: the same, readable on the dark base.
    applyPalette(true);
    const QImage dark = screenshot(&cmp, shot + QStringLiteral("-dark"), {1200, 560});
    EXPECT_GE(hueBuckets(dark, regionOf(ref)), 3) << "the dark reference shows fewer than 3 colours";
    EXPECT_GT(inkPixels(dark, regionOf(ref), darkPalette().color(QPalette::Base)), 1500);
    applyPalette(false);

    // Text without a reference function opens at its top.
    cmp.setReference(QStringLiteral("Reference"), QStringLiteral("# Activation/nope is not in this benchmark's catalogue"));
    EXPECT_EQ(cmp.referenceLine(), 0);
    EXPECT_EQ(ref->firstVisibleLine() - 1, 0);
}
