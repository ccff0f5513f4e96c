#pragma once
// The sinks run's "settings", after the command's (run_info.h): what the user gives and the
// frame-type rule, and its whole description. Pure C++.
#include <cstdint>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "geoattn/analysis/frames.h"
#include "geoattn/metrics/run/run_info.h"
#include "geoattn/metrics/sinks/sink_stats.h"
#include "geoattn/util/argument_names.h"

namespace geoattn::metrics {

// The frame-type rule of a sinks run (configs/sinks.json, SPEC §9): the thresholds and the sweep
// that reclassifies with one of them changed at a time.
struct FrameSweep {
  std::string key;                              // the threshold changed
  std::vector<analysis::FrameConfig> configs;   // one per value, in the file's order
  bool operator==(const FrameSweep&) const = default;
};
struct SinkRule {
  // The config's comment keys ("_comment", any key starting with '_'): kept as notes, in the
  // file's order, and written back before the thresholds; they change nothing.
  std::vector<std::pair<std::string, std::string>> notes;
  analysis::FrameConfig config;
  std::vector<FrameSweep> sweep;  // in the file's order
  bool operator==(const SinkRule&) const = default;
};
// The sinks run's "settings", after the command's: what the user gives defined once, with its
// default and its two names (util/argument_names.h), `geoattn sinks`' flags and geoattn.sinks'
// arguments alike (visit_settings, as MetricParams'); validate() checks them.
struct SinkSettings {
  static constexpr FieldName kEps{"eps", "--eps"}, kTaus{"taus", "--taus"},
      kProfilePositions{"profile_positions", "--profile"}, kConvention{"convention", "--convention"},
      kResidual{"residual", "--residual"};
  SinkConvention convention = SinkConvention::geoattn;  // SPEC §9: geoattn's own, or the authors' code's
  double eps = 0.3;                                // sink head at k: alpha_k > eps
  std::vector<double> taus{0.01, 0.05, 0.1, 0.2};  // attention-graph thresholds
  bool residual = false;                           // reference points on blocks.*.hook_resid_pre too
  int64_t profile_positions = 64;                  // alpha_k shown for k < this
  SinkRule rule;
  std::string rule_source = "built-in";            // "config": the rule's file
  bool operator==(const SinkSettings&) const = default;
  // eps and every tau in [0, 1), at least one tau, profile_positions at least 1: geoattn::Error
  // naming the field as `style` spells it.
  void validate(ArgumentStyle style) const;
  // The settings a user gives as values, in the order --help lists them, as
  // MetricParams::visit_settings (run/metric_params.h), and .list(name, field, help) for a list of
  // numbers. Not here: residual (in Python, whether a residual tensor is given) and the rule
  // (a file). `Self` is SinkSettings or const SinkSettings.
  template <typename Self, typename Visitor>
  static void visit_settings(Self& s, Visitor&& v);
};

template <typename Self, typename Visitor>
void SinkSettings::visit_settings(Self& s, Visitor&& v) {
  constexpr double kAny = std::numeric_limits<double>::max();  // their range: validate()
  v.choice(kConvention, s.convention, kSinkConventionNames,
           "geoattn (its own definitions) or authors (as the authors' released code computes them; SPEC §9)");
  v.number(kEps, s.eps, -kAny, kAny, "a head is a sink head at k when alpha_k > eps (in [0, 1))");
  v.list(kTaus, s.taus, "attention-graph thresholds on Abar, comma-separated, each in [0, 1)");
  v.number(kProfilePositions, s.profile_positions, int64_t{1}, std::numeric_limits<int64_t>::max(),
           "alpha_k reported for the first K positions");
}

using SinkInfo = RunInfo<SinkSettings>;

}  // namespace geoattn::metrics
