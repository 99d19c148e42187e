// SPDX-License-Identifier: MIT
// kbx::Store::stripCode: a results database made fit to share without the kernels' code.
#include "store.h"
#include "store_sqlite.h"

#include <nlohmann/json.hpp>
#include <sqlite3.h>

#include <map>
#include <optional>
#include <set>
#include <string_view>
#include <vector>

namespace kbx {

using store_detail::Stmt;
using store_detail::Transaction;

namespace {

/// Evidence keys that carry code or the candidate's output verbatim.
const std::set<std::string, std::less<>> kStrippedEvidenceKeys = {"traceback", "error_map", "stderr", "stderr_tail", "log", "worker_log",
                                                                  "source", "snippet", "code", "tail", "stdout"};
constexpr std::string_view kCodeLineMark = "[code line left out]";
constexpr std::size_t kMinCodeLine = 12;

std::string_view trimmed(std::string_view s)
{
    const auto b = s.find_first_not_of(" \t\r\f\v");
    if (b == std::string_view::npos)
        return {};
    const auto e = s.find_last_not_of(" \t\r\f\v");
    return s.substr(b, e - b + 1);
}

using CodeLines = std::set<std::string, std::less<>>;

CodeLines codeLines(const std::string& code)
{
    CodeLines out;
    std::size_t at = 0;
    while (at <= code.size()) {
        const auto nl = code.find('\n', at);
        const auto line = trimmed(std::string_view(code).substr(at, nl == std::string::npos ? std::string::npos : nl - at));
        if (line.size() >= kMinCodeLine)
            out.emplace(line);
        if (nl == std::string::npos)
            break;
        at = nl + 1;
    }
    return out;
}

std::string scrubText(const std::string& s, const CodeLines& lines)
{
    if (lines.empty() || s.empty())
        return s;
    std::string out;
    std::size_t at = 0;
    for (;;) {
        const auto nl = s.find('\n', at);
        const auto line = std::string_view(s).substr(at, nl == std::string::npos ? std::string::npos : nl - at);
        out += lines.count(trimmed(line)) ? std::string(kCodeLineMark) : std::string(line);
        if (nl == std::string::npos)
            break;
        out += '\n';
        at = nl + 1;
    }
    return out;
}

nlohmann::json scrub(const nlohmann::json& v, const CodeLines& lines)
{
    if (v.is_object()) {
        nlohmann::json o = nlohmann::json::object();
        for (const auto& [k, x] : v.items())
            if (!kStrippedEvidenceKeys.count(k))
                o[k] = scrub(x, lines);
        return o;
    }
    if (v.is_array()) {
        nlohmann::json a = nlohmann::json::array();
        for (const auto& x : v)
            a.push_back(scrub(x, lines));
        return a;
    }
    if (v.is_string())
        return scrubText(v.get<std::string>(), lines);
    return v;
}

/// The evidence text scrubbed, or nullopt when nothing changed (or it is not JSON: kept as it is).
std::optional<std::string> scrubbedEvidence(const std::string& text, const CodeLines& lines)
{
    auto ev = nlohmann::json::parse(text, nullptr, false);
    if (ev.is_discarded())
        return std::nullopt;
    auto scrubbed = scrub(ev, lines);
    if (scrubbed == ev)
        return std::nullopt;
    return scrubbed.dump();
}

}  // namespace

Store::StripSummary Store::stripCode()
{
    requireWritable("strip the candidates' code");
    std::lock_guard lock(m_mutex);
    StripSummary sum;
    {
        Transaction tx(m_db);
        std::map<std::int64_t, CodeLines> lines;  // candidate id -> its code's lines
        {
            Stmt st(m_db, "SELECT id, code FROM candidates");
            while (st.step())
                lines[st.i64(0)] = codeLines(st.text(1));
        }
        std::map<std::int64_t, std::int64_t> candidateOf;  // evaluation id -> candidate id
        {
            Stmt st(m_db, "SELECT e.id, s.candidate_id FROM evaluations e JOIN submissions s ON s.id = e.submission_id");
            while (st.step())
                candidateOf[st.i64(0)] = st.i64(1);
        }
        static const CodeLines none;
        auto linesOf = [&](std::int64_t evaluationId) -> const CodeLines& {
            const auto c = candidateOf.find(evaluationId);
            if (c == candidateOf.end())
                return none;
            const auto l = lines.find(c->second);
            return l == lines.end() ? none : l->second;
        };
        // Read first, then write: no row is updated while a statement still scans its table.
        struct EvalChange {
            std::int64_t id;
            std::string evidence;
            std::optional<std::string> detail;
        };
        std::vector<EvalChange> evalChanges;
        {
            Stmt read(m_db, "SELECT id, failure_detail, evidence FROM evaluations");
            while (read.step()) {
                const auto id = read.i64(0);
                const auto& l = linesOf(id);
                const auto ev = read.text(2);
                const auto newEv = scrubbedEvidence(ev, l);
                std::optional<std::string> detail;
                if (!read.isNull(1))
                    detail = read.text(1);
                auto newDetail = detail ? std::optional<std::string>(scrubText(*detail, l)) : std::nullopt;
                if (newEv || newDetail != detail)
                    evalChanges.push_back({id, newEv.value_or(ev), std::move(newDetail)});
            }
        }
        {
            Stmt write(m_db, "UPDATE evaluations SET evidence = ?, failure_detail = ? WHERE id = ?");
            for (const auto& c : evalChanges) {
                write.reset().bind(1, c.evidence);
                if (c.detail)
                    write.bind(2, *c.detail);
                write.bind(3, c.id).step();
            }
            sum.evaluations = static_cast<int>(evalChanges.size());
        }
        std::vector<std::pair<std::int64_t, std::string>> caseChanges;
        {
            Stmt read(m_db, "SELECT id, evaluation_id, evidence FROM case_results WHERE evidence IS NOT NULL AND evidence <> ''");
            while (read.step())
                if (auto e = scrubbedEvidence(read.text(2), linesOf(read.i64(1))))
                    caseChanges.emplace_back(read.i64(0), std::move(*e));
        }
        {
            Stmt write(m_db, "UPDATE case_results SET evidence = ? WHERE id = ?");
            for (const auto& [id, e] : caseChanges)
                write.reset().bind(1, e).bind(2, id).step();
            sum.caseResults = static_cast<int>(caseChanges.size());
        }
        {
            const std::string prefix = "# third-party generated code left out of this database; sha256 ";
            Stmt st(m_db, "UPDATE candidates SET code = ? || code_hash WHERE code <> ? || code_hash");
            st.bind(1, prefix).bind(2, prefix).step();
            sum.candidates = sqlite3_changes(m_db);
        }
        tx.commit();
    }
    exec("VACUUM");
    return sum;
}

}  // namespace kbx
