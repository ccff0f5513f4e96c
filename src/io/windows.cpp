#include "geoattn/io/windows.h"

#include "geoattn/util/random.h"

#include <utility>

#include <fmt/format.h>

#include "geoattn/util/error.h"

namespace geoattn::io {

namespace {

using Encode = std::function<std::vector<int64_t>(const std::string&)>;
// A document, its ids, and the index of its shard file in shard_paths.
using TokenVisit = std::function<bool(const Document&, const std::vector<int64_t>&, size_t)>;

uint64_t fnv1a64(const std::string& bytes) {
  uint64_t h = 0xcbf29ce484222325ULL;
  for (const char c : bytes) {
    h ^= static_cast<unsigned char>(c);
    h *= 0x100000001b3ULL;
  }
  return h;
}

void check_options(const WindowOptions& options) {
  if (options.T < 2) fail("--ctx {}: a window needs at least 2 tokens (BOS and one more)", options.T);
  if (options.max_windows == 0 || options.max_windows < -1)
    fail("--max-windows {}: must be positive, or -1 for all", options.max_windows);
}

bool reached_max(const std::vector<Window>& windows, const WindowOptions& options) {
  return options.max_windows > 0 && static_cast<int64_t>(windows.size()) >= options.max_windows;
}

// Every document of every shard, in order, with its tokens: a .bin document's own ids, a
// text document's `encode`d text. Stops once `visit` returns false.
// A token document's ids must lie in 0..vocab-1 (vocab > 0): else an error naming its shard.
void for_each_tokenised(const std::vector<std::string>& shard_paths, const Encode& encode, TokenWidth bin_width,
                        int64_t vocab, const TokenVisit& visit) {
  bool go_on = true;
  for (size_t file = 0; file < shard_paths.size(); ++file) {
    const std::string& path = shard_paths[file];
    for_each_document(
        path,
        [&](const Document& doc) {
          if (vocab > 0)
            for (const int64_t id : doc.tokens)
              if (id < 0 || id >= vocab)
                fail("{}: document {}: token id {} is outside the model's vocabulary 0..{} (a token shard of "
                     "another tokenizer?)", path, doc.id, id, vocab - 1);
          go_on = doc.tokens.empty() ? visit(doc, encode(doc.text), file) : visit(doc, doc.tokens, file);
          return go_on;
        },
        bin_width);
    if (!go_on) return;
  }
}

// SPEC §7 doc mode: BOS + T-1 tokens starting at 0, or at the hashed offset.
Window doc_window(const std::string& doc_id, const std::vector<int64_t>& ids, const WindowOptions& options) {
  const auto body = static_cast<size_t>(options.T - 1);
  const uint64_t choices = ids.size() - body + 1;
  const size_t offset =
      options.offset == OffsetMode::Hashed ? static_cast<size_t>(document_hash(options.seed, doc_id) % choices) : 0;
  Window window{doc_id, {options.bos_id}};
  window.ids.insert(window.ids.end(), ids.begin() + offset, ids.begin() + offset + body);
  return window;
}

std::vector<Window> doc_windows(const std::vector<std::string>& shard_paths, const WindowOptions& options,
                                const Encode& encode, TokenWidth bin_width) {
  std::vector<Window> windows;
  for_each_tokenised(shard_paths, encode, bin_width, options.vocab,
                     [&](const Document& doc, const std::vector<int64_t>& ids, size_t file) {
    if (static_cast<int64_t>(ids.size()) < options.T - 1) return true;  // SPEC §7: short documents are skipped
    windows.push_back(doc_window(doc.id, ids, options));
    windows.back().file = static_cast<int64_t>(file);
    return !reached_max(windows, options);
  });
  if (windows.empty())
    fail("{}: no document has at least T-1={} tokens (doc mode); use --window stream or a smaller --ctx",
         fmt::join(shard_paths, ", "), options.T - 1);
  return windows;
}

// SPEC §7 stream mode: BOS d0 BOS d1 ... cut into consecutive windows of T; the trailing
// partial window is dropped. A window's doc_id is the document its first id came from.
std::vector<Window> stream_windows(const std::vector<std::string>& shard_paths, const WindowOptions& options,
                                   const Encode& encode, TokenWidth bin_width) {
  std::vector<Window> windows;
  Window current;
  size_t at_file = 0;
  auto append = [&](const std::string& doc_id, int64_t id) {
    if (current.ids.empty()) current.doc_id = doc_id, current.file = static_cast<int64_t>(at_file);
    current.ids.push_back(id);
    if (static_cast<int64_t>(current.ids.size()) == options.T) windows.push_back(std::exchange(current, Window{}));
    return !reached_max(windows, options);
  };
  for_each_tokenised(shard_paths, encode, bin_width, options.vocab,
                     [&](const Document& doc, const std::vector<int64_t>& ids, size_t file) {
    at_file = file;
    if (!append(doc.id, options.bos_id)) return false;
    for (const int64_t id : ids)
      if (!append(doc.id, id)) return false;
    return true;
  });
  if (windows.empty())
    fail("{}: the documents hold fewer than T={} tokens in all (stream mode); use a smaller --ctx",
         fmt::join(shard_paths, ", "), options.T);
  return windows;
}

}  // namespace

uint64_t document_hash(uint64_t seed, const std::string& doc_id) {
  return splitmix64(fnv1a64(doc_id) ^ splitmix64(seed));
}

std::vector<Window> make_windows(const std::vector<std::string>& shard_paths, const WindowOptions& options,
                                 const std::function<std::vector<int64_t>(const std::string&)>& encode,
                                 TokenWidth bin_width) {
  check_options(options);
  if (shard_paths.empty()) fail("--data: no shard given");
  return options.mode == WindowMode::Doc ? doc_windows(shard_paths, options, encode, bin_width)
                                         : stream_windows(shard_paths, options, encode, bin_width);
}

}  // namespace geoattn::io
