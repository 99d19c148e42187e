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
    QCommandLineOption exportOpt(QStringLiteral("export-figure"), QStringLiteral("Render figure NAME headless and exit."),
                                 QStringLiteral("NAME"));
    QCommandLineOption dbOpt(QStringLiteral("db"), QStringLiteral("The kbx database."), QStringLiteral("PATH"));
    QCommandLineOption outOpt(QStringLiteral("out"), QStringLiteral("Output file of --export-figure (.svg, .pdf, .png, .csv, .tex)."),
                              QStringLiteral("FILE"));
    QCommandLineOption listOpt(QStringLiteral("list-figures"), QStringLiteral("Print the figure names and exit."));
    // Filters of --export-figure (comma-separated lists), as kbx report --figure passes them.
    QCommandLineOption methodOpt(QStringLiteral("method"), QStringLiteral("--export-figure: only these methods."), QStringLiteral("M,..."));
    QCommandLineOption gpuOpt(QStringLiteral("gpu"), QStringLiteral("--export-figure: only these GPUs."), QStringLiteral("G,..."));
    QCommandLineOption roundOpt(QStringLiteral("round"), QStringLiteral("--export-figure: only these rounds."), QStringLiteral("N,..."));
    QCommandLineOption categoryOpt(QStringLiteral("category"), QStringLiteral("--export-figure: only these categories."), QStringLiteral("C,..."));
    QCommandLineOption provenanceOpt(QStringLiteral("provenance-line"),
                                     QStringLiteral("--export-figure: print the provenance (database, runs, filters, kbx, date) under the figure."));
    QCommandLineOption allTasksOpt(QStringLiteral("all-tasks"),
                                   QStringLiteral("--export-figure: also tasks outside the benchmark's own (by default the figure covers those)."));
    p.addOption(exportOpt);
    p.addOption(dbOpt);
    p.addOption(outOpt);
    p.addOption(listOpt);
    p.addOption(methodOpt);
    p.addOption(gpuOpt);
    p.addOption(roundOpt);
    p.addOption(categoryOpt);
    p.addOption(allTasksOpt);
    p.addOption(provenanceOpt);
    // Size and type of --export-figure (issue 24).
    QCommandLineOption widthOpt(QStringLiteral("width"), QStringLiteral("--export-figure: width, e.g. 3.5in, 88mm, 252pt, 800 (px)."), QStringLiteral("LEN"));
    QCommandLineOption heightOpt(QStringLiteral("height"), QStringLiteral("--export-figure: height (as --width)."), QStringLiteral("LEN"));
    QCommandLineOption aspectOpt(QStringLiteral("aspect"), QStringLiteral("--export-figure: width/height where one of them is not given (1.6, 16:9)."),
                                 QStringLiteral("W:H"));
    QCommandLineOption fontOpt(QStringLiteral("font-size"), QStringLiteral("--export-figure: base font size in pt (default 9)."), QStringLiteral("PT"));
    QCommandLineOption noTitleOpt(QStringLiteral("no-title"), QStringLiteral("--export-figure: leave the title out (for a caption)."));
    for (const auto* o : {&widthOpt, &heightOpt, &aspectOpt, &fontOpt, &noTitleOpt})
        p.addOption(*o);
    p.addPositionalArgument(QStringLiteral("DATABASE"), QStringLiteral("A kbx database to open (same as --db)."), QStringLiteral("[DATABASE]"));
    p.process(app);

    if (p.isSet(listOpt) || p.isSet(exportOpt)) {
#ifdef KBX_HAVE_CHARTS
        if (p.isSet(listOpt)) {
            for (const auto& n : kbx::gui::figureNames())
                std::printf("%s\n", qPrintable(n));
            return 0;
        }
        const QString name = p.value(exportOpt);
        const QString requested = p.isSet(dbOpt) ? p.value(dbOpt) : p.positionalArguments().value(0);
        const QString out = p.value(outOpt);
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
        auto list = [&](const QCommandLineOption& o) {
            std::vector<std::string> v;
            for (const auto& x : p.value(o).split(QLatin1Char(','), Qt::SkipEmptyParts))
                v.push_back(x.trimmed().toStdString());
            return v;
        };
        filters.methods = list(methodOpt);
        filters.gpus = list(gpuOpt);
        filters.categories = list(categoryOpt);
        if (!p.isSet(allTasksOpt)) {
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
        for (const auto& r : list(roundOpt)) {
            bool ok = false;
            const int n = QString::fromStdString(r).toInt(&ok);
            if (!ok) {
                std::fprintf(stderr, "kbx-workbench: --round wants numbers, got '%s'\n", r.c_str());
                return 2;
            }
            filters.rounds.push_back(n);
        }
        QString error;
        if (!kbx::gui::prepareDatabase(db, &error)) {
            std::fprintf(stderr, "kbx-workbench: %s\n", qPrintable(error));
            return 1;
        }
        kbx::gui::FigureOptions figure;
        if (p.isSet(widthOpt) && (figure.widthPx = kbx::gui::parseLength(p.value(widthOpt), &error)) < 0)
            return std::fprintf(stderr, "kbx-workbench: --width: %s\n", qPrintable(error)), 2;
        if (p.isSet(heightOpt) && (figure.heightPx = kbx::gui::parseLength(p.value(heightOpt), &error)) < 0)
            return std::fprintf(stderr, "kbx-workbench: --height: %s\n", qPrintable(error)), 2;
        if (p.isSet(aspectOpt) && (figure.aspect = kbx::gui::parseAspect(p.value(aspectOpt), &error)) < 0)
            return std::fprintf(stderr, "kbx-workbench: --aspect: %s\n", qPrintable(error)), 2;
        if (p.isSet(fontOpt)) {
            bool ok = false;
            figure.fontPt = p.value(fontOpt).toDouble(&ok);
            if (!ok || figure.fontPt < 4 || figure.fontPt > 48)
                return std::fprintf(stderr, "kbx-workbench: --font-size wants points from 4 to 48, got '%s'\n", qPrintable(p.value(fontOpt))), 2;
        }
        figure.title = !p.isSet(noTitleOpt);
        if (!kbx::gui::exportFigure(name, db, out, filters, p.isSet(provenanceOpt), figure, &error)) {
            std::fprintf(stderr, "kbx-workbench: %s\n", qPrintable(error));
            return 1;
        }
        std::fprintf(stderr, "kbx-workbench: wrote %s\n", qPrintable(out));
        return 0;
#else
        std::fprintf(stderr, "kbx-workbench: this build has no charts\n");
        return 2;
#endif
    }

    kbx::gui::MainWindow w;
    w.openInitialDatabase(kbx::gui::resolveDatabasePath(p.isSet(dbOpt) ? p.value(dbOpt) : p.positionalArguments().value(0)));
    w.show();
    return app.exec();
}
