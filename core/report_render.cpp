// SPDX-License-Identifier: MIT
#include "report_render.h"

#include <fmt/format.h>

#include <string>
#include <vector>

namespace kbx::stats {
namespace {

using J = nlohmann::json;

std::string pValue(double p) { return p < 1e-4 ? fmt::format("{:.2e}", p) : fmt::format("{:.4f}", p); }

std::string display(const J& v, Kind kind)
{
    if (v.is_null())
        return "n/a";
    if (v.is_string())
        return v.get<std::string>();
    if (v.is_boolean())
        return v.get<bool>() ? "yes" : "no";
    switch (kind) {
    case Kind::Int: return v.is_number_integer() ? std::to_string(v.get<std::int64_t>()) : fmt::format("{:g}", v.get<double>());
    case Kind::Percent: return fmt::format("{:.1f}%", 100.0 * v.get<double>());
    case Kind::Ratio: return fmt::format("{:.3f}", v.get<double>());
    case Kind::Real: return fmt::format("{:.2f}", v.get<double>());
    case Kind::PValue: return pValue(v.get<double>());
    case Kind::Interval: return fmt::format("[{:.3f}, {:.3f}]", v[0].get<double>(), v[1].get<double>());
    case Kind::PercentInterval: return fmt::format("[{:.1f}, {:.1f}]", 100.0 * v[0].get<double>(), 100.0 * v[1].get<double>());
    case Kind::Text: break;
    }
    return v.is_number_integer() ? std::to_string(v.get<std::int64_t>()) : fmt::format("{:g}", v.get<double>());
}

bool isInterval(Kind k) { return k == Kind::Interval || k == Kind::PercentInterval; }

std::string csvField(const std::string& s)
{
    if (s.find_first_of(",\"\n") == std::string::npos)
        return s;
    std::string out = "\"";
    for (char c : s)
        out += c == '"' ? std::string("\"\"") : std::string(1, c);
    return out + "\"";
}

std::string csvValue(const J& v)
{
    if (v.is_null())
        return "";
    if (v.is_string())
        return csvField(v.get<std::string>());
    if (v.is_boolean())
        return v.get<bool>() ? "1" : "0";
    if (v.is_number_integer())
        return std::to_string(v.get<std::int64_t>());
    return fmt::format("{:.10g}", v.get<double>());
}

std::string latexEscape(const std::string& s)
{
    std::string out;
    for (char c : s) {
        switch (c) {
        case '\\': out += "\\textbackslash{}"; break;
        case '&': case '%': case '$': case '#': case '_': case '{': case '}': out += '\\'; out += c; break;
        case '~': out += "\\textasciitilde{}"; break;
        case '^': out += "\\textasciicircum{}"; break;
        default: out += c;
        }
    }
    return out;
}

std::vector<std::string> provenanceLines(const Report& r)
{
    const auto& p = r.provenance;
    std::vector<std::string> lines;
    lines.push_back(fmt::format("kbx report --table {}; database {} (schema v{})", p.value("report", r.name), p.value("database", ""),
                                p.value("schema_version", 0)));
    lines.push_back(fmt::format("filters: {}; counting: {}", p.value("filters", ""), p.value("counting", "")));
    std::string runs;
    for (const auto& run : p.value("runs", J::array())) {
        std::string what = run.value("gpu", "");
        if (run.contains("torch"))
            what += fmt::format(", torch {}", run["torch"].get<std::string>());
        if (run.contains("triton"))
            what += fmt::format(", triton {}", run["triton"].get<std::string>());
        if (run.contains("harness_protocol"))
            what += fmt::format(", harness protocol {}", run["harness_protocol"].dump());
        if (run.contains("format"))
            what += fmt::format(", imported {}", run["format"].get<std::string>());
        if (run.contains("file") && run["file"].is_string())
            what += fmt::format(" {}", run["file"].get<std::string>());
        runs += fmt::format("{}#{} ({})", runs.empty() ? "" : "; ", run.value("id", 0), what);
    }
    lines.push_back("runs: " + (runs.empty() ? std::string("none") : runs));
    auto list = [](const J& a) {
        std::string s;
        for (const auto& x : a)
            s += (s.empty() ? "" : ", ") + (x.is_string() ? x.get<std::string>() : x.dump());
        return s.empty() ? std::string("none") : s;
    };
    lines.push_back(fmt::format("gpus: {}; methods: {}", list(p.value("gpus", J::array())), list(p.value("methods", J::array()))));
    const auto proto = p.value("protocol", J::object());
    lines.push_back(fmt::format("protocol: kbx {}; harness {}; taxonomy v{}; perf {}{}", list(proto.value("kbx", J::array())),
                                list(proto.value("harness", J::array())), list(proto.value("taxonomy", J::array())),
                                list(proto.value("perf", J::array())),
                                p.contains("quality_tool") ? "; quality " + list(p["quality_tool"]) : ""));
    lines.push_back("generated " + p.value("generated_at", ""));
    return lines;
}

std::string renderText(const Report& r)
{
    std::string out;
    for (const auto& l : provenanceLines(r))
        out += "# " + l + "\n";
    for (const auto& t : r.tables) {
        out += fmt::format("\n== {}\n", t.title);
        std::vector<std::vector<std::string>> cells;
        std::vector<std::size_t> width(t.columns.size());
        for (std::size_t c = 0; c < t.columns.size(); ++c)
            width[c] = t.columns[c].header.size();
        for (const auto& row : t.rows) {
            std::vector<std::string> line;
            for (std::size_t c = 0; c < t.columns.size(); ++c) {
                line.push_back(display(row[c], t.columns[c].kind));
                width[c] = std::max(width[c], line.back().size());
            }
            cells.push_back(std::move(line));
        }
        // Appended in place (a table of a million-row database has hundreds of thousands of lines).
        auto emit = [&](const std::vector<std::string>& line) {
            const std::size_t start = out.size();
            for (std::size_t c = 0; c < line.size(); ++c) {
                const bool left = t.columns[c].kind == Kind::Text;
                const std::size_t pad = width[c] - std::min(width[c], line[c].size());
                if (c)
                    out.append(2, ' ');
                if (!left)
                    out.append(pad, ' ');
                out += line[c];
                if (left)
                    out.append(pad, ' ');
            }
            while (out.size() > start && out.back() == ' ')
                out.pop_back();
            out += '\n';
        };
        std::vector<std::string> header;
        for (const auto& c : t.columns)
            header.push_back(c.header);
        emit(header);
        if (t.rows.empty())
            out += "(no rows)\n";
        for (const auto& line : cells)
            emit(line);
        for (const auto& n : t.notes)
            out += "  " + n + "\n";
    }
    for (const auto& n : r.notes)
        out += "\nnote: " + n + "\n";
    return out;
}

std::string renderCsv(const Report& r)
{
    std::string out;
    for (const auto& l : provenanceLines(r))
        out += "# " + l + "\n";
    for (const auto& n : r.notes)
        out += "# note: " + n + "\n";
    bool first = true;
    for (const auto& t : r.tables) {
        out += fmt::format("{}# table {}: {}\n", first ? "" : "\n", t.name, t.title);
        first = false;
        std::string header;
        for (const auto& c : t.columns) {
            if (isInterval(c.kind))
                header += fmt::format("{}{}_lo,{}_hi", header.empty() ? "" : ",", c.key, c.key);
            else
                header += (header.empty() ? "" : ",") + csvField(c.key);
        }
        out += header + "\n";
        for (const auto& row : t.rows) {
            std::string line;
            for (std::size_t c = 0; c < t.columns.size(); ++c) {
                if (c)
                    line += ",";
                if (isInterval(t.columns[c].kind))
                    line += row[c].is_array() ? csvValue(row[c][0]) + "," + csvValue(row[c][1]) : ",";
                else
                    line += csvValue(row[c]);
            }
            out += line + "\n";
        }
    }
    return out;
}

std::string renderJson(const Report& r)
{
    J tables = J::array();
    for (const auto& t : r.tables) {
        J cols = J::array(), rows = J::array();
        for (const auto& c : t.columns)
            cols.push_back({{"key", c.key}, {"header", c.header}});
        for (const auto& row : t.rows) {
            J o = J::object();
            for (std::size_t c = 0; c < t.columns.size(); ++c)
                o[t.columns[c].key] = isInterval(t.columns[c].kind) && row[c].is_array() ? J{{"lo", row[c][0]}, {"hi", row[c][1]}} : row[c];
            rows.push_back(std::move(o));
        }
        tables.push_back({{"name", t.name}, {"title", t.title}, {"columns", cols}, {"rows", rows}, {"notes", t.notes}});
    }
    return J{{"report", r.name}, {"provenance", r.provenance}, {"notes", r.notes}, {"tables", tables}}.dump(1) + "\n";
}

std::string renderLatex(const Report& r)
{
    std::string out;
    for (const auto& l : provenanceLines(r))
        out += "% " + l + "\n";
    for (const auto& n : r.notes)
        out += "% note: " + n + "\n";
    for (const auto& t : r.tables) {
        out += fmt::format("\n% {}: {}\n", t.name, t.title);
        for (const auto& n : t.notes)
            out += "% " + n + "\n";
        std::string align, header;
        for (std::size_t c = 0; c < t.columns.size(); ++c) {
            align += t.columns[c].kind == Kind::Text ? 'l' : 'r';
            header += (c ? " & " : "") + latexEscape(t.columns[c].header);
        }
        out += fmt::format("\\begin{{tabular}}{{{}}}\n\\toprule\n{} \\\\\n\\midrule\n", align, header);
        for (const auto& row : t.rows) {
            std::string line;
            for (std::size_t c = 0; c < t.columns.size(); ++c) {
                const auto text = display(row[c], t.columns[c].kind);
                line += (c ? " & " : "") + (text == "n/a" ? std::string("--") : latexEscape(text));
            }
            out += line + " \\\\\n";
        }
        out += "\\bottomrule\n\\end{tabular}\n";
    }
    return out;
}

}  // namespace

std::string render(const Report& report, Format format)
{
    switch (format) {
    case Format::Csv: return renderCsv(report);
    case Format::Json: return renderJson(report);
    case Format::Latex: return renderLatex(report);
    case Format::Text: break;
    }
    return renderText(report);
}

}  // namespace kbx::stats
