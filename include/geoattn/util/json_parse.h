#pragma once
// Every JSON document geoattn reads (configs, safetensors headers, shard rows, its own results
// and sidecars) is parsed here. nlohmann's parser is iterative, but copying, comparing, dumping
// and destroying a value recurse, so a hostile file nested a few hundred thousand levels deep
// would overflow the stack later. parse_json refuses anything nested deeper than kMaxJsonDepth
// (geoattn's own files nest at most 5 levels; Hugging Face configs a handful).
#include <filesystem>
#include <fstream>
#include <set>
#include <string>
#include <vector>
#include <utility>

#include <nlohmann/json.hpp>

#include "geoattn/util/error.h"
#include "geoattn/util/input_files.h"

namespace geoattn {

inline constexpr int kMaxJsonDepth = 128;

// The value read from `input...` (whatever Json::parse reads: a string, a stream, an iterator
// pair), or a discarded value with *why set to "not valid JSON", "nested deeper than 128
// levels" or "the key "k" is given twice in one object" (nlohmann would keep the last of the
// two silently: which was meant?). Never throws nlohmann's exceptions.
template <typename Json = nlohmann::json, typename... Input>
Json parse_json(std::string* why, Input&&... input) {
  bool too_deep = false;
  std::string duplicate;  // the first key an object gives twice (nlohmann keeps the last silently)
  std::vector<std::set<std::string>> keys;  // the keys of each open object, innermost last
  using Event = typename Json::parse_event_t;
  const typename Json::parser_callback_t limit = [&](int depth, Event event, Json& parsed) {
    if (depth > kMaxJsonDepth) too_deep = true;
    if (event == Event::object_start) keys.emplace_back();
    if (event == Event::object_end && !keys.empty()) keys.pop_back();
    if (event == Event::key && !keys.empty() && !keys.back().insert(parsed.template get<std::string>()).second &&
        duplicate.empty())
      duplicate = parsed.template get<std::string>();
    return !too_deep;  // once too deep, keep nothing more (no deep value is ever built)
  };
  Json j = Json::parse(std::forward<Input>(input)..., limit, /*allow_exceptions=*/false);
  if (too_deep) {
    if (why != nullptr) *why = "nested deeper than " + std::to_string(kMaxJsonDepth) + " levels";
    return Json(Json::value_t::discarded);
  }
  if (!duplicate.empty() && !j.is_discarded()) {
    if (why != nullptr) *why = "the key \"" + echoed(duplicate) + "\" is given twice in one object";
    return Json(Json::value_t::discarded);
  }
  if (j.is_discarded() && why != nullptr) *why = "not valid JSON";
  return j;
}

// parse_json, or geoattn::Error "<where>: not valid JSON" / "<where>: nested deeper than 128
// levels", where `where` names the file (or file:line).
template <typename Json = nlohmann::json, typename... Input>
Json parse_json_or_fail(const std::string& where, Input&&... input) {
  std::string why;
  Json j = parse_json<Json>(&why, std::forward<Input>(input)...);
  if (j.is_discarded()) fail("{}: {}", where, why);
  return j;
}

// The JSON file at `path`: geoattn::Error "<path>: a folder, expected a JSON file", "<path>:
// cannot open", or parse_json_or_fail's.
template <typename Json = nlohmann::json>
Json read_json_file(const std::string& path) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) fail("{}: a folder, expected a JSON file", path);
  std::ifstream in(path);
  if (!in) fail("{}: cannot open", path);
  note_input(path);
  return parse_json_or_fail<Json>(path, in);
}

}  // namespace geoattn
