// SPDX-License-Identifier: MIT
#include "evalutil.h"

#include <fmt/format.h>

#include <fstream>
#include <stdexcept>

namespace kbx::evalutil {
namespace fs = std::filesystem;

std::string tail(const std::string& s, std::size_t n) { return s.size() <= n ? s : s.substr(s.size() - n); }

void writeText(const fs::path& p, const std::string& text)
{
    std::ofstream out(p, std::ios::binary);
    out << text;
    if (!out)
        throw std::runtime_error(fmt::format("cannot write {}", p.string()));
}

const nlohmann::json* findFrame(const ProcessResult& r, const std::string& type)
{
    for (const auto& f : r.frames)
        if (f.value("type", "") == type)
            return &f;
    return nullptr;
}

std::string printable(std::string s)
{
    for (auto& ch : s)
        if ((static_cast<unsigned char>(ch) < 0x20 && ch != '\n' && ch != '\t') || ch == 0x7f)
            ch = '?';
    return s;
}

nlohmann::json printableStrings(const nlohmann::json& j)
{
    if (j.is_string())
        return printable(j.get<std::string>());
    if (j.is_object()) {
        nlohmann::json out = nlohmann::json::object();
        for (const auto& [k, v] : j.items())
            out[printable(k)] = printableStrings(v);
        return out;
    }
    if (j.is_array()) {
        nlohmann::json out = nlohmann::json::array();
        for (const auto& v : j)
            out.push_back(printableStrings(v));
        return out;
    }
    return j;
}

std::string entryPoint(const EvaluationRecord& rec, const TaskInfo& task)
{
    if (auto it = rec.evidence.find("static"); it != rec.evidence.end() && it->is_object())
        return it->value("entry", task.entry);
    return task.entry;
}

fs::path candidateDir(const fs::path& scratch, int index, const std::string& codeHash)
{
    return scratch / "candidates" / fmt::format("{:05d}-{}", index, codeHash.substr(0, 12));
}

std::vector<double> positiveNumbers(const nlohmann::json& a)
{
    std::vector<double> v;
    if (a.is_array())
        for (const auto& x : a)
            if (x.is_number() && x.get<double>() > 0)
                v.push_back(x.get<double>());
    return v;
}

}  // namespace kbx::evalutil
