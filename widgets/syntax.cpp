// SPDX-License-Identifier: MIT
#include "syntax.h"

#include "pythonhighlighter.h"

#include <QStringList>
#include <QTextDocument>

#ifdef KBX_HAVE_KSYNTAX
#include <KSyntaxHighlighting/Definition>
#include <KSyntaxHighlighting/Repository>
#include <KSyntaxHighlighting/SyntaxHighlighter>
#include <KSyntaxHighlighting/Theme>
#endif

static void kbxInitResources()
{
    Q_INIT_RESOURCE(kbx);
}

namespace kbx::gui {

void initResources()
{
    static bool done = false;
    if (!done) {
        kbxInitResources();
        done = true;
    }
}

#ifdef KBX_HAVE_KSYNTAX
namespace {
/// The one repository of the application: loading definitions is expensive, and definitions that
/// include others (Triton includes Python) must come from the same repository.
KSyntaxHighlighting::Repository& repository()
{
    static KSyntaxHighlighting::Repository* repo = [] {
        initResources();
        auto* r = new KSyntaxHighlighting::Repository;
        r->addCustomSearchPath(QStringLiteral(":/kbx"));  // :/kbx/syntax/triton.xml
        return r;
    }();
    return *repo;
}
}  // namespace
#endif

SyntaxEngine syntaxEngine()
{
#ifdef KBX_HAVE_KSYNTAX
    return SyntaxEngine::KSyntaxHighlighting;
#else
    return SyntaxEngine::BuiltinPython;
#endif
}

QString syntaxEngineName()
{
    return syntaxEngine() == SyntaxEngine::KSyntaxHighlighting ? QStringLiteral("KSyntaxHighlighting")
                                                               : QStringLiteral("built-in Python highlighter");
}

bool syntaxHighlightingAvailable()
{
    return true;
}

QObject* attachHighlighter(QTextDocument* document, const QString& definition, bool darkBackground)
{
    if (!document || definition.isEmpty())
        return nullptr;
#ifdef KBX_HAVE_KSYNTAX
    auto& repo = repository();
    auto def = repo.definitionForName(definition);
    if (!def.isValid())
        def = repo.definitionForName(QStringLiteral("Python"));
    if (!def.isValid())
        return nullptr;
    auto* h = new KSyntaxHighlighting::SyntaxHighlighter(document);
    h->setTheme(repo.defaultTheme(darkBackground ? KSyntaxHighlighting::Repository::DarkTheme
                                                 : KSyntaxHighlighting::Repository::LightTheme));
    h->setDefinition(def);
    h->rehighlight();
    return h;
#else
    auto* h = new PythonHighlighter(document, darkBackground, definition.compare(QLatin1String("Triton"), Qt::CaseInsensitive) == 0);
    h->rehighlight();  // now, not on the next turn of the event loop
    return h;
#endif
}

QStringList syntaxDefinitionNames()
{
    QStringList names;
#ifdef KBX_HAVE_KSYNTAX
    for (const auto& d : repository().definitions())
        names << d.name();
#else
    names << QStringLiteral("Python") << QStringLiteral("Triton");
#endif
    return names;
}

}  // namespace kbx::gui
