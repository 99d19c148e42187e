// SPDX-License-Identifier: MIT
#include "catalogue.h"

#include <fmt/format.h>

#include <algorithm>
#include <fstream>
#include <set>

namespace kbx {

nlohmann::json TaskInfo::contract() const
{
    nlohmann::json tol = nlohmann::json::object();
    for (const auto& [dtype, t] : tolerance)
        tol[dtype] = {t.atol, t.rtol};
    return {{"task", id}, {"comparison", comparison}, {"tolerance", tol}, {"quantization", quantization},
            {"uniform", uniform}, {"oracle", oracle}, {"tf32", tf32},
            {"signed_zeros", signedZeros}};
}

TaskCatalogue TaskCatalogue::load(const std::filesystem::path& tasksDir)
{
    TaskCatalogue cat;
    cat.m_dir = tasksDir;
    const auto indexPath = tasksDir / "index.json";
    std::ifstream in(indexPath);
    if (!in)
        throw CatalogueError(fmt::format("task index not found: {}", indexPath.string()));
    nlohmann::json j;
    try {
        j = nlohmann::json::parse(in);
    } catch (const nlohmann::json::exception& e) {
        throw CatalogueError(fmt::format("{}: malformed JSON: {}", indexPath.string(), e.what()));
    }
    if (!j.contains("tasks") || !j["tasks"].is_array())
        throw CatalogueError(fmt::format("{}: no \"tasks\" array", indexPath.string()));
    std::set<std::string> seen;
    for (const auto& t : j["tasks"]) {
        try {
            TaskInfo info;
            info.id = t.at("id").get<std::string>();
            info.category = t.at("category").get<std::string>();
            info.stem = t.at("stem").get<std::string>();
            info.entry = t.at("entry").get<std::string>();
            info.signature = t.at("signature").get<std::string>();
            info.description = t.value("description", "");
            info.difficulty = t.value("difficulty", 0);
            info.comparison = t.value("comparison", "allclose");
            if (t.contains("tolerance") && t["tolerance"].is_object())
                for (const auto& [dtype, v] : t["tolerance"].items())
                    info.tolerance[dtype] = Tolerance{v.at(0).get<double>(), v.at(1).get<double>()};
            info.toleranceNote = t.value("tolerance_note", "");
            info.tf32 = t.value("tf32", false);
            if (t.contains("oracle") && t["oracle"].is_string())
                info.oracle = t["oracle"].get<std::string>();
            info.quantization = t.value("quantization", nlohmann::json());
            info.uniform = t.value("uniform", nlohmann::json());
            info.signedZeros = t.value("signed_zeros", false);
            info.driveChecks = t.value("drive_checks", false);
            info.perfShapes = t.value("perf_shapes", nlohmann::json::array());
            info.file = t.at("file").get<std::string>();
            info.sourceSha256 = t.value("source_sha256", "");
            info.caseCount = t.value("case_count", 0);
            if (info.id != info.category + "/" + info.stem)
                throw CatalogueError(fmt::format("id {} is not category/stem", info.id));
            if (!seen.insert(info.id).second)
                throw CatalogueError(fmt::format("duplicate task id {}", info.id));
            cat.m_tasks.push_back(std::move(info));
        } catch (const nlohmann::json::exception& e) {
            throw CatalogueError(fmt::format("{}: bad task entry: {}", indexPath.string(), e.what()));
        }
    }
    std::sort(cat.m_tasks.begin(), cat.m_tasks.end(), [](const auto& a, const auto& b) { return a.id < b.id; });
    return cat;
}

const TaskInfo* TaskCatalogue::find(std::string_view id) const
{
    auto it = std::lower_bound(m_tasks.begin(), m_tasks.end(), id, [](const TaskInfo& t, std::string_view v) { return t.id < v; });
    return (it != m_tasks.end() && it->id == id) ? &*it : nullptr;
}

const TaskInfo* TaskCatalogue::resolve(std::string_view name) const
{
    std::string n(name);
    if (n.size() > 3 && n.ends_with(".py"))
        n.resize(n.size() - 3);
    if (auto* t = find(n))
        return t;
    if (n.find('/') == std::string::npos) {
        const TaskInfo* hit = nullptr;
        for (const auto& t : m_tasks)
            if (t.stem == n) {
                if (hit)
                    return nullptr;  // ambiguous
                hit = &t;
            }
        return hit;
    }
    return nullptr;
}

std::vector<std::string> TaskCatalogue::categories() const
{
    std::set<std::string> s;
    for (const auto& t : m_tasks)
        s.insert(t.category);
    return {s.begin(), s.end()};
}

}  // namespace kbx
