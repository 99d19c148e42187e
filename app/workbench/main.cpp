// SPDX-License-Identifier: MIT
// kbx-workbench: the KernelBench-X desktop workbench.
//   kbx-workbench [DATABASE]                       the window (DATABASE, else the last one, else the demo)
//   kbx-workbench --export-figure NAME --db PATH --out FILE   render a figure headless (.svg/.pdf/.png/.csv/.tex)
//   kbx-workbench --list-figures                   the figure names
// Installed, the demo database (PREFIX/share/kbx/demo.sqlite) is read-only: the workbench opens the
// user's own copy of it instead (~/.local/share/kbx/demo.sqlite, models/database.h), also when the
// installed file is named with --db. A database the user cannot write is refused with a message.
#include "catalogue.h"
#include "database.h"
#include "paths.h"
#include "mainwindow.h"
#include "syntax.h"

#ifdef KBX_HAVE_CHARTS
#include "chartpanel.h"
#include "figureexport.h"
#endif

#include <QApplication>
#include <QCommandLineParser>
#include <QIcon>

#include <cstdio>
#include <cstring>

namespace {

bool wantsHeadless(int argc, char** argv)
{
    for (int i = 1; i < argc; ++i)
        if (!std::strcmp(argv[i], "--export-figure") || !std::strncmp(argv[i], "--export-figure=", 16) ||
            !std::strcmp(argv[i], "--list-figures") || !std::strcmp(argv[i], "--help") || !std::strcmp(argv[i], "-h") ||
            !std::strcmp(argv[i], "--version") || !std::strcmp(argv[i], "-v"))
            return true;
    return false;
}

/// The command line's options, registered in this order (the order of --help).
struct Options {
    QCommandLineOption exportFigure{QStringLiteral("export-figure"), QStringLiteral("Render figure NAME headless and exit."),
                                    QStringLiteral("NAME")};
    QCommandLineOption db{QStringLiteral("db"), QStringLiteral("The kbx database."), QStringLiteral("PATH")};
    QCommandLineOption out{QStringLiteral("out"), QStringLiteral("Output file of --export-figure (.svg, .pdf, .png, .csv, .tex)."),
                           QStringLiteral("FILE")};
    QCommandLineOption list{QStringLiteral("list-figures"), QStringLiteral("Print the figure names and exit.")};
    // Filters of --export-figure (comma-separated lists), as kbx report --figure passes them.
    QCommandLineOption method{QStringLiteral("method"), QStringLiteral("--export-figure: only these methods."), QStringLiteral("M,...")};
    QCommandLineOption gpu{QStringLiteral("gpu"), QStringLiteral("--export-figure: only these GPUs."), QStringLiteral("G,...")};
    QCommandLineOption round{QStringLiteral("round"), QStringLiteral("--export-figure: only these rounds."), QStringLiteral("N,...")};
    QCommandLineOption category{QStringLiteral("category"), QStringLiteral("--export-figure: only these categories."), QStringLiteral("C,...")};
    QCommandLineOption provenance{QStringLiteral("provenance-line"),
                                  QStringLiteral("--export-figure: print the provenance (database, runs, filters, kbx, date) under the figure.")};
    QCommandLineOption allTasks{QStringLiteral("all-tasks"),
                                QStringLiteral("--export-figure: also tasks outside the benchmark's own (by default the figure covers those).")};
    // Size and type of --export-figure.
    QCommandLineOption width{QStringLiteral("width"), QStringLiteral("--export-figure: width, e.g. 3.5in, 88mm, 252pt, 800 (px)."), QStringLiteral("LEN")};
    QCommandLineOption height{QStringLiteral("height"), QStringLiteral("--export-figure: height (as --width)."), QStringLiteral("LEN")};
    QCommandLineOption aspect{QStringLiteral("aspect"), QStringLiteral("--export-figure: width/height where one of them is not given (1.6, 16:9)."),
                              QStringLiteral("W:H")};
    QCommandLineOption font{QStringLiteral("font-size"), QStringLiteral("--export-figure: base font size in pt (default 9)."), QStringLiteral("PT")};
    QCommandLineOption noTitle{QStringLiteral("no-title"), QStringLiteral("--export-figure: leave the title out (for a caption).")};

    void addTo(QCommandLineParser& p) const
    {
        for (const auto* o : {&exportFigure, &db, &out, &list, &method, &gpu, &round, &category, &allTasks, &provenance, &width, &height,
                              &aspect, &font, &noTitle})
            p.addOption(*o);
        p.addPositionalArgument(QStringLiteral("DATABASE"), QStringLiteral("A kbx database to open (same as --db)."), QStringLiteral("[DATABASE]"));
    }
};

#ifdef KBX_HAVE_CHARTS
/// --export-figure's filters; false (said why) when --round is not a list of numbers.
bool readFilters(const QCommandLineParser& p, const Options& o, kbx::analysis::Filters& filters)
{
    auto list = [&](const QCommandLineOption& opt) {
        std::vector<std::string> v;
        for (const auto& x : p.value(opt).split(QLatin1Char(','), Qt::SkipEmptyParts))
            v.push_back(x.trimmed().toStdString());
        return v;
    };
    filters.methods = list(o.method);
    filters.gpus = list(o.gpu);
    filters.categories = list(o.category);
    if (!p.isSet(o.allTasks)) {
        // As kbx report --table: the benchmark's own tasks (an imported corpus carries others).
        try {
            const auto cat = kbx::TaskCatalogue::load(kbx::findTasksDir());
            for (const auto& t : cat.tasks())
                filters.tasks.push_back(t.id);
            filters.tasksLabel = "the benchmark's " + std::to_string(filters.tasks.size()) + " tasks";
        } catch (const std::exception& e) {
            std::fprintf(stderr, "kbx-workbench: no task index (%s): every task drawn (as --all-tasks)\n", e.what());
        }
    }
    for (const auto& r : list(o.round)) {
        bool ok = false;
        const int n = QString::fromStdString(r).toInt(&ok);
        if (!ok) {
            std::fprintf(stderr, "kbx-workbench: --round wants numbers, got '%s'\n", r.c_str());
            return false;
        }
        filters.rounds.push_back(n);
    }
    return true;
}

/// --width, --height, --aspect, --font-size, --no-title; false (said why) when one is wrong.
bool readFigureOptions(const QCommandLineParser& p, const Options& o, kbx::gui::FigureOptions& figure)
{
    QString error;
    if (p.isSet(o.width) && (figure.widthPx = kbx::gui::parseLength(p.value(o.width), &error)) < 0)
        return std::fprintf(stderr, "kbx-workbench: --width: %s\n", qPrintable(error)), false;
    if (p.isSet(o.height) && (figure.heightPx = kbx::gui::parseLength(p.value(o.height), &error)) < 0)
        return std::fprintf(stderr, "kbx-workbench: --height: %s\n", qPrintable(error)), false;
    if (p.isSet(o.aspect) && (figure.aspect = kbx::gui::parseAspect(p.value(o.aspect), &error)) < 0)
        return std::fprintf(stderr, "kbx-workbench: --aspect: %s\n", qPrintable(error)), false;
    if (p.isSet(o.font)) {
        bool ok = false;
        figure.fontPt = p.value(o.font).toDouble(&ok);
        if (!ok || figure.fontPt < 4 || figure.fontPt > 48)
            return std::fprintf(stderr, "kbx-workbench: --font-size wants points from 4 to 48, got '%s'\n", qPrintable(p.value(o.font))), false;
    }
    figure.title = !p.isSet(o.noTitle);
    return true;
}

/// --list-figures, or --export-figure NAME --db PATH --out FILE: the process's exit code.
int exportHeadless(const QCommandLineParser& p, const Options& o)
{
    if (p.isSet(o.list)) {
        for (const auto& n : kbx::gui::figureNames())
            std::printf("%s\n", qPrintable(n));
        return 0;
    }
    const QString name = p.value(o.exportFigure);
    const QString requested = p.isSet(o.db) ? p.value(o.db) : p.positionalArguments().value(0);
    const QString out = p.value(o.out);
    if (name.isEmpty() || requested.isEmpty() || out.isEmpty()) {
        std::fprintf(stderr, "kbx-workbench: --export-figure NAME needs --db PATH and --out FILE\n");
        return 2;
    }
    const QString db = kbx::gui::resolveDatabasePath(requested);
    if (db != requested)
        std::fprintf(stderr, "kbx-workbench: %s is the installed (read-only) demo database: using your copy %s\n",
                     qPrintable(requested), qPrintable(db));
    if (!kbx::gui::figureNames().contains(name)) {
        std::fprintf(stderr, "kbx-workbench: unknown figure '%s' (known: %s)\n", qPrintable(name),
                     qPrintable(kbx::gui::figureNames().join(QStringLiteral(", "))));
        return 2;
    }
    kbx::analysis::Filters filters;
    if (!readFilters(p, o, filters))
        return 2;
    QString error;
    if (!kbx::gui::prepareDatabase(db, &error)) {
        std::fprintf(stderr, "kbx-workbench: %s\n", qPrintable(error));
        return 1;
    }
    kbx::gui::FigureOptions figure;
    if (!readFigureOptions(p, o, figure))
        return 2;
    QString warning;
    if (!kbx::gui::exportFigure(name, db, out, filters, p.isSet(o.provenance), figure, &error, &warning)) {
        std::fprintf(stderr, "kbx-workbench: %s\n", qPrintable(error));
        return 1;
    }
    if (!warning.isEmpty())
        std::fprintf(stderr, "kbx-workbench: warning: %s: %s\n", qPrintable(out), qPrintable(warning));
    std::fprintf(stderr, "kbx-workbench: wrote %s\n", qPrintable(out));
    return 0;
}
#endif

}  // namespace

int main(int argc, char** argv)
{
    // Figure export and --help need no screen: use the offscreen platform unless one was chosen.
    if (wantsHeadless(argc, argv) && qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM"))
        qputenv("QT_QPA_PLATFORM", "offscreen");
    QApplication app(argc, argv);
    QApplication::setOrganizationName(QStringLiteral("kbx"));
    QApplication::setApplicationName(QStringLiteral("kbx-workbench"));
    QApplication::setApplicationDisplayName(QStringLiteral("KernelBench-X Workbench"));
    QApplication::setApplicationVersion(QStringLiteral(KBX_VERSION));
    QApplication::setDesktopFileName(QStringLiteral("kbx-workbench"));
    kbx::gui::initResources();
    QApplication::setWindowIcon(QIcon(QStringLiteral(":/kbx/icons/kbx-workbench.svg")));

    QCommandLineParser p;
    p.setApplicationDescription(QStringLiteral("KernelBench-X Workbench: browse tasks, run and inspect Triton kernels, chart results."));
    p.addHelpOption();
    p.addVersionOption();
    const Options options;
    options.addTo(p);
    p.process(app);

    if (p.isSet(options.list) || p.isSet(options.exportFigure)) {
#ifdef KBX_HAVE_CHARTS
        return exportHeadless(p, options);
#else
        std::fprintf(stderr, "kbx-workbench: this build has no charts\n");
        return 2;
#endif
    }

    kbx::gui::MainWindow w;
    w.openInitialDatabase(kbx::gui::resolveDatabasePath(p.isSet(options.db) ? p.value(options.db) : p.positionalArguments().value(0)));
    w.show();
    return app.exec();
}
