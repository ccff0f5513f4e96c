#include "geoattn/io/config_reader.h"

#include <algorithm>
#include <type_traits>

#include "geoattn/util/error.h"

namespace geoattn::io {

using nlohmann::json;

ConfigReader::ConfigReader(const json& object, std::string label, std::string path)
    : object_(object), label_(std::move(label)), path_(std::move(path)) {
  if (!object_.is_object()) fail("{}: {} is not a JSON object", label_, path_.empty() ? "the config" : "'" + path_ + "'");
}

std::string ConfigReader::where(std::string_view key) const {
  return path_.empty() ? fmt::format("{}: key '{}'", label_, key) : fmt::format("{}: key '{}.{}'", label_, path_, key);
}

const json* ConfigReader::find(std::string_view key) {
  read_.emplace(key);
  const auto it = object_.find(key);
  return it == object_.end() || it->is_null() ? nullptr : &*it;
}

bool ConfigReader::has(std::string_view key) { return find(key) != nullptr; }

bool ConfigReader::contains(std::string_view key) {
  read_.emplace(key);
  return object_.contains(key);
}

namespace {
template <typename T>
struct IsVector : std::false_type {};
template <typename T>
struct IsVector<std::vector<T>> : std::true_type {};

// Whether a JSON value holds a T, and how an error names T (`list`: a list of them).
template <typename T>
bool holds(const json& v) {
  if constexpr (IsVector<T>::value)
    return v.is_array() && std::all_of(v.begin(), v.end(), [](const json& x) { return holds<typename T::value_type>(x); });
  else if constexpr (std::is_same_v<T, bool>) return v.is_boolean();
  else if constexpr (std::is_same_v<T, std::string>) return v.is_string();
  else if constexpr (std::is_same_v<T, double>) return v.is_number();
  else if constexpr (std::is_same_v<T, uint64_t>) return v.is_number_unsigned() || (v.is_number_integer() && v.get<int64_t>() >= 0);
  else return v.is_number_integer();
}
template <typename T>
constexpr const char* type_name(bool list = false) {
  if constexpr (IsVector<T>::value) return type_name<typename T::value_type>(true);
  else if constexpr (std::is_same_v<T, bool>) return "true or false";
  else if constexpr (std::is_same_v<T, std::string>) return list ? "a list of strings" : "a string";
  else if constexpr (std::is_same_v<T, double>) return list ? "a list of numbers" : "a number";
  else if constexpr (std::is_same_v<T, uint64_t>) return "an integer >= 0";
  else return list ? "a list of integers" : "an integer";
}
}  // namespace

template <typename T>
std::optional<T> ConfigReader::get(std::string_view key) {
  const json* v = find(key);
  if (!v) return std::nullopt;
  if (!holds<T>(*v)) fail("{} must be {}", where(key), type_name<T>());
  return v->get<T>();
}
template std::optional<int64_t> ConfigReader::get<int64_t>(std::string_view);
template std::optional<double> ConfigReader::get<double>(std::string_view);
template std::optional<bool> ConfigReader::get<bool>(std::string_view);
template std::optional<std::string> ConfigReader::get<std::string>(std::string_view);
template std::optional<std::vector<double>> ConfigReader::get<std::vector<double>>(std::string_view);
template std::optional<uint64_t> ConfigReader::get<uint64_t>(std::string_view);
template std::optional<std::vector<int64_t>> ConfigReader::get<std::vector<int64_t>>(std::string_view);
template std::optional<std::vector<std::string>> ConfigReader::get<std::vector<std::string>>(std::string_view);

int64_t ConfigReader::required_positive(std::string_view key) {
  const json* v = find(key);
  if (!v) fail("{}: missing field '{}'", label_, path_.empty() ? std::string(key) : path_ + "." + std::string(key));
  if (!v->is_number_integer() || v->get<int64_t>() <= 0) fail("{} must be a positive integer", where(key));
  return v->get<int64_t>();
}

std::optional<ConfigReader> ConfigReader::object(std::string_view key) {
  const json* v = find(key);
  if (!v) return std::nullopt;
  if (!v->is_object()) fail("{} must be an object", where(key));
  return ConfigReader(*v, label_, path_.empty() ? std::string(key) : path_ + "." + std::string(key));
}

void ConfigReader::ignore(std::span<const std::string_view> keys) {
  for (auto key : keys) read_.emplace(key);
}

void ConfigReader::finish() const {
  for (const auto& [key, value] : object_.items())
    if (!read_.contains(key))
      fail("{} is not understood by geoattn: it may change the forward, so it is refused rather than ignored", where(key));
}

}  // namespace geoattn::io
