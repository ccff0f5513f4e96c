#include "metric_flags.h"

#include "cli.h"
#include "geoattn/metrics/grid.h"
#include "geoattn/util/error.h"

namespace geoattn::cli {

void add_metric_flags(CLI::App& cmd, MetricFlags& f, bool with_seed) {
  cmd.add_option("--n", f.n, "N grid: default, all, or a list like 1:16,24,32")->capture_default_str();
  add_enum_option(cmd, "--distance", f.distance, metrics::kDistanceNames, "euclidean (the paper) or cosine (SPEC §2b)");
  cmd.add_option("--decay-k", f.decay_k, "largest lag k of the decay fit c(k) (SPEC §4)")->capture_default_str();
  cmd.add_option("--controls", f.controls, "random-selection permutations per sample (SPEC §2b; 0: none)")
      ->capture_default_str();
  cmd.add_option("--bootstrap", f.bootstrap, "bootstrap replicates over documents (SPEC §2b; 0: none)")
      ->capture_default_str();
  add_enum_option(cmd, "--bootstrap-level", f.boot_level, metrics::kBootLevelNames,
                  "finest level with intervals: head, layer, global, or auto (head while heads x grid x replicates stay small, else layer)");
  add_enum_option(cmd, "--bootstrap-unit", f.boot_unit, metrics::kBootUnitNames,
                  "what the bootstrap resamples: document (windows of one document together) or window");
  cmd.add_option("--metrics-memory", f.metrics_memory_mb,
                 "MiB of working memory for the metric core on a GPU (it chunks over heads to stay under it; on CPU: a T x T Gram matrix per thread)")
      ->capture_default_str();
  if (with_seed) cmd.add_option("--seed", f.seed, "seed of the controls and the bootstrap")->capture_default_str();
}

pipeline::MetricSpec metric_spec(const MetricFlags& flags, int64_t T, const std::vector<int64_t>& queries) {
  if (flags.decay_k < 1) fail("--decay-k {}: must be at least 1", flags.decay_k);
  if (flags.controls < 0) fail("--controls {}: must be 0 or more", flags.controls);
  if (flags.bootstrap < 0) fail("--bootstrap {}: must be 0 or more", flags.bootstrap);
  if (flags.metrics_memory_mb < 1) fail("--metrics-memory {}: must be at least 1 MiB", flags.metrics_memory_mb);
  pipeline::MetricSpec spec;
  spec.n_spec = flags.n;
  spec.grid = parse_grid_flag(flags.n, T);
  spec.queries = queries;
  spec.distance = flags.distance;
  spec.decay_k = flags.decay_k;
  spec.controls = flags.controls;
  spec.bootstrap = flags.bootstrap;
  spec.boot_level = flags.boot_level;
  spec.boot_unit = flags.boot_unit;
  spec.seed = flags.seed;
  spec.chunk_bytes = flags.metrics_memory_mb << 20;
  return spec;
}

}  // namespace geoattn::cli
