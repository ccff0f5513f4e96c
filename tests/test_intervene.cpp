// Interventions on heads (model/intervention.h) and what an intervened run reads
// (metrics/intervene/loss_stats.h), by constructions that cannot be wrong on a real trained model
// (stories260K, GQA) and a tiny Mistral with a sliding window: an edit that keeps every key is the
// plain run bit for bit, zeroing a layer's heads is removing its attention output, the layers below
// an intervention are untouched, and the kept keys are the policy's.
#include "geoattn/model/intervention.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include <nlohmann/json.hpp>

#include "geoattn/analysis/budgets.h"
#include "geoattn/metrics/intervene/loss_stats.h"
#include "geoattn/model/decoder.h"
#include "geoattn/pipeline_torch/intervene.h"
#include "geoattn/report/measure_json.h"
#include "geoattn/util/error.h"
#include "test_util.h"

using namespace geoattn;
using geoattn::testing::error_of;
using geoattn::testing::read_file;
using geoattn::testing::run_tool;
using geoattn::testing::TempDir;
using geoattn::testing::fixture;
using geoattn::testing::source;

namespace {

struct Model {
  io::Checkpoint checkpoint;
  model::Decoder decoder;
  explicit Model(const std::string& dir)
      : checkpoint(io::Checkpoint::open(dir)), decoder(model::Decoder::load(checkpoint, torch::kFloat32, torch::kCPU)) {}
  int64_t L() const { return checkpoint.config.n_layers; }
  int64_t H() const { return checkpoint.config.n_heads; }
};

const Model& stories() {
  static const Model m(source("models/stories260K"));
  return m;
}

torch::Tensor window_ids(int64_t T, int64_t vocab) {
  std::vector<int64_t> ids = {1};
  for (int64_t i = 1; i < T; ++i) ids.push_back((i * 37 + 11) % vocab);
  return torch::tensor(ids).unsqueeze(0);  // [1, T]
}

model::HeadEdits all_heads_of(const Model& m, int64_t layer, model::Intervention iv) {
  std::vector<std::pair<int64_t, int64_t>> heads;
  for (int64_t h = 0; h < m.H(); ++h) heads.emplace_back(layer, h);
  return model::HeadEdits(m.L(), m.H(), heads, iv);
}

}  // namespace

TEST(Intervention, ParsesEveryPolicyAndRefusesTheRest) {
  EXPECT_EQ(model::Intervention::parse("zero"), (model::Intervention{model::Edit::Zero, 0}));
  EXPECT_EQ(model::Intervention::parse("top-n:8"), (model::Intervention{model::Edit::TopN, 8}));
  EXPECT_EQ(model::Intervention::parse("sink-recent:16").text(), "sink-recent:16");
  EXPECT_EQ(model::Intervention::parse("random:3").n, 3);
  EXPECT_EQ(model::Intervention::parse("mean").text(), "mean");
  EXPECT_FALSE(model::Intervention::parse("mean").edits_rows());
  for (const char* bad : {"zero:1", "mean:2", "top-n", "top-n:0", "top-n:-1", "top-n:x", "keep:3", "", "random:1.5"})
    EXPECT_NE(error_of([&] { (void)model::Intervention::parse(bad); }).find("is not zero, mean, top-n:N"), std::string::npos)
        << bad;
  EXPECT_NE(error_of([] { model::HeadEdits(2, 4, {{2, 0}}, {}); }).find("head 2.0 is not in the model's 2 layers x 4 heads"),
            std::string::npos);
}

// An edit that keeps every key a row sees leaves the run as it was, bit for bit: top-n:T and
// sink-recent:T on every head of every layer.
TEST(Intervention, KeepingEveryKeyIsThePlainRunBitForBit) {
  const Model& m = stories();
  const int64_t T = 64;
  const auto ids = window_ids(T, m.checkpoint.config.vocab);
  const auto plain = m.decoder.forward(ids);
  std::vector<std::pair<int64_t, int64_t>> every;
  for (int64_t l = 0; l < m.L(); ++l)
    for (int64_t h = 0; h < m.H(); ++h) every.emplace_back(l, h);
  for (const char* policy : {"top-n:64", "sink-recent:64", "top-n:1000"}) {
    model::HeadEdits edits(m.L(), m.H(), every, model::Intervention::parse(policy));
    EXPECT_TRUE(torch::equal(m.decoder.forward(ids, edits), plain)) << policy;
  }
  // One key fewer changes it.
  model::HeadEdits fewer(m.L(), m.H(), every, model::Intervention::parse("sink-recent:62"));
  EXPECT_FALSE(torch::equal(m.decoder.forward(ids, fewer), plain));
}

// Zeroing every head of layer l is removing that layer's attention output: the same logits as
// the model whose output projection of layer l is zero.
TEST(Intervention, ZeroingEveryHeadOfALayerRemovesItsAttentionOutput) {
  const Model& m = stories();
  const auto ids = window_ids(48, m.checkpoint.config.vocab);
  for (int64_t l : {0, 2, 4}) {
    model::Weights weights = model::load_weights(m.checkpoint, torch::kFloat32, torch::kCPU);
    weights.layers[static_cast<size_t>(l)].wo = torch::zeros_like(weights.layers[static_cast<size_t>(l)].wo);
    const model::Decoder without(m.checkpoint.config, std::move(weights), torch::kFloat32, torch::kCPU);
    const auto zeroed = m.decoder.forward(ids, all_heads_of(m, l, model::Intervention::parse("zero")));
    EXPECT_TRUE(torch::equal(zeroed, without.forward(ids))) << "layer " << l;
    EXPECT_FALSE(torch::equal(zeroed, m.decoder.forward(ids))) << "layer " << l;
  }
}

// An intervention on layer l leaves the residual stream entering layers 0..l bit for bit, and
// changes what enters layer l + 1.
TEST(Intervention, LayersBelowTheInterventionAreUntouched) {
  const Model& m = stories();
  const auto ids = window_ids(40, m.checkpoint.config.vocab);
  const model::HookSpec hooks({"blocks.*.hook_resid_pre"}, m.L());
  model::HookCache plain, edited;
  m.decoder.forward(ids, hooks, plain);
  const int64_t l = 2;
  const model::HeadEdits edits(m.L(), m.H(), {{l, 3}, {l, 5}}, model::Intervention::parse("top-n:4"));
  m.decoder.forward(ids, hooks, edited, /*want_logits=*/true, &edits);
  for (int64_t k = 0; k <= l; ++k)
    EXPECT_TRUE(torch::equal(plain.get(k, model::HookPoint::ResidPre), edited.get(k, model::HookPoint::ResidPre))) << k;
  EXPECT_FALSE(torch::equal(plain.get(l + 1, model::HookPoint::ResidPre), edited.get(l + 1, model::HookPoint::ResidPre)));
}

// The keys kept are the policy's: per row of T queries (query i sees i + 1 keys), top-n:N keeps
// min(N, i + 1), sink-recent:K min(K, i + 1) plus the first key where it is not among them, and
// random:N the first key and min(N, i) others; the draws are the same whatever the window's blocks.
TEST(Intervention, EachPolicyKeepsItsKeys) {
  const Model& m = stories();
  const int64_t T = 50;
  const auto ids = window_ids(T, m.checkpoint.config.vocab);
  const auto expect = [&](const char* policy, auto kept_of) {
    model::HeadEdits edits(m.L(), m.H(), {{1, 2}}, model::Intervention::parse(policy));
    model::KeptKeys counts;
    edits.count_into(&counts);
    m.decoder.forward(ids, edits);
    double kept = 0, seen = 0;
    for (int64_t i = 0; i < T; ++i) kept += kept_of(i), seen += static_cast<double>(i + 1);
    EXPECT_EQ(counts.kept, kept) << policy;
    EXPECT_EQ(counts.seen, seen) << policy;
  };
  expect("top-n:5", [](int64_t i) { return static_cast<double>(std::min<int64_t>(5, i + 1)); });
  expect("sink-recent:4", [](int64_t i) { return static_cast<double>(std::min<int64_t>(4, i + 1) + (i >= 4 ? 1 : 0)); });
  expect("random:3", [](int64_t i) { return static_cast<double>(1 + std::min<int64_t>(3, i)); });
  // The random draws depend on the seed and the window, not on anything else.
  const auto run = [&](uint64_t seed, uint64_t window) {
    model::HeadEdits edits(m.L(), m.H(), {{1, 2}}, model::Intervention::parse("random:3"), seed);
    edits.set_window_key(window);
    return m.decoder.forward(ids, edits);
  };
  EXPECT_TRUE(torch::equal(run(7, 1), run(7, 1)));
  EXPECT_FALSE(torch::equal(run(7, 1), run(8, 1)));
  EXPECT_FALSE(torch::equal(run(7, 1), run(7, 2)));
}

// A windowed layer (tiny Mistral, sliding window): sink-recent:W on every head is the plain run
// bit for bit (the window keeps at most W keys), and the first key outside the window is not kept.
TEST(Intervention, WindowedLayersKeepOnlyTheKeysTheySee) {
  const Model m(fixture("hf-tiny/mistral"));
  const int64_t W = m.checkpoint.config.layers[0].window;
  ASSERT_GT(W, 0);
  const int64_t T = std::min<int64_t>(W + 8, m.checkpoint.config.max_positions);
  const auto ids = window_ids(T, m.checkpoint.config.vocab);
  std::vector<std::pair<int64_t, int64_t>> every;
  for (int64_t h = 0; h < m.H(); ++h) every.emplace_back(0, h);
  model::HeadEdits keep_all(m.L(), m.H(), every, model::Intervention{model::Edit::SinkRecent, W});
  EXPECT_TRUE(torch::equal(m.decoder.forward(ids, keep_all), m.decoder.forward(ids)));
  model::KeptKeys counts;
  model::HeadEdits top(m.L(), m.H(), {{0, 0}}, model::Intervention{model::Edit::TopN, T});
  top.count_into(&counts);
  m.decoder.forward(ids, top);
  double seen = 0;
  for (int64_t i = 0; i < T; ++i) seen += static_cast<double>(std::min<int64_t>(i + 1, W));
  EXPECT_EQ(counts.seen, seen);
  EXPECT_EQ(counts.kept, seen);
}

// A window's sums: the plain run against itself has KL 0, every top-1 agreeing, the same loss;
// the loss is the negative log-probability of each next token, summed.
TEST(LossStats, WindowSumsAreTheirDefinitions) {
  const auto ids = torch::tensor(std::vector<int64_t>{0, 2, 1, 3});
  const auto plain = torch::tensor(std::vector<float>{0, 1, 2, 3, 1, 1, 1, 1, 3, 2, 1, 0, 0, 0, 0, 5}).view({4, 4});
  const auto s = pipeline::window_loss_sums(plain, plain, ids);
  EXPECT_EQ(s.tokens, 3);
  EXPECT_EQ(s.kl, 0);
  EXPECT_EQ(s.agree, 3);
  EXPECT_EQ(s.loss, s.loss_plain);
  const auto logp = torch::log_softmax(plain.to(torch::kFloat64), -1);
  const double want = -(logp[0][2] + logp[1][1] + logp[2][3]).item<double>();
  EXPECT_NEAR(s.loss_plain, want, 1e-12);
  // Another run: its KL is sum p (log p - log q), its agreement the rows whose argmax is the same.
  const auto other = plain.flip(-1);
  const auto t = pipeline::window_loss_sums(plain, other, ids);
  const auto logq = torch::log_softmax(other.to(torch::kFloat64), -1);
  const double kl = (logp.narrow(0, 0, 3).exp() * (logp.narrow(0, 0, 3) - logq.narrow(0, 0, 3))).sum().item<double>();
  EXPECT_NEAR(t.kl, kl, 1e-12);
  EXPECT_EQ(t.agree, 1);  // the middle row (all equal: the first index either way)
}

// The readings are ratios of the sums over documents; the intervals hold each at the Bonferroni
// coverage and contain the point estimate; one document has none, and says why.
TEST(LossStats, ReadingsAndIntervals) {
  metrics::LossStats stats(2);
  for (int d = 0; d < 12; ++d) {
    const int64_t row = stats.unit_row("doc" + std::to_string(d));
    for (int64_t k = 0; k < 2; ++k)
      stats.add(k, row, {10.0 + d, 10.0 + d + (k + 1) * (1 + d % 3), 0.5 * (k + 1), 8.0 - k, 10, 3, 4});
  }
  const auto r = metrics::loss_readings(stats, 500, 3, 90);
  ASSERT_EQ(r.interventions.size(), 2u);
  EXPECT_DOUBLE_EQ(r.each_ci, 95);  // 100 - 10 / 2
  const auto& a = r.interventions[0];
  EXPECT_DOUBLE_EQ(a.loss_plain, (12 * 10.0 + 66) / 120);
  EXPECT_DOUBLE_EQ(a.loss_diff, (12 + 12.0) / 120);  // 1 + d % 3 over 12 documents: 12 + 4 x (0 + 1 + 2)
  EXPECT_DOUBLE_EQ(a.kl, 0.5 * 12 / 120);
  EXPECT_DOUBLE_EQ(a.top1, 8.0 * 12 / 120);
  EXPECT_DOUBLE_EQ(a.kept_fraction, 0.75);
  EXPECT_TRUE(r.status.intervals);
  EXPECT_LE(a.loss_diff_ci[0], a.loss_diff);
  EXPECT_GE(a.loss_diff_ci[1], a.loss_diff);
  EXPECT_LT(a.loss_diff_ci[0], a.loss_diff_ci[1]);
  EXPECT_EQ(a.kl_ci[0], a.kl_ci[1]);  // every document the same: no spread

  metrics::LossStats one(1);
  one.add(0, one.unit_row("only"), {1, 2, 0, 1, 1, 0, 0});
  const auto lone = metrics::loss_readings(one, 100, 0);
  EXPECT_FALSE(lone.status.intervals);
  EXPECT_TRUE(std::isnan(lone.interventions[0].loss_diff_ci[0]));
  EXPECT_TRUE(std::isnan(lone.interventions[0].kept_fraction));  // no row edited
}

// A forward from layer l on, from the residual stream a plain forward recorded there, is the
// whole intervened forward bit for bit (what --each and every intervention past layer 0 reuse).
TEST(Intervention, AForwardFromALayerIsTheWholeForwardBitForBit) {
  const Model& m = stories();
  const auto ids = window_ids(40, m.checkpoint.config.vocab);
  const model::HookSpec hooks({"blocks.*.hook_resid_pre"}, m.L());
  model::HookCache resid;
  m.decoder.forward(ids, hooks, resid);
  for (int64_t l = 1; l < m.L(); ++l)
    for (const char* policy : {"zero", "top-n:3", "sink-recent:5"}) {
      const model::HeadEdits edits(m.L(), m.H(), {{l, 1}}, model::Intervention::parse(policy));
      EXPECT_TRUE(torch::equal(m.decoder.forward_from(ids, l, resid.get(l, model::HookPoint::ResidPre), edits),
                               m.decoder.forward(ids, edits)))
          << policy << " at layer " << l;
    }
}

// Interventions that start at one layer run side by side in one batch (--each: the heads of a
// layer): each row of the batch is its own forward, every policy at once, a policy's parts and
// random keys included, to the rounding of the batched products; counted keys are each one's own.
TEST(Intervention, ABatchOfInterventionsIsEachAlone) {
  const Model& m = stories();
  const int64_t L = m.L(), H = m.H(), d = m.checkpoint.config.head_dim;
  const auto ids = window_ids(40, m.checkpoint.config.vocab);
  const model::HookSpec hooks({"blocks.*.hook_resid_pre"}, L);
  model::HookCache resid;
  m.decoder.forward(ids, hooks, resid);
  const auto means = torch::rand({L, H, d}, torch::TensorOptions().dtype(torch::kFloat32)) - 0.5;
  for (const int64_t l : {0, 2, 4}) {
    std::vector<model::HeadEdits> edits;
    edits.emplace_back(L, H, std::vector<std::pair<int64_t, int64_t>>{{l, 0}}, model::Intervention::parse("zero"));
    edits.emplace_back(L, H, std::vector<std::pair<int64_t, int64_t>>{{l, 1}}, model::Intervention::parse("mean"), means);
    edits.emplace_back(L, H, std::vector<std::pair<int64_t, int64_t>>{{l, 2}}, model::Intervention::parse("top-n:3"));
    edits.emplace_back(L, H, std::vector<std::pair<int64_t, int64_t>>{{l, 3}, {4, 5}}, model::Intervention::parse("random:4"), 7);
    edits.emplace_back(L, H, std::vector<std::pair<int64_t, int64_t>>{{l, 4}}, model::Intervention::parse("sink-recent:5"));
    edits.back().add_part(model::HeadEdits(L, H, {{l, 5}}, model::Intervention::parse("zero")));
    std::vector<const model::HeadEdits*> batch;
    std::vector<model::KeptKeys> batch_counts(edits.size()), alone_counts(edits.size());
    for (size_t b = 0; b < edits.size(); ++b) edits[b].set_window_key(99), batch.push_back(&edits[b]);
    const auto r = l > 0 ? resid.get(l, model::HookPoint::ResidPre) : torch::Tensor();
    for (size_t b = 0; b < edits.size(); ++b) edits[b].count_into(&batch_counts[b]);
    const auto together = m.decoder.forward_batch_from(ids, l, r, batch);  // [B, T, V]
    ASSERT_EQ(together.size(0), static_cast<int64_t>(edits.size()));
    for (size_t b = 0; b < edits.size(); ++b) {
      edits[b].count_into(&alone_counts[b]);
      const auto alone = l > 0 ? m.decoder.forward_from(ids, l, r, edits[b]) : m.decoder.forward(ids, edits[b]);
      edits[b].count_into(nullptr);
      // The logits are of order 10: a few of their last bits (1e-5 measured), not an edit's change.
      EXPECT_TRUE(torch::allclose(together[static_cast<int64_t>(b)], alone[0], 0, 1e-4))
          << "layer " << l << ", edit " << b << ": " << (together[static_cast<int64_t>(b)] - alone[0]).abs().max().item<float>();
      EXPECT_EQ(batch_counts[b].kept, alone_counts[b].kept) << b;
      EXPECT_EQ(batch_counts[b].seen, alone_counts[b].seen) << b;
    }
    for (size_t b = 1; b < edits.size(); ++b)  // each row its own edit, far beyond the rounding
      EXPECT_GT((together[0] - together[static_cast<int64_t>(b)]).abs().max().item<float>(), 1e-2) << l << " " << b;
  }
  // An edit below the first layer run is refused.
  const model::HeadEdits low(L, H, {{1, 0}}, model::Intervention::parse("zero"));
  EXPECT_NE(error_of([&] { m.decoder.forward_batch_from(ids, 2, resid.get(2, model::HookPoint::ResidPre), {&low}); })
                .find("an edit of layer 1 below the first layer run, 2"),
            std::string::npos);
}

// The forwards of a window: grouped by the layer they start at, in its order, then the list's.
TEST(Intervention, ForwardGroupsAreOneLayerEach) {
  const Model& m = stories();
  const int64_t L = m.L(), H = m.H();
  std::vector<pipeline::NamedEdits> list;
  for (const auto& [l, h] : std::vector<std::pair<int64_t, int64_t>>{{3, 0}, {1, 0}, {3, 1}, {1, 1}, {1, 2}, {0, 4}})
    list.push_back({"x", model::HeadEdits(L, H, {{l, h}}, model::Intervention::parse("zero"))});
  using Groups = std::vector<std::vector<int64_t>>;
  EXPECT_EQ(pipeline::forward_groups(list, 16), (Groups{{5}, {1, 3, 4}, {0, 2}}));
  EXPECT_EQ(pipeline::forward_groups(list, 2), (Groups{{5}, {1, 3}, {4}, {0, 2}}));
  EXPECT_EQ(pipeline::forward_groups(list, 1), (Groups{{5}, {1}, {3}, {4}, {0}, {2}}));
  for (int64_t h = 2; h < 6; ++h) list.push_back({"y", model::HeadEdits(L, H, {{3, h}}, model::Intervention::parse("zero"))});
  EXPECT_EQ(pipeline::forward_groups(list, 4), (Groups{{5}, {1, 3, 4}, {0, 2, 6}, {7, 8, 9}}));  // 6 at layer 3: 3 + 3
  // The default: the batch's float32 logits within 256 MiB, 1 to 16 (SmolLM2 at T = 256: 5).
  EXPECT_EQ(pipeline::interventions_per_forward(256, 49152), 5);
  EXPECT_EQ(pipeline::interventions_per_forward(64, 512), 16);
  EXPECT_EQ(pipeline::interventions_per_forward(8192, 262144), 1);
}

// budget:CURVE:X reads each head's curve up to its first fall below X (analysis/budgets.h).
TEST(Budgets, TheBudgetIsTheLastNBeforeTheCurveFirstFallsBelowTheTarget) {
  const auto rule = analysis::BudgetRule::parse("R_rmin:0.9");
  EXPECT_EQ(rule.curve, "R_rmin");
  EXPECT_EQ(rule.target, 0.9);
  EXPECT_EQ(rule.text(), "R_rmin:0.9");
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const std::vector<int64_t> grid = {1, 2, 3, 4, 8, 16};
  EXPECT_EQ(analysis::budget_n(rule, grid, {1, 0.95, 0.9, 0.5, 0.97, 1}), 3);  // 8 and 16 meet it again: not counted
  EXPECT_EQ(analysis::budget_n(rule, grid, {1, 0.95, 0.91, 0.92, 0.97, 1}), 16);
  EXPECT_EQ(analysis::budget_n(rule, grid, {1, 0.5, 1, 1, 1, 1}), 1);
  EXPECT_EQ(analysis::budget_n(rule, grid, {1, 1, nan, 1, 1, 1}), 2);  // no sample reached N = 3
  EXPECT_EQ(analysis::budget_n(rule, grid, {nan, nan, nan, nan, nan, nan}), 0);
  for (const char* bad : {"R_rmin>0.9", "R:0.9", "R_rmin:0", "R_rmin:1.5", "R_rmin:x", "", "P_rmax:"})
    EXPECT_NE(error_of([&] { (void)analysis::BudgetRule::parse(bad); }).find("is not CURVE:X"), std::string::npos) << bad;
}

// A budget keeps each head's own N largest weights: per row of T queries, min(N_h, i + 1) keys
// for head h; with the same N for every head it is top-n:N bit for bit.
TEST(Intervention, ABudgetKeepsEachHeadsOwnN) {
  const Model& m = stories();
  const int64_t T = 40;
  const auto ids = window_ids(T, m.checkpoint.config.vocab);
  const auto budget = model::Intervention::parse("budget:R_rmin:0.9");
  EXPECT_EQ(budget.text(), "budget:R_rmin:0.9");
  model::HeadEdits edits(m.L(), m.H(), {{1, 5}, {1, 2}, {3, 0}}, budget, {7, 3, 12});
  model::KeptKeys counts;
  edits.count_into(&counts);
  m.decoder.forward(ids, edits);
  double kept = 0;
  for (int64_t i = 0; i < T; ++i)
    for (const int64_t n : {7, 3, 12}) kept += static_cast<double>(std::min<int64_t>(n, i + 1));
  EXPECT_EQ(counts.kept, kept);
  EXPECT_EQ(counts.seen, 3.0 * T * (T + 1) / 2);
  std::vector<std::pair<int64_t, int64_t>> every;
  for (int64_t l = 0; l < m.L(); ++l)
    for (int64_t h = 0; h < m.H(); ++h) every.emplace_back(l, h);
  const model::HeadEdits same(m.L(), m.H(), every, budget, std::vector<int64_t>(every.size(), 5));
  EXPECT_TRUE(torch::equal(m.decoder.forward(ids, same),
                           m.decoder.forward(ids, model::HeadEdits(m.L(), m.H(), every, model::Intervention::parse("top-n:5")))));
  EXPECT_NE(error_of([&] { model::HeadEdits(m.L(), m.H(), {{0, 0}}, budget, std::vector<int64_t>{0}); }).find("a budget of 0 keys"),
            std::string::npos);
}

// End to end on stories260K: geoattn intervene --budget-from gives every head the rule's N on the
// measure result's own curves, and its kept fraction is those budgets' (sum over heads and rows of
// min(N_h, i + 1) over the keys seen).
TEST(Intervention, BudgetsFromAMeasureResultAreTheRuleOnItsCurves) {
  TempDir tmp;
  const std::string run = " --model " + source("models/stories260K") + " --data " +
                          source("data/openwebtext/openwebtext-60docs.jsonl") + " --ctx 32 --max-windows 4 --quiet";
  ASSERT_EQ(run_tool("geoattn measure" + run + " --bootstrap 0 --out " + (tmp / "m.json"), tmp).code, 0);
  const auto r = run_tool("geoattn intervene" + run + " --heads all --bootstrap 0 --budget-from " + (tmp / "m.json") +
                              " --intervention budget:R_rmin:0.8 --intervention budget:P_rmax:0.5 --out " + (tmp / "i.json"),
                          tmp);
  ASSERT_EQ(r.code, 0) << r.err;
  const auto measure = report::read_measure(tmp / "m.json");
  const auto result = nlohmann::json::parse(read_file(tmp / "i.json"));
  const auto grid = measure.at("n_grid").get<std::vector<int64_t>>();
  ASSERT_EQ(result.at("interventions").size(), 2u);
  for (const auto& iv : result.at("interventions")) {
    const std::string text = iv.at("intervention");
    const std::string curve = text.substr(text.find(':') + 1, 6);
    const double target = std::stod(text.substr(text.rfind(':') + 1));
    const auto heads = iv.at("heads"), budgets = iv.at("budgets");
    ASSERT_EQ(heads.size(), 40u);
    ASSERT_EQ(budgets.size(), 40u);
    double kept = 0, seen = 0;
    for (size_t k = 0; k < heads.size(); ++k) {
      const auto& head = measure.at("heads").at(k);
      ASSERT_EQ(heads[k], (nlohmann::json{head.at("layer"), head.at("head")}));
      int64_t want = 0;  // the last grid N before the mean curve first falls below the target
      for (size_t g = 0; g < grid.size(); ++g) {
        if (head.at(curve)[g].is_null() || head.at(curve)[g].get<double>() < target) break;
        want = grid[g];
      }
      EXPECT_EQ(budgets[k].get<int64_t>(), want) << text << " head " << k;
      for (int64_t i = 0; i < 32; ++i) kept += static_cast<double>(std::min<int64_t>(want, i + 1)), seen += static_cast<double>(i + 1);
    }
    EXPECT_NEAR(iv.at("kept_fraction").get<double>(), kept / seen, 1e-12) << text;
  }
  EXPECT_EQ(result.at("settings").at("budget_from").at("run_id"), measure.at("run_id"));
}

// Mean ablation: the first pass's means are each head's output (hook attn.z) averaged in float64
// over every position of every window; a head given the mean 0 is the head zeroed, bit for bit;
// and a head given its mean outputs that vector at every position (attn.z of the edited run).
TEST(Intervention, MeanAblationPutsEachHeadsMeanOutputAtEveryPosition) {
  const Model& m = stories();
  const int64_t L = m.L(), H = m.H(), d = m.checkpoint.config.head_dim;
  std::vector<io::Window> windows(3);
  for (int64_t w = 0; w < 3; ++w) {
    const auto ids = window_ids(20 + 4 * w, m.checkpoint.config.vocab)[0];
    windows[static_cast<size_t>(w)].ids.assign(ids.data_ptr<int64_t>(), ids.data_ptr<int64_t>() + ids.numel());
  }
  const auto means = pipeline::head_means(m.decoder, windows, /*quiet=*/true);  // [L, H, d]
  ASSERT_EQ(means.sizes(), (std::vector<int64_t>{L, H, d}));
  // The definition, by a loop over windows and positions.
  const model::HookSpec z_hook({"blocks.*.attn.z"}, L);
  auto want = torch::zeros({L, H, d}, torch::kFloat64);
  double positions = 0;
  for (const auto& w : windows) {
    model::HookCache z;
    m.decoder.forward(torch::tensor(w.ids).unsqueeze(0), z_hook, z);
    for (int64_t l = 0; l < L; ++l)
      for (int64_t t = 0; t < static_cast<int64_t>(w.ids.size()); ++t)
        want[l] += z.get(l, model::HookPoint::AttnZ)[0].select(1, t).to(torch::kFloat64);  // [H, d]
    positions += static_cast<double>(w.ids.size());
  }
  EXPECT_TRUE(torch::allclose(means.to(torch::kFloat64), want / positions, 0, 1e-6));
  const auto ids = window_ids(30, m.checkpoint.config.vocab);
  const auto mean = model::Intervention::parse("mean");
  EXPECT_TRUE(torch::equal(m.decoder.forward(ids, model::HeadEdits(L, H, {{2, 1}, {3, 6}}, mean, torch::zeros({L, H, d}))),
                           m.decoder.forward(ids, model::HeadEdits(L, H, {{2, 1}, {3, 6}}, model::Intervention::parse("zero")))));
  const model::HeadEdits edits(L, H, {{2, 1}, {3, 6}}, mean, means);
  model::HookCache z;
  m.decoder.forward(ids, z_hook, z, /*want_logits=*/true, &edits);
  for (const auto& [l, h] : std::vector<std::pair<int64_t, int64_t>>{{2, 1}, {3, 6}})
    EXPECT_TRUE(torch::equal(z.get(l, model::HookPoint::AttnZ)[0][h], means[l][h].expand({30, d}))) << l << "." << h;
  EXPECT_FALSE(torch::equal(m.decoder.forward(ids, edits), m.decoder.forward(ids)));
}

// A policy by class is its parts in one forward, each on its own heads: a policy of one part is
// that part bit for bit; a part that keeps every key changes nothing beside another; the keys
// kept are the parts' together; a head in two parts is refused.
TEST(Intervention, APolicyIsItsPartsInOneForward) {
  const Model& m = stories();
  const int64_t T = 36;
  const auto ids = window_ids(T, m.checkpoint.config.vocab);
  const auto part = [&](std::vector<std::pair<int64_t, int64_t>> heads, const char* iv) {
    return model::HeadEdits(m.L(), m.H(), heads, model::Intervention::parse(iv));
  };
  const auto zero = part({{3, 0}, {3, 4}}, "zero");
  auto alone = part({{3, 0}, {3, 4}}, "zero");
  EXPECT_TRUE(torch::equal(m.decoder.forward(ids, alone), m.decoder.forward(ids, zero)));
  auto with_noop = part({{1, 2}, {4, 7}}, "top-n:36");
  with_noop.add_part(part({{3, 0}, {3, 4}}, "zero"));
  EXPECT_EQ(with_noop.first_layer(), 1);
  EXPECT_EQ(with_noop.head_count(), 4);
  EXPECT_TRUE(torch::equal(m.decoder.forward(ids, with_noop), m.decoder.forward(ids, zero)));
  // Two row edits in one layer and another layer: the keys kept are the parts' own, summed.
  const auto counted = [&](model::HeadEdits e) {
    model::KeptKeys k;
    e.count_into(&k);
    const auto logits = m.decoder.forward(ids, e);
    return std::pair(k, logits);
  };
  auto both = part({{1, 2}}, "top-n:5");
  both.add_part(part({{1, 6}, {2, 3}}, "sink-recent:4"));
  const auto [k_both, l_both] = counted(std::move(both));
  const auto [k_a, l_a] = counted(part({{1, 2}}, "top-n:5"));
  const auto [k_b, l_b] = counted(part({{1, 6}, {2, 3}}, "sink-recent:4"));
  EXPECT_EQ(k_both.kept, k_a.kept + k_b.kept);
  EXPECT_EQ(k_both.seen, k_a.seen + k_b.seen);
  EXPECT_FALSE(torch::equal(l_both, l_a));
  EXPECT_FALSE(torch::equal(l_both, l_b));
  auto overlap = part({{1, 2}}, "top-n:5");
  EXPECT_NE(error_of([&] { overlap.add_part(part({{1, 2}, {0, 0}}, "zero")); }).find("head 1.2 is in two parts of one policy"),
            std::string::npos);
}
