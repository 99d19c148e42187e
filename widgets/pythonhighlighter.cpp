// SPDX-License-Identifier: MIT
#include "pythonhighlighter.h"

#include <QSet>
#include <QTextDocument>

namespace kbx::gui {

namespace {

const QSet<QString>& keywords()
{
    static const QSet<QString> s = {
        QStringLiteral("False"),  QStringLiteral("None"),     QStringLiteral("True"),    QStringLiteral("and"),
        QStringLiteral("as"),     QStringLiteral("assert"),   QStringLiteral("async"),   QStringLiteral("await"),
        QStringLiteral("break"),  QStringLiteral("class"),    QStringLiteral("continue"), QStringLiteral("def"),
        QStringLiteral("del"),    QStringLiteral("elif"),     QStringLiteral("else"),    QStringLiteral("except"),
        QStringLiteral("finally"), QStringLiteral("for"),     QStringLiteral("from"),    QStringLiteral("global"),
        QStringLiteral("if"),     QStringLiteral("import"),   QStringLiteral("in"),      QStringLiteral("is"),
        QStringLiteral("lambda"), QStringLiteral("nonlocal"), QStringLiteral("not"),     QStringLiteral("or"),
        QStringLiteral("pass"),   QStringLiteral("raise"),    QStringLiteral("return"),  QStringLiteral("try"),
        QStringLiteral("while"),  QStringLiteral("with"),     QStringLiteral("yield"),
    };
    return s;
}

const QSet<QString>& builtins()
{
    static const QSet<QString> s = [] {
        QSet<QString> b;
        const char* names[] = {
            "abs", "all", "any", "ascii", "bin", "bool", "breakpoint", "bytearray", "bytes", "callable", "chr",
            "classmethod", "compile", "complex", "delattr", "dict", "dir", "divmod", "enumerate", "eval", "exec",
            "filter", "float", "format", "frozenset", "getattr", "globals", "hasattr", "hash", "help", "hex", "id",
            "input", "int", "isinstance", "issubclass", "iter", "len", "list", "locals", "map", "max", "memoryview",
            "min", "next", "object", "oct", "open", "ord", "pow", "print", "property", "range", "repr", "reversed",
            "round", "set", "setattr", "slice", "sorted", "staticmethod", "str", "sum", "super", "tuple", "type",
            "vars", "zip", "__import__", "NotImplemented", "Ellipsis", "__name__", "__file__",
            // exceptions a kernel or a task raises or catches
            "BaseException", "Exception", "ArithmeticError", "AssertionError", "AttributeError", "ImportError",
            "IndexError", "KeyError", "MemoryError", "NameError", "NotImplementedError", "OSError",
            "OverflowError", "RuntimeError", "StopIteration", "TypeError", "ValueError", "ZeroDivisionError",
        };
        for (const char* n : names)
            b.insert(QString::fromLatin1(n));
        return b;
    }();
    return s;
}

bool isIdentStart(QChar c)
{
    return c.isLetter() || c == QLatin1Char('_');
}

bool isIdentChar(QChar c)
{
    return c.isLetterOrNumber() || c == QLatin1Char('_');
}

bool isDigit(QChar c)
{
    return c >= QLatin1Char('0') && c <= QLatin1Char('9');
}

bool isQuote(QChar c)
{
    return c == QLatin1Char('\'') || c == QLatin1Char('"');
}

/// r, b, u, f and their two-letter combinations (rb, br, fr, rf) in either case.
bool isStringPrefix(QStringView w)
{
    if (w.size() > 2)
        return false;
    static const QString letters = QStringLiteral("rRbBuUfF");
    for (QChar c : w)
        if (!letters.contains(c))
            return false;
    if (w.size() == 2) {
        const QChar a = w[0].toLower(), b = w[1].toLower();
        const bool raw = a == QLatin1Char('r') || b == QLatin1Char('r');
        return raw && a != b && (a == QLatin1Char('b') || b == QLatin1Char('b') || a == QLatin1Char('f') || b == QLatin1Char('f'));
    }
    return true;
}

/// The end of the number literal starting at `i`.
int numberEnd(const QString& text, int i)
{
    const int n = int(text.size());
    int j = i;
    auto digits = [&](bool hex) {
        while (j < n && (isDigit(text[j]) || text[j] == QLatin1Char('_') ||
                         (hex && QStringLiteral("abcdefABCDEF").contains(text[j]))))
            ++j;
    };
    if (text[j] == QLatin1Char('0') && j + 1 < n && QStringLiteral("xXoObB").contains(text[j + 1])) {
        j += 2;
        digits(true);
        return j;
    }
    digits(false);
    if (j < n && text[j] == QLatin1Char('.')) {
        ++j;
        digits(false);
    }
    if (j < n && (text[j] == QLatin1Char('e') || text[j] == QLatin1Char('E'))) {
        int k = j + 1;
        if (k < n && (text[k] == QLatin1Char('+') || text[k] == QLatin1Char('-')))
            ++k;
        if (k < n && isDigit(text[k])) {
            j = k;
            digits(false);
        }
    }
    if (j < n && (text[j] == QLatin1Char('j') || text[j] == QLatin1Char('J')))
        ++j;
    return j;
}

QTextCharFormat fmt(const QColor& c, bool bold = false, bool italic = false)
{
    QTextCharFormat f;
    f.setForeground(c);
    if (bold)
        f.setFontWeight(QFont::Bold);
    if (italic)
        f.setFontItalic(true);
    return f;
}

}  // namespace

QTextCharFormat PythonHighlighter::format(Role role, bool dark)
{
    // Light: dark, saturated colours on white (each at least 4.5:1); dark: light, softer ones on the
    // dark palette's base (30, 30, 32). Comments are the only grey; keywords and definitions bold.
    switch (role) {
    case Keyword: return fmt(dark ? QColor(199, 146, 234) : QColor(123, 31, 162), true);
    case Builtin: return fmt(dark ? QColor(130, 170, 255) : QColor(30, 91, 184));
    case String: return fmt(dark ? QColor(195, 232, 141) : QColor(36, 122, 36));
    case Comment: return fmt(dark ? QColor(139, 148, 158) : QColor(106, 115, 125), false, true);
    case Number: return fmt(dark ? QColor(247, 140, 108) : QColor(184, 84, 0));
    case Decorator: return fmt(dark ? QColor(255, 122, 178) : QColor(176, 23, 126));
    case Definition: return fmt(dark ? QColor(255, 203, 107) : QColor(138, 97, 0), true);
    case Triton: return fmt(dark ? QColor(95, 215, 215) : QColor(0, 121, 107));
    }
    return {};
}

PythonHighlighter::PythonHighlighter(QTextDocument* document, bool darkBackground, bool triton)
    : QSyntaxHighlighter(document), m_dark(darkBackground), m_triton(triton)
{
    for (int r = Keyword; r <= Triton; ++r)
        m_formats[r] = format(Role(r), darkBackground);
}

int PythonHighlighter::string(const QString& text, int i, int start, QChar q, int quoteLength)
{
    const int n = int(text.size());
    int j = i;
    while (j < n) {
        if (text[j] == QLatin1Char('\\')) {
            j += 2;  // an escaped character (a raw string keeps the backslash, but the quote still does not end it)
            continue;
        }
        if (text[j] == q && (quoteLength == 1 || (j + 2 < n && text[j + 1] == q && text[j + 2] == q))) {
            j += quoteLength;
            setFormat(start, j - start, m_formats[String]);
            return j;
        }
        ++j;
    }
    // The string runs past the end of the line: a triple-quoted one always goes on; a short one only
    // when the line ends with a backslash (otherwise it is unterminated and ends here).
    setFormat(start, n - start, m_formats[String]);
    const bool single = q == QLatin1Char('\'');
    if (quoteLength == 3)
        setCurrentBlockState(single ? InTripleSingle : InTripleDouble);
    else if (j > n)
        setCurrentBlockState(single ? InSingle : InDouble);
    return n;
}

void PythonHighlighter::highlightBlock(const QString& text)
{
    setCurrentBlockState(Normal);
    const int n = int(text.size());
    int i = 0;
    switch (previousBlockState()) {
    case InTripleSingle: i = string(text, 0, 0, QLatin1Char('\''), 3); break;
    case InTripleDouble: i = string(text, 0, 0, QLatin1Char('"'), 3); break;
    case InSingle: i = string(text, 0, 0, QLatin1Char('\''), 1); break;
    case InDouble: i = string(text, 0, 0, QLatin1Char('"'), 1); break;
    default: break;
    }
    QString lastWord;      // the identifier before this token (to see `def name`, `class name`)
    bool afterDot = false;  // an attribute: `x.max` is not the builtin max
    while (i < n) {
        const QChar c = text[i];
        if (c.isSpace()) {
            ++i;
            continue;
        }
        if (c == QLatin1Char('#')) {
            setFormat(i, n - i, m_formats[Comment]);
            break;
        }
        if (isQuote(c)) {
            const int len = (i + 2 < n && text[i + 1] == c && text[i + 2] == c) ? 3 : 1;
            i = string(text, i + len, i, c, len);
            lastWord.clear();
            afterDot = false;
            continue;
        }
        if (isIdentStart(c)) {
            int j = i + 1;
            while (j < n && isIdentChar(text[j]))
                ++j;
            const QString word = text.mid(i, j - i);
            if (j < n && isQuote(text[j]) && isStringPrefix(word)) {
                const QChar q = text[j];
                const int len = (j + 2 < n && text[j + 1] == q && text[j + 2] == q) ? 3 : 1;
                i = string(text, j + len, i, q, len);
                lastWord.clear();
                afterDot = false;
                continue;
            }
            if (!afterDot) {
                if (lastWord == QLatin1String("def") || lastWord == QLatin1String("class")) {
                    setFormat(i, j - i, m_formats[Definition]);
                } else if (keywords().contains(word)) {
                    setFormat(i, j - i, m_formats[Keyword]);
                } else if (builtins().contains(word)) {
                    setFormat(i, j - i, m_formats[Builtin]);
                } else if (m_triton && (word == QLatin1String("tl") || word == QLatin1String("triton")) && j + 1 < n &&
                           text[j] == QLatin1Char('.') && isIdentStart(text[j + 1])) {
                    int k = j + 1;
                    while (k < n && isIdentChar(text[k]))
                        ++k;
                    setFormat(i, k - i, m_formats[Triton]);  // tl.load, tl.constexpr, triton.cdiv
                    lastWord = text.mid(j + 1, k - j - 1);
                    i = k;
                    continue;
                }
            }
            lastWord = word;
            afterDot = false;
            i = j;
            continue;
        }
        if (isDigit(c) || (c == QLatin1Char('.') && i + 1 < n && isDigit(text[i + 1]))) {
            const int j = numberEnd(text, i);
            setFormat(i, j - i, m_formats[Number]);
            i = j;
            lastWord.clear();
            afterDot = false;
            continue;
        }
        if (c == QLatin1Char('@') && i + 1 < n && isIdentStart(text[i + 1]) && QStringView(text).left(i).trimmed().isEmpty()) {
            // A decorator (an `@` first on its line; elsewhere `@` is matrix multiplication): the dotted name.
            int k = i + 1;
            while (k < n && (isIdentChar(text[k]) || (text[k] == QLatin1Char('.') && k + 1 < n && isIdentStart(text[k + 1]))))
                ++k;
            setFormat(i, k - i, m_formats[Decorator]);
            i = k;
            lastWord.clear();
            continue;
        }
        afterDot = c == QLatin1Char('.');
        lastWord.clear();
        ++i;
    }
}

}  // namespace kbx::gui
