#pragma once
// What a run records about itself in its result and its state sidecar, typed: "model", "data",
// "settings" (the command's own, then its method's: the metric run's or the sinks'), "timing".
// Spelled as JSON only at the file boundary (report/run_info_json.h, report/settings.h), where
// resume and merge also compare runs. Pure C++ (no LibTorch).
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include <nlohmann/json.hpp>

#include "geoattn/analysis/frames.h"
#include "geoattn/metrics/sink_stats.h"
#include "geoattn/util/argument_names.h"
#include "geoattn/util/input_files.h"
#include "geoattn/arch/device.h"
#include "geoattn/io/windows.h"
#include "geoattn/metrics/exact.h"
#include "geoattn/metrics/unit_stats.h"
#include "geoattn/metrics/visible_keys.h"

namespace geoattn::metrics {

// "model": a checkpoint folder ("path") or a capture file ("capture"), then the description:
// io::describe_model's (pipeline::model_info) or a capture's shape and __metadata__. The
// description is written and compared (resume, merge) but never read field by field, and files
// of older versions carry older descriptions: it stays the JSON object io wrote, in its order.
struct ModelInfo {
  enum class Source { Checkpoint, Capture };
  Source source = Source::Checkpoint;
  std::string path;
  nlohmann::ordered_json description = nlohmann::ordered_json::object();
  bool operator==(const ModelInfo&) const = default;
};

// "data" of windows cut from text or token files (measure, sinks): the flags that chose them.
struct WindowData {
  std::vector<std::string> files;
  io::WindowMode mode = io::WindowMode::Doc;
  io::OffsetMode offset = io::OffsetMode::Start;
  uint64_t seed = 0;
  int64_t max_windows = -1;
  std::string shard = "0/1";
  bool operator==(const WindowData&) const = default;
};
// "data" of the windows of a capture file (metrics, sinks --capture).
struct CaptureData {
  std::string capture;
  bool operator==(const CaptureData&) const = default;
};
struct DataInfo;
// "data" of a merge: the inputs and each shard's own "data", in the order given.
struct MergedData {
  std::vector<std::string> merged_from;
  std::vector<DataInfo> shards;
  std::vector<std::string> missing_shards;  // "i/n" of a merge --partial
  bool operator==(const MergedData&) const;
};
struct DataInfo {
  std::variant<WindowData, CaptureData, MergedData> source;
  int64_t windows = 0, tokens = 0;
  std::optional<int64_t> windows_done;  // a partial measure state: the windows it holds
  std::optional<bool> complete;          // measure: whether every window is in
  std::vector<FileFingerprint> inputs;   // a partial state: the files read so far (pipeline/resume.h)
  bool operator==(const DataInfo&) const = default;
};
inline bool MergedData::operator==(const MergedData& o) const {
  return merged_from == o.merged_from && shards == o.shards && missing_shards == o.missing_shards;
}

// "settings.queries" as the command had them: the flag's text ("last", "all", "i,j,...") or,
// from a capture, the positions.
using Queries = std::variant<std::string, std::vector<int64_t>>;

// The command's own "settings", written first.
struct CommandSettings {
  int64_t ctx = 0;
  Queries queries;
  std::optional<arch::ForwardDtype> dtype;  // a run of a model (none from a capture)
  bool operator==(const CommandSettings&) const = default;
};

// SPEC §2b: the random-selection control.
struct ControlSettings {
  int64_t random_permutations = 0;  // per sample (0: none)
  uint64_t seed = 0;
  bool operator==(const ControlSettings&) const = default;
};
// SPEC §2b: the bootstrap; no level or unit where it did not run.
struct BootstrapSettings {
  int64_t replicates = 0;  // 0: none
  uint64_t seed = 0;
  std::optional<BootLevel> level;
  std::optional<BootUnit> unit;
  bool operator==(const BootstrapSettings&) const = default;
};
// The metric run's "settings" (measure, metrics, merge), after the command's.
struct MetricSettings {
  std::string n;         // the N grid as the user wrote it
  int64_t decay_k = 64;  // SPEC §4: the largest lag of the decay fit
  Distance distance = Distance::Euclidean;
  ControlSettings controls;
  BootstrapSettings bootstrap;
  std::optional<double> envelope_kappa;  // SPEC §5's envelopes of the measured samples at this kappa; none: not computed
  // SPEC §1: whose keys a windowed layer's samples range over, and the layers' windows (0: none).
  WindowTokens window_tokens = WindowTokens::Visible;
  std::vector<int64_t> layer_windows;
  // The kappa grid of the envelopes for the kappa range (empty: not computed).
  std::vector<double> kappa_scan;
  bool operator==(const MetricSettings&) const = default;
};

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
// arguments alike; validate() checks them.
struct SinkSettings {
  static constexpr FieldName kEps{"eps", "--eps"}, kTaus{"taus", "--taus"},
      kProfilePositions{"profile_positions", "--profile"}, kConvention{"convention", "--convention"};
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
};

// "timing": what the run measured of itself, in wall seconds (a merge: how many runs it merged).
// Absent entries are not written.
struct Timing {
  std::optional<int64_t> merged;
  std::optional<arch::Device> device;
  std::optional<int64_t> batch, resumed_after_windows;
  std::optional<double> seconds_total, seconds_forward_and_capture, seconds_metrics, seconds_sinks,
      seconds_window_loop, windows_per_second, tokens_per_second, share_outside_forward;
  std::optional<int64_t> peak_rss_bytes;
  std::vector<std::pair<std::string, double>> stages;  // pipeline::StageTimes, in its order; empty: none
  bool operator==(const Timing&) const = default;
};

// The whole description; `Method` is MetricSettings or SinkSettings.
template <typename Method>
struct RunInfo {
  ModelInfo model;
  DataInfo data;
  CommandSettings command;  // "settings": the command's own entries first,
  Method method;            // then the method's
  Timing timing;
  bool operator==(const RunInfo&) const = default;
};
using MeasureInfo = RunInfo<MetricSettings>;
using SinkInfo = RunInfo<SinkSettings>;

}  // namespace geoattn::metrics
