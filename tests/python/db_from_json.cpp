// SPDX-License-Identifier: MIT
// Writes a kbx database from a JSON description through the store's own API, for the tests of the
// Python scripts that read databases (bench/, scripts/): they read through the kbx module, which
// only reads, so their fixtures are written here and never with SQL of their own.
// Usage: kbx-db-from-json OUT.sqlite SPEC.json
//   {"runs": [{"device": "cuda", "provenance": {...},
//              "evaluations": [{"method": "m", "task": "Math/abs", "code": "...", "round": 0,
//                               "failure_class": null, "evidence": {...}, "stage_seconds": {...},
//                               "timings": [{"shape": "1M", "candidate_ms": 0.01, "baseline_ms": 0.012,
//                                            "samples": {...}}]}]}]}
// An evaluation passes when it has no failure_class; evidence.perf and timings go through addPerf.
#include "store.h"

#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <iostream>

int main(int argc, char** argv)
{
    if (argc != 3) {
        std::cerr << "usage: " << argv[0] << " OUT.sqlite SPEC.json\n";
        return 2;
    }
    try {
        std::ifstream in(argv[2]);
        const auto spec = nlohmann::json::parse(in);
        std::filesystem::remove(argv[1]);
        kbx::Store s(argv[1]);
        for (const auto& run : spec.at("runs")) {
            const auto prov = run.value("provenance", nlohmann::json::object());
            const auto id = s.beginRun(run.value("device", "cpu"), prov, {0}, 1, {{"argv", "fixture"}});
            for (const auto& e : run.at("evaluations")) {
                const auto [cand, isNew] = s.ensureCandidate(e.at("task"), e.value("code", "def f(): pass"));
                (void)isNew;
                kbx::EvaluationRecord r;
                r.runId = id;
                r.submissionId = s.ensureSubmission(cand, s.ensureMethod(e.value("method", "m")), e.value("round", 0), "fixture");
                r.taskId = e.at("task");
                if (e.contains("failure_class") && e["failure_class"].is_string())
                    r.failureClass = e["failure_class"].get<std::string>();
                r.pass = !r.failureClass;
                r.callOk = r.exeOk = r.pass;
                r.failureDetail = e.value("failure_detail", "");
                r.evidence = e.value("evidence", nlohmann::json::object());
                const auto perf = r.evidence.contains("perf") ? r.evidence["perf"] : nlohmann::json();
                r.evidence.erase("perf");
                r.stageSeconds = e.value("stage_seconds", nlohmann::json::object());
                r.startedAt = "2026-12-01T10:00:00Z";
                r.finishedAt = "2026-12-01T10:00:01Z";
                const auto ev = s.addEvaluation(r);
                std::vector<kbx::TimingRow> rows;
                for (const auto& t : e.value("timings", nlohmann::json::array()))
                    rows.push_back({t.at("shape"), t.value("candidate_ms", 0.0), t.value("baseline_ms", 0.0),
                                    t.value("samples", nlohmann::json::object())});
                if (!perf.is_null() || !rows.empty())
                    s.addPerf(ev, rows, perf.is_null() ? nlohmann::json::object() : perf);
            }
            s.finishRun(id, "finished", prov);
        }
    } catch (const std::exception& e) {
        std::cerr << "kbx-db-from-json: " << e.what() << "\n";
        return 1;
    }
    return 0;
}
