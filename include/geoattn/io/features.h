#pragma once
// The optional parts of this build, as cmake/dependencies.cmake found them (GEOATTN_HAVE_*, set
// on geoattn_io and everything that links it).
//   sentencepiece  the tokenizer of tokenizer.model (io/tokenizer.h); without it, text comes
//                  tokenised beforehand (scripts/tokenize_docs.py -> X.bin)
//   libarchive     tar shards (io/shards.h); without it, a tar is refused by name: extract it
namespace geoattn::io {

inline constexpr bool kHaveSentencepiece = GEOATTN_HAVE_SENTENCEPIECE;
inline constexpr bool kHaveLibarchive = GEOATTN_HAVE_LIBARCHIVE;

}  // namespace geoattn::io
