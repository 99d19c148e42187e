// SPDX-License-Identifier: MIT
#include "syntax.h"

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

bool syntaxHighlightingAvailable()
{
#ifdef KBX_HAVE_KSYNTAX
    return true;
#else
    return false;
#endif
}

QObject* attachHighlighter(QTextDocument* document, const QString& definition, bool darkBackground)
{
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
    return h;
#else
    Q_UNUSED(document);
    Q_UNUSED(definition);
    Q_UNUSED(darkBackground);
    return nullptr;
#endif
}

QStringList syntaxDefinitionNames()
{
    QStringList names;
#ifdef KBX_HAVE_KSYNTAX
    for (const auto& d : repository().definitions())
        names << d.name();
#endif
    return names;
}

}  // namespace kbx::gui
