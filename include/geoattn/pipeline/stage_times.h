#pragma once
// Where a run's time goes, stage by stage: the "timing.stages" of the result JSON and the
// profile `geoattn bench metrics` prints. Wall seconds.
#include <string>
#include <utility>
#include <vector>

#include "geoattn/metrics/core/core_options.h"

namespace geoattn::pipeline {

struct StageTimes {
  double load = 0;       // reading the capture file / the checkpoint and windows
  double forward = 0;    // the model's forward with the capture points
  double gram = 0;       // the metric core's Gram matrices (CPU) and value statistics
  double top = 0;        // the top-N ordering: counts, s(N) diagnostics, scalars
  double controls = 0;   // the random orderings of the control (SPEC §2b)
  double aggregate = 0;  // exact streaming sums, per-document sums, assumption statistics
  double envelopes = 0;  // SPEC §5's bounds of every sample (the envelopes of the measured samples)
  double bootstrap = 0;  // SPEC §2b intervals
  double fits = 0;       // SPEC §4 fits of every head
  double write = 0;      // the result JSON and its arrays, and the end of the state sidecar (SidecarWrite)

  void add(const metrics::CoreStats& core) {
    gram += core.gram_s, top += core.top_s, controls += core.controls_s, envelopes += core.bounds_s;
  }
  double total() const { return load + forward + gram + top + controls + aggregate + envelopes + bootstrap + fits + write; }
  // "timing.stages" (metrics::Timing): everything but `write` (the JSON holding it is written after).
  std::vector<std::pair<std::string, double>> seconds() const {
    return {{"load", load},           {"forward_and_capture", forward}, {"gram", gram},
            {"orderings_top_n", top}, {"orderings_controls", controls}, {"aggregate", aggregate},
            {"envelopes", envelopes}, {"bootstrap", bootstrap}, {"fits", fits}};
  }
  // A run's end line: the stages of seconds() that took more than `share` of `total_s`, as
  // "forward_and_capture 0.7s, envelopes 2.1s" (their names and order).
  std::string over(double total_s, double share = 0.05) const;
};

}  // namespace geoattn::pipeline
