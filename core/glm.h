// SPDX-License-Identifier: MIT
#pragma once
// Binomial GLM (logistic regression, fitted by iteratively reweighted least squares) and the
// deviance analysis of a 0/1 outcome on categorical factors: the explained-deviance share of each
// factor alone and the drop of each from the joint (additive) model, with likelihood-ratio chi2,
// degrees of freedom and p-values. Linear algebra: Eigen (kept out of this header).
//
// Deviances are those of the 0/1 (Bernoulli) outcomes, -2 log L, as R's glm(y ~ ..., binomial)
// reports for 0/1 data; outcomes are grouped by covariate pattern only to fit faster (the estimates
// are the same). With perfect separation (a level where every outcome is 0 or every one is 1, e.g.
// a category no method solves) the estimates diverge but the deviance converges; the fit then says
// `separation` (R: "fitted probabilities numerically 0 or 1 occurred").

#include <string>
#include <vector>

namespace kbx::glm {

/// Upper tail P(X >= x) of a chi-square distribution with df degrees of freedom (df > 0).
double chiSquareSurvival(double x, double df);

/// Regularised upper incomplete gamma function Q(a, x) (a > 0, x >= 0).
double gammaQ(double a, double x);

struct Fit {
    std::vector<double> beta;  ///< coefficients (minimum-norm where the design is rank deficient)
    double deviance = 0;       ///< -2 log L of the 0/1 outcomes
    int rank = 0;              ///< estimable parameters (numerical rank of the design)
    int iterations = 0;
    bool converged = false;
    bool separation = false;   ///< some fitted probabilities are numerically 0 or 1
};

/// Logistic regression of `successes[i]` out of `trials[i]` on design row i (`design` is row-major,
/// rows x cols; include the intercept column yourself). Throws std::invalid_argument on bad shapes,
/// negative counts or successes > trials.
Fit logistic(const std::vector<double>& design, int rows, int cols, const std::vector<double>& successes,
             const std::vector<double>& trials, int maxIterations = 100, double tolerance = 1e-10);

/// One 0/1 outcome with the level of every factor, in the order of the factor names.
struct Outcome {
    std::vector<std::string> levels;
    bool success = false;
};

/// A likelihood-ratio test of one factor: against the null model (alone) or against the joint model
/// without it (drop).
struct FactorTest {
    std::string factor;
    int levels = 0;
    double deviance = 0;   ///< deviance of the model with the factor alone / of the joint model without it
    double chi2 = 0;       ///< deviance explained by the factor (alone) or lost when dropping it (drop)
    int df = 0;            ///< parameters the factor adds (0: nothing to test, p is 1)
    double p = 1;
    double share = 0;      ///< chi2 / null deviance
    bool separation = false;
};

struct DevianceAnalysis {
    std::vector<std::string> factors;
    int n = 0;
    int successes = 0;
    double nullDeviance = 0;
    double jointDeviance = 0;
    int jointDf = 0;          ///< parameters of the joint model beyond the intercept
    double jointChi2 = 0;     ///< null - joint
    double jointP = 1;
    double jointShare = 0;
    bool separation = false;  ///< in any of the fitted models
    bool converged = true;    ///< every fit converged
    std::vector<FactorTest> alone;  ///< per factor, in the order of `factors`
    std::vector<FactorTest> drop;   ///< per factor: the joint model against the joint model without it
};

/// Fits the null, each-factor-alone, joint and joint-without-each models (treatment coding, the
/// first level in sort order as reference). Models of at most one factor are saturated in it: their
/// deviance comes in closed form from each level's rate; the others are fitted by logistic(). Throws
/// std::invalid_argument when an outcome has the wrong number of levels; with no outcome everything
/// is 0.
DevianceAnalysis devianceAnalysis(const std::vector<std::string>& factors, const std::vector<Outcome>& outcomes);

/// Outcomes already grouped by covariate pattern: `successes` of `trials` 0/1 outcomes with these
/// levels (a pattern may occur more than once; patterns without trials are left out).
struct Pattern {
    std::vector<std::string> levels;
    int successes = 0;
    int trials = 0;
};
/// The same analysis from grouped outcomes (what the fits use anyway; issue 24: a million outcomes
/// need not be listed one by one): equal to the analysis of the outcomes the patterns count.
DevianceAnalysis devianceAnalysisOfPatterns(const std::vector<std::string>& factors, const std::vector<Pattern>& patterns);

}  // namespace kbx::glm
