// The arrays file of a measure result (X.curves.safetensors) and the reader that puts its arrays
// back into the JSON's layers and heads (measure_json.h).
#include <cmath>
#include <filesystem>
#include <fstream>
#include <string>

#include <nlohmann/json.hpp>

#include "geoattn/io/safetensors.h"
#include "geoattn/io/safetensors_writer.h"
#include "geoattn/report/measure_json.h"
#include "geoattn/report/run_identity.h"
#include "geoattn/util/error.h"
#include "geoattn/util/json_parse.h"
#include "json_number.h"

namespace geoattn::report {

using nlohmann::ordered_json;

void write_measure_arrays(const std::string& path, const MeasureArrays& arrays, const std::string& run_id) {
  std::vector<io::TensorBlob> blobs;
  blobs.reserve(arrays.size());
  for (const auto& a : arrays) blobs.push_back({a.name, io::Dtype::F64, a.shape, a.values.data()});
  io::write_safetensors(path, blobs, {{"schema", kMeasureSchema}, {kRunIdKey, run_id}});
}

namespace {
// The entry values of one array as JSON: numbers (null for NaN), or for a trailing dimension
// of 2 on a [G, 2] entry, intervals [lo, hi] (null unless both are finite).
ordered_json entry_json(const double* v, const std::vector<int64_t>& inner) {
  ordered_json out = ordered_json::array();
  if (inner.size() == 1) {
    for (int64_t i = 0; i < inner[0]; ++i) out.push_back(number(v[i]));
  } else {
    for (int64_t i = 0; i < inner[0]; ++i)
      out.push_back(std::isfinite(v[2 * i]) && std::isfinite(v[2 * i + 1]) ? ordered_json::array({v[2 * i], v[2 * i + 1]})
                                                                           : ordered_json(nullptr));
  }
  return out;
}

// doc[group][e] at the dotted `key` ("fits.decay.c" -> ["fits"]["decay"]["c"]).
ordered_json& at_key(ordered_json& entry, const std::string& key) {
  ordered_json* node = &entry;
  size_t begin = 0;
  for (size_t dot; (dot = key.find('.', begin)) != std::string::npos; begin = dot + 1) node = &(*node)[key.substr(begin, dot - begin)];
  return (*node)[key.substr(begin)];
}
}  // namespace

void inline_measure_arrays(ordered_json& doc, const std::string& json_path) {
  if (!doc.contains("arrays")) return;  // geoattn.measure/1: everything is inline already
  const auto& spec = doc["arrays"];
  if (!spec.is_object() || !spec.contains("file") || !spec["file"].is_string())
    fail("{}: \"arrays\" does not name its file", json_path);
  if (!doc.contains("layers") || !doc["layers"].is_array() || !doc.contains("heads") || !doc["heads"].is_array())
    fail("{}: layers and heads must be arrays", json_path);
  const std::string path = (std::filesystem::path(json_path).parent_path() / spec["file"].get<std::string>()).string();
  auto& layers = doc["layers"];
  auto& heads = doc["heads"];
  const int64_t L = static_cast<int64_t>(layers.size());
  const int64_t H = L > 0 ? static_cast<int64_t>(heads.size()) / L : 0;
  if (L == 0 || L * H != static_cast<int64_t>(heads.size()))
    fail("{}: {} heads are not a whole number per layer ({} layers)", json_path, heads.size(), L);
  for (int64_t i = 0; i < L * H; ++i)
    if (heads[i].value("layer", int64_t{-1}) != i / H || heads[i].value("head", int64_t{-1}) != i % H)
      fail("{}: heads[{}] is not (layer {}, head {})", json_path, i, i / H, i % H);
  io::SafetensorsFile file(path);  // fails naming the file when missing or malformed
  check_companion(json_path, run_id_of(doc), path, run_id_of(file.header()));
  for (const auto& t : file.header().tensors) {
    const auto dot = t.name.find('.');
    const std::string group = t.name.substr(0, dot), key = dot == std::string::npos ? "" : t.name.substr(dot + 1);
    const size_t outer = group == "layers" ? 1 : group == "heads" ? 2 : 0;
    if (outer == 0 || key.empty()) fail("{}: tensor '{}' is not layers.<key> or heads.<key>", path, t.name);
    if (t.dtype != io::Dtype::F64) fail("{}: tensor '{}' is {}, expected F64", path, t.name, io::dtype_name(t.dtype));
    const std::vector<int64_t> expect = outer == 1 ? std::vector<int64_t>{L} : std::vector<int64_t>{L, H};
    const std::vector<int64_t> inner(t.shape.begin() + std::min(outer, t.shape.size()), t.shape.end());
    if (t.shape.size() <= outer || !std::equal(expect.begin(), expect.end(), t.shape.begin()) || inner.size() > 2 ||
        (inner.size() == 2 && inner[1] != 2))
      fail("{}: tensor '{}' is not [{}, N] or [{}, N, 2] with the JSON's {} layers and {} heads", path, t.name,
           outer == 1 ? "L" : "L, H", outer == 1 ? "L" : "L, H", L, H);
    int64_t per = 1;
    for (int64_t n : inner) per *= n;
    const auto values = file.read<double>(t.name, io::Dtype::F64, t.shape);
    auto& entries = outer == 1 ? layers : heads;
    for (size_t e = 0; e < entries.size(); ++e) {
      if (!entries[e].is_object()) fail("{}: {}[{}] is not an object", json_path, group, e);
      at_key(entries[e], key) = entry_json(values.data() + e * per, inner);
    }
  }
  doc.erase("arrays");
}

ordered_json read_measure(const std::string& json_path) {
  auto doc = read_json_file<ordered_json>(json_path);
  if (!is_measure_schema(doc))
    fail("{}: expected schema '{}' (or '{}'), got {}", json_path, kMeasureSchema, kMeasureSchemaInline,
         doc.is_object() && doc.contains("schema") ? doc["schema"].dump() : std::string("none"));
  inline_measure_arrays(doc, json_path);
  return doc;
}

}  // namespace geoattn::report
