// The head taxonomy of SPEC §6 (taxonomy.h): heads built to be each type get that label,
// thresholds from the config change the outcome, and bad configs or measure files are errors.
#include <gtest/gtest.h>

#include "test_util.h"

#include <array>
#include <cmath>
#include <fstream>
#include <limits>

#include <nlohmann/json.hpp>

#include "geoattn/analysis/taxonomy.h"
#include "geoattn/report/taxonomy_config_json.h"
#include "geoattn/report/taxonomy_json.h"
#include "geoattn/util/error.h"

using namespace geoattn::analysis;
using geoattn::report::taxonomy_config_from_json;
using geoattn::report::taxonomy_report;
using geoattn::report::to_json;
using nlohmann::json;

using geoattn::testing::error_of;

namespace {
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
const std::vector<int64_t> kGrid = {1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024};

// A curve over kGrid: a + b ln(N).
std::vector<double> curve(double a, double b) {
  std::vector<double> out;
  for (const int64_t n : kGrid) out.push_back(a + b * std::log(static_cast<double>(n)));
  return out;
}

// Retriever: last token dominates, s(N) stays on v_L.
HeadFeatures retriever() { return {0.1, 2.0, 0.5, kGrid, curve(0.2, 0.0), curve(0.9, -0.02)}; }
// Reset: the sink dominates, weak v_L alignment until very large N.
HeadFeatures reset() {
  HeadFeatures f{1.0, 0.3, 0.6, kGrid, curve(0.95, -0.01), curve(0.05, 0.0)};
  f.cos_s_vL.back() = 0.6;  // only at N = 1024
  return f;
}
// Mixer: last token between sink and rest; alignment moves from v_0 to v_L as N grows.
HeadFeatures mixer() { return {0.4, 0.7, 1.0, kGrid, curve(0.9, -0.1), curve(0.1, 0.08)}; }


json measure_with(const std::vector<std::pair<int64_t, HeadFeatures>>& heads) {
  json m = {{"schema", "geoattn.measure/1"}, {"model", {{"name", "tiny"}}}, {"n_grid", kGrid}};
  json arr = json::array();
  int64_t h = 0;
  for (const auto& [layer, f] : heads) {
    json cv0 = json::array(), cvL = json::array();
    for (size_t g = 0; g < kGrid.size(); ++g) {
      cv0.push_back(std::isfinite(f.cos_s_v0[g]) ? json(f.cos_s_v0[g]) : json(nullptr));
      cvL.push_back(std::isfinite(f.cos_s_vL[g]) ? json(f.cos_s_vL[g]) : json(nullptr));
    }
    arr.push_back({{"layer", layer}, {"head", h++}, {"samples", 3}, {"c_sink", f.c_sink}, {"c_last", f.c_last},
                   {"c_rest", f.c_rest}, {"cos_s_v0", cv0}, {"cos_s_vL", cvL}, {"c_sink_std", 0.1}});
  }
  m["heads"] = arr;
  return m;
}
}  // namespace

TEST(Taxonomy, EachTypeGetsItsLabel) {
  const TaxonomyConfig cfg;
  const HeadLabel r = classify(retriever(), cfg);
  EXPECT_EQ(r.label, "Retriever");
  EXPECT_NE(r.rule.find("Retriever"), std::string::npos);
  EXPECT_NEAR(r.mean_cos_vL, 0.9 - 0.02 * std::log(1024.0) / 2, 1e-12);  // mean of a line in ln N over a log grid

  const HeadLabel z = classify(reset(), cfg);
  EXPECT_EQ(z.label, "Reset") << z.rule;
  EXPECT_DOUBLE_EQ(z.median_cos_vL_small_n, 0.05);  // the N = 1024 spike is outside N <= 64

  const HeadLabel m = classify(mixer(), cfg);
  EXPECT_EQ(m.label, "Mixer") << m.rule;
  EXPECT_NEAR(m.slope_cos_v0, -0.1, 1e-12);  // slopes against ln(N)
  EXPECT_NEAR(m.slope_cos_vL, 0.08, 1e-12);
  EXPECT_LT(m.slope_cos_v0, 0);
  EXPECT_GT(m.slope_cos_vL, 0);
}

TEST(Taxonomy, RetrieverIsCheckedBeforeReset) {
  // c_last is largest and mean cos(s, v_L) = 0.6 >= 0.5: Retriever. With the Reset median
  // threshold raised to 0.7 the Reset rule (0.95 >= 0.8 x 1.0, median 0.6 < 0.7) holds too.
  HeadFeatures f{0.95, 1.0, 0.2, kGrid, curve(0.7, 0.0), curve(0.6, 0.0)};
  TaxonomyConfig cfg;
  cfg.reset_cos_vL_max = 0.7;  // now Reset's median rule holds too
  EXPECT_EQ(classify(f, cfg).label, "Retriever");
  cfg.retriever_cos_vL_min = 0.65;
  EXPECT_EQ(classify(f, cfg).label, "Reset");
}

TEST(Taxonomy, NaNEntriesAreSkipped) {
  HeadFeatures f = retriever();
  f.cos_s_vL[3] = kNaN;
  f.cos_s_vL[7] = kNaN;
  const HeadLabel h = classify(f, {});
  EXPECT_TRUE(std::isfinite(h.mean_cos_vL));
  EXPECT_TRUE(std::isfinite(h.slope_cos_vL));
  EXPECT_EQ(h.label, "Retriever");
  // Every entry undefined: the means and the slope are NaN, so no rule that needs them fires.
  HeadFeatures g = reset();
  for (auto& x : g.cos_s_vL) x = kNaN;
  const HeadLabel k = classify(g, {});
  EXPECT_TRUE(std::isnan(k.median_cos_vL_small_n));
  EXPECT_EQ(k.label, "Unlabelled");
}

// SPEC §6: Mixer is its signature, not every other head. A head whose cos(s, v_0) rises with N
// (the alignment does not leave the sink) and that is neither Retriever nor Reset was a Mixer
// under the old catch-all rule; it is Unlabelled, closest to Mixer, and says which slope failed.
TEST(Taxonomy, CatchAllHeadIsUnlabelled) {
  HeadFeatures f = mixer();
  f.cos_s_v0 = curve(0.2, 0.05);  // rises: the wrong way
  f.cos_s_vL = curve(0.3, 0.02);  // rises; mean 0.37 < 0.5, median over N <= 64 0.34 >= 0.3
  const HeadLabel h = classify(f, {});
  EXPECT_EQ(h.label, "Unlabelled") << h.rule;
  EXPECT_FALSE(h.slopes_by_interval);
  // SPEC §6 "closest": the smallest relative shortfall, not the fewest failed criteria. Mixer
  // fails one criterion by the most a sign can (1); Retriever fails two by 0.3 (c_last 0.7 under
  // c_rest 1.0) and 0.26 (mean cos(s, v_L) 0.369 under 0.5); Reset three by 0.14, 0.04 and 0.5.
  EXPECT_EQ(h.closest, "Retriever") << h.rule;
  EXPECT_NE(h.failed.find("c_last 0.7 the largest"), std::string::npos) << h.failed;
  // Closest by shortfall: c_last largest, mean cos(s, v_L) just under 0.5 -> Retriever, one
  // criterion short by 2%; its slopes are flat, so Mixer fails both of its criteria.
  HeadFeatures r{0.1, 2.0, 0.5, kGrid, curve(0.2, 0.0), curve(0.49, 0.0)};
  const HeadLabel q = classify(r, {});
  EXPECT_EQ(q.label, "Unlabelled");
  EXPECT_EQ(q.closest, "Retriever");
  EXPECT_NE(q.failed.find("mean cos(s, v_L) 0.49 >= 0.5"), std::string::npos) << q.failed;
}

// SPEC §6: where the run has intervals, each slope's must exclude 0 and its BH-adjusted p-value
// (SPEC §2b, set by taxonomy() across heads) be at most mixer_slope_fdr.
TEST(Taxonomy, MixerSignatureReadsTheIntervals) {
  HeadFeatures f = mixer();  // slopes -0.1 and +0.08
  f.slope_cos_v0_ci = std::array<double, 2>{-0.12, -0.08};
  f.slope_cos_vL_ci = std::array<double, 2>{0.05, 0.11};
  f.slope_cos_v0_q = f.slope_cos_vL_q = 0.01;
  HeadLabel h = classify(f, {});
  EXPECT_EQ(h.label, "Mixer") << h.rule;
  EXPECT_TRUE(h.slopes_by_interval);
  EXPECT_NE(h.rule.find("BH-adjusted p 0.01 <= 0.05"), std::string::npos) << h.rule;
  // Both intervals clear 0, but one slope's adjusted p-value is past the level: not a Mixer, short
  // by (0.24 - 0.05) / 0.95 = 0.2.
  f.slope_cos_vL_q = 0.24;
  h = classify(f, {});
  EXPECT_EQ(h.label, "Unlabelled") << h.rule;
  EXPECT_EQ(h.closest, "Mixer");
  EXPECT_NE(h.failed.find("BH-adjusted p 0.24 <= 0.05"), std::string::npos) << h.failed;
  f.slope_cos_vL_q = 0.01;
  // The point slope is positive but its interval holds 0: not a Mixer; 0.01 of the width 0.1 is
  // on the wrong side.
  f.slope_cos_vL_ci = std::array<double, 2>{-0.01, 0.09};
  h = classify(f, {});
  EXPECT_EQ(h.label, "Unlabelled") << h.rule;
  EXPECT_EQ(h.closest, "Mixer");
  EXPECT_NE(h.failed.find("interval [-0.01, 0.09]"), std::string::npos) << h.failed;
  // One interval missing (NaN): the signs decide, and the head says so.
  f.slope_cos_vL_ci = std::array<double, 2>{kNaN, kNaN};
  h = classify(f, {});
  EXPECT_EQ(h.label, "Mixer");
  EXPECT_FALSE(h.slopes_by_interval);
  EXPECT_NE(h.rule.find("its sign"), std::string::npos) << h.rule;
}

// A head at a threshold's edge: mean cos(s, v_L) exactly 0.5 is a Retriever (>= holds); at
// +10% it is not, and the sensitivity table lists exactly that head there, and no change at -10%.
TEST(Taxonomy, ThresholdEdgeAndTheSensitivityTable) {
  HeadFeatures edge{0.1, 2.0, 0.5, kGrid, curve(0.2, 0.0), curve(0.5, 0.0)};
  ASSERT_EQ(classify(edge, {}).mean_cos_vL, 0.5);
  EXPECT_EQ(classify(edge, {}).label, "Retriever");
  std::vector<TaxonomyInput> heads = {{0, 0, 3, retriever()}, {0, 1, 3, edge}, {1, 0, 3, reset()}, {1, 1, 3, mixer()}};
  const Taxonomy t = taxonomy(heads, {});
  ASSERT_EQ(t.sensitivity.size(), std::size(kTaxonomyThresholds) * std::size(kSensitivityFactors) + 1);
  EXPECT_EQ(t.sensitivity.back().threshold, kMixerSlopesBySign);
  for (const auto& row : t.sensitivity) {
    const bool up = row.threshold == std::string("retriever_cos_vL_min") && row.factor > 1;
    if (!up) {
      EXPECT_TRUE(row.changes.empty()) << row.threshold << " x " << row.factor;
      continue;
    }
    EXPECT_DOUBLE_EQ(row.value, 0.5 * row.factor);
    // The edge head (flat slopes: no Mixer signature) becomes Unlabelled; the true Retriever
    // (mean ~0.83) stays until 0.625.
    ASSERT_EQ(row.changes.size(), 1u) << row.factor;
    EXPECT_EQ(row.changes[0].head, 1);
    EXPECT_EQ(row.changes[0].from, "Retriever");
    EXPECT_EQ(row.changes[0].to, "Unlabelled");
  }
  // The whole-number threshold moves by rounding: 64 x 0.9 = 57.6 -> 58.
  for (const auto& row : t.sensitivity)
    if (row.threshold == std::string("reset_n_max") && row.factor == 0.9) EXPECT_EQ(row.value, 58);
}

TEST(Taxonomy, ConfigThresholdChangesTheOutcome) {
  // The Mixer head has mean cos(s, v_L) ~ 0.38 and c_last < c_rest; make c_last largest,
  // then lower the Retriever threshold through the config JSON.
  HeadFeatures f = mixer();
  f.c_last = 1.2;  // past c_rest: no longer between sink and rest (SPEC §6 Mixer (i))
  EXPECT_EQ(classify(f, taxonomy_config_from_json(json::object())).label, "Unlabelled");
  const auto cfg = taxonomy_config_from_json(json{{"retriever_cos_vL_min", 0.3}, {"_comment", "lower"}});
  EXPECT_EQ(cfg.retriever_cos_vL_min, 0.3);
  EXPECT_EQ(cfg.reset_sink_ratio, 0.8);  // missing keys keep their defaults
  EXPECT_EQ(classify(f, cfg).label, "Retriever");
  // reset_n_max: cos(s, v_L) = 0.05 for N <= 4 and 0.6 above; the median over N <= 64 is
  // 0.6 (not Reset), over N <= 4 it is 0.05 (Reset).
  HeadFeatures z = reset();
  for (size_t g = 3; g < kGrid.size(); ++g) z.cos_s_vL[g] = 0.6;
  EXPECT_EQ(classify(z, {}).label, "Unlabelled");  // its slopes are a Mixer's, but c_last 0.3 is not between 0.6 and 1
  EXPECT_EQ(classify(z, taxonomy_config_from_json(json{{"reset_n_max", 4}})).label, "Reset");
}

TEST(Taxonomy, ConfigRoundTripsAndDefaultsFileMatches) {
  TaxonomyConfig c;
  c.reset_n_max = 32;
  c.reset_sink_ratio = 1.5;
  const TaxonomyConfig back = taxonomy_config_from_json(json::parse(to_json(c).dump()));
  EXPECT_EQ(back.reset_n_max, 32);
  EXPECT_EQ(back.reset_sink_ratio, 1.5);
  EXPECT_EQ(to_json(c).dump(),
            R"({"retriever_cos_vL_min":0.5,"reset_sink_ratio":1.5,"reset_cos_vL_max":0.3,"reset_n_max":32,)"
            R"("reset_spread_entropy_min":0.9,"mixer_between_slack":1.0,"mixer_slope_fdr":0.05})");

  std::ifstream in(std::string(GEOATTN_SOURCE_DIR) + "/configs/taxonomy.json");
  ASSERT_TRUE(in.good());
  const TaxonomyConfig file = taxonomy_config_from_json(json::parse(in));
  EXPECT_EQ(to_json(file), to_json(TaxonomyConfig()));
}

TEST(Taxonomy, BadConfigIsAnError) {
  struct Case {
    json j;
    const char* needle;
  };
  for (const Case& k : std::vector<Case>{{json{{"retriever_cos_min", 0.5}}, "unknown key 'retriever_cos_min'"},
                                         {json{{"reset_n_max", 6.5}}, "'reset_n_max' must be an integer"},
                                         {json{{"reset_n_max", 0}}, "'reset_n_max' = 0"},
                                         {json{{"reset_sink_ratio", "high"}}, "'reset_sink_ratio' must be a number"},
                                         {json{{"reset_sink_ratio", -1}}, "'reset_sink_ratio' = -1"},
                                         {json{{"reset_cos_vL_max", 2}}, "'reset_cos_vL_max' = 2"},
                                         {json{{"reset_spread_entropy_min", -0.5}}, "'reset_spread_entropy_min' = -0.5"},
                                         {json{{"mixer_between_slack", 0}}, "'mixer_between_slack' = 0"},
                                         {json{{"mixer_slack", 1}}, "known: retriever_cos_vL_min, reset_sink_ratio, reset_cos_vL_max, reset_n_max, reset_spread_entropy_min, mixer_between_slack"},
                                         {json::array(), "expected a JSON object"}}) {
    const std::string what = error_of([&] { taxonomy_config_from_json(k.j); });
    EXPECT_NE(what.find(k.needle), std::string::npos) << what;
    EXPECT_EQ(what.find('\n'), std::string::npos);
  }
}

TEST(Taxonomy, ReportFromMeasureJson) {
  const json m = measure_with({{0, retriever()}, {0, reset()}, {1, mixer()}, {1, mixer()}, {1, reset()}});
  const auto r = taxonomy_report(m, {});
  EXPECT_EQ(r["schema"], "geoattn.taxonomy/1");
  EXPECT_EQ(r["model"]["name"], "tiny");
  EXPECT_EQ(r["config"]["reset_n_max"], 64);
  ASSERT_EQ(r["heads"].size(), 5u);
  EXPECT_EQ(r["heads"][0]["label"], "Retriever");
  EXPECT_EQ(r["heads"][1]["label"], "Reset");
  EXPECT_EQ(r["heads"][2]["label"], "Mixer");
  EXPECT_EQ(r["heads"][2]["layer"], 1);
  EXPECT_EQ(r["heads"][2]["head"], 2);
  EXPECT_EQ(r["heads"][2]["features"]["samples"], 3);
  EXPECT_NEAR(r["heads"][2]["features"]["slope_cos_vL"].get<double>(), 0.08, 1e-12);
  EXPECT_EQ(r["heads"][2]["features"]["slopes_by"], "sign");  // the measure has no slope intervals
  EXPECT_TRUE(r["heads"][2]["features"]["slope_cos_vL_ci"].is_null());
  EXPECT_EQ(r["layers"].dump(),
            R"([{"layer":0,"Retriever":1,"Mixer":0,"Reset":1,"Unlabelled":0},{"layer":1,"Retriever":0,"Mixer":2,"Reset":1,"Unlabelled":0}])");
  EXPECT_EQ(r["totals"].dump(), R"({"heads":5,"Retriever":1,"Mixer":2,"Reset":2,"Unlabelled":0})");
  EXPECT_EQ(r["sensitivity"].size(), 29u);
  EXPECT_EQ(r["mixers"].dump(), R"({"by_interval":0,"by_sign":2})");  // SPEC §6: counted apart
  EXPECT_EQ(r["slope_tests"]["tests"], 0);  // no p-values: no family
  EXPECT_EQ(r["heads"][2]["slopes_by"], "sign");
  EXPECT_EQ(r["heads"][1]["reset_branch"], "sink");
  EXPECT_TRUE(r["sensitivity"].back()["factor"].is_null());
  // The slopes' intervals are read from the measure: one that holds 0 unlabels the head.
  json mx = measure_with({{0, mixer()}});
  mx["heads"][0]["cos_s_v0_slope_ci"] = {-0.12, -0.08};
  mx["heads"][0]["cos_s_vL_slope_ci"] = {-0.01, 0.09};
  // An interval without its p-value is a result of an older geoattn: refused by name.
  EXPECT_NE(error_of([&] { taxonomy_report(mx, {}); }).find("heads[0].cos_s_v0_slope_p is missing beside its interval"),
            std::string::npos);
  mx["heads"][0]["cos_s_v0_slope_p"] = 0.0;
  mx["heads"][0]["cos_s_vL_slope_p"] = 0.08;
  const auto u = taxonomy_report(mx, {});
  EXPECT_EQ(u["slope_tests"]["tests"], 2);
  EXPECT_EQ(u["heads"][0]["features"]["slope_cos_vL_q"], 0.08);  // BH over 2: min(2 x 0.08 / 2, 1)
  EXPECT_EQ(u["heads"][0]["label"], "Unlabelled");
  EXPECT_EQ(u["heads"][0]["closest"], "Mixer");
  EXPECT_EQ(u["heads"][0]["features"]["slopes_by"], "interval");
  EXPECT_EQ(u["heads"][0]["features"]["slope_cos_vL_ci"].dump(), "[-0.01,0.09]");
  mx["heads"][0]["cos_s_vL_slope_ci"] = "x";
  EXPECT_NE(error_of([&] { taxonomy_report(mx, {}); }).find("heads[0].cos_s_vL_slope_ci must be [lo, hi] or null"),
            std::string::npos);
}

TEST(Taxonomy, NullCurveEntriesAndNullFeaturesInTheReport) {
  HeadFeatures f = mixer();
  f.cos_s_vL.assign(kGrid.size(), kNaN);
  f.cos_s_v0.assign(kGrid.size(), kNaN);
  const auto r = taxonomy_report(measure_with({{0, f}}), {});
  EXPECT_TRUE(r["heads"][0]["features"]["mean_cos_vL"].is_null());
  EXPECT_TRUE(r["heads"][0]["features"]["slope_cos_v0"].is_null());
}

TEST(Taxonomy, BadMeasureIsAnError) {
  const json good = measure_with({{0, retriever()}});
  struct Case {
    std::function<void(json&)> edit;
    const char* needle;
  };
  for (const Case& k : std::vector<Case>{
           {[](json& m) { m.erase("n_grid"); }, "no 'n_grid'"},
           {[](json& m) { m.erase("heads"); }, "no 'heads'"},
           {[](json& m) { m["heads"][0].erase("c_last"); }, "heads[0] has no 'c_last'"},
           {[](json& m) { m["heads"][0]["c_sink"] = nullptr; }, "heads[0].c_sink is null"},
           {[](json& m) { m["heads"][0]["layer"] = "0"; }, "heads[0].layer must be an integer"},
           {[](json& m) { m["heads"][0]["cos_s_vL"].erase(0); }, "heads[0].cos_s_vL must be an array of 11"},
           {[](json& m) { m["heads"][0]["cos_s_v0"][2] = "x"; }, "non-number entry"}}) {
    json m = good;
    k.edit(m);
    const std::string what = error_of([&] { taxonomy_report(m, {}); });
    EXPECT_NE(what.find(k.needle), std::string::npos) << what;
    EXPECT_EQ(what.find('\n'), std::string::npos);
  }
}

// SPEC §6 Mixer (i): "the last token is intermediate between sink and rest". A head with the
// alignment shift whose last token is far below both (SmolLM2 L12H8 of the review: c_sink 0.946,
// c_last 0.093, c_rest 1.311) is no Mixer; the failed criterion says so with its numbers.
TEST(Taxonomy, MixerNeedsTheLastTokenBetweenSinkAndRest) {
  HeadFeatures f = mixer();
  f.c_sink = 0.946, f.c_last = 0.093, f.c_rest = 1.311;
  HeadLabel h = classify(f, {});
  EXPECT_EQ(h.label, "Unlabelled") << h.rule;
  // Closest is Reset here (c_sink 10% short of 0.8 x c_rest, its other criteria met); with
  // cos(s, v_L) higher (0.57 at small N) Reset falls far short and Mixer is closest, its magnitude
  // condition the one it fails.
  EXPECT_EQ(h.closest, "Reset");
  f.cos_s_vL = curve(0.4, 0.08);
  h = classify(f, {});
  EXPECT_EQ(h.label, "Unlabelled") << h.rule;
  EXPECT_EQ(h.closest, "Mixer");
  EXPECT_NE(h.failed.find("c_last 0.093 between c_sink 0.946 and c_rest 1.311"), std::string::npos) << h.failed;
  // Between them (either order of sink and rest) it is a Mixer; the slack widens the band.
  f.cos_s_vL = curve(0.1, 0.08);
  f.c_last = 1.0;
  EXPECT_EQ(classify(f, {}).label, "Mixer");
  f.c_last = 1.4;
  EXPECT_EQ(classify(f, {}).label, "Unlabelled");
  TaxonomyConfig wide;
  wide.mixer_between_slack = 1.1;
  EXPECT_EQ(classify(f, wide).label, "Mixer");
}

// SPEC §6 Reset (b): "mass is broadly spread". SmolLM2 L0H0 of the review (c_rest 0.098, c_sink
// 0.0003, cos(s, v_L) -0.05) with a flat mean row is a Reset by branch b, and says so; without a
// row, or with a sharp one, it is not; the sink branch comes first where both hold.
TEST(Taxonomy, ResetBroadlySpreadBranch) {
  HeadFeatures f{0.0003, 0.01, 0.098, kGrid, curve(0.1, 0.0), curve(-0.05, 0.0)};
  EXPECT_EQ(classify(f, {}).label, "Unlabelled");  // no row: branch b cannot fire
  f.mean_row.assign(256, 1.0 / 256);
  EXPECT_NEAR(row_entropy(f.mean_row), 1.0, 1e-12);
  HeadLabel h = classify(f, {});
  EXPECT_EQ(h.label, "Reset") << h.rule;
  EXPECT_EQ(h.reset_branch, "spread");
  EXPECT_NE(h.rule.find("branch b"), std::string::npos) << h.rule;
  // A sharp row (half the mass on one token): normalized entropy far below 0.9.
  std::vector<double> sharp(256, 0.5 / 255);
  sharp[100] = 0.5 + 0.5 / 255;
  f.mean_row = sharp;
  EXPECT_LT(row_entropy(sharp), 0.9);
  EXPECT_EQ(classify(f, {}).label, "Unlabelled");
  // NaN positions past n are not entries; one entry or a zero row has no entropy.
  EXPECT_NEAR(row_entropy({0.5, 0.5, kNaN, kNaN}), 1.0, 1e-12);
  EXPECT_TRUE(std::isnan(row_entropy({1.0})));
  EXPECT_TRUE(std::isnan(row_entropy({0.0, 0.0})));
  // Reset also needs s(N) sink-biased at small N: cos(s, v_0) above cos(s, v_L).
  HeadFeatures z = reset();
  z.cos_s_v0 = curve(0.01, 0.0);
  EXPECT_NE(classify(z, {}).label, "Reset");
  EXPECT_EQ(classify(reset(), {}).reset_branch, "sink");
}

// SPEC §6: labels by the slopes' signs and by their intervals are counted apart, and the
// sensitivity table has a row that reads every Mixer's slopes by their signs.
TEST(Taxonomy, MixersBySignCountedApartAndTheirSensitivityRow) {
  HeadFeatures by_interval = mixer(), not_by_interval = mixer();
  by_interval.slope_cos_v0_ci = std::array<double, 2>{-0.12, -0.08};
  by_interval.slope_cos_vL_ci = std::array<double, 2>{0.05, 0.11};
  by_interval.slope_cos_v0_p = by_interval.slope_cos_vL_p = 0.001;
  not_by_interval.slope_cos_v0_ci = std::array<double, 2>{-0.12, -0.08};
  not_by_interval.slope_cos_vL_ci = std::array<double, 2>{-0.01, 0.09};  // holds 0: not a Mixer by interval
  not_by_interval.slope_cos_v0_p = 0.001, not_by_interval.slope_cos_vL_p = 0.3;
  const Taxonomy t = taxonomy({{0, 0, 3, by_interval}, {0, 1, 3, mixer()}, {0, 2, 3, not_by_interval}}, {});
  EXPECT_EQ(t.slope_tests, 4);
  EXPECT_EQ(t.mixers_by_interval, 1);
  EXPECT_EQ(t.mixers_by_sign, 1);
  EXPECT_EQ(t.totals[1], 2);  // kHeadLabels[1] is Mixer
  const SensitivityRow& row = t.sensitivity.back();
  EXPECT_EQ(row.threshold, kMixerSlopesBySign);
  ASSERT_EQ(row.changes.size(), 1u);
  EXPECT_EQ(row.changes[0].head, 2);
  EXPECT_EQ(row.changes[0].to, "Mixer");
  // Every criterion has a row: the Mixer's slack among them.
  bool slack_row = false;
  for (const auto& r : t.sensitivity) slack_row |= r.threshold == std::string("mixer_between_slack");
  EXPECT_TRUE(slack_row);
}

// SPEC §6 leave-one-out: a Retriever expects the larger drop of ||s(N)|| when L is removed, a
// Reset when the sink is; a label whose diagnostic disagrees is flagged, not relabelled.
TEST(Taxonomy, LeaveOneOutDiagnosticFlagsWithoutRelabelling) {
  HeadFeatures f = retriever();
  f.s_norm.assign(kGrid.size(), 2.0);
  f.s_loo_last.assign(kGrid.size(), 0.5);  // drop 1.5 for L
  f.s_loo_sink.assign(kGrid.size(), 1.9);  // drop 0.1 for the sink
  HeadLabel h = classify(f, {});
  EXPECT_EQ(h.label, "Retriever");
  EXPECT_DOUBLE_EQ(h.drop_last, 1.5);
  EXPECT_TRUE(h.flag.empty());
  std::swap(f.s_loo_last, f.s_loo_sink);
  h = classify(f, {});
  EXPECT_EQ(h.label, "Retriever");
  EXPECT_NE(h.flag.find("a Retriever expects the larger drop for L"), std::string::npos) << h.flag;
  HeadFeatures z = reset();
  z.s_norm.assign(kGrid.size(), 1.0);
  z.s_loo_sink.assign(kGrid.size(), 0.9);
  z.s_loo_last.assign(kGrid.size(), 0.2);
  EXPECT_NE(classify(z, {}).flag.find("a Reset expects the larger drop for the sink"), std::string::npos);
  EXPECT_EQ(taxonomy({{0, 0, 3, z}}, {}).flagged, 1);
}

// SPEC §2b: Benjamini-Hochberg's adjusted p-values equal their definition, q_i = min over the
// p_j >= p_i of m p_j / rank(p_j), at most 1 (ties, NaNs left out of m and of the result).
TEST(Taxonomy, BenjaminiHochbergEqualsItsDefinition) {
  std::vector<double> p = {0.01, kNaN, 0.04, 0.04, 0.2, 0.0, 0.9, 0.03, 0.5, 0.011};
  const auto q = bh_adjusted(p);
  std::vector<double> finite;
  for (const double x : p)
    if (!std::isnan(x)) finite.push_back(x);
  const double m = static_cast<double>(finite.size());
  for (size_t i = 0; i < p.size(); ++i) {
    if (std::isnan(p[i])) {
      EXPECT_TRUE(std::isnan(q[i]));
      continue;
    }
    double want = 1.0;
    for (const double pj : finite)
      if (pj >= p[i]) {
        const double rank = static_cast<double>(std::count_if(finite.begin(), finite.end(), [&](double x) { return x <= pj; }));
        want = std::min(want, m * pj / rank);
      }
    EXPECT_NEAR(q[i], want, 1e-15) << i;
  }
}

// SPEC §2b, §6: the slope tests are one family across heads. A head whose intervals clear 0 at
// p = 0.04 is a Mixer alone, and is not among 19 heads whose slopes are noise (p = 0.5): its
// adjusted p-value is 0.5; the sensitivity table names the level, and the head counted by its
// signs changes label there.
TEST(Taxonomy, SlopeTestsAreAdjustedAcrossHeads) {
  HeadFeatures lone = mixer();
  lone.slope_cos_v0_ci = std::array<double, 2>{-0.2, -0.001};
  lone.slope_cos_vL_ci = std::array<double, 2>{0.001, 0.2};
  lone.slope_cos_v0_p = lone.slope_cos_vL_p = 0.04;
  EXPECT_EQ(taxonomy({{0, 0, 3, lone}}, {}).heads[0].label.label, "Mixer");
  std::vector<TaxonomyInput> many = {{0, 0, 3, lone}};
  HeadFeatures noise = mixer();
  noise.slope_cos_v0_ci = std::array<double, 2>{-0.3, 0.1};
  noise.slope_cos_vL_ci = std::array<double, 2>{-0.1, 0.3};
  noise.slope_cos_v0_p = noise.slope_cos_vL_p = 0.5;
  for (int64_t h = 1; h < 20; ++h) many.push_back({0, h, 3, noise});
  const Taxonomy t = taxonomy(many, {});
  EXPECT_EQ(t.slope_tests, 40);
  EXPECT_EQ(t.heads[0].label.label, "Unlabelled") << t.heads[0].label.rule;
  EXPECT_NEAR(t.heads[0].input.features.slope_cos_v0_q, 0.5, 1e-15);
  EXPECT_EQ(t.mixers_by_interval, 0);
  bool level_row = false;
  for (const auto& r : t.sensitivity) level_row |= r.threshold == std::string("mixer_slope_fdr");
  EXPECT_TRUE(level_row);
}
