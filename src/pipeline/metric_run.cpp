#include "geoattn/pipeline/metric_run.h"

#include <algorithm>
#include <map>
#include <set>

#include <fmt/format.h>

#include "geoattn/metrics/core/window_assumptions.h"
#include "geoattn/metrics/core/window_bounds.h"
#include "geoattn/metrics/core/window_predicted.h"
#include "geoattn/report/prediction_json.h"
#include "geoattn/util/error.h"
#include "geoattn/util/numbers.h"
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

std::vector<double> MetricSpec::kappas() const {
  if (kappa_scan.off()) return {};
  if (kappa_scan.automatic()) return envelopes_on() ? metrics::default_kappas() : std::vector<double>{};
  if (!envelopes_on())
    fail("{}: {} needs the envelopes ({} off)", argument_name(names, kKappaScan), echoed(kappa_scan.text()),
         argument_name(names, kEnvelopes));
  return kappa_scan.list();
}

MetricSpec metric_spec(const metrics::MetricParams& params, int64_t T, std::vector<int64_t> queries, ArgumentStyle names) {
  MetricSpec spec;
  static_cast<metrics::MetricParams&>(spec) = params;
  try {
    spec.grid = params.n.at(T);
  } catch (const Error& e) {
    fail("{}: {}", argument_name(names, metrics::MetricParams::kN), e.what());
  }
  spec.queries = std::move(queries);
  spec.names = names;
  return spec;
}

MetricRun::MetricRun(WorkerPool& pool, const MetricSpec& spec, int64_t layers, int64_t heads, int64_t T)
    : pool_(pool), spec_(spec), state_{(spec.validate(layers, heads, T), metrics::Aggregator(layers, heads, spec.grid, &pool)), {}, {}, {}, {}} {
  if (!spec.layer_windows.empty() && std::ssize(spec.layer_windows) != layers)
    fail("metrics: {} layer windows for {} layers", spec.layer_windows.size(), layers);
  if (spec_.layer_windows.empty()) spec_.layer_windows.assign(static_cast<size_t>(layers), 0);  // one spelling of "none"
  // SPEC §4 fits the last query only.
  if (!spec.queries.empty() && spec.queries.back() == T - 1)
    state_.assumptions = metrics::AssumptionStats(layers, heads, T, spec.decay_k,
                                                  metrics::last_query_tokens(spec_.windows(), layers, T));
  if (spec.envelopes_on()) state_.envelopes = metrics::EnvelopeStats(layers, heads, std::ssize(spec.grid), spec.kappa);
  if (spec.bootstrap > 0) {
    const int64_t G = static_cast<int64_t>(spec.grid.size());
    const auto level = spec.boot_level.value_or(metrics::auto_boot_level(layers, heads, G, spec.bootstrap));
    state_.units = metrics::UnitStats(layers, heads, G, level);
  }
  // SPEC §5: the predicted envelopes, from the fits of the result --predict-from names.
  if (!spec.predict_from.off()) {
    const std::string flag = argument_name(spec.names, metrics::MetricParams::kPredictFrom);
    if (!spec.envelopes_on())
      fail("{}: the predicted envelopes are envelopes ({} off)", flag, argument_name(spec.names, metrics::MetricParams::kEnvelopes));
    if (state_.assumptions.empty())
      fail("{}: the predicted envelopes take the value norms of the last query's statistics (queries without T - 1)", flag);
    prediction_ = report::read_prediction(spec.predict_from.text(), layers, heads, flag);
    state_.predicted = metrics::EnvelopeStats(layers, heads, std::ssize(spec.grid), spec.kappa);
  }
  // The envelopes at the kappa grid, per document at the bootstrap's level.
  if (const auto kappas = spec.kappas(); !kappas.empty())
    state_.kappa_scan = metrics::KappaStats(layers, heads, std::ssize(spec.grid), kappas,
                                            state_.units.empty() ? std::nullopt : std::optional(state_.units.level()));
}

void MetricRun::expect_windows(const std::vector<uint64_t>& keys, const std::vector<std::string>& docs) {
  auto& scan = state_.kappa_scan;
  if (scan.empty() || !scan.has_units()) return;
  std::set<std::string> units;
  for (size_t w = 0; w < keys.size(); ++w) units.insert(unit_of(keys[w], docs[w]));
  const auto U = std::ssize(units);
  check_fits_memory(scan.unit_bytes(U),
                    fmt::format("{}: {} ({} kappas), whose sums per {} at the bootstrap's level for {} of them,",
                                argument_name(spec_.names, metrics::MetricParams::kKappaScan), spec_.kappa_scan.text(),
                                scan.K(), spec_.boot_unit == metrics::BootUnit::Window ? "window" : "document", U));
  scan.reserve_units(U);
}

std::string MetricRun::unit_of(uint64_t key, const std::string& doc) const {
  return spec_.boot_unit == metrics::BootUnit::Window ? fmt::format("window {:016x}", key) : doc;
}

metrics::MetricOptions MetricRun::options() const {
  metrics::MetricOptions options;
  options.selection.max_chunk_bytes = spec_.chunk_bytes();
  options.selection.distance = spec_.distance;
  options.controls = spec_.controls;
  options.seed = spec_.seed;
  options.decay_k = state_.assumptions.empty() ? 0 : spec_.decay_k;
  options.windows = spec_.windows();
  // SPEC §5's bounds on the CPU, from the core's Gram matrices (none with the envelopes off).
  options.bound_kappas = metrics::bound_kappas(state_.envelopes, state_.kappa_scan.empty() ? nullptr : &state_.kappa_scan);
  return options;
}

void MetricRun::add_window(const io::FloatView& alpha, const io::FloatView& values, uint64_t key, const std::string& doc) {
  const auto m = metrics::window_metrics(pool_, alpha, values, spec_.queries, spec_.grid, key, options());
  add_window(m, alpha, spec_.queries, key, doc);
  add_window_envelopes(
      [&](metrics::EnvelopeStats& envelopes, metrics::KappaStats* scan, int64_t row) {
        metrics::add_sample_bounds(m.bounds, envelopes, scan, row);
      },
      key, doc);
  add_window_predicted(alpha, m, values.size(3));
}

void MetricRun::add_window_predicted(const io::FloatView& alpha, const metrics::WindowMetrics& m, int64_t d) {
  if (state_.predicted.empty()) return;
  const auto t = Clock::now();
  metrics::add_window_predicted(pool_, alpha, m.value_norms, m.KV, d, spec_.queries, spec_.grid, spec_.windows(), prediction_,
                                state_.predicted);
  times_.envelopes += seconds_since(t);
}

void MetricRun::add_window_envelopes(const WindowBounds& bounds, uint64_t key, const std::string& doc) {
  if (state_.envelopes.empty()) return;
  const auto t = Clock::now();
  metrics::KappaStats* scan = state_.kappa_scan.empty() ? nullptr : &state_.kappa_scan;
  const int64_t row = scan ? scan->row(unit_of(key, doc)) : -1;
  bounds(state_.envelopes, scan, row);
  times_.envelopes += seconds_since(t);
}

void MetricRun::add_window(const metrics::WindowMetrics& m, const io::FloatView& alpha, const std::vector<int64_t>& rows,
                           uint64_t key, const std::string& doc) {
  const std::string unit = unit_of(key, doc);
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
    metrics::add_window_assumptions(alpha, m.value_norms, m.decay_sums, m.KV, rows, spec_.windows(), state_.assumptions);
  times_.aggregate += seconds_since(t);
}

metrics::MetricRecord MetricRun::settings() const {
  // The settings as given, with what the run made of auto and of the scan.
  metrics::MetricRecord s{spec_, spec_.layer_windows, std::nullopt};
  s.params.envelopes = !state_.envelopes.empty();
  s.params.boot_level = state_.units.empty() ? std::nullopt : std::optional(state_.units.level());
  s.params.kappa_scan = metrics::KappaScan::of(state_.kappa_scan.empty() ? std::vector<double>{} : state_.kappa_scan.kappas());
  s.params.metrics_memory_mb = metrics::MetricParams{}.metrics_memory_mb;  // changes no number: not recorded
  if (!state_.predicted.empty()) s.prediction = prediction_;
  return s;
}

}  // namespace geoattn::pipeline
