// The exact streaming aggregation (SPEC §2-3), the measure JSON and the state sidecar.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <functional>
#include <map>
#include <random>
#include <tuple>

#include <nlohmann/json.hpp>

#include "geoattn/report/state_file.h"
#include "geoattn/io/safetensors_writer.h"
#include "geoattn/metrics/stats/aggregate.h"
#include "geoattn/report/measure_json.h"
#include "geoattn/report/run_identity.h"
#include "geoattn/report/run_info_json.h"
#include "geoattn/util/error.h"
#include "geoattn/util/worker_pool.h"
#include "test_util.h"

using namespace geoattn::metrics;
using geoattn::report::load_state;
using geoattn::report::save_state;
using geoattn::report::measure_json;
using geoattn::report::same_run;
using nlohmann::ordered_json;

using geoattn::testing::error_of;
using geoattn::testing::write_file;

namespace {

// A run identity (report/run_identity.h) for the results written by hand here.
constexpr const char* kRun = "00000000000000aa";

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// One sample's inputs, laid out as Aggregator::add_sample takes them.
struct Sample {
  int64_t layer = 0, head = 0, n_valid = 0;
  std::vector<double> curves, scalars;
};

Sample blank(int64_t G, int64_t n_valid, int64_t layer = 0, int64_t head = 0) {
  return {layer, head, n_valid, std::vector<double>(kCurveMetrics * G, 0.0), std::vector<double>(kScalarMetrics, 0.0)};
}

SampleValues view(const Sample& s) {
  return {s.curves, s.n_valid, std::span<const double, kScalarMetrics>(s.scalars.data(), kScalarMetrics)};
}

void add(Aggregator& agg, const Sample& s) { agg.add_sample(s.layer, s.head, view(s)); }

// A sample with P_rmax (and the other curves) = p at every grid index, rho0 = rho.
Sample flat(int64_t G, double p, double rho, int64_t layer = 0, int64_t head = 0) {
  Sample s = blank(G, G, layer, head);
  std::fill(s.curves.begin(), s.curves.end(), p);
  std::fill(s.scalars.begin(), s.scalars.end(), rho);
  return s;
}

std::vector<Sample> random_samples(int64_t L, int64_t H, int64_t G, int count, uint32_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> unit(0.0, 1.0), sym(-1.0, 1.0), norm(0.0, 300.0);
  std::uniform_int_distribution<int64_t> layer(0, L - 1), head(0, H - 1), valid(0, G);
  std::vector<Sample> out;
  for (int i = 0; i < count; ++i) {
    Sample s = blank(G, valid(rng), layer(rng), head(rng));
    for (int m = 0; m < kCurveMetrics; ++m)
      for (int64_t g = 0; g < G; ++g) {
        const bool is_cos = m == kCos_s_v0 || m == kCos_s_vL, is_norm = m >= kS_norm && !is_cos;
        s.curves[m * G + g] = is_cos ? sym(rng) : is_norm ? norm(rng) : unit(rng);
      }
    s.scalars = {sym(rng), norm(rng), norm(rng), norm(rng)};
    out.push_back(std::move(s));
  }
  return out;
}

ordered_json run_info() {
  return {{"model", {{"path", "models/x"}, {"layers", 2}}},
          {"data", {{"files", {"a.txt"}}, {"windows", 3}}},
          {"settings", {{"ctx", 16}, {"n", "default"}}},
          {"timing", {{"seconds", 1.5}}}};
}


}  // namespace

// ---------------------------------------------------------------------------------------------
// ExactSum

TEST(ExactSum, OrderAndGroupingDoNotChangeTheBits) {
  std::mt19937_64 rng(7);
  std::uniform_real_distribution<double> exponent(-60.0, 39.0);
  std::bernoulli_distribution negative(0.5);
  std::vector<double> xs;
  for (int i = 0; i < 10000; ++i) xs.push_back((negative(rng) ? -1 : 1) * std::exp2(exponent(rng)));

  ExactSum forward, backward, shuffled;
  for (double x : xs) forward.add(x);
  for (auto it = xs.rbegin(); it != xs.rend(); ++it) backward.add(*it);
  std::vector<double> perm = xs;
  std::shuffle(perm.begin(), perm.end(), rng);
  for (double x : perm) shuffled.add(x);
  EXPECT_EQ(forward.lo(), backward.lo());
  EXPECT_EQ(forward.hi(), backward.hi());
  EXPECT_EQ(forward.lo(), shuffled.lo());
  EXPECT_EQ(forward.hi(), shuffled.hi());

  for (size_t split : {size_t{0}, size_t{1}, size_t{3333}, size_t{9999}}) {
    ExactSum first, second;
    for (size_t i = 0; i < xs.size(); ++i) (i < split ? first : second).add(xs[i]);
    second.merge(first);
    EXPECT_EQ(second.lo(), forward.lo()) << split;
    EXPECT_EQ(second.hi(), forward.hi()) << split;
  }
  // The exact total is close to a long-double reference (which itself carries rounding).
  long double reference = 0;
  for (double x : perm) reference += x;
  EXPECT_NEAR(static_cast<double>(forward.value_ld()), static_cast<double>(reference), 1e-6);
}

TEST(ExactSum, IsPrecise) {
  ExactSum s;
  for (int i = 0; i < 10; ++i) s.add(0.1);
  EXPECT_NEAR(s.value(), 1.0, 1e-15);
  ExactSum tiny_and_big;
  tiny_and_big.add(1e11);
  tiny_and_big.add(1e-9);
  tiny_and_big.add(-1e11);
  EXPECT_NEAR(tiny_and_big.value(), 1e-9, 1e-18);
}

TEST(ExactSum, RefusesNonFiniteAndHugeValues) {
  ExactSum s;
  EXPECT_THROW(s.add(kNaN), geoattn::Error);
  EXPECT_THROW(s.add(std::numeric_limits<double>::infinity()), geoattn::Error);
  EXPECT_THROW(s.add(-std::numeric_limits<double>::infinity()), geoattn::Error);
  EXPECT_THROW(s.add(std::exp2(41)), geoattn::Error);
  EXPECT_THROW(s.add(-std::exp2(40)), geoattn::Error);
  EXPECT_EQ(s.value(), 0.0);
  s.add(std::exp2(40) - 1);
  EXPECT_EQ(s.value(), std::exp2(40) - 1);
}

TEST(ExactSum, HalvesRoundTrip) {
  ExactSum s;
  s.add(-12345.678);
  s.add(3e-12);
  const ExactSum back = ExactSum::from_halves(s.lo(), s.hi());
  EXPECT_TRUE(back == s);
  EXPECT_EQ(back.value(), s.value());
  EXPECT_LT(s.hi(), 0);
}

// Each added double is round(x 2^64) as an integer, whatever path converts it: the library's
// double -> __int128 conversion is the reference, on values that reach every branch (negative,
// below 2^-64, ties at half a unit, low halves past 2^63, the largest accepted magnitude).
TEST(ExactSum, AddsTheRoundedFixedPointValue) {
  std::mt19937_64 rng(7);
  std::vector<double> xs = {0.0, -0.0, 0.5, -0.5, 1.0, -1.0, 0x1p-64, -0x1p-64, 0x1p-65, -0x1p-65, 0x1.8p-65,
                            -0x1.8p-65, 0x1p-1074, std::nextafter(1.0, 0.0), std::nextafter(0x1p40, 0.0),
                            -std::nextafter(0x1p40, 0.0), 0.75, -0.75, 0x1.fffffffffffffp-1, 0.1, -0.1};
  std::uniform_real_distribution<double> unit(-1.0, 1.0);
  for (int i = 0; i < 20000; ++i) xs.push_back(std::ldexp(unit(rng), static_cast<int>(rng() % 110) - 69));
  for (const double x : xs) {
    const auto expected = static_cast<__int128>(std::round(std::ldexp(x, 64)));
    ExactSum s;
    s.add(x);
    const ExactSum want = ExactSum::from_halves(static_cast<uint64_t>(static_cast<unsigned __int128>(expected)),
                                                static_cast<int64_t>(expected >> 64));
    EXPECT_TRUE(s == want) << std::hexfloat << x;
    EXPECT_EQ(s.value_ld(), std::ldexp(static_cast<long double>(expected), -64)) << std::hexfloat << x;
  }
}

// ---------------------------------------------------------------------------------------------
// Moments

TEST(Moments, MeanAndPopulationStd) {
  Moments m;
  for (double x : {1.0, 2.0, 3.0, 4.0}) m.add(x);
  EXPECT_EQ(m.count(), 4);
  EXPECT_EQ(m.mean(), 2.5);
  EXPECT_DOUBLE_EQ(m.std(), std::sqrt(1.25));

  Moments other;
  for (double x : {10.0, -2.0}) other.add(x);
  m.merge(other);
  EXPECT_EQ(m.count(), 6);
  EXPECT_EQ(m.mean(), 3.0);                                  // 18 / 6
  EXPECT_DOUBLE_EQ(m.std(), std::sqrt(134.0 / 6.0 - 9.0));  // E[x^2] = 134/6
  EXPECT_EQ(m.min(), -2.0);
  EXPECT_EQ(m.max(), 10.0);
}

TEST(Moments, EmptyIsNaNAndConstantHasZeroStd) {
  Moments empty;
  EXPECT_TRUE(std::isnan(empty.mean()));
  EXPECT_TRUE(std::isnan(empty.std()));
  Moments constant;
  for (int i = 0; i < 7; ++i) constant.add(0.1);  // 0.1 is not exact in fixed point either
  EXPECT_EQ(constant.std(), 0.0);
  EXPECT_NEAR(constant.mean(), 0.1, 1e-17);
  EXPECT_THROW(constant.add(std::exp2(20)), geoattn::Error);  // its square would not fit
  EXPECT_THROW(constant.add(kNaN), geoattn::Error);
  EXPECT_EQ(constant.count(), 7);
}

// ---------------------------------------------------------------------------------------------
// Aggregator

TEST(Aggregator, GridValuesPastNValidAreUntouched) {
  const int64_t G = 3;
  Aggregator agg(1, 1, {1, 2, 4});
  Sample s = flat(G, 0.5, 0.25);
  s.n_valid = 1;
  add(agg, s);
  s.n_valid = 2;
  add(agg, s);
  const GroupStats& h = agg.head_stats(0, 0);
  EXPECT_EQ(agg.samples(0, 0), 2);
  for (int m = 0; m < kCurveMetrics; ++m) {
    EXPECT_EQ(h.curve(m, 0).count(), 2);
    EXPECT_EQ(h.curve(m, 1).count(), 1);
    EXPECT_EQ(h.curve(m, 2).count(), 0);
  }
  EXPECT_EQ(h.scalar(kRho0).count(), 2);
  const ordered_json j = measure_json(agg, run_info());
  EXPECT_EQ(j["heads"][0]["P_rmax"].dump(), "[0.5,0.5,null]");
  EXPECT_EQ(j["heads"][0]["P_rmax_std"].dump(), "[0.0,0.0,null]");
  EXPECT_EQ(j["heads"][0]["rho0"], 0.25);
}

TEST(Aggregator, AddSampleChecksEverythingFirst) {
  const int64_t G = 2;
  Aggregator agg(2, 2, {1, 2});
  Sample s = flat(G, 0.5, 0.1, 1, 1);
  s.curves[kCos_s_vL * G + 1] = kNaN;
  const std::string what = error_of([&] { add(agg, s); });
  EXPECT_NE(what.find("cos_s_vL at layer 1 head 1 N=2"), std::string::npos) << what;
  s.n_valid = 1;  // the NaN sits past n_valid: not looked at
  add(agg, s);
  EXPECT_EQ(agg.samples(1, 1), 1);
  s.scalars[kC_rest] = 1e7;
  EXPECT_NE(error_of([&] { add(agg, s); }).find("c_rest"), std::string::npos);
  EXPECT_EQ(agg.samples(1, 1), 1);  // nothing of the refused sample was added
  EXPECT_EQ(agg.head_stats(1, 1).curve(kP_rmax, 0).count(), 1);
  s = flat(G, 0.5, 0.1, 2, 0);
  EXPECT_THROW(add(agg, s), geoattn::Error);
  s = flat(G, 0.5, 0.1, 0, 0);
  s.n_valid = 3;
  EXPECT_THROW(add(agg, s), geoattn::Error);
  EXPECT_THROW(Aggregator(1, 1, {2, 1}), geoattn::Error);
  EXPECT_THROW(Aggregator(1, 1, {}), geoattn::Error);
  EXPECT_THROW(Aggregator(0, 1, {1}), geoattn::Error);
}

// 2 layers x 2 heads, G = 1, P_rmax per head: (0,0) {1, 0.5}, (0,1) {0.25}, (1,0) {0.75}, (1,1) {}.
TEST(Aggregator, LayersAndGlobalAreMergesOfHeads) {
  Aggregator agg(2, 2, {1});
  for (auto [l, h, p] : std::vector<std::tuple<int, int, double>>{{0, 0, 1.0}, {0, 0, 0.5}, {0, 1, 0.25}, {1, 0, 0.75}})
    add(agg, flat(1, p, p / 2, l, h));
  const ordered_json j = measure_json(agg, run_info());

  // Layer 0: mean 1.75/3, E[x^2] = 1.3125/3. Layer 1: one sample. Global: 2.5/4, E[x^2] = 1.875/4.
  EXPECT_EQ(j["layers"][0]["samples"], 3);
  EXPECT_DOUBLE_EQ(j["layers"][0]["P_rmax"][0].get<double>(), 1.75 / 3);
  EXPECT_DOUBLE_EQ(j["layers"][0]["P_rmax_std"][0].get<double>(), std::sqrt(1.3125 / 3 - (1.75 / 3) * (1.75 / 3)));
  EXPECT_EQ(j["layers"][1]["samples"], 1);
  EXPECT_EQ(j["layers"][1]["P_rmax"][0], 0.75);
  EXPECT_EQ(j["layers"][1]["P_rmax_std"][0], 0.0);
  EXPECT_EQ(j["global"]["samples"], 4);
  EXPECT_EQ(j["global"]["P_rmax"][0], 0.625);
  EXPECT_DOUBLE_EQ(j["global"]["P_rmax_std"][0].get<double>(), std::sqrt(0.078125));
  EXPECT_DOUBLE_EQ(j["global"]["rho0"].get<double>(), 0.3125);
  EXPECT_EQ(j["heads"][3]["layer"], 1);
  EXPECT_EQ(j["heads"][3]["head"], 1);
  EXPECT_EQ(j["heads"][3]["samples"], 0);
  EXPECT_TRUE(j["heads"][3]["P_rmax"][0].is_null());
  EXPECT_TRUE(j["heads"][3]["rho0"].is_null());
  EXPECT_EQ(j["heads"][1]["P_rmax"][0], 0.25);
  EXPECT_FALSE(j["heads"][0].contains("sink_recall_corr"));
  EXPECT_TRUE(j["layers"][1]["sink_recall_corr"][0].is_null());  // one sample
}

TEST(Aggregator, SinkRecallCorrelation) {
  const std::vector<double> R = {0.25, 0.5, 0.75, 1.0}, rho = {0.1, 0.2, 0.3, 0.4};
  auto corr_of = [](const std::vector<double>& r, const std::vector<double>& x) {
    Aggregator agg(1, 2, {1});
    for (size_t i = 0; i < r.size(); ++i) add(agg, flat(1, r[i], x[i], 0, static_cast<int64_t>(i % 2)));
    return measure_json(agg, run_info())["global"]["sink_recall_corr"][0];
  };
  EXPECT_NEAR(corr_of(R, rho).get<double>(), 1.0, 1e-12);
  EXPECT_NEAR(corr_of(R, {0.4, 0.3, 0.2, 0.1}).get<double>(), -1.0, 1e-12);
  EXPECT_NEAR(corr_of({0.0, 1.0, 0.0, 1.0}, {1.0, 1.0, -1.0, -1.0}).get<double>(), 0.0, 1e-15);
  EXPECT_TRUE(corr_of({1.0 / 3, 1.0 / 3, 1.0 / 3}, {0.1, 0.7, 0.2}).is_null());  // constant R
  EXPECT_TRUE(corr_of({0.2, 0.9}, {0.3, 0.3}).is_null());                         // constant rho0
  EXPECT_TRUE(corr_of({0.2}, {0.3}).is_null());                                   // one sample

  // At grid index 1 only the samples that reached it count: the others would spoil the line.
  Aggregator agg(1, 1, {1, 2});
  for (size_t i = 0; i < R.size(); ++i) add(agg, flat(2, R[i], rho[i]));
  for (double x : {0.9, -0.5, 0.0}) {
    Sample s = flat(2, 1.0 - x, x);
    s.n_valid = 1;
    add(agg, s);
  }
  const GroupStats& h = agg.head_stats(0, 0);
  EXPECT_NEAR(h.sink_recall_corr(1), 1.0, 1e-12);
  EXPECT_LT(h.sink_recall_corr(0), 0.9);
}

TEST(Aggregator, MergedHalvesGiveTheSameJsonAsOneRun) {
  const int64_t L = 2, H = 3;
  const std::vector<int64_t> grid = {1, 2, 3, 5, 8};
  const auto samples = random_samples(L, H, static_cast<int64_t>(grid.size()), 600, 11);
  Aggregator all(L, H, grid), even(L, H, grid), odd(L, H, grid);
  for (size_t i = 0; i < samples.size(); ++i) {
    add(all, samples[i]);
    add(i % 2 ? odd : even, samples[i]);
  }
  odd.merge(even);
  const std::string one = measure_json(all, run_info()).dump(2);
  EXPECT_EQ(measure_json(odd, run_info()).dump(2), one);

  // The means agree with a plain long-double mean over the same samples.
  const ordered_json j = measure_json(all, run_info());
  for (size_t g = 0; g < grid.size(); ++g) {
    long double sum = 0;
    int64_t n = 0;
    for (const auto& s : samples)
      if (static_cast<int64_t>(g) < s.n_valid) sum += s.curves[kS_norm * grid.size() + g], ++n;
    EXPECT_NEAR(j["global"]["s_norm"][g].get<double>(), static_cast<double>(sum / n), 1e-9);
  }
  EXPECT_EQ(j["global"]["samples"], 600);
}

TEST(Aggregator, MergeRefusesDifferentShapes) {
  Aggregator a(2, 2, {1, 2});
  EXPECT_THROW(a.merge(Aggregator(2, 2, {1, 3})), geoattn::Error);
  EXPECT_THROW(a.merge(Aggregator(2, 1, {1, 2})), geoattn::Error);
  EXPECT_THROW(a.merge(Aggregator(1, 2, {1, 2})), geoattn::Error);
}

// ---------------------------------------------------------------------------------------------
// measure JSON

// The layout geoattn writes (arrays in X.curves.safetensors) reads back as the inline one,
// number for number (null for NaN), and the JSON holds no per-layer or per-head array.
TEST(MeasureJson, ArraysFileReadsBackInline) {
  geoattn::testing::TempDir tmp;
  Aggregator agg(2, 3, {1, 2, 5});
  for (const auto& s : random_samples(2, 3, 3, 40, 7)) add(agg, s);
  add(agg, blank(3, 0, 1, 2));  // a head with n_valid 0
  const ordered_json inline_doc = measure_json(agg, run_info());
  geoattn::report::MeasureArrays arrays;
  ordered_json split = measure_json(agg, run_info(), nullptr, nullptr, &arrays, "r.curves.safetensors");
  EXPECT_EQ(split["schema"], geoattn::report::kMeasureSchema);
  EXPECT_EQ(split["arrays"]["tensors"]["heads.P_rmax"].dump(), "[2,3,3]");
  EXPECT_EQ(split["arrays"]["tensors"]["layers.sink_recall_corr"].dump(), "[2,3]");
  for (const auto* group : {&split["layers"], &split["heads"]})
    for (const auto& entry : *group)
      for (const auto& [key, value] : entry.items()) EXPECT_FALSE(value.is_array()) << key;
  write_file(tmp / "r.json", geoattn::report::with_run_id(split, kRun).dump());
  geoattn::report::write_measure_arrays(tmp / "r.curves.safetensors", arrays, kRun);
  nlohmann::json back = geoattn::report::read_measure(tmp / "r.json"), want = inline_doc;
  EXPECT_EQ(back["run_id"], kRun);
  back.erase("schema"), want.erase("schema"), back.erase("run_id");
  EXPECT_EQ(back, want);  // as sorted maps: key order aside, the same document

  // An arrays file of another run (another run_id) is refused, naming both files.
  geoattn::report::write_measure_arrays(tmp / "r.curves.safetensors", arrays, "00000000000000bb");
  const std::string other = error_of([&] { geoattn::report::read_measure(tmp / "r.json"); });
  EXPECT_NE(other.find("r.json: "), std::string::npos) << other;
  EXPECT_NE(other.find("r.curves.safetensors is not of this run (its run_id 00000000000000bb, the result's "
                       "00000000000000aa)"), std::string::npos) << other;

  // A missing or foreign arrays file is an error naming it.
  std::filesystem::remove(tmp / "r.curves.safetensors");
  EXPECT_NE(error_of([&] { geoattn::report::read_measure(tmp / "r.json"); }).find("r.curves.safetensors"), std::string::npos);
  geoattn::io::write_safetensors(tmp / "r.curves.safetensors", {{"weights", geoattn::io::Dtype::F64, {1}, &arrays[0].values[0]}},
                                 {{"run_id", kRun}});
  EXPECT_NE(error_of([&] { geoattn::report::read_measure(tmp / "r.json"); }).find("'weights' is not layers.<key>"), std::string::npos);
  write_file(tmp / "b.json", "{\"schema\": \"geoattn.bounds/1\"}");
  EXPECT_NE(error_of([&] { geoattn::report::read_measure(tmp / "b.json"); }).find("expected schema 'geoattn.measure/2'"),
            std::string::npos);
}

// The fits' arrays (mean_norm, c, mean_row) go to the arrays file where the JSON would hold them:
// read back, the document is the inline one, NaN and infinities as null, -0 as -0.
TEST(MeasureJson, FitArraysReadBackInline) {
  geoattn::testing::TempDir tmp;
  Aggregator agg(1, 2, {1, 2});
  for (const auto& s : random_samples(1, 2, 2, 20, 5)) add(agg, s);
  std::vector<HeadFits> fits(2);
  fits[0].mean_norm = {1.5, NAN, INFINITY, -0.0}, fits[0].c = {0.25, -INFINITY}, fits[0].mean_row = {0.5, 0.5};
  fits[1].mean_norm = {2.0, 3.0, 4.0, 5.0}, fits[1].c = {1.0, NAN}, fits[1].mean_row = {1.0, NAN};
  const ordered_json inline_doc = measure_json(agg, run_info(), &fits);
  geoattn::report::MeasureArrays arrays;
  const ordered_json split = measure_json(agg, run_info(), &fits, nullptr, &arrays, "r.curves.safetensors");
  EXPECT_EQ(split["arrays"]["tensors"]["heads.fits.norms.mean_norm"].dump(), "[1,2,4]");
  EXPECT_FALSE(split["heads"][0]["fits"]["norms"].contains("mean_norm"));
  write_file(tmp / "r.json", geoattn::report::with_run_id(split, kRun).dump());
  geoattn::report::write_measure_arrays(tmp / "r.curves.safetensors", arrays, kRun);
  nlohmann::json back = geoattn::report::read_measure(tmp / "r.json"), want = inline_doc;
  back.erase("schema"), want.erase("schema");
  EXPECT_EQ(back["heads"], want["heads"]);
  EXPECT_TRUE(std::signbit(back["heads"][0]["fits"]["norms"]["mean_norm"][3].get<double>()));
}

// The arrays built head by head on a pool's workers (measure_json's last argument) are the ones
// built in a loop: the same names in the same order, the same shapes, the same bits (NaN where a
// head has no value), and the same JSON.
TEST(MeasureJson, ArraysTheSameOnAPool) {
  Aggregator agg(3, 5, {1, 2, 5, 9});
  for (const auto& s : random_samples(3, 5, 4, 60, 11)) add(agg, s);
  add(agg, blank(4, 1, 2, 1));  // a head with fewer grid values
  geoattn::report::MeasureArrays loop;
  const std::string want = measure_json(agg, run_info(), nullptr, nullptr, &loop, "r.curves.safetensors").dump();
  const auto bits = [](const std::vector<double>& v) {
    std::vector<uint64_t> b(v.size());
    std::memcpy(b.data(), v.data(), v.size() * sizeof(double));
    return b;
  };
  for (const int threads : {2, 3}) {
    geoattn::WorkerPool pool(threads);
    geoattn::report::MeasureArrays pooled;
    EXPECT_EQ(measure_json(agg, run_info(), nullptr, nullptr, &pooled, "r.curves.safetensors", nullptr, nullptr, &pool).dump(), want);
    ASSERT_EQ(pooled.size(), loop.size());
    for (size_t i = 0; i < loop.size(); ++i) {
      EXPECT_EQ(pooled[i].name, loop[i].name);
      EXPECT_EQ(pooled[i].shape, loop[i].shape) << loop[i].name;
      EXPECT_EQ(bits(pooled[i].values), bits(loop[i].values)) << loop[i].name;
    }
  }
}

TEST(MeasureJson, KeysInOrder) {
  Aggregator agg(1, 1, {1, 4});
  add(agg, flat(2, 0.5, 0.1));
  const ordered_json j = measure_json(agg, run_info());
  std::vector<std::string> keys;
  for (const auto& [k, v] : j.items()) keys.push_back(k);
  EXPECT_EQ(keys, (std::vector<std::string>{"schema", "model", "data", "settings", "timing", "n_grid", "global",
                                            "layers", "heads"}));
  EXPECT_EQ(j["schema"], "geoattn.measure/1");
  EXPECT_EQ(j["n_grid"].dump(), "[1,4]");
  std::vector<std::string> head_keys;
  for (const auto& [k, v] : j["heads"][0].items()) head_keys.push_back(k);
  // The samples per N, the moments of every curve and scalar, then the control's differences
  // (top-N minus random).
  EXPECT_EQ(head_keys.size(), 4 + 2 * (int{kCurveMetrics} + int{kScalarMetrics}) + kControlled);
  EXPECT_EQ(head_keys[3], "samples_n");
  EXPECT_EQ(j["heads"][0]["samples_n"].dump(), "[1,1]");  // one sample reaching both N
  EXPECT_EQ(head_keys[4], "P_rmax");
  EXPECT_EQ(head_keys[5], "P_rmax_std");
  EXPECT_EQ(head_keys.back(), "F_rmin_diff");
  EXPECT_EQ(j["layers"][0].back().dump(), "[null,null]");  // sink_recall_corr, one sample
  EXPECT_THROW(measure_json(agg, {{"n_grid", 1}}), geoattn::Error);
  EXPECT_THROW(measure_json(agg, ordered_json::array()), geoattn::Error);
}

// ---------------------------------------------------------------------------------------------
// State sidecar

TEST(State, RoundTripGivesTheSameJsonAndResumes) {
  geoattn::testing::TempDir dir;
  const std::vector<int64_t> grid = {1, 2, 4};
  const auto samples = random_samples(2, 2, 3, 300, 5);
  Aggregator all(2, 2, grid), first(2, 2, grid), rest(2, 2, grid);
  for (size_t i = 0; i < samples.size(); ++i) {
    add(all, samples[i]);
    add(i < 100 ? first : rest, samples[i]);
  }
  save_state(dir / "all.state", all, run_info());
  auto [loaded, info] = load_state(dir / "all.state");
  EXPECT_EQ(info, run_info());
  EXPECT_EQ(measure_json(loaded, info).dump(), measure_json(all, run_info()).dump());

  // Resume: the state of the first 100 samples, loaded and fed the rest, equals one run.
  save_state(dir / "first.state", first, run_info());
  auto resumed = load_state(dir / "first.state").first;
  for (size_t i = 100; i < samples.size(); ++i) add(resumed, samples[i]);
  EXPECT_EQ(measure_json(resumed, info).dump(), measure_json(all, run_info()).dump());
  // And an empty aggregator survives the trip too (+inf/-inf extremes).
  save_state(dir / "empty.state", Aggregator(1, 1, {1}), ordered_json::object());
  EXPECT_EQ(load_state(dir / "empty.state").first.samples(0, 0), 0);
}

TEST(State, BadFilesAreErrorsNamingThePath) {
  geoattn::testing::TempDir dir;
  Aggregator agg(1, 2, {1, 3});
  add(agg, flat(2, 0.5, 0.1));
  const std::string good = dir / "good.state";
  save_state(good, agg, run_info());
  const std::string bytes = geoattn::testing::read_file(good);

  auto expect_error = [&](const std::string& path, const std::string& needle) {
    const std::string what = error_of([&] { load_state(path); });
    EXPECT_NE(what.find(path), std::string::npos) << what;
    EXPECT_NE(what.find(needle), std::string::npos) << what;
    EXPECT_EQ(what.find('\n'), std::string::npos) << what;
  };
  expect_error(dir / "missing.state", "cannot open");
  geoattn::testing::write_file(dir / "garbage.state", "this is not a state file at all");
  expect_error(dir / "garbage.state", "header");
  geoattn::testing::write_file(dir / "truncated.state", bytes.substr(0, bytes.size() - 8));
  expect_error(dir / "truncated.state", "truncated");

  const int64_t M = GroupStats(2).slots();
  std::vector<int64_t> counts(2 * M, 0), sums(2 * M * 4, 0), cross(2 * 2 * 2, 0);
  std::vector<double> extrema(2 * M * 2, 0.0);
  auto write = [&](const std::string& name, std::map<std::string, std::string> meta, std::vector<int64_t> count_shape) {
    geoattn::io::write_safetensors(dir / name,
                                   {{"counts", geoattn::io::Dtype::I64, count_shape, counts.data()},
                                    {"sums", geoattn::io::Dtype::I64, {1, 2, M, 2, 2}, sums.data()},
                                    {"cross", geoattn::io::Dtype::I64, {1, 2, 2, 2}, cross.data()},
                                    {"extrema", geoattn::io::Dtype::F64, {1, 2, M, 2}, extrema.data()}},
                                   meta);
    return dir / name;
  };
  std::map<std::string, std::string> meta = {
      {"format", "geoattn-state-1"}, {"layers", "1"}, {"heads", "2"},         {"n_grid", "[1,3]"},
      {"curves", ordered_json(std::vector<std::string>(kCurveNames.begin(), kCurveNames.end())).dump()},
      {"scalars", ordered_json(std::vector<std::string>(kScalarNames.begin(), kScalarNames.end())).dump()},
      {"run_info", "{}"}};
  // Zero counts with zero extremes: an empty slot whose extremes are not (+inf, -inf).
  expect_error(write("zeros.state", meta, {1, 2, M}), "empty slot");
  expect_error(write("shape.state", meta, {1, 2, M - 1}), "tensor 'counts' is I64 [1, 2, ");
  auto with = [&](const std::string& key, const std::string& value) {
    auto m = meta;
    m[key] = value;
    return m;
  };
  expect_error(write("format.state", with("format", "geoattn-state-0"), {1, 2, M}), "not a geoattn state file");
  expect_error(write("heads.state", with("heads", "3"), {1, 2, M}), "tensor 'counts'");
  expect_error(write("grid.state", with("n_grid", "[3,1]"), {1, 2, M}), "sorted");
  expect_error(write("layers.state", with("layers", "x"), {1, 2, M}), "'layers'");
  expect_error(write("names.state", with("curves", "[\"P_rmax\"]"), {1, 2, M}), "other metrics");
  expect_error(write("info.state", with("run_info", "[1]"), {1, 2, M}), "run_info");
  auto no_format = meta;
  no_format.erase("format");
  expect_error(write("noformat.state", no_format, {1, 2, M}), "no 'format'");
}

// ---------------------------------------------------------------------------------------------
// same_run

TEST(SameRun, ComparesModelSettingsAndGrid) {
  std::string why;
  ordered_json a = run_info(), b = run_info();
  b["data"] = {{"files", {"b.txt"}}};
  b["timing"] = {{"seconds", 99}};
  EXPECT_TRUE(same_run(a, b, &why));
  b["settings"]["ctx"] = 32;
  EXPECT_FALSE(same_run(a, b, &why));
  EXPECT_EQ(why, "settings.ctx differs: 16 vs 32");
  b = run_info();
  b["model"].erase("layers");
  EXPECT_FALSE(same_run(a, b, &why));
  EXPECT_EQ(why, "model.layers is missing from the second run");
  b = run_info();
  a["n_grid"] = {1, 2};
  EXPECT_FALSE(same_run(a, b, nullptr));
  b["n_grid"] = {1, 2};
  EXPECT_TRUE(same_run(a, b, nullptr));
  // Key order inside an object does not matter.
  ordered_json c = a;
  c["settings"] = {{"n", "default"}, {"ctx", 16}};
  EXPECT_TRUE(same_run(a, c, &why));
}
