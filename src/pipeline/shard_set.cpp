#include "geoattn/pipeline/shard_set.h"

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <map>
#include <tuple>

#include <fmt/ranges.h>

#include "geoattn/util/error.h"
#include "geoattn/util/numbers.h"

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
  // Two plain integers around one '/': no space, no sign of +, nothing else (util/numbers.h).
  const size_t slash = spec.find('/');
  if (slash == std::string::npos) return std::nullopt;
  const auto i = parse_integer<int64_t>(spec.substr(0, slash)), n = parse_integer<int64_t>(spec.substr(slash + 1));
  if (!i || !n || *n < 1 || *i < 0 || *i >= *n) return std::nullopt;
  return std::pair{*i, *n};
}

Shard Shard::parse(const std::string& text) {
  const auto shard = parse_shard_spec(text);
  if (!shard) fail("'{}' is not i/n with 0 <= i < n", echoed(text));
  return {shard->first, shard->second};
}

std::string Shard::text() const { return std::to_string(i) + "/" + std::to_string(n); }

std::vector<std::string> missing_shards(const std::vector<std::string>& inputs,
                                        const std::vector<metrics::DataInfo>& shards, bool partial) {
  std::vector<Leaf> leaves;
  for (size_t i = 0; i < shards.size(); ++i) flatten(inputs.at(i), shards[i], leaves);
  // The splits of the data: inputs that read the same files the same way are shards of one split
  // (one n, each i once); other selections must read other files (a job per shard file).
  struct Split {
    const metrics::WindowData* data;
    const std::string* input;
    int64_t n;
    std::map<int64_t, const std::string*> held;  // shard index -> the input holding it
  };
  std::vector<Split> splits;
  std::map<std::string, const std::string*> captures, files;  // -> the input reading it
  for (const Leaf& leaf : leaves) {
    const std::string& input = *leaf.input;
    const auto* w = std::get_if<metrics::WindowData>(&leaf.data->source);
    if (!w) {
      const std::string& capture = std::get<metrics::CaptureData>(leaf.data->source).capture;
      if (const auto [it, fresh] = captures.emplace(capture, &input); !fresh)
        fail("{}: the windows of capture {} are in {} too: a merge counts each window once", input, capture, *it->second);
      continue;
    }
    const auto spec = parse_shard_spec(w->shard);
    if (!spec) fail("{}: shard '{}' is not i/n", input, w->shard);
    auto split = std::find_if(splits.begin(), splits.end(), [&](const Split& s) { return selection(*s.data) == selection(*w); });
    if (split == splits.end()) {
      for (const std::string& file : w->files)
        if (const auto [it, fresh] = files.emplace(file, &input); !fresh)
          fail("{}: reads {} as {} does, with other settings (mode, offset, seed or max_windows): a merge counts each "
               "window once", input, file, *it->second);
      split = splits.insert(splits.end(), Split{w, &input, spec->second, {}});
    }
    if (spec->second != split->n)
      fail("{}: shard {} is of another split than {}'s shards of {}: a merge counts each window once", input, w->shard,
           *split->input, split->n);
    if (const auto [it, fresh] = split->held.emplace(spec->first, &input); !fresh)
      fail("{}: shard {} is in {} too: a merge counts each window once", input, w->shard, *it->second);
  }
  std::vector<std::string> missing;
  for (const Split& split : splits)
    for (int64_t i = 0; i < split.n; ++i)
      if (!split.held.count(i)) missing.push_back(std::to_string(i) + "/" + std::to_string(split.n));
  if (!missing.empty() && !partial)
    fail("shard {} of {}'s split missing: merge every shard, or give --partial (the result lists the missing shards)",
         fmt::join(missing, ", "), *splits.front().input);
  return missing;
}

}  // namespace geoattn::pipeline
