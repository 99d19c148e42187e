// SPDX-License-Identifier: MIT
#include "cmd_report.h"
#include "exitcodes.h"

#include "catalogue.h"
#include "paths.h"
#include "stats_tables.h"
#include "store.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <memory>

namespace kbxcli {
namespace {


std::filesystem::path databasePath(const std::string& db) { return db.empty() ? kbx::defaultDatabasePath() : std::filesystem::path(db); }

template <typename T>
bool keep(const std::vector<T>& filter, const T& v)
{
    return filter.empty() || std::find(filter.begin(), filter.end(), v) != filter.end();
}

/// The per category x method counts (kbx report without --table): one table per GPU, method, round.
int countsReport(kbx::Store& store, const ReportArgs& a)
{
    auto rows = store.report();
    std::erase_if(rows, [&](const kbx::ReportRow& r) {
        return !keep(a.methods, r.method) || !keep(a.gpus, r.gpu) || !keep(a.rounds, r.round) || !keep(a.categories, r.category);
    });
    if (a.json) {
        for (const auto& r : rows)
            std::cout << nlohmann::json{{"category", r.category}, {"method", r.method}, {"round", r.round}, {"gpu", r.gpu},
                                        {"total", r.total}, {"call_ok", r.callOk}, {"exe_ok", r.exeOk}}
                             .dump()
                      << "\n";
        return ExitOk;
    }
    int t = 0, c = 0, e = 0;
    std::string group;
    auto subtotal = [&] {
        if (!group.empty())
            std::cout << fmt::format("{:<16} {:<20} {:>5} {:>6} {:>5} {:>5.1f}% {:>5} {:>5.1f}%\n", "all", "", "", t, c,
                                     100.0 * c / std::max(1, t), e, 100.0 * e / std::max(1, t));
        t = c = e = 0;
    };
    for (const auto& r : rows) {
        const auto g = r.gpu + "\x1f" + r.method + "\x1f" + std::to_string(r.round);
        if (g != group) {
            subtotal();
            std::cout << fmt::format("{}\n== {} · {} · round {}\n", group.empty() ? "" : "\n", r.gpu, r.method, r.round);
            std::cout << fmt::format("{:<16} {:<20} {:>5} {:>6} {:>12} {:>12}\n", "category", "method", "round", "total", "call", "exe");
            group = g;
        }
        std::cout << fmt::format("{:<16} {:<20} {:>5} {:>6} {:>5} {:>5.1f}% {:>5} {:>5.1f}%\n", r.category, r.method, r.round, r.total, r.callOk,
                                 100.0 * r.callOk / std::max(1, r.total), r.exeOk, 100.0 * r.exeOk / std::max(1, r.total));
        t += r.total;
        c += r.callOk;
        e += r.exeOk;
    }
    subtotal();
    if (rows.empty())
        std::cout << "no evaluations in this database\n";
    return ExitOk;
}

int figure(const ReportArgs& a)
{
    // Figures are drawn by the workbench's chart code (Qt); kbx itself stays Qt-free.
    const auto wb = kbx::findWorkbench();
    if (wb.empty()) {
        std::cerr << "kbx: --figure needs kbx-workbench beside kbx (a build with -DKBX_BUILD_GUI=ON) or $KBX_WORKBENCH\n";
        return ExitEnvironment;
    }
    if (a.out.empty()) {
        std::cerr << "kbx: --figure needs --out FILE (.svg, .pdf, .png, .csv or .tex)\n";
        return ExitUsage;
    }
    const auto db = databasePath(a.db).string();
    if (!std::filesystem::exists(db)) {
        std::cerr << fmt::format("kbx: no database at {}\n", db);
        return ExitInput;
    }
    ::setenv("QT_QPA_PLATFORM", std::getenv("QT_QPA_PLATFORM") ? std::getenv("QT_QPA_PLATFORM") : "offscreen", 1);
    std::vector<std::string> args = {wb.string(), "--export-figure", a.figure, "--db", db, "--out", a.out};
    auto join = [](const auto& v) {
        std::string s;
        for (const auto& x : v)
            s += (s.empty() ? "" : ",") + fmt::format("{}", x);
        return s;
    };
    if (!a.methods.empty())
        args.insert(args.end(), {"--method", join(a.methods)});
    if (!a.gpus.empty())
        args.insert(args.end(), {"--gpu", join(a.gpus)});
    if (!a.rounds.empty())
        args.insert(args.end(), {"--round", join(a.rounds)});
    if (!a.categories.empty())
        args.insert(args.end(), {"--category", join(a.categories)});
    if (a.allTasks)
        args.push_back("--all-tasks");
    if (a.provenanceLine)
        args.push_back("--provenance-line");
    std::vector<char*> argv;
    for (auto& x : args)
        argv.push_back(x.data());
    argv.push_back(nullptr);
    ::execv(argv[0], argv.data());
    std::cerr << "kbx: cannot start " << wb << ": " << std::strerror(errno) << "\n";
    return ExitEnvironment;
}

}  // namespace

CLI::App* addReportCommand(CLI::App& app, ReportArgs& a)
{
    std::string names;
    for (const auto& n : kbx::stats::tableNames())
        names += (names.empty() ? "" : ", ") + n;
    auto* cmd = app.add_subcommand("report", "Per category x method call/exe counts, statistics tables (--table) and figures (--figure)");
    cmd->add_option("--db", a.db, "Database (default: $KBX_DB or ~/.local/share/kbx/kbx.sqlite)");
    cmd->add_option("--table", a.table, "A statistics table: " + names);
    cmd->add_option("--figure", a.figure, "Render a figure to --out (the same names, or kbx-workbench --list-figures); needs the GUI build");
    cmd->add_option("--out", a.out, "With --figure: output file (.svg, .pdf, .png, .csv, .tex)");
    cmd->add_flag("--json", a.json, "JSON (with --table: one document with provenance; without: one object per row)");
    cmd->add_flag("--csv", a.csv, "With --table: CSV (provenance as # lines, one section per table)");
    cmd->add_flag("--latex", a.latex, "With --table: LaTeX booktabs tabulars (provenance as % lines)");
    cmd->add_option("--method", a.methods, "Only these methods (repeat or comma-separate)")->delimiter(',');
    cmd->add_option("--gpu", a.gpus, "Only these GPUs, as the tables name them (e.g. 'NVIDIA H200', 'CPU (Triton interpreter)', h800)")
        ->delimiter(',');
    cmd->add_option("--round", a.rounds, "Only these rounds")->delimiter(',');
    cmd->add_option("--category", a.categories, "Only these task categories")->delimiter(',');
    cmd->add_flag("--provenance-line", a.provenanceLine,
                  "With --figure (.svg, .pdf, .png): print the provenance (database, runs, filters, kbx version, date) as a line "
                  "under the figure; it is always in the file's metadata");
    cmd->add_flag("--all-tasks", a.allTasks,
                  "With --table or --figure: also tasks outside the benchmark's own (an imported corpus carries older and extra "
                  "tasks); by default tables and figures cover the benchmark's tasks and a table's note says what was left out");
    cmd->add_flag("--no-quality", a.noQuality, "method-summary: do not run radon for submissions without cached code quality");
    cmd->add_flag("--read-only", a.readOnly,
                  "Open the database read-only: nothing is written (no WAL switch, no schema upgrade, no code-quality "
                  "cache). Chosen by itself for a database you cannot write (e.g. the installed demo)");
    return cmd;
}

int runReport(const ReportArgs& a)
{
    if (int(a.json) + int(a.csv) + int(a.latex) > 1) {
        std::cerr << "kbx: choose one of --json, --csv, --latex\n";
        return ExitUsage;
    }
    if (!a.table.empty() && !a.figure.empty()) {
        std::cerr << "kbx: --table and --figure are separate reports; give one\n";
        return ExitUsage;
    }
    if (!a.figure.empty())
        return figure(a);
    if (a.table.empty() && (a.csv || a.latex)) {
        std::cerr << "kbx: --csv and --latex go with --table NAME\n";
        return ExitUsage;
    }
    if (!a.table.empty() && !kbx::stats::isTableName(a.table)) {
        std::string names;
        for (const auto& n : kbx::stats::tableNames())
            names += (names.empty() ? "" : ", ") + n;
        std::cerr << fmt::format("kbx: unknown table '{}' (known: {})\n", a.table, names);
        return ExitUsage;
    }
    const auto dbPath = databasePath(a.db);
    if (!std::filesystem::exists(dbPath)) {
        std::cerr << fmt::format("kbx: no database at {}\n", dbPath.string());
        return ExitInput;
    }
    std::unique_ptr<kbx::Store> store;
    try {
        // Read-only when asked, or when this user cannot write the file or its directory (the installed
        // demo): then nothing is written, and code quality is measured without being cached.
        store = std::make_unique<kbx::Store>(dbPath, a.readOnly ? kbx::OpenMode::ReadOnly : kbx::OpenMode::Auto);
        if (a.table.empty())
            return countsReport(*store, a);
        kbx::analysis::Filters f;
        f.methods = a.methods;
        f.gpus = a.gpus;
        f.rounds = a.rounds;
        f.categories = a.categories;
        if (!a.allTasks) {
            try {
                const auto cat = kbx::TaskCatalogue::load(kbx::findTasksDir());
                for (const auto& t : cat.tasks())
                    f.tasks.push_back(t.id);
                f.tasksLabel = fmt::format("the benchmark's {} tasks", f.tasks.size());
            } catch (const std::exception& e) {
                std::cerr << "kbx: note: no task index (" << e.what() << "): every task counted (as --all-tasks)\n";
            }
        }
        kbx::stats::ReportOptions opt;
        opt.quality = !a.noQuality;
        const auto rep = kbx::stats::buildReport(*store, a.table, f, opt);
        const auto format = a.json ? kbx::stats::Format::Json
                                   : a.csv ? kbx::stats::Format::Csv : a.latex ? kbx::stats::Format::Latex : kbx::stats::Format::Text;
        std::cout << kbx::stats::render(rep, format);
        for (const auto& n : rep.notes)
            if (format != kbx::stats::Format::Text)
                std::cerr << "kbx: note: " << n << "\n";
        return ExitOk;
    } catch (const kbx::StoreError& e) {
        std::cerr << "kbx: " << e.what() << "\n";
        return ExitDatabase;
    } catch (const std::exception& e) {
        // What the database holds could not be read or written as a report (a damaged file, text
        // that is not UTF-8): a clear error, not an abort.
        std::cerr << "kbx: " << databasePath(a.db).string() << ": cannot build the report: " << e.what() << "\n";
        return ExitDatabase;
    }
}

}  // namespace kbxcli
