#include "geoattn/pipeline/metric_run.h"

#include <map>

#include <fmt/format.h>

#include "geoattn/metrics/window_assumptions.h"
#include "geoattn/metrics/window_metrics.h"
#include "geoattn/util/stopwatch.h"

namespace geoattn::pipeline {

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

MetricRun::MetricRun(WorkerPool& pool, const MetricSpec& spec, int64_t layers, int64_t heads, int64_t T)
    : pool_(pool), spec_(spec), state_{metrics::Aggregator(layers, heads, spec.grid), {}, {}, {}} {
  // SPEC §4 fits the last query only.
  if (!spec.queries.empty() && spec.queries.back() == T - 1)
    state_.assumptions = metrics::AssumptionStats(layers, heads, T, spec.decay_k);
  if (spec.bootstrap > 0) {
    const int64_t G = static_cast<int64_t>(spec.grid.size());
    const auto level = spec.boot_level.value_or(metrics::auto_boot_level(layers, heads, G, spec.bootstrap));
    state_.units = metrics::UnitStats(layers, heads, G, level);
  }
}

void MetricRun::add_window(const torch::Tensor& alpha, const torch::Tensor& values, uint64_t key, const std::string& doc) {
  const std::string unit = spec_.boot_unit == BootUnit::Window ? fmt::format("window {:016x}", key) : doc;
  metrics::MetricOptions options;
  options.selection.max_chunk_bytes = spec_.chunk_bytes;
  options.selection.distance = spec_.distance;
  options.controls = spec_.controls;
  options.seed = spec_.seed;
  options.decay_k = state_.assumptions.empty() ? 0 : spec_.decay_k;
  const auto m = metrics::window_metrics(pool_, alpha, values, spec_.queries, spec_.grid, key, options);
  times_.add(m.core);
  const auto t = Clock::now();
  // Layers in parallel where no two share a slot (RunState::layers_apart), else all in one part.
  const int64_t u = state_.unit_row(unit), L = state_.metrics.layers();
  const int64_t per_part = state_.layers_apart() ? 1 : L;  // layers
  pool_.parallel_for(L / per_part, [&](int64_t p0, int64_t p1, int) {
    metrics::for_each_sample(
        m, [&](int64_t l, int64_t h, const metrics::SampleValues& sample) { state_.add_sample(u, l, h, sample); },
        p0 * per_part, p1 * per_part);
  });
  if (!state_.assumptions.empty())
    metrics::add_window_assumptions(alpha, m.value_norms, m.decay_sums, spec_.queries, state_.assumptions);
  times_.aggregate += seconds_since(t);
}

metrics::MetricSettings MetricRun::settings() const {
  metrics::MetricSettings s;
  s.n = spec_.n_spec;
  s.decay_k = spec_.decay_k;
  s.distance = spec_.distance;
  s.controls = {spec_.controls, spec_.seed};
  s.bootstrap = {spec_.bootstrap, spec_.seed, std::nullopt, std::nullopt};
  if (!state_.units.empty()) s.bootstrap.level = state_.units.level(), s.bootstrap.unit = spec_.boot_unit;
  return s;
}

}  // namespace geoattn::pipeline
