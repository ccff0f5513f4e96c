#pragma once
// One JSON object of a config.json, read key by key with the reads recorded, so that a key
// nobody read is found afterwards (finish()): every key is understood, known not to change
// the forward, or a one-line error that names it. No LibTorch.
#include <cstdint>
#include <optional>
#include <set>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

namespace geoattn::io {

class ConfigReader {
 public:
  // `object` must outlive the reader. `label` names the file in errors, `path` the object
  // inside it ("" at the top, "rope_scaling", "text_config", ...).
  ConfigReader(const nlohmann::json& object, std::string label, std::string path = "");

  // The key's value when present and not null (marks it read).
  const nlohmann::json* find(std::string_view key);
  bool has(std::string_view key);       // present and not null (marks it read)
  bool contains(std::string_view key);  // present, null included (marks it read)

  // Typed reads: int64_t, uint64_t, double, bool, std::string and std::vectors of double,
  // int64_t and std::string. A present value of another type is an error naming the key.
  template <typename T>
  std::optional<T> get(std::string_view key);
  template <typename T>
  T get_or(std::string_view key, T fallback) { return get<T>(key).value_or(std::move(fallback)); }
  int64_t required_positive(std::string_view key);

  // A nested object (null or absent: nullopt), read with its own reader.
  std::optional<ConfigReader> object(std::string_view key);

  // Keys known not to change the forward: read, nothing done.
  void ignore(std::span<const std::string_view> keys);

  // Fails on the first key neither read nor ignored, naming it.
  void finish() const;

  // "label: key 'path.key'" for error messages.
  std::string where(std::string_view key) const;
  const std::string& label() const { return label_; }

 private:
  const nlohmann::json& object_;
  std::string label_, path_;
  std::set<std::string, std::less<>> read_;
};

}  // namespace geoattn::io
