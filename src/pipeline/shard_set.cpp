#include "geoattn/pipeline/shard_set.h"

#include <cinttypes>
#include <cstdio>
#include <map>
#include <set>
#include <tuple>

#include "geoattn/util/error.h"

namespace geoattn::pipeline {

namespace {

// A source of windows and the input it came in.
struct Leaf {
  const std::string* input;
  const metrics::DataInfo* data;
};

void flatten(const std::string& input, const metrics::DataInfo& data, std::vector<Leaf>& out) {
  if (const auto* merged = std::get_if<metrics::MergedData>(&data.source)) {
    for (const auto& shard : merged->shards) flatten(input, shard, out);
  } else {
    out.push_back({&input, &data});
  }
}

// What a shard was cut from: every field of its "data" but the shard.
auto selection(const metrics::WindowData& w) { return std::tie(w.files, w.mode, w.offset, w.seed, w.max_windows); }

}  // namespace

std::optional<std::pair<int64_t, int64_t>> parse_shard_spec(const std::string& spec) {
  int64_t i = -1, n = -1;
  char slash = 0, extra = 0;
  if (std::sscanf(spec.c_str(), "%" SCNd64 "%c%" SCNd64 "%c", &i, &slash, &n, &extra) != 3 || slash != '/' || n < 1 ||
      i < 0 || i >= n)
    return std::nullopt;
  return std::pair{i, n};
}

std::vector<std::string> missing_shards(const std::vector<std::string>& inputs,
                                        const std::vector<metrics::DataInfo>& shards, bool partial) {
  std::vector<Leaf> leaves;
  for (size_t i = 0; i < shards.size(); ++i) flatten(inputs.at(i), shards[i], leaves);
  const auto* first = std::get_if<metrics::WindowData>(&leaves.at(0).data->source);
  std::map<std::string, const std::string*> captures;
  std::map<int64_t, const std::string*> held;  // shard index -> the input holding it
  int64_t n = 0;
  for (const Leaf& leaf : leaves) {
    const std::string& input = *leaf.input;
    const auto* w = std::get_if<metrics::WindowData>(&leaf.data->source);
    if ((w == nullptr) != (first == nullptr))
      fail("{}: cannot merge with {}: one holds the windows of a capture file, the other shards of data files", input,
           *leaves[0].input);
    if (!w) {
      const std::string& capture = std::get<metrics::CaptureData>(leaf.data->source).capture;
      if (const auto [it, fresh] = captures.emplace(capture, &input); !fresh)
        fail("{}: the windows of capture {} are in {} too: a merge counts each window once", input, capture, *it->second);
      continue;
    }
    const auto spec = parse_shard_spec(w->shard);
    if (!spec) fail("{}: shard '{}' is not i/n", input, w->shard);
    if (selection(*w) != selection(*first))
      fail("{}: cannot merge with {}: shards of another selection of the data (files, mode, offset, seed or "
           "max_windows differ)", input, *leaves[0].input);
    if (n == 0) n = spec->second;
    if (spec->second != n)
      fail("{}: shard {} is of another split than {}'s shards of {}: a merge counts each window once", input, w->shard,
           *leaves[0].input, n);
    if (const auto [it, fresh] = held.emplace(spec->first, &input); !fresh)
      fail("{}: shard {} is in {} too: a merge counts each window once", input, w->shard, *it->second);
  }
  std::vector<std::string> missing;
  for (int64_t i = 0; i < n; ++i)
    if (!held.count(i)) missing.push_back(std::to_string(i) + "/" + std::to_string(n));
  if (!missing.empty() && !partial) {
    std::string list;
    for (const auto& m : missing) list += (list.empty() ? "" : ", ") + m;
    fail("{} of {} shards given, {} missing: merge them all, or give --partial (the result lists the missing shards)",
         held.size(), n, list);
  }
  return missing;
}

}  // namespace geoattn::pipeline
