// SPDX-License-Identifier: MIT
#pragma once
#include <QSyntaxHighlighter>
#include <QTextCharFormat>

namespace kbx::gui {

/// The built-in highlighter of Python code, used by attachHighlighter() when the build has no
/// KSyntaxHighlighting (KF6; Debian 12). Line by line: keywords, builtins, strings (with r/b/f/u
/// prefixes; triple-quoted strings and backslash-continued strings across lines through the block
/// state), comments, numbers (decimal, hex/octal/binary, floats, exponents, imaginary, underscores),
/// decorators (`@triton.jit`, `@triton.autotune(...)`: the `@` and the dotted name) and the names
/// that `def` and `class` introduce. The Triton flavour also marks `tl.<name>` and `triton.<name>`
/// (`tl.load`, `tl.constexpr`, `triton.cdiv`). Colours for a light or a dark background.
class PythonHighlighter : public QSyntaxHighlighter {
    Q_OBJECT
public:
    enum Role { Keyword, Builtin, String, Comment, Number, Decorator, Definition, Triton };
    /// Block states: inside a string that continues on the next line.
    enum State { Normal = -1, InTripleSingle = 1, InTripleDouble = 2, InSingle = 3, InDouble = 4 };

    PythonHighlighter(QTextDocument* document, bool darkBackground, bool triton = true);

    bool darkBackground() const { return m_dark; }
    bool tritonFlavour() const { return m_triton; }
    /// The format of `role` on a light or dark background.
    static QTextCharFormat format(Role role, bool darkBackground);

protected:
    void highlightBlock(const QString& text) override;

private:
    /// Formats the string that begins (or, `continued`, goes on) at `i` with quote `q` (length 1 or 3);
    /// returns the index after it and sets the block state when it runs past the line's end.
    int string(const QString& text, int i, int start, QChar q, int quoteLength);

    bool m_dark;
    bool m_triton;
    QTextCharFormat m_formats[Triton + 1];
};

}  // namespace kbx::gui
