#pragma once
// The metric flags measure, metrics and bench share (grid, distance, decay lag, controls,
// bootstrap, envelopes), bound from pipeline::MetricParams::visit_settings: their names, defaults,
// checks and help are defined there once, Python's too.
#include <CLI/CLI.hpp>

#include <string>
#include <vector>

#include "geoattn/pipeline/metric_run.h"
#include "geoattn/pipeline/stage_times.h"
#include "cli.h"

namespace geoattn::cli {

using pipeline::doc_ids;
using pipeline::window_keys;
using MetricFlags = pipeline::MetricParams;

void add_metric_flags(CLI::App& cmd, MetricFlags& flags, bool with_seed);

// --window-tokens (SPEC §1), measure's, metrics' and bounds' alike.
void add_window_tokens_option(CLI::App& cmd, metrics::WindowTokens& value);
// The metric flags the run's settings leave unread, refused by name: --kappa with the envelopes
// off, --bootstrap-level and --bootstrap-unit with --bootstrap 0 (a rule table, cli.h).
void refuse_unused_metric_flags(const GivenFlags& given, const pipeline::MetricSpec& spec);
// The typed specification of the metric flags at window length T for `queries`
// (geoattn::Error naming the flag on a bad value).
pipeline::MetricSpec metric_spec(const MetricFlags& flags, int64_t T, const std::vector<int64_t>& queries);

// geoattn metrics: a capture file -> the result JSON at `out`, on `pool`; the stages' times.
pipeline::StageTimes metrics_from_capture(WorkerPool& pool, const std::string& capture, const MetricFlags& flags,
                                          const std::string& out, const GivenFlags& given = {});

}  // namespace geoattn::cli
