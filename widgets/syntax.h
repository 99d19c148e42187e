// SPDX-License-Identifier: MIT
#pragma once
#include <QString>

class QTextDocument;
class QObject;

namespace kbx::gui {

/// True when the build has KSyntaxHighlighting (KF6); the code views are plain text otherwise.
bool syntaxHighlightingAvailable();

/// Attaches a highlighter for `definition` ("Triton", our definition in resources/syntax/triton.xml
/// extending Python with tl.*, @triton.jit and tl.constexpr; or any KSyntaxHighlighting name) to
/// `document`, themed for a dark or light background, using the one application-wide repository.
/// Returns the highlighter (owned by the document) or nullptr without KSyntaxHighlighting.
QObject* attachHighlighter(QTextDocument* document, const QString& definition, bool darkBackground);

/// Names of the definitions the application-wide repository knows (empty without KSyntaxHighlighting).
QStringList syntaxDefinitionNames();

/// Registers the workbench's compiled-in resources (syntax definitions, icons): call once from main().
void initResources();

}  // namespace kbx::gui
