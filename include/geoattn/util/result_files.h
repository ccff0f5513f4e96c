#pragma once
// The files of one result: X.json and its companions beside it, X.curves.safetensors (the
// arrays) and X.state.safetensors (the state sidecar). One definition of their names, for the
// writers, the readers and the output guard (input_files.h) alike.
#include <string>

namespace geoattn {

// X<suffix> beside X.json (X.json without ".json", then `suffix`; any other name gets the suffix).
std::string sibling_path(const std::string& json_path, const std::string& suffix);
// X.curves.safetensors beside X.json.
std::string arrays_path(const std::string& json_path);
// X.state.safetensors beside X.json.
std::string state_path(const std::string& json_path);
// X.means.safetensors beside an intervene result X.json (mean ablation's means).
std::string means_path(const std::string& json_path);

}  // namespace geoattn
