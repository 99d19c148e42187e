// SPDX-License-Identifier: MIT
// kbx: the command line of the KernelBench-X Workbench. Everything the GUI does, without a screen.
// Each command lives in its own cmd_*.cpp (add...Command registers it, run... runs it); here: the
// parse, the secret seed scrubbed from the command line, and the dispatch.
#include "catalogue.h"
#include "cmd_eval.h"
#include "cmd_import.h"
#include "cmd_merge.h"
#include "cmd_strip.h"
#include "cmd_report.h"
#include "cmd_setup_python.h"
#include "cmd_show.h"
#include "cmd_tasks.h"
#include "exitcodes.h"

#include <CLI/CLI.hpp>

#include <cstring>
#include <iostream>
#include <stdexcept>

namespace {

using enum kbxcli::ExitCode;  // app/cli/exitcodes.h (docs/CLI.md, "Exit codes")

/// Blanks the value of --secret-seed in this process's own argv (what /proc/PID/cmdline shows).
void scrubSecretSeedArgs(int argc, char** argv)
{
    for (int i = 1; i < argc; ++i) {
        char* a = argv[i];
        if (std::strcmp(a, "--secret-seed") == 0 && i + 1 < argc) {
            std::memset(argv[i + 1], 'x', std::strlen(argv[i + 1]));
            ++i;
        } else if (std::strncmp(a, "--secret-seed=", 14) == 0) {
            std::memset(a + 14, 'x', std::strlen(a + 14));
        }
    }
}

}  // namespace

int main(int argc, char** argv)
{
    CLI::App app{"kbx — KernelBench-X Workbench command line: tasks, evaluation, reports"};
    app.require_subcommand(1);
    app.set_version_flag("--version", "kbx 0.1.0");

    kbxcli::TasksArgs tasksArgs;
    auto* tasks = kbxcli::addTasksCommand(app, tasksArgs);
    kbxcli::EvalArgs evalArgs;
    auto* eval = kbxcli::addEvalCommand(app, evalArgs);
    kbxcli::ReportArgs reportArgs;
    auto* report = kbxcli::addReportCommand(app, reportArgs);
    kbxcli::ImportArgs importArgs;
    auto* importCmd = kbxcli::addImportCommand(app, importArgs);
    kbxcli::MergeArgs mergeArgs;
    auto* mergeCmd = kbxcli::addMergeCommand(app, mergeArgs);
    kbxcli::StripArgs stripArgs;
    auto* stripCmd = kbxcli::addStripCommand(app, stripArgs);
    kbxcli::ShowArgs showArgs;
    auto* showCmd = kbxcli::addShowCommand(app, showArgs);
    kbxcli::SetupPythonArgs setupPythonArgs;
    auto* setupPythonCmd = kbxcli::addSetupPythonCommand(app, setupPythonArgs);

    try {
        app.parse(argc, argv);
    } catch (const CLI::ParseError& e) {
        int rc = app.exit(e);
        return rc == 0 ? ExitOk : ExitUsage;
    }
    // The secret seed never stays where other processes read it (issue 20): /proc/PID/cmdline is
    // readable by every uid, /proc/PID/environ by ours.
    scrubSecretSeedArgs(argc, argv);
    if (*eval)
        if (auto rc = kbxcli::takeSecretSeed(evalArgs))
            return *rc;
    // A --perf-config that is not an object of known keys and types is a usage error, said before
    // anything starts (the commands apply it again; a Slurm shard's kbx eval too).
    if (*eval)
        if (auto rc = kbxcli::checkPerfOverrides(evalArgs.perfConfig, evalArgs.perfBaselines))
            return *rc;
    if (*tasks && tasksArgs.check)
        if (auto rc = kbxcli::checkPerfOverrides(tasksArgs.perfConfig, tasksArgs.perfBaselines))
            return *rc;
    try {
        if (*tasks)
            return kbxcli::runTasks(tasksArgs);
        if (*eval)
            return kbxcli::runEval(*eval, evalArgs);
        if (*report)
            return kbxcli::runReport(reportArgs);
        if (*setupPythonCmd)
            return kbxcli::runSetupPython(setupPythonArgs);
        if (*mergeCmd)
            return kbxcli::runMerge(mergeArgs);
        if (*stripCmd)
            return kbxcli::runStrip(stripArgs);
        if (*showCmd)
            return kbxcli::runShow(showArgs);
        if (*importCmd)
            return kbxcli::runImport(importArgs);
    } catch (const kbx::CatalogueError& e) {
        std::cerr << "kbx: " << e.what() << "\n";
        return ExitEnvironment;
    } catch (const std::invalid_argument& e) {
        std::cerr << "kbx: bad number: " << e.what() << "\n";
        return ExitUsage;
    }
    return ExitUsage;
}
