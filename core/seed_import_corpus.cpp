// SPDX-License-Identifier: MIT
// kbx import: the seed's round-transition corpus (JSONL), read into one run per corpus.
#include "seed_import_internal.h"

#include <fmt/format.h>

#include <regex>

namespace kbx::seed_import_internal {

namespace {

/// One line of a corpus file as JSON.
json parseRecordLine(const std::string& line, const std::string& where)
{
    try {
        return json::parse(line);
    } catch (const json::parse_error& e) {
        std::string what = e.what();
        if (auto pos = what.find("parse error"); pos != std::string::npos)
            what = what.substr(pos);
        throw ImportError(fmt::format("{}: not valid JSON ({}){}", where, what,
                                      e.byte >= line.size() ? " - the line ends early (a partial write?)" : ""));
    } catch (const json::exception& e) {  // e.g. a number beyond a double
        throw ImportError(fmt::format("{}: not valid JSON ({})", where, e.what()));
    }
}

/// A record's rounds as "round_0" (from_round/to_round), else from "round_0_to_round_1" (transition).
std::pair<int, int> recordRounds(const json& j, const std::string& where)
{
    // -1: unknown.
    auto roundOf = [&](const char* key) {
        auto r = j.contains(key) ? seedRound(j[key]) : std::nullopt;
        return r ? *r : -1;
    };
    int fromRound = roundOf("from_round"), toRound = roundOf("to_round");
    if ((fromRound < 0 || toRound < 0) && j.contains("transition") && j["transition"].is_string()) {
        std::smatch m;
        const auto t = j["transition"].get<std::string>();
        if (std::regex_match(t, m, std::regex(R"(round_(\d+)_to_round_(\d+))"))) {
            if (m[1].length() <= 9 && m[2].length() <= 9) {  // longer: out of int's range, left unset
                fromRound = fromRound < 0 ? std::stoi(m[1]) : fromRound;
                toRound = toRound < 0 ? std::stoi(m[2]) : toRound;
            }
        }
    }
    if (fromRound < 0 || toRound < 0)
        throw ImportError(fmt::format("{}: no rounds (\"from_round\"/\"to_round\" like \"round_0\", or \"transition\")", where));
    return {fromRound, toRound};
}

}  // namespace

void CorpusReader::finish()
{
    if (m_transitions.empty())
        return;
    const auto runIndex = m_batch.runs.size();
    if (m_files.size() > 1)
        m_run.provenance["files"] = m_files;
    if (m_duplicates)
        m_run.provenance["duplicate_records"] = m_duplicates;
    m_batch.runs.push_back(std::move(m_run));
    for (auto& t : m_transitions) {
        t.run = runIndex;
        m_batch.transitions.push_back(std::move(t));
    }
    m_transitions.clear();
}

std::size_t CorpusReader::addState(const std::string& taskId, int round, const json& state, const json& record, const char* codeKey,
                                   const std::string& origin, const std::string& where)
{
    // The record's code sits beside before/after: carry it into the state object for makeEvaluation.
    json withCode = state;
    if (record.contains(codeKey))
        withCode[codeKey] = record[codeKey];
    auto ev = makeEvaluation(taskId, withCode, codeKey, origin, where, m_run.gpu, m_run.method, round);
    auto& same = m_byTaskRound[{taskId, round}];
    for (auto idx : same) {
        auto& old = m_run.evaluations[idx];
        const bool oldPlaceholder = !old.seed.value("code_kept", false);
        const bool newPlaceholder = !ev.seed.value("code_kept", false);
        if (old.code == ev.code || newPlaceholder || oldPlaceholder) {
            if (old.state.callOk != ev.state.callOk || old.state.exeOk != ev.state.exeOk)
                m_batch.notes.push_back(fmt::format("{}: {} round {} has another verdict in {}; kept the first", where, taskId, round, old.origin));
            if (oldPlaceholder && !newPlaceholder) {
                old.code = ev.code;
                old.seed["code_kept"] = true;
            }
            return idx;
        }
    }
    if (!same.empty())
        m_batch.notes.push_back(fmt::format("{}: {} round {}: other code than in {}; both kept", where, taskId, round,
                                            m_run.evaluations[same.front()].origin));
    same.push_back(m_run.evaluations.size());
    m_run.evaluations.push_back(std::move(ev));
    return m_run.evaluations.size() - 1;
}

void CorpusReader::read(Reader& rd, const fs::path& p)
{
    const auto file = p.string();
    const auto content = rd.read(p);
    if (m_files.empty())
        m_run.file = file;
    m_files.push_back(file);
    if (m_opt.round && m_files.size() == 1)
        m_batch.notes.push_back("--round ignored: corpus records carry their rounds");
    std::istringstream in(content);
    std::string line;
    std::size_t lineNo = 0;
    std::size_t records = 0;
    int duplicates = 0;
    while (std::getline(in, line)) {
        ++lineNo;
        if (line.find_first_not_of(" \t\r") == std::string::npos)
            continue;
        const auto where = fmt::format("{}:{}", file, lineNo);
        const json j = parseRecordLine(line, where);
        if (!j.is_object())
            throw ImportError(fmt::format("{}: expected a corpus record (an object), found {}", where, shortJson(j)));
        ++records;
        if (!readRecord(j, where))
            ++duplicates;
    }
    if (records == 0)
        throw ImportError(fmt::format("{}: no corpus record", file));
    if (duplicates) {
        m_duplicates += duplicates;
        m_batch.notes.push_back(fmt::format("{}: {} of {} record(s) repeat a record read before in this import (the same task, "
                                            "rounds, verdicts and code): each transition counted once",
                                            file, duplicates, records));
    }
}

bool CorpusReader::readRecord(const json& j, const std::string& where)
{
    auto taskName = text(j, "task_id", where);
    if (taskName.empty())
        taskName = text(j, "file", where);
    if (taskName.empty())
        throw ImportError(fmt::format("{}: no \"task_id\"", where));
    auto taskId = seedTaskId(taskName, m_opt.catalogue, where);
    const auto [fromRound, toRound] = recordRounds(j, where);
    for (const char* side : {"before", "after"})
        if (!j.contains(side) || !j[side].is_object())
            throw ImportError(fmt::format("{}: no \"{}\" object (call_ok, exe_ok, ...)", where, side));
    // The same transition in another file (or twice in one): one record of it.
    const auto codeOf = [&](const char* k) { return j.contains(k) && j[k].is_string() ? sha256Hex(j[k].get<std::string>()) : std::string("-"); };
    const auto key = fmt::format("{}\n{}\n{}\n{}\n{}\n{}\n{}", taskId, fromRound, toRound, j["before"].dump(), j["after"].dump(),
                                 codeOf("before_code"), codeOf("after_code"));
    if (!m_seen.insert(key).second)
        return false;
    ImportedTransition t;
    t.taskId = taskId;
    t.fromRound = fromRound;
    t.toRound = toRound;
    t.kind = text(j, "kind", where);
    t.origin = where;
    t.beforeEvaluation = addState(taskId, fromRound, j["before"], j, "before_code", where + " (before)", where + ": before");
    t.afterEvaluation = addState(taskId, toRound, j["after"], j, "after_code", where + " (after)", where + ": after");
    // The record's own states, not the deduplicated evaluation's (they agree unless the corpus contradicts itself).
    std::optional<double> ignored;
    t.before = seedState(j["before"], where + ": before", ignored);
    t.after = seedState(j["after"], where + ": after", ignored);
    m_transitions.push_back(std::move(t));
    return true;
}

void readCorpus(Reader& rd, const fs::path& p, const ImportOptions& opt, ImportBatch& batch)
{
    if (!opt.method)
        throw ImportError(fmt::format("{}: the corpus records do not name their method: give --method (e.g. --method GEAK)", p.string()));
    CorpusReader cr(opt, batch, *opt.method);
    cr.read(rd, p);
    cr.finish();
}

bool looksLikeCorpus(const std::string& content)
{
    std::istringstream in(content);
    std::string line;
    while (std::getline(in, line)) {
        if (line.find_first_not_of(" \t\r") == std::string::npos)
            continue;
        try {
            auto j = json::parse(line);
            return j.is_object() && j.contains("before") && j.contains("after");
        } catch (const json::exception&) {  // parse_error, or out_of_range for a number beyond a double
            return false;
        }
    }
    return false;
}

}  // namespace kbx::seed_import_internal
