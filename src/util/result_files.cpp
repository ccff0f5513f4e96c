#include "geoattn/util/result_files.h"

namespace geoattn {

std::string sibling_path(const std::string& json_path, const std::string& suffix) {
  const std::string ext = ".json";
  const bool has_ext = json_path.size() > ext.size() && json_path.compare(json_path.size() - ext.size(), ext.size(), ext) == 0;
  return (has_ext ? json_path.substr(0, json_path.size() - ext.size()) : json_path) + suffix;
}

std::string arrays_path(const std::string& json_path) { return sibling_path(json_path, ".curves.safetensors"); }

std::string state_path(const std::string& json_path) { return sibling_path(json_path, ".state.safetensors"); }

std::string means_path(const std::string& json_path) { return sibling_path(json_path, ".means.safetensors"); }

}  // namespace geoattn
