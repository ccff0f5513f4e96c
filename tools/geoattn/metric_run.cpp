#include "metric_run.h"

#include <chrono>
#include <map>

#include <fmt/format.h>

#include "geoattn/metrics/grid.h"
#include "geoattn/metrics/window_assumptions.h"
#include "geoattn/util/error.h"

namespace geoattn::cli {

void add_metric_flags(CLI::App& cmd, MetricFlags& f, bool with_seed) {
  cmd.add_option("--n", f.n, "N grid: default, all, or a list like 1:16,24,32")->capture_default_str();
  cmd.add_option("--distance", f.distance, "euclidean (the paper) or cosine (SPEC §2b)")
      ->check(CLI::IsMember({"euclidean", "cosine"}))
      ->capture_default_str();
  cmd.add_option("--decay-k", f.decay_k, "largest lag k of the decay fit c(k) (SPEC §4)")->capture_default_str();
  cmd.add_option("--controls", f.controls, "random-selection permutations per sample (SPEC §2b; 0: none)")
      ->capture_default_str();
  cmd.add_option("--bootstrap", f.bootstrap, "bootstrap replicates over documents (SPEC §2b; 0: none)")
      ->capture_default_str();
  cmd.add_option("--bootstrap-level", f.boot_level,
                 "finest level with intervals: head, layer, global, or auto (head while heads x grid x replicates stay small, else layer)")
      ->check(CLI::IsMember({"auto", "head", "layer", "global"}))
      ->capture_default_str();
  cmd.add_option("--bootstrap-unit", f.boot_unit,
                 "what the bootstrap resamples: document (windows of one document together) or window")
      ->check(CLI::IsMember({"document", "window"}))
      ->capture_default_str();
  cmd.add_option("--metrics-memory", f.metrics_memory_mb,
                 "MiB of working memory for the metric core on a GPU (it chunks over heads to stay under it; on CPU: a T x T Gram matrix per thread)")
      ->capture_default_str();
  if (with_seed) cmd.add_option("--seed", f.seed, "seed of the controls and the bootstrap")->capture_default_str();
}

std::vector<uint64_t> window_keys(const std::vector<std::string>& doc_ids) {
  std::map<std::string, uint64_t> seen;
  std::vector<uint64_t> keys;
  for (const auto& id : doc_ids) keys.push_back(io::document_hash(0, id) + 0x9E3779B97F4A7C15ULL * seen[id]++);
  return keys;
}

std::vector<std::string> doc_ids(const std::vector<io::Window>& windows) {
  std::vector<std::string> ids;
  for (const auto& w : windows) ids.push_back(w.doc_id);
  return ids;
}

namespace {
metrics::BootLevel boot_level(const MetricFlags& f, int64_t layers, int64_t heads, const std::vector<int64_t>& grid) {
  if (f.boot_level == "auto") return metrics::auto_boot_level(layers, heads, static_cast<int64_t>(grid.size()), f.bootstrap);
  return metrics::parse_boot_level(f.boot_level);
}
}  // namespace

MetricRun::MetricRun(const MetricFlags& flags, int64_t layers, int64_t heads, int64_t T, const std::vector<int64_t>& queries)
    : flags_(flags),
      queries_(queries),
      grid_(metrics::parse_n_grid(flags.n, T)),
      state_{metrics::Aggregator(layers, heads, grid_), {}, nlohmann::ordered_json::object(), {}} {
  if (flags.decay_k < 1) fail("--decay-k {}: must be at least 1", flags.decay_k);
  if (flags.controls < 0) fail("--controls {}: must be 0 or more", flags.controls);
  if (flags.bootstrap < 0) fail("--bootstrap {}: must be 0 or more", flags.bootstrap);
  if (flags.metrics_memory_mb < 1) fail("--metrics-memory {}: must be at least 1 MiB", flags.metrics_memory_mb);
  options_.selection.max_chunk_bytes = flags.metrics_memory_mb << 20;
  options_.selection.distance = flags.distance == "cosine" ? metrics::Distance::Cosine : metrics::Distance::Euclidean;
  options_.controls = flags.controls;
  options_.seed = flags.seed;
  // SPEC §4 fits the last query only.
  if (!queries.empty() && queries.back() == T - 1) state_.assumptions = metrics::AssumptionStats(layers, heads, T, flags.decay_k);
  if (flags.bootstrap > 0)
    state_.units = metrics::UnitStats(layers, heads, static_cast<int64_t>(grid_.size()), boot_level(flags, layers, heads, grid_));
}

void MetricRun::add_window(const torch::Tensor& alpha, const torch::Tensor& values, uint64_t key, const std::string& doc) {
  const std::string unit = flags_.boot_unit == "window" ? fmt::format("window {:016x}", key) : doc;
  auto options = options_;
  options.decay_k = state_.assumptions.empty() ? 0 : flags_.decay_k;
  const auto m = metrics::window_metrics(alpha, values, queries_, grid_, key, options);
  times_.add(m.core);
  const auto t = std::chrono::steady_clock::now();
  metrics::for_each_sample(m, [&](int64_t l, int64_t h, const double* curves, int64_t n_valid, const double* scalars) {
    state_.add_sample(unit, l, h, curves, n_valid, scalars);
  });
  if (!state_.assumptions.empty())
    metrics::add_window_assumptions(alpha, m.value_norms, m.decay_sums, queries_, state_.assumptions);
  times_.aggregate += std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
}

nlohmann::ordered_json MetricRun::settings() const {
  nlohmann::ordered_json s = {{"n", flags_.n},
                              {"decay_k", flags_.decay_k},
                              {"distance", flags_.distance},
                              {"ball", "closed (paper appendix A.1)"},
                              {"comparisons", metrics::kComparisons},
                              {"metrics_precision", "float64"},
                              {"controls", {{"random_permutations", flags_.controls}, {"seed", flags_.seed}}},
                              {"bootstrap", {{"replicates", flags_.bootstrap}, {"seed", flags_.seed}}}};
  if (!state_.units.empty()) {
    s["bootstrap"]["level"] = metrics::boot_level_name(state_.units.level());
    s["bootstrap"]["unit"] = flags_.boot_unit;
  }
  return s;
}

}  // namespace geoattn::cli
