// SPDX-License-Identifier: MIT
#include "cmd_slurm.h"
#include "exitcodes.h"

#include "paths.h"
#include "slurm.h"
#include "slurm_driver.h"

#include <fmt/format.h>

#include <atomic>
#include <csignal>
#include <cstdlib>
#include <iostream>
#include <set>

namespace kbxcli {
// The driver (core/slurm_driver.h) reports its result as kbx's exit codes.
static_assert(static_cast<int>(kbx::SlurmExit::Ok) == ExitOk && static_cast<int>(kbx::SlurmExit::Unjudged) == ExitUnjudged &&
              static_cast<int>(kbx::SlurmExit::Usage) == ExitUsage && static_cast<int>(kbx::SlurmExit::Input) == ExitInput &&
              static_cast<int>(kbx::SlurmExit::Environment) == ExitEnvironment &&
              static_cast<int>(kbx::SlurmExit::Database) == ExitDatabase &&
              static_cast<int>(kbx::SlurmExit::Interrupted) == ExitInterrupted);

namespace {

std::atomic<bool> g_slurmCancel{false};
extern "C" void onSlurmSignal(int) { g_slurmCancel.store(true); }

/// Options of kbx eval that the driver handles itself and never forwards to the array tasks.
const std::set<std::string> kNotForwarded = {"SOURCE",      "--db",       "--json",    "--secret-seed", "--secret-seed-file", "--shard",  "--backend",
                                             "--partition", "--gpus-per-task", "--cpus-per-task", "--max-jobs", "--shards",
                                             "--work-dir",  "--resubmit", "--retries", "--poll",        "--time-limit",
                                             "--scratch",   "--resume",   "--help"};

/// The kbx eval options given on the command line that every array task gets too.
std::vector<std::string> forwardedOptions(const CLI::App& eval)
{
    std::vector<std::string> out;
    for (const CLI::Option* o : eval.get_options()) {
        if (o->count() == 0 || o->get_lnames().empty())
            continue;
        const auto name = "--" + o->get_lnames().front();
        if (kNotForwarded.count(name))
            continue;
        if (o->get_type_size() == 0) {  // a flag
            for (std::size_t i = 0; i < o->count(); ++i)
                out.push_back(name);
            continue;
        }
        for (const auto& v : o->results()) {
            out.push_back(name);
            out.push_back(v);
        }
    }
    return out;
}

}  // namespace

void addSlurmOptions(CLI::App* eval, SlurmArgs& a)
{
    eval->add_option("--shard", a.shard,
                     "Evaluate only shard I of N (I/N, 0-based): submissions ordered by task, code SHA-256, method and round, "
                     "cut into N contiguous blocks; N runs of the same source cover everything once (give them one --secret-seed)");
    eval->add_option("--backend", a.backend, "Where to run: local (this machine) or slurm (a job array of --shards kbx eval runs, merged into --db)")
        ->check(CLI::IsMember({"local", "slurm"}))
        ->capture_default_str();
    eval->add_option("--partition", a.partition, "With --backend slurm: the Slurm partition");
    eval->add_option("--gpus-per-task", a.gpusPerTask, "With --backend slurm: GPUs per array task (--gres=gpu:N)")->check(CLI::Range(0, 64));
    eval->add_option("--cpus-per-task", a.cpusPerTask, "With --backend slurm: CPUs per array task")->check(CLI::Range(0, 1024));
    eval->add_option("--max-jobs", a.maxJobs, "With --backend slurm: array tasks running at once (0: no limit)")->check(CLI::Range(0, 100000));
    eval->add_option("--shards", a.shards, "With --backend slurm: number of shards (default: min(submissions, --max-jobs or 8))")
        ->check(CLI::Range(0, 100000));
    eval->add_option("--work-dir", a.workDir,
                     "With --backend slurm: directory for the script, shard databases and logs, on a file system the nodes share "
                     "(default: ./kbx-slurm-<date>-<id>)");
    eval->add_option("--resubmit", a.resubmit,
                     "Continue a --backend slurm run from its work directory: re-submit the shards that did not finish, then merge");
    eval->add_option("--retries", a.retries, "With --backend slurm: automatic re-submissions of a failed shard")
        ->check(CLI::Range(0, 10))
        ->capture_default_str();
    eval->add_option("--poll", a.poll, "With --backend slurm: seconds between squeue/sacct polls")->check(CLI::Range(0.2, 3600.0))->capture_default_str();
    eval->add_option("--time-limit", a.timeLimit, "With --backend slurm: sbatch --time of each array task (e.g. 2:00:00)");
    // SOURCE may be left out with --resubmit (the work directory names it).
    if (auto* src = eval->get_option_no_throw("SOURCE")) {
        src->required(false);
        eval->final_callback([src, &a] {
            if (src->count() == 0 && a.resubmit.empty())
                throw CLI::RequiredError("SOURCE");
        });
    }
}

bool slurmRequested(const SlurmArgs& a) { return a.backend == "slurm" || !a.resubmit.empty(); }

nlohmann::json slurmProvenance()
{
    return kbx::slurmPlacement([](const char* k) { return std::getenv(k); });
}

std::optional<int> applyShard(const std::string& spec, const std::string& source, const std::string& method, int round,
                              const std::string& device, const std::vector<std::int64_t>& publicSeeds, std::vector<kbx::Submission>& subs,
                              std::optional<std::int64_t>& secretSeed, nlohmann::json& args)
{
    kbx::ShardSpec shard;
    try {
        shard = kbx::parseShard(spec);
    } catch (const std::invalid_argument& e) {
        std::cerr << "kbx: " << e.what() << "\n";
        return ExitUsage;
    }
    if (!secretSeed) {
        secretSeed = kbx::drawSecretSeed();
        std::cerr << fmt::format("kbx: --shard without --secret-seed: this shard draws its own secret seed ({}); give every shard "
                                 "of one run the same --secret-seed so they see the same cases\n",
                                 *secretSeed);
    }
    const auto total = subs.size();
    auto idx = kbx::shardIndices(subs, shard, method, round);
    std::vector<kbx::Submission> mine;
    mine.reserve(idx.size());
    for (auto i : idx)
        mine.push_back(std::move(subs[i]));
    subs = std::move(mine);
    args = {{"shard", shard.str()},
            {"shard_group", kbx::shardGroup(source, method, round, device, publicSeeds, *secretSeed, shard.count)},
            {"shard_of", total},
            {"shard_size", subs.size()}};
    if (auto p = slurmProvenance(); !p.is_null())
        args["slurm"] = p;
    std::cerr << fmt::format("kbx: shard {}: {} of {} submission(s)\n", shard.str(), subs.size(), total);
    if (subs.empty()) {
        std::cerr << "kbx: this shard is empty; nothing to do\n";
        return ExitOk;
    }
    return std::nullopt;
}


int runSlurmEval(const CLI::App& eval, const SlurmArgs& a, const SlurmEvalInput& in)
{
    const auto* jsonOption = eval.get_option_no_throw("--json");
    const bool jsonEvents = jsonOption && jsonOption->count() > 0;
    // Ctrl-C / SIGTERM from here on: before anything is submitted it just stops (130); afterwards the
    // array tasks are scancelled first.
    std::signal(SIGINT, onSlurmSignal);
    std::signal(SIGTERM, onSlurmSignal);
    kbx::SlurmDriverOptions o;
    o.source = in.source;
    o.db = in.db;
    o.secretSeed = in.secretSeed;
    o.skipUnknown = in.skipUnknown;
    o.kbx = kbx::executableDir() / "kbx";
    o.evalArgs = forwardedOptions(eval);
    o.partition = a.partition;
    o.gpusPerTask = a.gpusPerTask;
    o.cpusPerTask = a.cpusPerTask;
    o.maxJobs = a.maxJobs;
    o.shards = a.shards;
    o.workDir = a.workDir;
    o.timeLimit = a.timeLimit;
    o.retries = a.retries;
    o.poll = a.poll;
    o.resubmit = a.resubmit;
    // Lines for people on stderr; with --json one JSON object per event on stdout, flushed: a reader
    // (the workbench's run panel) follows the run live (docs/SCALING.md).
    const auto rc = kbx::runSlurmDriver(o, [&](const kbx::SlurmEvent& e) {
        if (!e.text.empty())
            std::cerr << e.text << "\n";
        if (jsonEvents && !e.json.is_null())
            std::cout << e.json.dump() << std::endl;
    }, &g_slurmCancel);
    return static_cast<int>(rc);
}

}  // namespace kbxcli
