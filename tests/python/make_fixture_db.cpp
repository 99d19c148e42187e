// SPDX-License-Identifier: MIT
// Writes the database the Python module's test reads, through the store's own API (the module is
// read-only). Usage: kbx-python-fixture-db OUT.sqlite SEED_FIXTURES_DIR TASKS_DIR
//
// Content (ids in this order; test_kbx_module.py states the expected values):
//   run 1 cpu,  round 0: E1 alpha Activation/sigmoid pass; E2 alpha Math/softmax syntax_error (call);
//                        E3 beta Activation/sigmoid value_mismatch (exe); E4 beta Math/softmax pass
//   run 2 cuda "NVIDIA H200":
//                round 0: E5 alpha Activation/sigmoid (other code) value_mismatch
//                round 1: E6 alpha Activation/sigmoid (E1's code) pass, timings 2 ms/1 ms and 8 ms/1 ms (speedup 4)
//                         E7 alpha Math/softmax pass, timing 1 ms/2 ms (speedup 0.5)
//                         E8 beta Activation/sigmoid value_mismatch, manual label dtype_mismatch
//   run 3 cpu,  round 0: E9 beta Math/softmax (E4's submission again) runtime_error
// then imports: the seed fixtures' corpus.jsonl (method seedm, gpu h800) and golden_results/a100.
#include "catalogue.h"
#include "seed_import.h"
#include "store.h"

#include <filesystem>
#include <iostream>
#include <optional>
#include <string>

namespace {

struct Ev {
    std::string method;
    std::string task;
    std::string code;
    int round;
    bool call;
    bool exe;
    std::optional<std::string> cls;
};

std::int64_t add(kbx::Store& s, std::int64_t run, const Ev& e)
{
    const auto [cand, isNew] = s.ensureCandidate(e.task, e.code);
    (void)isNew;
    const auto sub = s.ensureSubmission(cand, s.ensureMethod(e.method), e.round, "fixture");
    kbx::EvaluationRecord r;
    r.runId = run;
    r.submissionId = sub;
    r.taskId = e.task;
    r.callOk = e.call;
    r.exeOk = e.exe;
    r.pass = e.call && e.exe;
    r.failureClass = e.cls;
    r.failureDetail = e.cls ? "fixture: " + *e.cls : "";
    r.evidence = {{"fixture", true}};
    r.stageSeconds = {{"candidate", 0.5}};
    r.startedAt = "2026-12-01T10:00:00Z";
    r.finishedAt = "2026-12-01T10:00:01Z";
    r.cases.push_back({0, "edge_zero", r.pass ? "pass" : "fail", e.cls, {{"max_abs_err", r.pass ? 0.0 : 1.5}}});
    return s.addEvaluation(r);
}

}  // namespace

int main(int argc, char** argv)
{
    if (argc != 4) {
        std::cerr << "usage: " << argv[0] << " OUT.sqlite SEED_FIXTURES_DIR TASKS_DIR\n";
        return 2;
    }
    try {
        const std::filesystem::path out = argv[1], seed = argv[2];
        std::filesystem::remove(out);
        kbx::Store s(out);
        const std::string sig = "Activation/sigmoid", sm = "Math/softmax";
        const auto cpu = s.beginRun("cpu", {{"fixture", "run 1"}}, {0, 1}, 42, {{"argv", "fixture"}});
        add(s, cpu, {"alpha", sig, "def sigmoid(x): return 1", 0, true, true, std::nullopt});
        add(s, cpu, {"alpha", sm, "def softmax(x) return", 0, false, false, "syntax_error"});
        add(s, cpu, {"beta", sig, "def sigmoid(x): return 2", 0, true, false, "value_mismatch"});
        add(s, cpu, {"beta", sm, "def softmax(x): return 3", 0, true, true, std::nullopt});
        s.finishRun(cpu, "finished", {{"fixture", "run 1"}});

        const auto gpu = s.beginRun("cuda", {{"devices", {{{"name", "NVIDIA H200"}}}}}, {0, 1}, 43, {{"argv", "fixture"}});
        add(s, gpu, {"alpha", sig, "def sigmoid(x): return 0", 0, true, false, "value_mismatch"});
        const auto e6 = add(s, gpu, {"alpha", sig, "def sigmoid(x): return 1", 1, true, true, std::nullopt});
        const auto e7 = add(s, gpu, {"alpha", sm, "def softmax(x): return 4", 1, true, true, std::nullopt});
        const auto e8 = add(s, gpu, {"beta", sig, "def sigmoid(x): return 2", 1, true, false, "value_mismatch"});
        s.addPerf(e6, {{"small", 1.0, 2.0, {{"n", 5}}}, {"large", 1.0, 8.0, {{"n", 7}}}}, {{"geomean_speedup", {{"estimate", 4.0}}}});
        s.addPerf(e7, {{"small", 2.0, 1.0, {{"n", 5}}}}, {{"geomean_speedup", {{"estimate", 0.5}}}});
        s.setManualLabel(e8, "dtype_mismatch", "fixture label", "test");
        s.finishRun(gpu, "finished", {{"devices", {{{"name", "NVIDIA H200"}}}}});

        const auto again = s.beginRun("cpu", {{"fixture", "run 3"}}, {0, 1}, 44, {{"argv", "fixture"}});
        add(s, again, {"beta", sm, "def softmax(x): return 3", 0, true, false, "runtime_error"});
        s.finishRun(again, "finished", {{"fixture", "run 3"}});

        const auto catalogue = kbx::TaskCatalogue::load(argv[3]);
        kbx::ImportOptions corpus;
        corpus.method = "seedm";
        corpus.gpu = "h800";
        corpus.catalogue = &catalogue;
        s.writeImport(kbx::readSeedImport(seed / "corpus.jsonl", corpus));
        kbx::ImportOptions golden;
        golden.catalogue = &catalogue;
        s.writeImport(kbx::readSeedImport(seed / "golden_results" / "a100", golden));
        std::cout << out.string() << "\n";
        return 0;
    } catch (const std::exception& e) {
        std::cerr << "kbx-python-fixture-db: " << e.what() << "\n";
        return 1;
    }
}
