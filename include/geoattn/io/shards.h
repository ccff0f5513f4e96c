#pragma once
// Text and token shards -> documents (SPEC §7). No LibTorch.
//   .jsonl : one document per line, field "text"
//   .txt   : the whole file is one document
//   folder : every .txt inside (sorted by path) is a document
//   urlsf_subsetNN.tar (OpenWebText release layout): members *_data.xz, each an
//            xz-compressed tar of .txt documents
//   .bin   : little-endian token ids (nanoGPT train.bin), uint16 by default, one document; with
//            X.bin.json beside it (scripts/tokenize_docs.py, "geoattn-tokens-1"), its width and
//            documents: [[id, offset, length], ...] counted in tokens
// Text documents are normalised as the corpus's usual reader does: runs of three or more
// newlines become two, and the ends are stripped.
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace geoattn::io {

struct Document {
  std::string id;    // identity inside the shard: "<shard>:<member path>" or "<shard>:<line>"
  std::string text;  // normalised text (empty for token documents)
  std::vector<int64_t> tokens;  // set only for .bin shards (already tokenised)
};

enum class TokenWidth { U16, U32 };

// Calls `visit` for every document of the shard at `path`, in a deterministic order.
// `visit` returns false to stop early. geoattn::Error (one line, naming the file) on an
// unreadable, empty, or malformed shard.
void for_each_document(const std::string& path, const std::function<bool(const Document&)>& visit,
                       TokenWidth bin_width = TokenWidth::U16);

// SPEC §7 normalisation: "\n{3,}" -> "\n\n", then strip leading/trailing whitespace.
std::string normalise_document(const std::string& text);

}  // namespace geoattn::io
