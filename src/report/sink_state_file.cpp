// The state sidecar of `geoattn sinks`: the sink statistics and the run's description.
#include "geoattn/report/sink_state_file.h"

#include <map>
#include <optional>

#include "geoattn/io/safetensors.h"
#include "geoattn/io/safetensors_writer.h"
#include "geoattn/report/run_info_json.h"
#include "geoattn/report/run_identity.h"
#include "geoattn/report/state_file.h"
#include "geoattn/util/error.h"
#include "geoattn/util/json_parse.h"

namespace geoattn::report {

using metrics::SinkStats;
using nlohmann::ordered_json;

namespace {
constexpr const char* kSinkStateFormat = "geoattn-sinks-state-1";

ordered_json meta(const io::SafetensorsHeader& header, const std::string& key) {
  const auto it = header.metadata.find(key);
  if (it == header.metadata.end()) fail("not a geoattn sinks state (no '{}' in __metadata__)", key);
  std::string why;
  ordered_json j = parse_json<ordered_json>(&why, it->second);
  if (j.is_discarded()) fail("__metadata__ '{}' is {}", key, why);
  return j;
}

int64_t integer(const ordered_json& j, const char* key) {
  if (!j.contains(key) || !j.at(key).is_number_integer()) fail("__metadata__ shape.{} is not an integer", key);
  return j.at(key).get<int64_t>();
}
}  // namespace

void save_sink_state(const std::string& path, const metrics::SinkRun& run, const std::string& run_id) {
  const auto& shape = run.stats.shape();
  ordered_json texts = ordered_json::object();
  for (const auto& [id, text] : run.token_text) texts[std::to_string(id)] = text;
  std::map<std::string, std::string> metadata = {
      {"format", kSinkStateFormat},
      {"shape", ordered_json{{"layers", shape.layers}, {"heads", shape.heads}, {"kv_heads", shape.kv_heads},
                             {"T", shape.T}, {"taus", shape.taus}, {"residual", shape.residual}}
                    .dump()},
      {"eps", ordered_json(run.stats.eps()).dump()},
      {"windows", std::to_string(run.stats.windows())},
      {"run_info", to_json(run.run_info).dump()},
      {"token_text", texts.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace)},
  };
  if (!run_id.empty()) metadata[kRunIdKey] = run_id;
  const auto views = run.stats.arrays();  // alive until the file is written: derived arrays live in them
  io::write_safetensors(path, tensor_blobs(views), metadata);
}

bool is_sink_state(const std::string& path) {
  const io::SafetensorsFile file(path);
  const auto it = file.header().metadata.find("format");
  return it != file.header().metadata.end() && it->second == kSinkStateFormat;
}

metrics::SinkRun load_sink_state(const std::string& path) {
  const io::SafetensorsFile file(path);
  try {
    const auto& header = file.header();
    const auto format = header.metadata.find("format");
    if (format == header.metadata.end() || format->second != kSinkStateFormat)
      fail("not a geoattn sinks state (__metadata__ format is not {})", kSinkStateFormat);
    const ordered_json sj = meta(header, "shape"), eps = meta(header, "eps"), windows = meta(header, "windows");
    if (!sj.is_object() || !sj.contains("residual") || !sj.at("residual").is_boolean())
      fail("__metadata__ shape is not an object with a boolean 'residual'");
    const metrics::SinkShape shape{integer(sj, "layers"), integer(sj, "heads"), integer(sj, "kv_heads"),
                                   integer(sj, "T"),      integer(sj, "taus"),  sj.at("residual").get<bool>()};
    if (!eps.is_number() || !windows.is_number_integer()) fail("__metadata__ eps or windows is not a number");
    // Every size in range before any product of them (and before SinkStats allocates them).
    if (shape.layers < 1 || shape.heads < 1 || shape.kv_heads < 1 || shape.T < 2 || shape.taus < 0)
      fail("__metadata__ shape has a size below its minimum");
    if (shape.layers > (1 << 16) || shape.heads > (1 << 16) || shape.T > (1 << 24) || shape.taus > 1024)
      fail("__metadata__ shape is too large");
    if (shape.heads % shape.kv_heads != 0)
      fail("__metadata__ shape has {} heads, not a multiple of its {} kv heads", shape.heads, shape.kv_heads);
    metrics::SinkRun run;
    const ordered_json info = meta(header, "run_info");
    if (!info.is_object() || !info.contains("settings") || !info.at("settings").is_object() ||
        !info.at("settings").contains("taus") || !info.at("settings").at("taus").is_array() ||
        static_cast<int64_t>(info.at("settings").at("taus").size()) != shape.taus)
      fail("__metadata__ run_info has no settings.taus of {} thresholds", shape.taus);
    const auto& settings = info.at("settings");
    if (!settings.contains("rule") || !settings.at("rule").is_object() || !settings.contains("profile_positions") ||
        !settings.at("profile_positions").is_number_integer())
      fail("__metadata__ run_info settings has no 'rule' object or no integer 'profile_positions'");
    if (settings.contains("config") && !settings.at("config").is_string())
      fail("__metadata__ run_info settings.config is not a string");
    run.run_info = sink_info_from_json(info);  // its errors, here, name the file
    const ordered_json texts = meta(header, "token_text");  // items() of a temporary would dangle
    if (!texts.is_object()) fail("__metadata__ token_text is not an object");
    for (const auto& [id, text] : texts.items()) {
      if (!text.is_string() || id.empty() || id.size() > 18 || id.find_first_not_of("0123456789") != std::string::npos)
        fail("__metadata__ token_text holds a bad entry '{}'", id);
      run.token_text[std::stoll(id)] = text.get<std::string>();
    }
    // The arrays as the file shapes them; SinkStats::from_tensors checks them against the shape.
    const io::TensorInfo* anchors = header.find("sink_anchors");
    const io::TensorInfo* sums = header.find("sink_sums");
    if (anchors == nullptr || anchors->shape.size() != 2) fail("tensor 'sink_anchors' is missing or not 2-d");
    if (sums == nullptr || sums->shape.size() != 2 || sums->shape[1] != 2) fail("tensor 'sink_sums' is missing or not [n, 2]");
    const int64_t m = anchors->shape[0];
    std::optional<std::vector<int64_t>> graph_windows;  // absent in a state written before they were kept
    if (header.find("sink_graph_windows"))
      graph_windows = file.read<int64_t>("sink_graph_windows", io::Dtype::I64, {shape.layers, shape.taus});
    run.stats = SinkStats::from_tensors(
        shape, eps.get<double>(), windows.get<int64_t>(), file.read<int64_t>("sink_sums", io::Dtype::I64, sums->shape),
        file.read<int64_t>("sink_counts", io::Dtype::I64, {shape.layers, shape.heads, shape.T}),
        file.read<int64_t>("sink_anchors", io::Dtype::I64, {m, 5}),
        file.read<int64_t>("sink_anchor_counts", io::Dtype::I64, {m}), "state", graph_windows ? &*graph_windows : nullptr);
    return run;
  } catch (const Error& e) {
    fail("{}: {}", path, e.what());
  }
}

}  // namespace geoattn::report
