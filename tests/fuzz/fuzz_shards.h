#pragma once
// The part the three shard targets share: read every document of a shard file, stop early,
// and cut windows in every mode (io/shards.h, io/windows.h), checking the promises made there.
#include <string>
#include <vector>

#include "fuzz_util.h"
#include "geoattn/io/shards.h"
#include "geoattn/io/windows.h"

namespace geoattn::fuzz {

inline void exercise_shard(const std::string& path, io::TokenWidth width) {
  expect_ok_or_error([&] {
    size_t docs = 0;
    io::for_each_document(
        path,
        [&](const io::Document& d) {
          require(!d.id.empty(), "every document has an id");
          (void)nlohmann::json(d.id).dump();  // ids go into JSON (capture doc_ids, unit_ids): UTF-8 only
          if (d.tokens.empty()) {
            require(!d.text.empty(), "empty documents are skipped");
            require(io::normalise_document(d.text) == d.text, "documents come normalised");
          }
          ++docs;
          return true;
        },
        width);
    require(docs > 0, "a shard that reads without error has a document");
    size_t seen = 0;  // the visitor stops the walk
    io::for_each_document(path, [&](const io::Document&) { return ++seen < 1; }, width);
    require(seen == 1, "returning false stops at once");
  });
  // Text documents are "encoded" one id per byte, so the windows see the text's length.
  const auto encode = [](const std::string& text) {
    std::vector<int64_t> ids;
    for (const char c : text) ids.push_back(static_cast<unsigned char>(c) + 3);
    return ids;
  };
  struct Mode {
    io::WindowMode mode;
    io::OffsetMode offset;
    int64_t T, max_windows;
  };
  for (const Mode m : {Mode{io::WindowMode::Doc, io::OffsetMode::Hashed, 3, 16},
                       Mode{io::WindowMode::Doc, io::OffsetMode::Start, 2, -1},
                       Mode{io::WindowMode::Stream, io::OffsetMode::Start, 5, 64}}) {
    expect_ok_or_error([&] {
      io::WindowOptions o;
      o.T = m.T;
      o.mode = m.mode;
      o.offset = m.offset;
      o.seed = 7;
      o.max_windows = m.max_windows;
      o.bos_id = 1;
      const auto windows = io::make_windows({path}, o, encode, width);
      require(!windows.empty(), "make_windows returns windows or throws");
      require(m.max_windows < 0 || static_cast<int64_t>(windows.size()) <= m.max_windows, "at most max_windows");
      for (const auto& w : windows) {
        require(static_cast<int64_t>(w.ids.size()) == m.T, "every window has T ids");
        require(!w.doc_id.empty(), "every window names its document");
        (void)nlohmann::json(w.doc_id).dump();
        if (m.mode == io::WindowMode::Doc) require(w.ids.front() == 1, "doc windows start with BOS");
      }
    });
  }
}

}  // namespace geoattn::fuzz
