#pragma once
// What a run records about itself in its result and its state sidecar, typed: "model", "data",
// "settings" (the command's own, then its method's: the metric run's, metric_record.h, or the
// sinks', sink_settings.h), "timing".
// Spelled as JSON only at the file boundary (report/run_info_json.h, report/settings.h), where
// resume and merge also compare runs. Pure C++ (no LibTorch).
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include <nlohmann/json.hpp>

#include "geoattn/arch/device.h"
#include "geoattn/io/windows.h"
#include "geoattn/util/input_files.h"

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
// SPEC §7: how many windows, and from how many documents, one shard file gave the run.
struct FileWindows {
  std::string file;  // as given (--data)
  int64_t windows = 0, documents = 0;
  bool operator==(const FileWindows&) const = default;
};
struct DataInfo {
  std::variant<WindowData, CaptureData, MergedData> source;
  int64_t windows = 0, tokens = 0;
  std::optional<int64_t> windows_done;  // a partial measure state: the windows it holds
  std::optional<bool> complete;          // measure: whether every window is in
  std::vector<FileFingerprint> inputs;   // a partial state: the files read so far (pipeline/resume.h)
  std::vector<FileWindows> per_file;     // SPEC §7: text shards (and merges of them); empty otherwise
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

// The whole description; `Method` is the method's settings: MetricRecord (metric_record.h,
// MeasureInfo) or SinkSettings (sink_settings.h, SinkInfo).
template <typename Method>
struct RunInfo {
  ModelInfo model;
  DataInfo data;
  CommandSettings command;  // "settings": the command's own entries first,
  Method method;            // then the method's
  Timing timing;
  bool operator==(const RunInfo&) const = default;
};

}  // namespace geoattn::metrics
