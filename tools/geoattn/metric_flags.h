#pragma once
// The metric flags measure, metrics and bench share (grid, distance, decay lag, controls,
// bootstrap, envelopes), bound from metrics::MetricParams::visit_settings: their names, defaults,
// checks and help are defined there once, Python's too.
#include <CLI/CLI.hpp>

#include <initializer_list>
#include <string>
#include <vector>

#include "geoattn/pipeline/metric_run.h"
#include "geoattn/pipeline/stage_times.h"
#include "cli.h"

namespace geoattn::cli {

using pipeline::doc_ids;
using pipeline::window_keys;
using MetricFlags = metrics::MetricParams;

void add_metric_flags(CLI::App& cmd, MetricFlags& flags, bool with_seed);
// The same flags as arguments that give `flags`' settings, those off their defaults only (seed
// included): "--n", "all", ...
std::vector<std::string> metric_flag_args(const MetricFlags& flags);

// Only the flags of `only` (bounds': --n, --kappa, --window-tokens).
void add_metric_flags(CLI::App& cmd, MetricFlags& flags, std::initializer_list<FieldName> only);
// The metric flags the run's settings leave unread, refused by name: --kappa with the envelopes
// off, --bootstrap-level and --bootstrap-unit with --bootstrap 0 (a rule table, cli.h).
void refuse_unused_metric_flags(const GivenFlags& given, const pipeline::MetricSpec& spec);

// geoattn metrics: a capture file -> the result JSON at `out`, on `pool`; the stages' times.
// Unless `quiet`, the run's last line on stderr.
pipeline::StageTimes metrics_from_capture(WorkerPool& pool, const std::string& capture, const MetricFlags& flags,
                                          const std::string& out, const GivenFlags& given = {}, bool quiet = true);

}  // namespace geoattn::cli
