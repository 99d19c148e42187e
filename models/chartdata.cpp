// SPDX-License-Identifier: MIT
#include "chartdata.h"

#include "store.h"

#include <QFileInfo>

#include <iterator>
#include <set>
#include <stdexcept>

namespace kbx::gui {

namespace an = kbx::analysis;

std::size_t boundRounds(an::Facts& facts, an::Filters& filters)
{
    if (!filters.rounds.empty())
        return 0;
    std::set<int> rounds;
    for (const auto& r : facts.rows)
        rounds.insert(r.round);
    if (rounds.size() <= kMaxDrawnRounds)
        return 0;
    filters.rounds.assign(std::prev(rounds.end(), std::ptrdiff_t(kMaxDrawnRounds)), rounds.end());
    facts = an::filtered(std::move(facts), filters);
    return rounds.size();
}

ChartData loadChartData(const QString& db, const an::Filters& given, bool withChoices, unsigned statistics, bool drawn)
{
    an::Filters filters = given;
    ChartData r;
    try {
        if (!QFileInfo::exists(db))
            throw std::runtime_error("no such database: " + db.toStdString());
        kbx::Store store(db.toStdString());
        // The counted evaluations once (the choices: every value of the database, so without the
        // filters), the datasets from them; no row copies per facet (core/analysis Facts).
        auto facts = std::make_shared<an::Facts>(an::loadFacts(store, withChoices ? an::Filters{} : filters));
        if (withChoices) {
            r.choices = an::choices(store, *facts);
            if (!filters.empty())
                *facts = an::filtered(*facts, filters);
        }
        if (drawn)
            r.roundsBefore = boundRounds(*facts, filters);
        r.data = an::compute(store, *facts, filters, false);
        if (statistics)
            r.data.stats = std::make_shared<const kbx::stats::Bundle>(kbx::stats::computeBundle(store, filters, *facts, statistics));
        else
            r.facts = std::move(facts);
        r.ok = true;
    } catch (const std::exception& e) {
        r.error = QString::fromUtf8(e.what());
    }
    return r;
}

std::shared_ptr<const kbx::stats::Bundle> loadChartStatistics(const QString& db, const an::Filters& filters,
                                                              std::shared_ptr<const an::Facts> facts)
{
    try {
        kbx::Store store(db.toStdString());
        return std::make_shared<const kbx::stats::Bundle>(kbx::stats::computeBundle(store, filters, *facts));
    } catch (const std::exception&) {
        return nullptr;
    }
}

}  // namespace kbx::gui
