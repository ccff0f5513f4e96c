#include "metric_flags.h"

#include <limits>

#include "cli.h"
#include "geoattn/metrics/grid.h"
#include "geoattn/util/error.h"

namespace geoattn::cli {

void add_metric_flags(CLI::App& cmd, MetricFlags& f, bool with_seed) {
  using P = pipeline::MetricParams;
  constexpr int64_t kMost = std::numeric_limits<int64_t>::max();
  const auto flag = [](FieldName field) { return std::string(field.flag); };
  cmd.add_option(flag(P::kN), f.n, "N grid: default, all, or a list like 1:16,24,32")->capture_default_str();
  add_enum_option(cmd, flag(P::kDistance), f.distance, metrics::kDistanceNames, "euclidean (the paper) or cosine (SPEC §2b)");
  add_number_option(cmd, flag(P::kDecayK), f.decay_k, int64_t{1}, kMost,
                    "largest lag k of the decay fit c(k), at most max(64, T - 1) (SPEC §4)");
  add_number_option(cmd, flag(P::kControls), f.controls, int64_t{0}, kMost,
                    "random-selection permutations per sample (SPEC §2b; 0: none)");
  add_number_option(cmd, flag(P::kBootstrap), f.bootstrap, int64_t{0}, kMost,
                    "bootstrap replicates over documents (SPEC §2b; 0: none)");
  add_enum_option(cmd, flag(P::kBootLevel), f.boot_level, metrics::kBootLevelNames,
                  "finest level with intervals: head, layer, global, or auto (head while heads x grid x replicates stay small, else layer; not with --bootstrap 0)");
  add_enum_option(cmd, flag(P::kBootUnit), f.boot_unit, metrics::kBootUnitNames,
                  "what the bootstrap resamples: document (windows of one document together) or window (not with --bootstrap 0)");
  add_enum_option(cmd, flag(P::kEnvelopes), f.envelopes, pipeline::kOnOffNames,
                  "the bounds of every measured sample (SPEC §5), their means beside the measurements: on, off, "
                  "or auto (on where the metrics run on the CPU, off on a GPU)");
  add_number_option(cmd, flag(P::kKappa), f.kappa, 0.0, std::numeric_limits<double>::max(),
                    "the concentration constant kappa > 0 of those bounds (SPEC §5; not with --envelopes off)");
  cmd.add_option(flag(P::kKappaScan), f.kappa_scan,
                 "opt-in diagnostic: the kappas of the envelopes for the kappa range each head allows: off, auto "
                 "(2^-4..2^4 in half octaves where the envelopes are on), or a list like 0.25,0.5,1,2. A smaller "
                 "kappa never tightens a bound (kappa -> 0+ gives the kappa-free envelopes every run reports), so "
                 "a head that brackets at some kappa brackets at every small enough one: a range's low end says "
                 "where the grid stops, not what the head needs")
      ->capture_default_str();
  add_window_tokens_option(cmd, f.window_tokens);
  add_number_option(cmd, flag(P::kMetricsMemory), f.metrics_memory_mb, int64_t{1}, kMost >> 20,
                    "MiB of working memory for the metric core on a GPU (it chunks over heads to stay under it; on CPU: a T x T Gram matrix per thread)");
  if (with_seed)
    add_number_option(cmd, flag(P::kSeed), f.seed, uint64_t{0}, std::numeric_limits<uint64_t>::max(),
                      "seed of the controls and the bootstrap");
}

void add_window_tokens_option(CLI::App& cmd, metrics::WindowTokens& value) {
  add_enum_option(cmd, std::string(pipeline::MetricParams::kWindowTokens.flag), value, metrics::kWindowTokensNames,
                  "a windowed layer's tokens (SPEC §1): visible (the keys its query sees, n = min(q + 1, W)) or "
                  "causal (every key 0..q, those outside the window as alpha = 0: the older convention)");
}

namespace {
using pipeline::MetricSpec;
constexpr UnusedFlag<MetricSpec> kUnusedMetricFlags[] = {
    // SPEC §5: kappa is the envelopes' constant, and nothing else reads it.
    {"--kappa", "with the envelopes off (--envelopes off, or auto on a GPU): kappa is their constant",
     [](const MetricSpec& s) { return !s.envelopes_on(); }},
    {"--bootstrap-level", "with --bootstrap 0 (no intervals)", [](const MetricSpec& s) { return s.bootstrap == 0; }},
    {"--bootstrap-unit", "with --bootstrap 0 (no intervals)", [](const MetricSpec& s) { return s.bootstrap == 0; }},
};
}  // namespace

void refuse_unused_metric_flags(const GivenFlags& given, const MetricSpec& spec) {
  refuse_unused(given, spec, kUnusedMetricFlags);
}

pipeline::MetricSpec metric_spec(const MetricFlags& flags, int64_t T, const std::vector<int64_t>& queries) {
  pipeline::MetricSpec spec;
  static_cast<pipeline::MetricParams&>(spec) = flags;
  spec.grid = parse_grid_flag(flags.n, T);
  spec.queries = queries;
  return spec;
}

}  // namespace geoattn::cli
