// SPDX-License-Identifier: MIT
#pragma once
#include <QString>

class QTextDocument;
class QObject;

namespace kbx::gui {

/// What highlights the code views: KF6 KSyntaxHighlighting when the build has it (KBX_HAVE_KSYNTAX),
/// otherwise the built-in PythonHighlighter (pythonhighlighter.h; Debian 12 has no KF6).
enum class SyntaxEngine { KSyntaxHighlighting, BuiltinPython };
SyntaxEngine syntaxEngine();
/// The engine in words, for the About box: "KSyntaxHighlighting" or "built-in Python highlighter".
QString syntaxEngineName();

/// True: every build highlights the code views (KSyntaxHighlighting or the built-in fallback); the
/// question "which one" is syntaxEngine().
bool syntaxHighlightingAvailable();

/// Attaches a highlighter for `definition` to `document`, themed for a dark or light background, and
/// returns it (owned by the document; nullptr only when `definition` is empty).
/// - KSyntaxHighlighting: "Triton" (our definition in resources/syntax/triton.xml extending Python with
///   tl.*, @triton.jit and tl.constexpr) or any definition name, through the one application-wide
///   repository; unknown names fall back to Python.
/// - Built-in: "Triton" is Python plus tl.* and triton.*; any other name is plain Python.
/// The document is highlighted before this returns.
QObject* attachHighlighter(QTextDocument* document, const QString& definition, bool darkBackground);

/// Names of the definitions the engine knows: the repository's with KSyntaxHighlighting,
/// "Python" and "Triton" with the built-in highlighter.
QStringList syntaxDefinitionNames();

/// Registers the workbench's compiled-in resources (syntax definitions, icons): call once from main().
void initResources();

}  // namespace kbx::gui
