// geoattn bounds and taxonomy end to end on the embedded default (stories260K): the three
// sources of bounds, bounds' measured means equal measure's, fits in the measure JSON, the
// taxonomy and its config, and bad inputs.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <functional>
#include <map>
#include <numeric>

#include <nlohmann/json.hpp>

#include "geoattn/analysis/bounds.h"
#include "geoattn/io/safetensors.h"
#include "geoattn/report/measure_json.h"
#include "test_util.h"

using geoattn::testing::read_file;
using geoattn::testing::run_tool;
using geoattn::testing::source;
using geoattn::testing::TempDir;
using geoattn::testing::write_file;
using nlohmann::json;

namespace {

const std::string kRun = " --model " + source("models/stories260K") + " --data " +
                         source("data/tinystories/tinystories-sample.txt") + " --window stream --ctx 64 --max-windows 6";

// A result file; a measure result with its arrays file read back inline (as taxonomy reads it).
json load(const std::string& path) {
  const json j = json::parse(read_file(path));
  return geoattn::report::is_measure_schema(j) ? json(geoattn::report::read_measure(path)) : j;
}

// The samples of a capture with one query per window (alpha [W, L, H, 1, T], values [W, L, KV, T,
// d]), each written out from SPEC §5's definitions: a_i = alpha_i ||v_i||, rho_jk = cos(v_j, v_k)
// pair by pair, the top-N order; and the unit vectors u_k = v_k / ||v_k|| (0 for a zero vector),
// as rows [T, d] and columns [d, T].
struct CaptureSamples {
  int64_t W, L, H, Q, T, KV, d;
  std::vector<float> alpha, values;
  explicit CaptureSamples(const std::string& path) {
    geoattn::io::SafetensorsFile file(path);
    const auto& A = *file.header().find("alpha");
    const auto& V = *file.header().find("values");
    W = A.shape[0], L = A.shape[1], H = A.shape[2], Q = A.shape[3], T = A.shape[4], KV = V.shape[2], d = V.shape[4];
    alpha = file.read<float>("alpha", geoattn::io::Dtype::F32, A.shape);
    values = file.read<float>("values", geoattn::io::Dtype::F32, V.shape);
  }
  geoattn::analysis::BoundsInput sample(int64_t w, int64_t l, int64_t h, std::vector<double>* unit_rows = nullptr,
                                        std::vector<double>* unit_cols = nullptr) const {
    geoattn::analysis::BoundsInput in;
    in.d = d;
    in.a.resize(T);
    in.rho.resize(T, T);
    std::vector<double> norm(T);
    const float* row = &alpha[(((w * L + l) * H + h) * Q) * T];
    const float* v = &values[((w * L + l) * KV + h / (H / KV)) * T * d];
    if (unit_rows) unit_rows->resize(T * d), unit_cols->resize(d * T);
    for (int64_t i = 0; i < T; ++i) {
      double sq = 0;
      for (int64_t c = 0; c < d; ++c) sq += double(v[i * d + c]) * v[i * d + c];
      norm[i] = std::sqrt(sq);
      in.a[i] = double(row[i]) * norm[i];
      for (int64_t c = 0; unit_rows && c < d; ++c)
        (*unit_rows)[i * d + c] = (*unit_cols)[c * T + i] = norm[i] > 0 ? v[i * d + c] / norm[i] : 0.0;
    }
    for (int64_t i = 0; i < T; ++i)
      for (int64_t j = 0; j < T; ++j) {
        double dot = 0;
        for (int64_t c = 0; c < d; ++c) dot += double(v[i * d + c]) * v[j * d + c];
        in.rho(i, j) = norm[i] > 0 && norm[j] > 0 ? dot / (norm[i] * norm[j]) : 0;
      }
    in.order.resize(T);
    std::iota(in.order.begin(), in.order.end(), int64_t{0});
    std::stable_sort(in.order.begin(), in.order.end(), [&](int64_t x, int64_t y) { return row[x] > row[y]; });
    return in;
  }
};

// One measure run shared by the tests of this file.
class AnalysisCli : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    tmp_ = new TempDir;
    const auto r = run_tool("geoattn measure --quiet" + kRun + " --out " + (*tmp_ / "m.json"), *tmp_);
    ASSERT_EQ(r.code, 0) << r.err;
  }
  static void TearDownTestSuite() { delete tmp_; }
  static std::string measure() { return *tmp_ / "m.json"; }
  static TempDir* tmp_;
};
TempDir* AnalysisCli::tmp_ = nullptr;

}  // namespace

TEST_F(AnalysisCli, MeasureCarriesTheFits) {
  const json m = load(measure());
  EXPECT_EQ(m["settings"]["decay_k"], 64);
  ASSERT_EQ(m["heads"].size(), 40u);
  for (const auto& h : m["heads"]) {
    const auto& f = h["fits"];
    EXPECT_EQ(f["windows"], 6);
    ASSERT_EQ(f["norms"]["mean_norm"].size(), 64u);
    ASSERT_EQ(f["profile"]["mean_row"].size(), 64u);
    ASSERT_EQ(f["decay"]["c"].size(), 64u);
    double row_sum = 0;
    for (const auto& x : f["profile"]["mean_row"]) row_sum += x.get<double>();
    EXPECT_NEAR(row_sum, 1.0, 1e-5);  // the mean of rows that sum to 1
    EXPECT_TRUE(f["decay"]["c"][61].is_number());  // k = 62 = T - 2: one pair, (1, 63)
    EXPECT_TRUE(f["decay"]["c"][62].is_null());    // k = 63 > T - 2: no pair
    EXPECT_GT(f["norms"]["C"].get<double>(), 0);
    // SPEC §4: a fit is ok only where identified; at T = 64 some oscillations are too short.
    if (f["profile"]["ok"].get<bool>())
      EXPECT_LE(f["profile"]["T1"].get<int64_t>(), f["profile"]["T2"].get<int64_t>());
    else
      EXPECT_EQ(f["profile"]["why"].get<std::string>().rfind("profile identifiability: ", 0), 0u) << f["profile"]["why"];
  }
}

TEST_F(AnalysisCli, BoundsFromTheModelBesideTheMeasurements) {
  TempDir tmp;
  const auto r = run_tool("geoattn bounds --quiet" + kRun + " --out " + (tmp / "b.json"), tmp);
  ASSERT_EQ(r.code, 0) << r.err;
  const json b = load(tmp / "b.json"), m = load(measure());
  EXPECT_EQ(b["schema"], "geoattn.bounds/1");
  EXPECT_EQ(b["source"], "model");
  EXPECT_EQ(b["n_grid"], m["n_grid"]);
  EXPECT_EQ(b["global"]["P_rmax"], m["global"]["P_rmax"]);  // the same windows, the same core
  EXPECT_EQ(b["heads"][7]["R_rmin"], m["heads"][7]["R_rmin"]);
  const size_t G = b["n_grid"].size();
  for (const auto& group : {b["global"], b["layers"][2], b["heads"][13]}) {
    for (const char* k : {"P_lo", "P_up", "R_lo", "R_up", "F_rmax_lo", "F_rmax_up", "F_rmin_lo", "F_rmin_up"}) {
      ASSERT_EQ(group[k].size(), G) << k;
      EXPECT_EQ(group[k][0], 1.0) << k;  // N = 1: every bound is 1
      EXPECT_EQ(group[k][G - 1], 1.0) << k;  // N = q + 1 = T
      for (const auto& x : group[k]) EXPECT_TRUE(x.get<double>() >= 0 && x.get<double>() <= 1) << k;
    }
    for (size_t g = 0; g < G; ++g) {
      const double N = b["n_grid"][g];
      EXPECT_GE(group["P_lo"][g].get<double>(), N / 64 - 1e-12);  // P_lo >= N/(q+1)
      EXPECT_LE(group["P_lo"][g].get<double>(), group["P_up"][g].get<double>() + 1e-12);
    }
  }
  EXPECT_EQ(b["settings"]["kappa"], 1.0);
  EXPECT_TRUE(b["settings"]["conventions"].contains("Delta0"));
}

TEST_F(AnalysisCli, BoundsFromACaptureEqualBoundsFromTheModel) {
  TempDir tmp;
  auto r = run_tool("geoattn capture --quiet" + kRun + " --out " + (tmp / "c.safetensors"), tmp);
  ASSERT_EQ(r.code, 0) << r.err;
  r = run_tool("geoattn bounds --quiet --capture " + (tmp / "c.safetensors") + " --kappa 0.5 --out " + (tmp / "a.json"), tmp);
  ASSERT_EQ(r.code, 0) << r.err;
  r = run_tool("geoattn bounds --quiet" + kRun + " --kappa 0.5 --out " + (tmp / "b.json"), tmp);
  ASSERT_EQ(r.code, 0) << r.err;
  const json a = load(tmp / "a.json"), b = load(tmp / "b.json");
  EXPECT_EQ(a["source"], "capture");
  for (const char* k : {"P_lo", "P_up", "R_lo", "R_up", "P_rmax", "R_rmin"})
    for (size_t g = 0; g < a["n_grid"].size(); ++g)
      EXPECT_NEAR(a["global"][k][g].get<double>(), b["global"][k][g].get<double>(), 1e-9) << k;
}

TEST_F(AnalysisCli, BoundsFromParameters) {
  TempDir tmp;
  auto r = run_tool("geoattn bounds --params " + source("configs/bounds-llama2-7b.json") + " --samples 2 --out " +
                        (tmp / "p.json"), tmp);
  ASSERT_EQ(r.code, 0) << r.err;
  const json p = load(tmp / "p.json");
  EXPECT_EQ(p["source"], "params");
  EXPECT_EQ(p["params"]["T"], 1024);
  EXPECT_EQ(p["params"]["samples"], 2);
  EXPECT_EQ(p["n_grid"].back(), 1024);
  ASSERT_EQ(p["bounds"]["R_up"].size(), p["n_grid"].size());
  // The fits of one head of a measure JSON, as parameters: a head of layer 1 whose three fits
  // are identified (SPEC §4: one that is not is refused by name).
  const json m = load(measure());
  int64_t head = -1;
  for (int64_t i = 8; i < 16 && head < 0; ++i)
    if (m["heads"][i]["fits"]["norms"]["ok"] && m["heads"][i]["fits"]["decay"]["ok"] && m["heads"][i]["fits"]["profile"]["ok"])
      head = i - 8;
  ASSERT_GE(head, 0);
  r = run_tool("geoattn bounds --params " + measure() + " --layer 1 --head " + std::to_string(head) + " --out " + (tmp / "h.json"), tmp);
  ASSERT_EQ(r.code, 0) << r.err;
  const json h = load(tmp / "h.json");
  EXPECT_EQ(h["params"]["T"], 64);
  EXPECT_EQ(h["params"]["beta"], m["heads"][8 + head]["fits"]["decay"]["beta"]);
  EXPECT_EQ(h["params_of"]["layer"], 1);
  r = run_tool("geoattn bounds --params " + measure() + " --layer 9 --head 0 --out " + (tmp / "x.json"), tmp);
  EXPECT_NE(r.code, 0);
  EXPECT_NE(r.err.find("no head (9, 0)"), std::string::npos) << r.err;
}

TEST_F(AnalysisCli, Taxonomy) {
  TempDir tmp;
  auto r = run_tool("geoattn taxonomy --from " + measure() + " --out " + (tmp / "t.json"), tmp);
  ASSERT_EQ(r.code, 0) << r.err;
  const json t = load(tmp / "t.json");
  EXPECT_EQ(t["schema"], "geoattn.taxonomy/1");
  ASSERT_EQ(t["heads"].size(), 40u);
  ASSERT_EQ(t["layers"].size(), 5u);
  int64_t total = 0;
  for (const auto& l : t["layers"])
    total += l["Retriever"].get<int64_t>() + l["Mixer"].get<int64_t>() + l["Reset"].get<int64_t>() + l["Unlabelled"].get<int64_t>();
  EXPECT_EQ(total, 40);
  for (const auto& h : t["heads"]) {
    EXPECT_TRUE(h["label"] == "Retriever" || h["label"] == "Mixer" || h["label"] == "Reset" || h["label"] == "Unlabelled");
    EXPECT_FALSE(h["rule"].get<std::string>().empty());
    // One document: no slope intervals, so the Mixer signature is read by the signs, and said so.
    EXPECT_EQ(h["features"]["slopes_by"], "sign");
    if (h["label"] == "Unlabelled") EXPECT_FALSE(h["failed"].get<std::string>().empty());
  }
  // The sensitivity table on this real run: each row's heads are exactly those whose label
  // changes when `geoattn taxonomy --config` runs with that threshold moved.
  ASSERT_EQ(t["sensitivity"].size(), 29u);  // 7 thresholds x 4 factors, and the Mixer's slopes by their signs
  for (const auto& row : t["sensitivity"]) {
    if (row["factor"] != 1.25 && row["factor"] != 0.75) continue;
    const std::string name = row["threshold"], cfg = tmp / (name + ".json");
    const json value = name == "reset_n_max" ? json(row["value"].get<int64_t>()) : row["value"];
    write_file(cfg, json{{name, value}}.dump());
    r = run_tool("geoattn taxonomy --quiet --from " + measure() + " --config " + cfg + " --out " + (tmp / "moved.json"), tmp);
    ASSERT_EQ(r.code, 0) << r.err;
    const json moved = load(tmp / "moved.json");
    json changed = json::array();
    for (size_t i = 0; i < moved["heads"].size(); ++i)
      if (moved["heads"][i]["label"] != t["heads"][i]["label"])
        changed.push_back({{"layer", moved["heads"][i]["layer"]}, {"head", moved["heads"][i]["head"]},
                           {"from", t["heads"][i]["label"]}, {"to", moved["heads"][i]["label"]}});
    EXPECT_EQ(row["heads"], changed) << name << " x " << row["factor"];
    EXPECT_EQ(row["changed"], changed.size());
  }
  // Thresholds from a config change the outcome: no head reaches a mean cos(s, v_L) of 1, and
  // with a sink ratio of 0 and a cos(s, v_L) ceiling of 1 every head is a Reset whose s(N) is
  // sink-biased at small N (SPEC §6: the median of cos(s, v_0) over N <= 64 above cos(s, v_L)'s).
  int64_t sink_biased = 0;
  for (const auto& h : t["heads"])
    sink_biased += h["features"]["median_cos_v0_small_n"].get<double>() > h["features"]["median_cos_vL_small_n"].get<double>();
  ASSERT_GT(sink_biased, 0);
  write_file(tmp / "all-reset.json", R"({"reset_sink_ratio": 0.0, "reset_cos_vL_max": 1.0, "retriever_cos_vL_min": 1.0})");
  r = run_tool("geoattn taxonomy --from " + measure() + " --config " + (tmp / "all-reset.json") + " --out " + (tmp / "r.json"), tmp);
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(load(tmp / "r.json")["totals"]["Reset"], sink_biased);
}

TEST_F(AnalysisCli, BadInputs) {
  TempDir tmp;
  write_file(tmp / "broken.json", "{\"schema\": ");
  write_file(tmp / "other.json", R"({"schema": "geoattn.bounds/1"})");
  write_file(tmp / "badcfg.json", R"({"reset_sink_ratio": "high"})");
  const std::string out = tmp / "out.json";
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"bounds --kappa 0" + kRun, "--kappa"},
      {"bounds --capture " + (tmp / "none.safetensors") + " --params " + measure(), "excludes"},
      {"bounds --n 1:16", "exactly one of"},
      {"bounds --params " + (tmp / "broken.json"), "not valid JSON"},
      {"bounds --params " + (tmp / "other.json"), "other.json"},
      {"bounds --capture " + (tmp / "broken.json"), "broken.json"},
      {"bounds" + kRun + " --n 0:3", "--n"},
      {"taxonomy --from " + (tmp / "broken.json"), "not valid JSON"},
      {"taxonomy --from " + (tmp / "other.json"), "other.json"},
      {"taxonomy --from " + measure() + " --config " + (tmp / "badcfg.json"), "reset_sink_ratio"},
      {"taxonomy --from " + (tmp / "missing.json"), "cannot open"},
  };
  for (const auto& [args, needle] : cases) {
    const auto r = run_tool("geoattn " + args + " --out " + out, tmp);
    EXPECT_NE(r.code, 0) << args;
    EXPECT_LT(r.code, 128) << args;  // no signal
    EXPECT_NE(r.err.find(needle), std::string::npos) << args << "\n" << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << args << "\n" << r.err;
    EXPECT_FALSE(std::filesystem::exists(out)) << args;
  }
}

// SPEC §2b: one document (the stream of one .txt) is one bootstrap unit: no interval anywhere,
// the result and the run's last line say why, and Fig. 5 draws no rings (tests/test_plot_figures.py).
TEST_F(AnalysisCli, OneDocumentHasNoIntervals) {
  const json m = load(measure());
  EXPECT_EQ(m["bootstrap"]["units"], 1);
  EXPECT_EQ(m["bootstrap"]["intervals"], false);
  EXPECT_EQ(m["bootstrap"]["few_units"], false);
  EXPECT_NE(m["bootstrap"]["why"].get<std::string>().find("no intervals: 1 bootstrap unit (document)"), std::string::npos);
  const std::function<void(const json&, const std::string&)> no_ci = [&](const json& j, const std::string& where) {
    if (j.is_object())
      for (const auto& [k, v] : j.items()) {
        EXPECT_FALSE(k.size() > 3 && k.compare(k.size() - 3, 3, "_ci") == 0) << where << "." << k;
        no_ci(v, where + "." + k);
      }
    else if (j.is_array())
      for (const auto& v : j) no_ci(v, where);
  };
  for (const char* group : {"global", "layers", "heads"}) no_ci(m[group], group);
  // The run's last line says it too.
  TempDir tmp;
  const auto r = run_tool("geoattn measure" + kRun + " --out " + (tmp / "m.json"), tmp);
  ASSERT_EQ(r.code, 0) << r.err;
  const std::string last = r.err.substr(r.err.rfind("wrote "));
  EXPECT_NE(last.find("; no intervals: 1 bootstrap unit (document)"), std::string::npos) << last;
}

// SPEC §2b: 2 to 9 units give intervals flagged as from few units.
TEST_F(AnalysisCli, FewUnitsAreFlagged) {
  TempDir tmp;
  const auto r = run_tool("geoattn measure --quiet" + kRun + " --bootstrap-unit window --bootstrap 200 --out " + (tmp / "w.json"), tmp);
  ASSERT_EQ(r.code, 0) << r.err;
  const json m = load(tmp / "w.json");
  EXPECT_EQ(m["bootstrap"]["units"], 6);
  EXPECT_EQ(m["bootstrap"]["intervals"], true);
  EXPECT_EQ(m["bootstrap"]["few_units"], true);
  EXPECT_NE(m["bootstrap"]["why"].get<std::string>().find("6 windows (fewer than 10)"), std::string::npos);
  EXPECT_TRUE(m["global"]["P_rmax_ci"].is_array());
  EXPECT_TRUE(m["heads"][0].contains("cos_s_vL_slope_ci"));
}

// SPEC §5, "What the envelopes can say", against a brute force on a real capture (stories260K,
// the last query of 6 stream windows, every N): per head, the kappa-free upper envelopes are the
// means of SPEC §5's P_up0, R_up0 over the samples, from bounds_terms (every mu_ij, from the
// definitions), the non-trivial share counts Delta > 0 among 1 < N < n, P_up <= P_up0, and
// `leaves` lists exactly the N where the result's own means leave each envelope.
TEST_F(AnalysisCli, EnvelopeReadingOnARealCapture) {
  TempDir tmp;
  auto r = run_tool("geoattn capture" + kRun + " --out " + (tmp / "c.safetensors"), tmp);
  ASSERT_EQ(r.code, 0) << r.err;
  r = run_tool("geoattn metrics --capture " + (tmp / "c.safetensors") + " --n all --bootstrap 0 --controls 0 --out " +
                   (tmp / "e.json"),
               tmp);
  ASSERT_EQ(r.code, 0) << r.err;
  const json m = load(tmp / "e.json");
  const CaptureSamples cap(tmp / "c.safetensors");
  const int64_t W = cap.W, L = cap.L, H = cap.H, T = cap.T;
  ASSERT_EQ(cap.Q, 1);
  const auto grid = m["n_grid"].get<std::vector<int64_t>>();
  ASSERT_EQ(std::ssize(grid), T);  // --n all
  int64_t open_all = 0, nontrivial_all = 0, leaves_up0 = 0;
  for (int64_t l = 0; l < L; ++l)
    for (int64_t h = 0; h < H; ++h) {
      // The sums over windows of every bound, from the definitions (bounds_terms: every mu_ij, p_ij).
      std::vector<double> P_up0(T, 0), R_up0(T, 0), P_lo(T, 0), P_up(T, 0), R_lo(T, 0), R_up(T, 0);
      int64_t open = 0, nontrivial = 0;
      for (int64_t w = 0; w < W; ++w) {
        const auto in = cap.sample(w, l, h);
        for (int64_t N = 1; N <= T; ++N) {
          const auto t = geoattn::analysis::bounds_terms(in, N);
          P_up0[N - 1] += t.P_up0, R_up0[N - 1] += t.R_up0;
          P_lo[N - 1] += t.P_lo, P_up[N - 1] += t.P_up, R_lo[N - 1] += t.R_lo, R_up[N - 1] += t.R_up;
          if (N > 1 && N < T) ++open, nontrivial += t.Delta > 0;
        }
      }
      const json& e = m["heads"][l * H + h]["envelopes"];
      const std::string where = "head (" + std::to_string(l) + ", " + std::to_string(h) + ")";
      for (int64_t g = 0; g < T; ++g) {
        EXPECT_NEAR(e["P_up0"][g].get<double>(), P_up0[g] / W, 1e-12) << where << " N " << g + 1;
        EXPECT_NEAR(e["R_up0"][g].get<double>(), R_up0[g] / W, 1e-12) << where << " N " << g + 1;
        EXPECT_NEAR(e["P_lo"][g].get<double>(), P_lo[g] / W, 1e-12) << where << " N " << g + 1;
        EXPECT_NEAR(e["P_up"][g].get<double>(), P_up[g] / W, 1e-12) << where << " N " << g + 1;
        EXPECT_NEAR(e["R_lo"][g].get<double>(), R_lo[g] / W, 1e-12) << where << " N " << g + 1;
        EXPECT_NEAR(e["R_up"][g].get<double>(), R_up[g] / W, 1e-12) << where << " N " << g + 1;
        EXPECT_LE(e["P_up"][g].get<double>(), e["P_up0"][g].get<double>()) << where;
        EXPECT_LE(e["R_up"][g].get<double>(), e["R_up0"][g].get<double>()) << where;
      }
      EXPECT_EQ(e["nontrivial_share"].get<double>(), double(nontrivial) / double(open)) << where;
      open_all += open, nontrivial_all += nontrivial;
      // The leaves, from the result's own means and envelopes.
      const auto& head = m["heads"][l * H + h];
      std::map<std::string, std::vector<int64_t>> want;
      for (int64_t g = 0; g < T; ++g) {
        const double P = head["P_rmax"][g].get<double>(), R = head["R_rmin"][g].get<double>();
        if (P > e["P_up"][g].get<double>()) want["P_up"].push_back(grid[g]);
        if (P < e["P_lo"][g].get<double>()) want["P_lo"].push_back(grid[g]);
        if (R > e["R_up"][g].get<double>()) want["R_up"].push_back(grid[g]);
        if (R < e["R_lo"][g].get<double>()) want["R_lo"].push_back(grid[g]);
        if (P > e["P_up0"][g].get<double>()) want["P_up0"].push_back(grid[g]);
        if (R > e["R_up0"][g].get<double>()) want["R_up0"].push_back(grid[g]);
      }
      for (const char* k : {"P_up", "P_lo", "R_up", "R_lo", "P_up0", "R_up0"})
        EXPECT_EQ(e["leaves"][k].get<std::vector<int64_t>>(), want[k]) << where << " " << k;
      leaves_up0 += std::ssize(want["P_up0"]) + std::ssize(want["R_up0"]);
    }
  // The run's share over every head's samples.
  EXPECT_EQ(m["global"]["envelopes"]["nontrivial_share"].get<double>(), double(nontrivial_all) / double(open_all));
  EXPECT_GT(open_all, 0);
  RecordProperty("nontrivial_share", std::to_string(double(nontrivial_all) / double(open_all)));
  RecordProperty("leaves_kappa_free", std::to_string(leaves_up0));
}

// Where the grid's G values times d are at most n (here the default grid at T = 256: 24 values of d = 8),
// the envelopes take rho_jk = <u_j, u_k> from the block's unit vectors and M_j = <w, u_j>
// (analysis::BoundsView::units), not the Gram matrix's columns. On a real stories260K capture:
// every sample's curves from the unit vectors equal those from rho (the cosines written out
// pair by pair) within 1e-12, the kappa-free bounds and the flags exactly; and the run's
// envelopes are their means.
TEST_F(AnalysisCli, UnitVectorsGiveTheGramsBounds) {
  TempDir tmp;
  const std::string run = " --model " + source("models/stories260K") + " --data " +
                          source("data/tinystories/tinystories-sample.txt") + " --window stream --ctx 256 --max-windows 4";
  auto r = run_tool("geoattn capture" + run + " --out " + (tmp / "c.safetensors"), tmp);
  ASSERT_EQ(r.code, 0) << r.err;
  r = run_tool("geoattn metrics --capture " + (tmp / "c.safetensors") + " --bootstrap 0 --controls 0 --out " + (tmp / "e.json"), tmp);
  ASSERT_EQ(r.code, 0) << r.err;
  const json m = load(tmp / "e.json");
  const CaptureSamples cap(tmp / "c.safetensors");
  const int64_t W = cap.W, L = cap.L, H = cap.H, T = cap.T, d = cap.d;
  ASSERT_EQ(cap.Q, 1);
  ASSERT_EQ(T, 256);
  const auto grid = m["n_grid"].get<std::vector<int64_t>>();
  ASSERT_LE(std::ssize(grid) * d, T);  // the unit vectors' side of per_grid_value_cheaper
  const std::vector<double> kappa = {m["settings"]["envelopes"]["kappa"].get<double>()};
  int64_t compared = 0, nontrivial = 0;
  for (int64_t l = 0; l < L; ++l)
    for (int64_t h = 0; h < H; ++h) {
      std::vector<double> sums(geoattn::analysis::kBoundCurves * grid.size(), 0.0);
      for (int64_t w = 0; w < W; ++w) {
        std::vector<double> rows, cols;
        const auto in = cap.sample(w, l, h, &rows, &cols);
        const Eigen::MatrixXd none;
        const geoattn::analysis::BoundsView units{in.a, Eigen::Map<const Eigen::MatrixXd, 0, Eigen::OuterStride<>>(none.data(), 0, 0, Eigen::OuterStride<>(1)),
                                                  in.order, d, true, true, {rows.data(), cols.data(), T}};
        const auto by_rho = geoattn::analysis::sample_bounds(in, grid, kappa).front();
        const auto by_units = geoattn::analysis::sample_bounds(units, grid, kappa).front();
        const auto a = curve_fields(by_rho), b = curve_fields(by_units);
        const std::string where = "window " + std::to_string(w) + " head (" + std::to_string(l) + ", " + std::to_string(h) + ")";
        for (size_t f = 0; f < a.size(); ++f)
          for (size_t g = 0; g < grid.size(); ++g) {
            if (f >= 8)  // P_up0, R_up0: the signs of the margins
              ASSERT_EQ((*b[f])[g], (*a[f])[g]) << where << " " << geoattn::analysis::kBoundsNames[f] << " N " << grid[g];
            else
              ASSERT_NEAR((*b[f])[g], (*a[f])[g], 1e-12) << where << " " << geoattn::analysis::kBoundsNames[f] << " N " << grid[g];
            sums[f * grid.size() + g] += (*b[f])[g];
            ++compared;
          }
        ASSERT_EQ(by_units.open, by_rho.open) << where;
        ASSERT_EQ(by_units.nontrivial, by_rho.nontrivial) << where;
        nontrivial += std::count(by_units.nontrivial.begin(), by_units.nontrivial.end(), 1);
      }
      // The run's envelopes: the means of the samples' curves.
      const json& e = m["heads"][l * H + h]["envelopes"];
      for (size_t f = 0; f < geoattn::analysis::kBoundCurves; ++f)
        for (size_t g = 0; g < grid.size(); ++g)
          EXPECT_NEAR(e[geoattn::analysis::kBoundsNames[f]][g].get<double>(), sums[f * grid.size() + g] / W, 1e-12)
              << "head (" << l << ", " << h << ") " << geoattn::analysis::kBoundsNames[f] << " N " << grid[g];
    }
  EXPECT_GT(nontrivial, 0);  // lower bounds that say something were compared too
  RecordProperty("compared", std::to_string(compared));
  // geoattn bounds on the same capture (the hook making each sample's row and order itself): the
  // same envelopes bit for bit (results.md).
  r = run_tool("geoattn bounds --quiet --capture " + (tmp / "c.safetensors") + " --out " + (tmp / "b.json"), tmp);
  ASSERT_EQ(r.code, 0) << r.err;
  const json b = load(tmp / "b.json");
  for (int64_t i = 0; i < L * H; ++i)
    for (const char* k : geoattn::analysis::kBoundsNames) {
      ASSERT_EQ(b["heads"][i][k].size(), grid.size()) << "head " << i << " " << k;
      EXPECT_EQ(b["heads"][i][k], m["heads"][i]["envelopes"][k]) << "head " << i << " " << k;
    }
}
