// SPDX-License-Identifier: MIT
#include "glm.h"

#include <Eigen/Dense>
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <stdexcept>

namespace kbx::glm {
namespace {

/// Linear predictors beyond +-30 (p ~ 1e-13) add nothing to the deviance but overflow the weights.
constexpr double kEtaLimit = 30.0;
/// A fitted probability closer than this to 0 or 1 means the estimates diverged (separation).
constexpr double kSeparationEps = 1e-8;

double clampEta(double eta) { return std::clamp(eta, -kEtaLimit, kEtaLimit); }

/// log p and log(1 - p) of the logistic function, without cancellation.
double logSigmoid(double eta) { return eta >= 0 ? -std::log1p(std::exp(-eta)) : eta - std::log1p(std::exp(eta)); }

double bernoulliDeviance(const Eigen::VectorXd& eta, const Eigen::VectorXd& k, const Eigen::VectorXd& n)
{
    double d = 0;
    for (Eigen::Index i = 0; i < eta.size(); ++i) {
        const double e = clampEta(eta[i]);
        if (k[i] > 0)
            d -= 2.0 * k[i] * logSigmoid(e);
        if (n[i] - k[i] > 0)
            d -= 2.0 * (n[i] - k[i]) * logSigmoid(-e);
    }
    return d;
}

/// Series (x < a + 1) or continued fraction (otherwise) for the regularised incomplete gamma.
double gammaPSeries(double a, double x)
{
    double sum = 1.0 / a, term = sum, ap = a;
    for (int i = 0; i < 10000; ++i) {
        ap += 1;
        term *= x / ap;
        sum += term;
        if (std::abs(term) < std::abs(sum) * 1e-16)
            break;
    }
    return sum * std::exp(-x + a * std::log(x) - std::lgamma(a));
}

double gammaQContinuedFraction(double a, double x)
{
    constexpr double tiny = 1e-300;
    double b = x + 1 - a, c = 1 / tiny, d = 1 / b, h = d;
    for (int i = 1; i < 10000; ++i) {
        const double an = -i * (i - a);
        b += 2;
        d = an * d + b;
        if (std::abs(d) < tiny)
            d = tiny;
        c = b + an / c;
        if (std::abs(c) < tiny)
            c = tiny;
        d = 1 / d;
        const double del = d * c;
        h *= del;
        if (std::abs(del - 1) < 1e-16)
            break;
    }
    return std::exp(-x + a * std::log(x) - std::lgamma(a)) * h;
}

}  // namespace

double gammaQ(double a, double x)
{
    if (!(a > 0) || x < 0 || std::isnan(x))
        throw std::invalid_argument(fmt::format("gammaQ({}, {}): needs a > 0 and x >= 0", a, x));
    if (x == 0)
        return 1.0;
    if (std::isinf(x))
        return 0.0;
    if (x < a + 1)
        return std::clamp(1.0 - gammaPSeries(a, x), 0.0, 1.0);
    return std::clamp(gammaQContinuedFraction(a, x), 0.0, 1.0);
}

double chiSquareSurvival(double x, double df)
{
    if (!(df > 0))
        throw std::invalid_argument(fmt::format("chi-square with {} degrees of freedom", df));
    if (x <= 0)
        return 1.0;
    return gammaQ(df / 2.0, x / 2.0);
}

Fit logistic(const std::vector<double>& design, int rows, int cols, const std::vector<double>& successes,
             const std::vector<double>& trials, int maxIterations, double tolerance)
{
    if (rows < 0 || cols <= 0 || design.size() != static_cast<std::size_t>(rows) * static_cast<std::size_t>(cols))
        throw std::invalid_argument(fmt::format("logistic: design of {} values is not {} x {}", design.size(), rows, cols));
    if (successes.size() != static_cast<std::size_t>(rows) || trials.size() != static_cast<std::size_t>(rows))
        throw std::invalid_argument("logistic: successes and trials need one value per design row");
    for (int i = 0; i < rows; ++i)
        if (!(trials[i] >= 0) || !(successes[i] >= 0) || successes[i] > trials[i])
            throw std::invalid_argument(fmt::format("logistic: row {}: {} successes of {} trials", i, successes[i], trials[i]));

    // Rows without trials carry no information: leave them out.
    std::vector<int> used;
    for (int i = 0; i < rows; ++i)
        if (trials[i] > 0)
            used.push_back(i);
    const auto m = static_cast<Eigen::Index>(used.size());
    Eigen::MatrixXd X(m, cols);
    Eigen::VectorXd k(m), n(m);
    for (Eigen::Index r = 0; r < m; ++r) {
        for (int c = 0; c < cols; ++c)
            X(r, c) = design[static_cast<std::size_t>(used[r]) * cols + c];
        k[r] = successes[used[r]];
        n[r] = trials[used[r]];
    }

    Fit fit;
    fit.beta.assign(cols, 0.0);
    if (m == 0) {
        fit.converged = true;
        return fit;
    }
    {
        Eigen::ColPivHouseholderQR<Eigen::MatrixXd> qr(X);
        qr.setThreshold(1e-10);
        fit.rank = static_cast<int>(qr.rank());
    }

    // Start as R's binomial family does: mu = (k + 0.5) / (n + 1).
    Eigen::VectorXd eta(m);
    for (Eigen::Index i = 0; i < m; ++i) {
        const double p = (k[i] + 0.5) / (n[i] + 1.0);
        eta[i] = std::log(p / (1 - p));
    }
    double devOld = std::numeric_limits<double>::infinity();
    Eigen::VectorXd beta = Eigen::VectorXd::Zero(cols);
    for (int it = 1; it <= maxIterations; ++it) {
        Eigen::VectorXd sw(m), b(m);
        for (Eigen::Index i = 0; i < m; ++i) {
            const double e = clampEta(eta[i]);
            const double p = 1.0 / (1.0 + std::exp(-e));
            const double w = n[i] * p * (1 - p);
            sw[i] = std::sqrt(w);
            // sqrt(w) * z with z = eta + (k - n p) / w, written so that a tiny w cannot divide 0 by 0.
            b[i] = sw[i] * e + (k[i] - n[i] * p) / sw[i];
        }
        Eigen::MatrixXd A = sw.asDiagonal() * X;
        Eigen::CompleteOrthogonalDecomposition<Eigen::MatrixXd> cod(A);
        cod.setThreshold(1e-12);
        beta = cod.solve(b);
        eta = X * beta;
        const double dev = bernoulliDeviance(eta, k, n);
        fit.iterations = it;
        if (!std::isfinite(dev))
            break;
        if (std::abs(dev - devOld) / (std::abs(dev) + 0.1) < tolerance) {
            fit.converged = true;
            devOld = dev;
            break;
        }
        devOld = dev;
    }
    fit.deviance = bernoulliDeviance(eta, k, n);
    for (int c = 0; c < cols; ++c)
        fit.beta[c] = beta[c];
    for (Eigen::Index i = 0; i < m; ++i) {
        const double p = 1.0 / (1.0 + std::exp(-clampEta(eta[i])));
        if (p < kSeparationEps || p > 1 - kSeparationEps)
            fit.separation = true;
    }
    return fit;
}

DevianceAnalysis devianceAnalysis(const std::vector<std::string>& factors, const std::vector<Outcome>& outcomes)
{
    const std::size_t F = factors.size();
    for (std::size_t i = 0; i < outcomes.size(); ++i)
        if (outcomes[i].levels.size() != F)
            throw std::invalid_argument(fmt::format("outcome {} has {} levels for {} factors", i, outcomes[i].levels.size(), F));
    std::vector<Pattern> patterns;
    patterns.reserve(outcomes.size());
    for (const auto& o : outcomes)
        patterns.push_back({o.levels, o.success ? 1 : 0, 1});
    return devianceAnalysisOfPatterns(factors, patterns);
}

namespace {

/// The maximum-likelihood fit of a model with one rate per level (the intercept, or the intercept
/// and one factor's dummies), from each level's (successes, trials): -2 log L of the 0/1 outcomes at
/// p = successes / trials, 0 log 0 taken as 0. Separation where a level's rate is numerically 0 or
/// 1 (where IRLS would drive its estimate off). `beta` is left empty: the deviance analysis uses
/// deviances and ranks only.
Fit closedFormFit(const std::map<int, std::pair<double, double>>& byLevel)
{
    Fit fit;
    fit.converged = true;
    for (const auto& [level, kn] : byLevel) {
        const double K = kn.first, N = kn.second, p = K / N;
        fit.deviance += (K > 0 ? -2 * K * std::log(p) : 0.0) + (N - K > 0 ? -2 * (N - K) * std::log1p(-p) : 0.0);
        fit.separation = fit.separation || p < kSeparationEps || p > 1 - kSeparationEps;
    }
    fit.rank = static_cast<int>(byLevel.size());
    return fit;
}

/// Patterns grouped by covariate pattern: every factor's levels (sorted; the first the reference)
/// and, per combination of level indices, (successes, trials). Patterns without trials are left out.
struct Grouped {
    std::vector<std::vector<std::string>> levels;
    std::map<std::vector<int>, std::pair<double, double>> groups;
    int n = 0;
    int successes = 0;
};

Grouped groupPatterns(std::size_t F, const std::vector<Pattern>& patterns)
{
    Grouped g;
    g.levels.resize(F);
    for (std::size_t i = 0; i < patterns.size(); ++i) {
        if (patterns[i].levels.size() != F)
            throw std::invalid_argument(fmt::format("pattern {} has {} levels for {} factors", i, patterns[i].levels.size(), F));
        if (patterns[i].trials < 0 || patterns[i].successes < 0 || patterns[i].successes > patterns[i].trials)
            throw std::invalid_argument(fmt::format("pattern {}: {} successes of {} trials", i, patterns[i].successes, patterns[i].trials));
        if (patterns[i].trials == 0)
            continue;
        for (std::size_t f = 0; f < F; ++f)
            g.levels[f].push_back(patterns[i].levels[f]);
        g.n += patterns[i].trials;
        g.successes += patterns[i].successes;
    }
    for (auto& l : g.levels) {
        std::sort(l.begin(), l.end());
        l.erase(std::unique(l.begin(), l.end()), l.end());
    }
    for (const auto& o : patterns) {
        if (o.trials == 0)
            continue;
        std::vector<int> key(F);
        for (std::size_t f = 0; f < F; ++f)
            key[f] = static_cast<int>(std::lower_bound(g.levels[f].begin(), g.levels[f].end(), o.levels[f]) - g.levels[f].begin());
        auto& kn = g.groups[key];
        kn.first += o.successes;
        kn.second += o.trials;
    }
    return g;
}

/// The model with the factors of `include` (treatment coding) fitted to the grouped patterns.
Fit fitModel(const Grouped& g, const std::vector<bool>& include)
{
    const std::size_t F = g.levels.size();
    if (std::count(include.begin(), include.end(), true) <= 1) {
        // The intercept alone, or with one factor's dummies: the model is saturated in that factor,
        // its estimate every level's own rate, its deviance that of the levels' counts (what IRLS
        // approaches; with separation, its limit). In closed form: thousands of these in a database
        // of many rounds, each an iterated fit otherwise.
        const auto f = static_cast<std::size_t>(std::find(include.begin(), include.end(), true) - include.begin());
        std::map<int, std::pair<double, double>> byLevel;  // level -> (successes, trials)
        for (const auto& [key, kn] : g.groups) {
            auto& c = byLevel[f < F ? key[f] : 0];
            c.first += kn.first;
            c.second += kn.second;
        }
        return closedFormFit(byLevel);
    }
    const int rows = static_cast<int>(g.groups.size());
    int cols = 1;
    for (std::size_t f = 0; f < F; ++f)
        if (include[f])
            cols += static_cast<int>(g.levels[f].size()) - 1;
    std::vector<double> X(static_cast<std::size_t>(rows) * cols, 0.0), k, n;
    int r = 0;
    for (const auto& [key, kn] : g.groups) {
        double* row = &X[static_cast<std::size_t>(r) * cols];
        row[0] = 1.0;
        int c = 1;
        for (std::size_t f = 0; f < F; ++f) {
            if (!include[f])
                continue;
            if (key[f] > 0)
                row[c + key[f] - 1] = 1.0;
            c += static_cast<int>(g.levels[f].size()) - 1;
        }
        k.push_back(kn.first);
        n.push_back(kn.second);
        ++r;
    }
    return logistic(X, rows, cols, k, n);
}

}  // namespace

DevianceAnalysis devianceAnalysisOfPatterns(const std::vector<std::string>& factors, const std::vector<Pattern>& patterns)
{
    const std::size_t F = factors.size();
    DevianceAnalysis out;
    out.factors = factors;
    const Grouped g = groupPatterns(F, patterns);
    const auto& levels = g.levels;
    out.n = g.n;
    out.successes = g.successes;
    // One fit per set of included factors: with two factors, dropping one from the joint model is the
    // other one alone, so 4 distinct fits serve the 6 models reported (the rounds-shaped 1M database
    // runs thousands of these analyses).
    std::map<std::vector<bool>, Fit> fitted;
    auto fitWith = [&](const std::vector<bool>& include) -> Fit {
        if (const auto it = fitted.find(include); it != fitted.end())
            return it->second;
        Fit fit = fitModel(g, include);
        out.separation = out.separation || fit.separation;
        out.converged = out.converged && fit.converged;
        fitted.emplace(include, fit);
        return fit;
    };
    auto test = [](const std::string& name, int nLevels, const Fit& small, const Fit& big, double nullDev, double devReported, bool sep) {
        FactorTest t;
        t.factor = name;
        t.levels = nLevels;
        t.deviance = devReported;
        t.chi2 = std::max(0.0, small.deviance - big.deviance);
        t.df = std::max(0, big.rank - small.rank);
        t.p = t.df > 0 ? chiSquareSurvival(t.chi2, t.df) : 1.0;
        t.share = nullDev > 0 ? t.chi2 / nullDev : 0.0;
        t.separation = sep;
        return t;
    };
    if (out.n == 0) {
        for (std::size_t f = 0; f < F; ++f) {
            out.alone.push_back({factors[f], 0});
            out.drop.push_back({factors[f], 0});
        }
        return out;
    }
    // The intercept-only fit is the overall rate (closed form: exactly 0 when every outcome is the
    // same, where an iterated fit would leave ~1e-13 from the clamped linear predictor).
    Fit null = fitWith(std::vector<bool>(F, false));
    null.separation = false;
    const Fit joint = fitWith(std::vector<bool>(F, true));
    out.nullDeviance = null.deviance;
    out.jointDeviance = joint.deviance;
    out.jointDf = std::max(0, joint.rank - null.rank);
    out.jointChi2 = std::max(0.0, null.deviance - joint.deviance);
    out.jointP = out.jointDf > 0 ? chiSquareSurvival(out.jointChi2, out.jointDf) : 1.0;
    out.jointShare = null.deviance > 0 ? out.jointChi2 / null.deviance : 0.0;
    for (std::size_t f = 0; f < F; ++f) {
        std::vector<bool> only(F, false), without(F, true);
        only[f] = true;
        without[f] = false;
        const Fit alone = F == 1 ? joint : fitWith(only);
        const Fit rest = F == 1 ? null : fitWith(without);
        const int L = static_cast<int>(levels[f].size());
        out.alone.push_back(test(factors[f], L, null, alone, null.deviance, alone.deviance, alone.separation));
        out.drop.push_back(test(factors[f], L, rest, joint, null.deviance, rest.deviance, joint.separation || rest.separation));
    }
    return out;
}

}  // namespace kbx::glm
