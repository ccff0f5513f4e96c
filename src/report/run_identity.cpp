#include "geoattn/report/run_identity.h"

#include <mutex>
#include <set>

#include <fmt/format.h>

#include "geoattn/report/run_info_json.h"
#include "geoattn/util/error.h"
#include "geoattn/util/hash64.h"

namespace geoattn::report {

namespace {

// The description a run's numbers follow from: everything but its timing.
void add_description(Hash64& hash, nlohmann::ordered_json info) {
  info.erase("timing");
  hash.add(info.dump());
}

std::string hex(const Hash64& hash) { return fmt::format("{:016x}", hash.value()); }

}  // namespace

std::string run_identity(const metrics::RunState& state) { return run_identity(state, state.run_info); }

std::string run_identity(const metrics::RunState& state, const metrics::MeasureInfo& info) {
  Hash64 hash;
  add_description(hash, to_json(info));
  const auto& agg = state.metrics;
  for (int64_t l = 0; l < agg.layers(); ++l)
    for (int64_t h = 0; h < agg.heads(); ++h) {
      const metrics::GroupStats& s = agg.head_stats(l, h);
      for (int64_t i = 0; i < s.slots(); ++i) {
        const auto& m = s.slot(i);
        const uint64_t words[5] = {static_cast<uint64_t>(m.count()), m.sum().lo(), static_cast<uint64_t>(m.sum().hi()),
                                   m.sum_sq().lo(), static_cast<uint64_t>(m.sum_sq().hi())};
        hash.add(words, sizeof words);
      }
      for (int64_t g = 0; g < s.grid_size(); ++g) {
        const uint64_t words[2] = {s.cross(g).lo(), static_cast<uint64_t>(s.cross(g).hi())};
        hash.add(words, sizeof words);
      }
    }
  return hex(hash);
}

std::string run_identity(const metrics::SinkRun& run) {
  Hash64 hash;
  add_description(hash, to_json(run.run_info));
  const auto views = run.stats.arrays();
  for (const auto& v : views) {
    hash.add(v.name);
    hash.add(v.bytes.data(), v.bytes.size());
  }
  return hex(hash);
}

nlohmann::ordered_json with_run_id(const nlohmann::ordered_json& doc, const std::string& id) {
  nlohmann::ordered_json out = nlohmann::ordered_json::object();
  for (const auto& [key, value] : doc.items()) {
    if (key == kRunIdKey) continue;
    out[key] = value;
    if (key == "schema") out[kRunIdKey] = id;
  }
  if (!out.contains(kRunIdKey)) out[kRunIdKey] = id;
  return out;
}

std::optional<std::string> run_id_of(const nlohmann::ordered_json& doc) {
  const auto it = doc.find(kRunIdKey);
  if (it == doc.end() || !it->is_string()) return std::nullopt;
  return it->get<std::string>();
}

std::optional<std::string> run_id_of(const io::SafetensorsHeader& header) {
  const auto it = header.metadata.find(kRunIdKey);
  if (it == header.metadata.end()) return std::nullopt;
  return it->second;
}

void check_companion(const std::string& json_path, const std::optional<std::string>& result_id,
                     const std::string& companion, const std::optional<std::string>& companion_id) {
  if (!result_id) {
    static std::mutex mutex;
    static std::set<std::string> warned;
    const std::lock_guard lock(mutex);
    if (warned.insert(json_path).second)
      fmt::print(stderr, "geoattn: warning: {}: no run_id (an older geoattn wrote it): {} is read without checking "
                 "that it is of the same run\n", json_path, companion);
    return;
  }
  if (companion_id != result_id)
    fail("{}: {} is not of this run (its run_id {}, the result's {}): a companion of another run beside it",
         json_path, companion, companion_id.value_or("none"), *result_id);
}

}  // namespace geoattn::report
