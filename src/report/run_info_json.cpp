// The run's description <-> the "model", "data", "settings" and "timing" of results and sidecars.
#include "geoattn/report/run_info_json.h"

#include <fmt/format.h>

#include "geoattn/io/config_reader.h"
#include "geoattn/report/settings.h"
#include "geoattn/util/error.h"

namespace geoattn::report {

using metrics::DataInfo;
using metrics::ModelInfo;
using metrics::Timing;
using nlohmann::ordered_json;

namespace {

constexpr const char* kLabel = "run_info";
constexpr const char* kPath = "path";        // a checkpoint folder
constexpr const char* kCapture = "capture";  // a capture file (model and data alike)
constexpr const char* kMergedFrom = "merged_from";

// The timing entries after "merged" and "device", in the files' order.
using TimingField = std::variant<std::optional<int64_t> Timing::*, std::optional<double> Timing::*>;
const std::pair<const char*, TimingField> kTimingFields[] = {
    {"batch", &Timing::batch},
    {"resumed_after_windows", &Timing::resumed_after_windows},
    {"seconds_total", &Timing::seconds_total},
    {"seconds_forward_and_capture", &Timing::seconds_forward_and_capture},
    {"seconds_metrics", &Timing::seconds_metrics},
    {"seconds_sinks", &Timing::seconds_sinks},
    {"seconds_window_loop", &Timing::seconds_window_loop},
    {"windows_per_second", &Timing::windows_per_second},
    {"tokens_per_second", &Timing::tokens_per_second},
    {"share_outside_forward", &Timing::share_outside_forward},
    {"peak_rss_bytes", &Timing::peak_rss_bytes},
};

// "model": its source's key first, the description after it in the file's order.
ModelInfo read_model(const ordered_json& j) {
  if (!j.is_object()) fail("{}: key 'model' must be an object", kLabel);
  ModelInfo m;
  for (const auto& [key, value] : j.items()) {
    if (key == kPath || key == kCapture) {
      if (!value.is_string()) fail("{}: key 'model.{}' must be a string", kLabel, key);
      m.source = key == kPath ? ModelInfo::Source::Checkpoint : ModelInfo::Source::Capture;
      m.path = value.get<std::string>();
    } else {
      m.description[key] = value;
    }
  }
  return m;
}

DataInfo read_data(io::ConfigReader& r) {
  DataInfo d;
  if (r.has(kMergedFrom)) {
    metrics::MergedData merged;
    merged.merged_from = r.get<std::vector<std::string>>(kMergedFrom).value();
    if (const auto* shards = r.find("shards")) {
      if (!shards->is_array()) fail("{} must be a list", r.where("shards"));
      for (size_t i = 0; i < shards->size(); ++i) {
        io::ConfigReader shard(shards->at(i), r.label(), fmt::format("data.shards[{}]", i));
        merged.shards.push_back(read_data(shard));
      }
    }
    merged.missing_shards = r.get_or<std::vector<std::string>>("missing_shards", {});
    d.source = std::move(merged);
  } else if (r.has(kCapture)) {
    d.source = metrics::CaptureData{r.get<std::string>(kCapture).value()};
  } else {
    metrics::WindowData w;
    w.files = r.get_or<std::vector<std::string>>("files", {});
    w.mode = read_enum(r, "mode", io::kWindowModeNames).value_or(w.mode);
    w.offset = read_enum(r, "offset", io::kOffsetModeNames).value_or(w.offset);
    w.seed = r.get_or<uint64_t>("seed", w.seed);
    w.max_windows = r.get_or<int64_t>("max_windows", w.max_windows);
    w.shard = r.get_or<std::string>("shard", w.shard);
    d.source = std::move(w);
  }
  d.windows = r.get_or<int64_t>("windows", 0);
  d.tokens = r.get_or<int64_t>("tokens", 0);
  if (const auto* per_file = r.find("per_file")) {
    if (!per_file->is_array()) fail("{} must be a list", r.where("per_file"));
    for (size_t i = 0; i < per_file->size(); ++i) {
      io::ConfigReader f(per_file->at(i), r.label(), fmt::format("data.per_file[{}]", i));
      d.per_file.push_back({f.get<std::string>("file").value_or(""), f.get<int64_t>("windows").value_or(0),
                            f.get<int64_t>("documents").value_or(0)});
    }
  }
  d.windows_done = r.get<int64_t>("windows_done");
  d.complete = r.get<bool>("complete");
  if (const auto* inputs = r.find("inputs")) {
    if (!inputs->is_array()) fail("{} must be a list", r.where("inputs"));
    for (size_t i = 0; i < inputs->size(); ++i) {
      io::ConfigReader input(inputs->at(i), r.label(), fmt::format("data.inputs[{}]", i));
      d.inputs.push_back({input.get<std::string>("path").value_or(""), input.get<int64_t>("size").value_or(-1),
                          input.get<std::string>("hash").value_or("")});
    }
  }
  return d;
}

// `ordered`: the same object in its order (the stages keep theirs).
Timing read_timing(io::ConfigReader& r, const ordered_json& ordered) {
  Timing t;
  t.merged = r.get<int64_t>("merged");
  if (const auto name = r.get<std::string>("device")) {
    t.device = arch::parse_device(*name);
    if (!t.device) fail("{} is '{}', not cpu, cuda or cuda:N", r.where("device"), *name);
  }
  for (const auto& [key, field] : kTimingFields)
    std::visit([&, key = key](auto member) { t.*member = r.get<typename std::remove_reference_t<decltype(t.*member)>::value_type>(key); },
               field);
  if (auto stages = r.object("stages")) {
    for (const auto& [key, value] : ordered.at("stages").items()) t.stages.emplace_back(key, stages->get<double>(key).value_or(0));
  }
  return t;
}

template <typename Method>
ordered_json run_info_json(const metrics::RunInfo<Method>& info) {
  ordered_json settings = ordered_json::object();
  put_json(settings, info.command);
  put_json(settings, info.method);
  ordered_json j = {{"model", to_json(info.model)}, {"data", to_json(info.data)}, {"settings", std::move(settings)}};
  if (info.timing != Timing{}) j["timing"] = to_json(info.timing);
  return j;
}

// The parts every run_info has; `method` reads the settings' method entries.
template <typename Method, typename ReadMethod>
metrics::RunInfo<Method> read_run_info(const ordered_json& j, ReadMethod&& method) {
  if (!j.is_object()) fail("{} is not a JSON object", kLabel);
  const nlohmann::json plain = j;
  io::ConfigReader r(plain, kLabel);
  metrics::RunInfo<Method> info;
  if (r.has("model")) info.model = read_model(j.at("model"));
  if (auto data = r.object("data")) info.data = read_data(*data);
  if (auto settings = r.object("settings")) {
    info.command = read_command_settings(*settings);
    info.method = method(*settings, j.at("settings"));
  }
  if (auto timing = r.object("timing")) info.timing = read_timing(*timing, j.at("timing"));
  return info;
}

// ---- same_run ----

std::string brief(const ordered_json& j) {
  std::string text = j.dump();
  return text.size() <= 60 ? text : text.substr(0, 57) + "...";
}

// The first place where `a` and `b` differ (objects key by key, in any order), or "".
std::string first_difference(const std::string& where, const ordered_json& a, const ordered_json& b) {
  if (a.is_object() && b.is_object()) {
    for (const auto& [key, value] : a.items()) {
      if (!b.contains(key)) return fmt::format("{}.{} is missing from the second run", where, key);
      std::string diff = first_difference(where + "." + key, value, b.at(key));
      if (!diff.empty()) return diff;
    }
    for (const auto& [key, value] : b.items())
      if (!a.contains(key)) return fmt::format("{}.{} is missing from the first run", where, key);
    return "";
  }
  return a == b ? "" : fmt::format("{} differs: {} vs {}", where, brief(a), brief(b));
}

}  // namespace

ordered_json to_json(const ModelInfo& m) {
  ordered_json j = {{m.source == ModelInfo::Source::Checkpoint ? kPath : kCapture, m.path}};
  for (const auto& [key, value] : m.description.items()) j[key] = value;
  return j;
}

ordered_json to_json(const DataInfo& d) {
  ordered_json j = ordered_json::object();
  const auto* merged = std::get_if<metrics::MergedData>(&d.source);
  if (const auto* w = std::get_if<metrics::WindowData>(&d.source)) {
    j = {{"files", w->files},
         {"mode", name_of(io::kWindowModeNames, w->mode)},
         {"offset", name_of(io::kOffsetModeNames, w->offset)},
         {"seed", w->seed},
         {"max_windows", w->max_windows},
         {"shard", w->shard}};
  } else if (const auto* c = std::get_if<metrics::CaptureData>(&d.source)) {
    j[kCapture] = c->capture;
  } else {
    j[kMergedFrom] = merged->merged_from;
  }
  j["windows"] = d.windows;
  j["tokens"] = d.tokens;
  if (!d.per_file.empty()) {  // SPEC §7: each shard file's windows and documents
    ordered_json& per_file = j["per_file"] = ordered_json::array();
    for (const auto& f : d.per_file) per_file.push_back({{"file", f.file}, {"windows", f.windows}, {"documents", f.documents}});
  }
  if (merged) {
    ordered_json& shards = j["shards"] = ordered_json::array();
    for (const auto& shard : merged->shards) shards.push_back(to_json(shard));
    if (!merged->missing_shards.empty()) j["missing_shards"] = merged->missing_shards;
  }
  if (d.windows_done) j["windows_done"] = *d.windows_done;
  if (d.complete) j["complete"] = *d.complete;
  if (!d.inputs.empty()) {
    ordered_json& inputs = j["inputs"] = ordered_json::array();
    for (const auto& f : d.inputs) inputs.push_back({{"path", f.path}, {"size", f.size}, {"hash", f.hash}});
  }
  return j;
}

ordered_json to_json(const Timing& t) {
  ordered_json j = ordered_json::object();
  if (t.merged) j["merged"] = *t.merged;
  if (t.device) j["device"] = arch::device_name(*t.device);
  for (const auto& [key, field] : kTimingFields)
    std::visit([&, key = key](auto member) {
      if (t.*member) j[key] = *(t.*member);
    }, field);
  if (!t.stages.empty()) {
    ordered_json& stages = j["stages"] = ordered_json::object();
    for (const auto& [key, seconds] : t.stages) stages[key] = seconds;
  }
  return j;
}

ordered_json to_json(const metrics::MeasureInfo& info) { return run_info_json(info); }
ordered_json to_json(const metrics::SinkInfo& info) { return run_info_json(info); }

metrics::MeasureInfo measure_info_from_json(const ordered_json& j) {
  return read_run_info<metrics::MetricRecord>(
      j, [](io::ConfigReader& r, const ordered_json&) { return read_metric_settings(r); });
}

DataInfo data_from_json(const ordered_json& j, const std::string& label) {
  if (!j.is_object()) fail("{}: data is not a JSON object", label);
  const nlohmann::json plain = j;
  io::ConfigReader r(plain, label, "data");
  return read_data(r);
}

metrics::SinkInfo sink_info_from_json(const ordered_json& j) {
  return read_run_info<metrics::SinkSettings>(j, read_sink_settings);
}

bool same_run(const ordered_json& a, const ordered_json& b, std::string* why) {
  for (const std::string key : {"model", "settings", "n_grid"}) {
    std::string diff;
    if (a.contains(key) != b.contains(key))
      diff = fmt::format("{} is missing from the {} run", key, a.contains(key) ? "second" : "first");
    else if (a.contains(key))
      diff = first_difference(key, a.at(key), b.at(key));
    if (!diff.empty()) {
      if (why) *why = diff;
      return false;
    }
  }
  return true;
}

}  // namespace geoattn::report
