#pragma once
// Documents -> token windows of T ids (SPEC §7). No LibTorch.
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "geoattn/io/shards.h"
#include "geoattn/util/enum_names.h"

namespace geoattn::io {

enum class WindowMode { Doc, Stream };
inline constexpr EnumName<WindowMode> kWindowModeNames[] = {{WindowMode::Doc, "doc"}, {WindowMode::Stream, "stream"}};
enum class OffsetMode { Start, Hashed };
inline constexpr EnumName<OffsetMode> kOffsetModeNames[] = {{OffsetMode::Start, "start"}, {OffsetMode::Hashed, "hashed"}};

struct WindowOptions {
  int64_t T = 1024;
  WindowMode mode = WindowMode::Doc;
  OffsetMode offset = OffsetMode::Start;
  uint64_t seed = 0;
  int64_t max_windows = -1;  // -1: all
  int64_t bos_id = 1;        // prepended: doc mode before each window, stream mode before each document
  int64_t vocab = 0;         // > 0: a token shard's ids must lie in 0..vocab-1 (its file named otherwise)
};

struct Window {
  std::string doc_id;  // the document it came from (stream mode: the first document in it)
  std::vector<int64_t> ids;  // exactly T ids
  int64_t file = 0;          // SPEC §7: the index of the shard file it came from (stream mode: where it starts)
};

// SPEC §7 --offset hashed: a stable, platform-independent 64-bit hash of (seed, document id)
// (FNV-1a 64 over the id's bytes, mixed with the seed by splitmix64's finaliser). The window's
// T-1 tokens start at document_hash(seed, id) mod (n_tokens - (T-1) + 1).
uint64_t document_hash(uint64_t seed, const std::string& doc_id);

// Encodes documents with `encode` (text documents) and cuts windows.
//   doc:    BOS + the first T-1 tokens of each document; shorter documents are skipped.
//           With OffsetMode::Hashed the T-1 tokens start at an offset derived from
//           (seed, doc id), uniformly in [0, n_tokens - (T-1)].
//   stream: documents concatenated as BOS d0 BOS d1 ..., cut into consecutive windows of T.
// Stops after max_windows windows.
std::vector<Window> make_windows(const std::vector<std::string>& shard_paths, const WindowOptions& options,
                                 const std::function<std::vector<int64_t>(const std::string&)>& encode,
                                 TokenWidth bin_width = TokenWidth::U16);

}  // namespace geoattn::io
