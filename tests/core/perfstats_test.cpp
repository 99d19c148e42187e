// SPDX-License-Identifier: MIT
#include "evaluator.h"
#include "perfstats.h"

#include <gtest/gtest.h>

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <deque>
#include <filesystem>
#include <fstream>
#include <random>

using namespace kbx::perf;

namespace {
std::vector<double> lognormal(double medianMs, double sigma, int n, unsigned seed)
{
    std::mt19937 g(seed);
    std::normal_distribution<double> d(0.0, sigma);
    std::vector<double> v;
    for (int i = 0; i < n; ++i)
        v.push_back(medianMs * std::exp(d(g)));
    return v;
}
}  // namespace

TEST(PerfStats, QuantilesAndSummaryMatchNumpyType7)
{
    std::vector<double> x = {4, 1, 3, 2, 10};
    EXPECT_DOUBLE_EQ(quantile(x, 0.5), 3.0);
    EXPECT_DOUBLE_EQ(quantile(x, 0.25), 2.0);
    EXPECT_DOUBLE_EQ(quantile(x, 0.75), 4.0);
    EXPECT_DOUBLE_EQ(quantile({1, 2, 3, 4}, 0.5), 2.5);
    auto s = summarize(x);
    EXPECT_EQ(s.n, 5u);
    EXPECT_DOUBLE_EQ(s.iqr, 2.0);
    EXPECT_DOUBLE_EQ(s.mean, 4.0);
    EXPECT_NEAR(s.cv, 2.0 / 1.349 / 3.0, 1e-12);
    EXPECT_THROW(quantile({}, 0.5), std::invalid_argument);
}

TEST(PerfStats, SpeedupCICoversTheTrueRatioAndIsDeterministic)
{
    auto c = lognormal(1.0, 0.02, 200, 1);
    auto r = lognormal(2.0, 0.02, 200, 2);
    auto iv = speedupCI(c, r, 42);
    EXPECT_NEAR(iv.estimate, 2.0, 0.02);
    EXPECT_LT(iv.lo, iv.estimate);
    EXPECT_GT(iv.hi, iv.estimate);
    EXPECT_LT(iv.lo, 2.0);
    EXPECT_GT(iv.hi, 2.0);
    EXPECT_LT(iv.hi - iv.lo, 0.05);
    auto again = speedupCI(c, r, 42);
    EXPECT_DOUBLE_EQ(iv.lo, again.lo);
    EXPECT_DOUBLE_EQ(iv.hi, again.hi);
    // Noisier samples give a wider interval.
    auto wide = speedupCI(lognormal(1.0, 0.2, 200, 3), lognormal(2.0, 0.2, 200, 4), 42);
    EXPECT_GT(wide.hi - wide.lo, 3 * (iv.hi - iv.lo));
}

TEST(PerfStats, GeomeanOverShapesAndSumRatioDiffer)
{
    // Shape 1: 4x faster on a tiny kernel; shape 2: 1x on a big one.
    std::vector<std::vector<double>> c = {lognormal(0.01, 0.01, 100, 5), lognormal(10.0, 0.01, 100, 6)};
    std::vector<std::vector<double>> r = {lognormal(0.04, 0.01, 100, 7), lognormal(10.0, 0.01, 100, 8)};
    auto g = geomeanSpeedupCI(c, r, 9);
    EXPECT_NEAR(g.estimate, 2.0, 0.03);
    EXPECT_LT(g.lo, 2.0 + 1e-9 + 0.03);
    EXPECT_GT(g.hi, 2.0 - 0.03);
    // The seed's sum-of-times ratio is dominated by the big shape.
    EXPECT_NEAR(sumTimeRatio({0.01, 10.0}, {0.04, 10.0}), 10.04 / 10.01, 1e-12);
    EXPECT_THROW(geomeanSpeedupCI({}, {}, 1), std::invalid_argument);
}

TEST(PerfStats, AdaptiveStoppingNeedsEnoughTightSamples)
{
    EXPECT_FALSE(medianConverged({1.0, 1.0, 1.0}, 0.005));  // too few
    EXPECT_TRUE(medianConverged(lognormal(1.0, 0.002, 50, 10), 0.005));
    EXPECT_FALSE(medianConverged(lognormal(1.0, 0.2, 50, 11), 0.005));
    EXPECT_TRUE(medianConverged(lognormal(1.0, 0.2, 20000, 12), 0.005));
}

TEST(PerfStats, TiesWithinTheNoiseFloor)
{
    Interval noise{1.0, 0.99, 1.012};
    EXPECT_TRUE(isTie({1.005, 0.998, 1.011}, noise));
    EXPECT_FALSE(isTie({1.30, 1.25, 1.35}, noise));
    EXPECT_FALSE(isTie({0.70, 0.65, 0.75}, noise));
}

TEST(PerfStats, RooflineNumbersAndAuditFlag)
{
    // 1 GB moved in 1 ms = 1000 GB/s; on a 4000 GB/s device that is 25 %, bound 0.25 ms.
    auto r = roofline(1.0, 1e9, 2e9, 4000.0, 50.0);
    EXPECT_NEAR(r.gbs, 1000.0, 1e-9);
    EXPECT_NEAR(r.tflops, 2.0, 1e-12);
    EXPECT_NEAR(r.bandwidthUtil, 0.25, 1e-12);
    EXPECT_NEAR(r.computeUtil, 0.04, 1e-12);
    EXPECT_NEAR(r.boundMs, 0.25, 1e-12);
    EXPECT_FALSE(r.fasterThanBound);
    EXPECT_TRUE(roofline(0.1, 1e9, 0, 4000.0, 50.0).fasterThanBound);  // faster than physics: audit
}

// The perf queue starts the longest timings first; equal costs keep the submission order.
TEST(PerfStats, PerfQueueLongestFirstAndStable)
{
    std::deque<std::size_t> q{0, 1, 2, 3, 4, 5};
    const std::vector<double> cost{6.1, 95.0, 6.1, 7.0, 6.1, 40.0};
    kbx::orderLongestFirst(q, [&](std::size_t i) { return cost[i]; });
    EXPECT_EQ(q, (std::deque<std::size_t>{1, 5, 3, 0, 2, 4}));
}

// Issue 22: without --jobs, kbx uses the machine: the H200 host (16 cores, ~120 GiB) gets 14
// correctness workers, a 2-core CI box one, and memory or GPU slots bound it.
TEST(AutoJobs, PickedFromCoresMemoryAndGpus)
{
    EXPECT_EQ(kbx::autoJobs(kbx::Device::Cuda, 0, 16, 120.0).jobs, 14);
    EXPECT_EQ(kbx::autoJobs(kbx::Device::Cuda, 1, 16, 120.0).jobs, 14);
    EXPECT_EQ(kbx::autoJobs(kbx::Device::Cuda, 2, 32, 240.0).jobs, 15);  // per GPU
    EXPECT_EQ(kbx::autoJobs(kbx::Device::Cuda, 0, 128, 2000.0).jobs, 16);  // at most 16 per GPU
    EXPECT_EQ(kbx::autoJobs(kbx::Device::Cuda, 0, 16, 10.0).jobs, 4);      // memory bounds it
    EXPECT_EQ(kbx::autoJobs(kbx::Device::Cuda, 0, 2, 0.0).jobs, 1);        // memory unknown
    EXPECT_EQ(kbx::autoJobs(kbx::Device::Cpu, 0, 2, 24.0).jobs, 1);
    EXPECT_EQ(kbx::autoJobs(kbx::Device::Cpu, 0, 16, 120.0).jobs, 8);
    EXPECT_EQ(kbx::autoJobs(kbx::Device::Cpu, 0, 16, 7.0).jobs, 2);
    const auto a = kbx::autoJobs(kbx::Device::Cuda, 0, 16, 120.0);
    EXPECT_NE(a.why.find("16 core(s)"), std::string::npos) << a.why;
    EXPECT_NE(a.why.find("120 GiB"), std::string::npos) << a.why;
    const auto [cores, mem] = kbx::hostResources();
    EXPECT_GE(cores, 1);
    EXPECT_GT(mem, 0.0);
}

// A run's provenance names the host's CPU (host_cpu): two machines with the same GPU model ran the
// corpus pair in 433 s and 300 s. The model is the first "model name" of /proc/cpuinfo, trimmed.
TEST(AutoJobs, HostCpuNamesTheModelCoresAndMemory)
{
    const auto dir = std::filesystem::temp_directory_path() / ("kbx-hostcpu-" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir);
    {
        std::ofstream f(dir / "cpuinfo");
        f << "processor\t: 0\nvendor_id\t: GenuineIntel\nmodel name\t:  Intel(R) Xeon(R) Platinum 8480+ \r\nflags\t\t: fpu\n\n"
             "processor\t: 1\nmodel name\t: Other\n";
    }
    {
        std::ofstream f(dir / "none");
        f << "processor\t: 0\nflags\t\t: fpu\n";
    }
    const auto h = kbx::hostCpu(dir / "cpuinfo");
    EXPECT_EQ(h.value("model", ""), "Intel(R) Xeon(R) Platinum 8480+");
    EXPECT_EQ(h.value("cores", 0), kbx::hostResources().first);
    EXPECT_GT(h.value("mem_available_gib", 0.0), 0.0);
    const auto n = kbx::hostCpu(dir / "none");
    EXPECT_FALSE(n.contains("model")) << n.dump();
    EXPECT_GE(n.value("cores", 0), 1);
    EXPECT_FALSE(kbx::hostCpu(dir / "missing").contains("model"));
    std::filesystem::remove_all(dir);
}

// Issue 22: the repeat interval. One process and no within-process spread: the prior alone,
// +-z*sqrt(2)*prior (a repeat of one process against this one).
TEST(RepeatInterval, OneProcessIsThePriorTimesSqrt2)
{
    const auto r = kbx::perf::repeatInterval({{1.0, 1.0, 1.0}}, 0.01, 4);
    EXPECT_NEAR(std::log(r.interval.hi), 1.959964 * std::sqrt(2.0) * 0.01, 1e-9);
    EXPECT_NEAR(std::log(r.interval.lo), -1.959964 * std::sqrt(2.0) * 0.01, 1e-9);
    EXPECT_EQ(r.processes, 1);
    EXPECT_DOUBLE_EQ(r.betweenRel, 0.0);
}

// Two processes that disagree widen the interval past both of them; two that agree shrink it
// below the prior's (more degrees of freedom), never to nothing.
TEST(RepeatInterval, DisagreeingProcessesWidenAgreeingOnesNarrow)
{
    const auto agree = kbx::perf::repeatInterval({{2.0, 2.0, 2.0}, {2.0, 2.0, 2.0}}, 0.01, 4);
    EXPECT_NEAR(agree.interval.estimate, 2.0, 1e-12);
    EXPECT_NEAR(std::log(agree.interval.hi / 2.0), 1.959964 * std::sqrt(4.0 * 1e-4 / 5.0), 1e-9);
    const auto apart = kbx::perf::repeatInterval({{1.0, 0.99, 1.01}, {1.2, 1.19, 1.21}}, 0.01, 4);
    EXPECT_NEAR(apart.interval.estimate, std::sqrt(1.2), 1e-12);
    EXPECT_LT(apart.interval.lo, 1.0);
    EXPECT_GT(apart.interval.hi, 1.2);
    EXPECT_NEAR(apart.betweenRel, std::log(1.2) / std::sqrt(2.0), 1e-12);
    EXPECT_THROW(kbx::perf::repeatInterval({}, 0.01, 4), std::invalid_argument);
    EXPECT_THROW(kbx::perf::repeatInterval({{0.0, 0.0, 0.0}}, 0.01, 4), std::invalid_argument);
}

// The shapes' floor: the variance of a mean of S independent shapes from each shape's spread over
// the processes; none with fewer than two processes.
TEST(RepeatInterval, TheShapesSpreadIsTheVarianceOfAMeanOfIndependentShapes)
{
    // shape 0: log speedups 0, 0.02, 0.04 (variance 4e-4); shape 1: all equal (0)
    const double v = kbx::perf::shapeSpreadVariance({{0.0, 0.02, 0.04}, {0.01, 0.01, 0.01}});
    EXPECT_NEAR(v, 4e-4 / 4.0, 1e-15);
    EXPECT_DOUBLE_EQ(kbx::perf::shapeSpreadVariance({{0.0}, {0.1}}), 0.0);
    EXPECT_DOUBLE_EQ(kbx::perf::shapeSpreadVariance({}), 0.0);
    // Processes whose geomeans agree exactly (the shapes moved against each other): the floor
    // decides, +-z*sqrt(2 floor / P).
    const std::vector<kbx::perf::Interval> agree = {{1.5, 1.5, 1.5}, {1.5, 1.5, 1.5}, {1.5, 1.5, 1.5}};
    const auto r = kbx::perf::repeatInterval(agree, 0.001, 4, 1.959964, 1e-4);
    EXPECT_TRUE(r.fromShapes);
    EXPECT_NEAR(r.shapeRel, 0.01, 1e-12);
    EXPECT_NEAR(r.sdRel, 0.01, 1e-12);
    EXPECT_NEAR(std::log(r.interval.hi / 1.5), 1.959964 * std::sqrt(2.0 * 1e-4 / 3.0), 1e-12);
    // A floor under the pooled estimate changes nothing.
    const auto plain = kbx::perf::repeatInterval(agree, 0.02, 4);
    const auto low = kbx::perf::repeatInterval(agree, 0.02, 4, 1.959964, 1e-6);
    EXPECT_FALSE(low.fromShapes);
    EXPECT_DOUBLE_EQ(low.interval.lo, plain.interval.lo);
    EXPECT_DOUBLE_EQ(low.interval.hi, plain.interval.hi);
    EXPECT_DOUBLE_EQ(kbx::perf::repeatInterval(agree, 0.02, 4, 1.959964, std::nan("")).interval.hi, plain.interval.hi);
}

// What the floor is for: a kernel of four shapes, each moving independently between processes (sd
// 2 %, so 1 % on the geomean) while the prior says 0.65 %: three processes' geomeans alone (two
// degrees of freedom against the prior's four) leave a repeat outside far more often than 5 %; the
// shapes' spread (eight degrees of freedom) brings it back near the nominal rate.
TEST(RepeatInterval, TheShapesFloorCoversAKernelNoisierThanThePrior)
{
    std::mt19937_64 rng(11);
    std::normal_distribution<double> shape(0.0, 0.02);
    constexpr int kShapes = 4, kProcesses = 3;
    struct Measured {
        std::vector<kbx::perf::Interval> geomeans;
        double shapeVar;
    };
    auto measure = [&] {
        std::vector<std::vector<double>> x(kShapes);
        Measured m;
        for (int p = 0; p < kProcesses; ++p) {
            double g = 0;
            for (int s = 0; s < kShapes; ++s) {
                x[s].push_back(shape(rng));
                g += x[s].back() / kShapes;
            }
            m.geomeans.push_back({std::exp(g), std::exp(g), std::exp(g)});
        }
        m.shapeVar = kbx::perf::shapeSpreadVariance(x);
        return m;
    };
    const int trials = 4000;
    int plain = 0, floored = 0;
    for (int t = 0; t < trials; ++t) {
        const auto first = measure();
        const double again = kbx::perf::repeatInterval(measure().geomeans, 0.0065, 4).interval.estimate;
        const auto a = kbx::perf::repeatInterval(first.geomeans, 0.0065, 4).interval;
        const auto b = kbx::perf::repeatInterval(first.geomeans, 0.0065, 4, 1.959964, first.shapeVar).interval;
        plain += again >= a.lo && again <= a.hi;
        floored += again >= b.lo && again <= b.hi;
    }
    EXPECT_LT(plain, 0.87 * trials);
    EXPECT_GT(floored, 0.90 * trials);
    EXPECT_LT(floored, 0.97 * trials);
}

// What it is for: simulated measurements whose processes differ by a between-process effect
// (sd 1 %) and sample within (sd 0.3 %), prior equal to the truth: a repeat's estimate lands in
// the first measurement's interval about 95 % of the time; the within-process bootstrap alone
// (what kbx reported before) covers far less.
TEST(RepeatInterval, ARepeatLandsInsideAtTheNominalRate)
{
    std::mt19937_64 rng(7);
    std::normal_distribution<double> between(0.0, 0.01), within(0.0, 0.003);
    auto measure = [&](int p) {
        std::vector<kbx::perf::Interval> v;
        for (int k = 0; k < p; ++k) {
            const double x = std::exp(between(rng) + within(rng));
            v.push_back({x, x * std::exp(-1.959964 * 0.003), x * std::exp(1.959964 * 0.003)});
        }
        return v;
    };
    for (int p : {1, 2, 3}) {
        int inside = 0, insideWithin = 0;
        const int trials = 4000;
        for (int t = 0; t < trials; ++t) {
            const auto first = measure(p);
            const auto r = kbx::perf::repeatInterval(first, 0.01, 4);
            const double again = kbx::perf::repeatInterval(measure(p), 0.01, 4).interval.estimate;
            inside += again >= r.interval.lo && again <= r.interval.hi;
            insideWithin += again >= first[0].lo && again <= first[0].hi;
        }
        EXPECT_GT(inside, 0.92 * trials) << p << " process(es)";
        EXPECT_LT(inside, 0.99 * trials) << p << " process(es)";
        EXPECT_LT(insideWithin, 0.5 * trials) << p << " process(es)";
    }
}

TEST(GroupMedianGeomean, ALevelThatFollowsTheLaunchParityIsAveragedWhateverTheStart)
{
    // A side whose time follows its call's launch parity: 6.4 us at one parity, 7.0 at the other.
    // Groups: 2 * (block parity) + pair parity, with an extra kernel before every block after the
    // first. Whether a pair launches an even or odd number of kernels and which parity the process
    // started at, two groups sit at each level, and the estimate is sqrt(6.4 * 7.0).
    const int blocks = 7, pairs = 10;  // an odd number of blocks: the groups hold unequal counts
    for (const bool oddPair : {false, true})
        for (const int start : {0, 1}) {
            std::vector<double> xs;
            std::vector<int> g;
            for (int b = 0; b < blocks; ++b)
                for (int j = 0; j < pairs; ++j) {
                    const int parity = (start + b + (oddPair ? j : 0)) % 2;
                    xs.push_back(parity ? 7.0 : 6.4);
                    g.push_back(2 * (b % 2) + j % 2);
                }
            EXPECT_NEAR(groupMedianGeomean(xs, g), std::sqrt(6.4 * 7.0), 1e-12) << oddPair << start;
            // The plain median is not: with four blocks at one level and three at the other it sits
            // at the first block's level.
            if (!oddPair) {
                EXPECT_DOUBLE_EQ(quantile(xs, 0.5), start ? 7.0 : 6.4);
            }
        }
}

TEST(GroupMedianGeomean, ASampleItCannotPlaceGivesNoEstimate)
{
    EXPECT_EQ(groupMedianGeomean({1, 2, 3, 4}, {0, 1, 2}), 0.0);        // sizes differ
    EXPECT_EQ(groupMedianGeomean({1, 2, 3}, {0, 1, 2}), 0.0);           // group 3 is empty
    EXPECT_EQ(groupMedianGeomean({1, 2, 3, 4}, {0, 1, 2, 4}), 0.0);     // out of range
    EXPECT_EQ(groupMedianGeomean({1, -2, 3, 4}, {0, 1, 2, 3}), 0.0);    // not positive
    EXPECT_NEAR(groupMedianGeomean({1, 2, 4, 8}, {0, 1, 2, 3}), std::pow(64.0, 0.25), 1e-12);
}

TEST(AlignGroups, EveryGroupIsCentredAtTheFourGroupMedian)
{
    // Two levels by group (6.4 and 7.0) with a little noise: aligned, every group's median is the
    // four-group median, and the samples keep their spread within the group.
    std::vector<double> xs;
    std::vector<int> g;
    for (int i = 0; i < 40; ++i) {
        const int grp = i % 4;
        xs.push_back((grp == 0 || grp == 3 ? 6.4 : 7.0) * (1.0 + 0.001 * (i % 5 - 2)));
        g.push_back(grp);
    }
    const auto a = alignGroups(xs, g);
    ASSERT_EQ(a.size(), xs.size());
    const double G = groupMedianGeomean(xs, g);
    for (int grp = 0; grp < 4; ++grp) {
        std::vector<double> in;
        for (std::size_t i = 0; i < a.size(); ++i)
            if (g[i] == grp)
                in.push_back(a[i]);
        EXPECT_NEAR(quantile(in, 0.5), G, 1e-12) << grp;
    }
    EXPECT_NEAR(quantile(a, 0.5), G, 1e-3 * G);
    EXPECT_LT((*std::max_element(a.begin(), a.end()) - *std::min_element(a.begin(), a.end())) / G, 0.005);  // one level
    EXPECT_TRUE(alignGroups({1, 2, 3}, {0, 1, 2}).empty());  // a group empty: nothing
}
