// Documents -> windows (SPEC §7), with a fake one-id-per-byte encoder so no tokenizer is needed.
#include "geoattn/io/windows.h"

#include <gtest/gtest.h>

#include "test_util.h"
#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <set>

#include <nlohmann/json.hpp>

#include "geoattn/pipeline/results.h"
#include "geoattn/util/error.h"

namespace fs = std::filesystem;
using geoattn::io::document_hash;
using geoattn::io::make_windows;
using geoattn::io::OffsetMode;
using geoattn::io::TokenWidth;
using geoattn::io::Window;
using geoattn::io::WindowMode;
using geoattn::io::WindowOptions;

namespace {

constexpr int64_t kBos = 1;

// One id per byte: "ab" -> {97, 98}.
std::vector<int64_t> bytes_encoder(const std::string& text) { return {text.begin(), text.end()}; }

// Token ids of `text` under bytes_encoder.
std::vector<int64_t> ids(const std::string& text) { return bytes_encoder(text); }

// BOS followed by the bytes of `text`.
std::vector<int64_t> bos_then(const std::string& text) {
  std::vector<int64_t> out{kBos};
  for (const int64_t id : ids(text)) out.push_back(id);
  return out;
}

class Windows : public ::testing::Test {
 protected:
  // A .jsonl shard with one document per text, ids "<name>:1", "<name>:2", ...
  std::string jsonl(const std::string& name, const std::vector<std::string>& texts) const {
    const fs::path path = dir_ / name;
    std::ofstream out(path, std::ios::binary);
    for (const auto& t : texts) out << nlohmann::json{{"text", t}}.dump() << "\n";
    return path.string();
  }

  // A uint16 .bin shard of `tokens`.
  std::string bin_u16(const std::string& name, const std::vector<uint16_t>& tokens) const {
    const fs::path path = dir_ / name;
    std::ofstream out(path, std::ios::binary);
    for (const uint16_t t : tokens) out << static_cast<char>(t & 0xff) << static_cast<char>(t >> 8);
    return path.string();
  }

  geoattn::testing::TempDir tmp_;
  const fs::path& dir_ = tmp_.path();
};

WindowOptions options(int64_t T, WindowMode mode, int64_t max_windows = -1) {
  WindowOptions o;
  o.T = T;
  o.mode = mode;
  o.max_windows = max_windows;
  o.bos_id = kBos;
  return o;
}

std::vector<std::string> doc_ids(const std::vector<Window>& windows) {
  std::vector<std::string> out;
  for (const auto& w : windows) out.push_back(w.doc_id);
  return out;
}

// Throws geoattn::Error containing every piece of `parts`.
void expect_error(const std::vector<std::string>& paths, const WindowOptions& o, const std::vector<std::string>& parts) {
  try {
    make_windows(paths, o, bytes_encoder);
    ADD_FAILURE() << "no error";
  } catch (const geoattn::Error& e) {
    for (const auto& part : parts) EXPECT_NE(std::string(e.what()).find(part), std::string::npos) << e.what();
  }
}

// ---- doc mode ---------------------------------------------------------------------------

TEST_F(Windows, DocModeIsBosAndFirstTokensShortDocumentsSkipped) {
  const auto shard = jsonl("s.jsonl", {"abc", "ab", "hello world", "", "xyz!"});
  const auto windows = make_windows({shard}, options(4, WindowMode::Doc), bytes_encoder);
  ASSERT_EQ(windows.size(), 3u);
  EXPECT_EQ(doc_ids(windows), (std::vector<std::string>{"s.jsonl:1", "s.jsonl:3", "s.jsonl:5"}));
  EXPECT_EQ(windows[0].ids, bos_then("abc"));  // exactly T-1 tokens is enough
  EXPECT_EQ(windows[1].ids, bos_then("hel"));
  EXPECT_EQ(windows[2].ids, bos_then("xyz"));
  for (const auto& w : windows) EXPECT_EQ(w.ids.size(), 4u);
}

TEST_F(Windows, DocModeReadsShardsInOrderAndStopsAtMaxWindows) {
  const auto a = jsonl("a.jsonl", {"aaaa", "bbbb"});
  const auto b = jsonl("b.jsonl", {"cccc", "dddd"});
  EXPECT_EQ(doc_ids(make_windows({a, b}, options(3, WindowMode::Doc), bytes_encoder)),
            (std::vector<std::string>{"a.jsonl:1", "a.jsonl:2", "b.jsonl:1", "b.jsonl:2"}));
  const auto three = make_windows({a, b}, options(3, WindowMode::Doc, 3), bytes_encoder);
  EXPECT_EQ(doc_ids(three), (std::vector<std::string>{"a.jsonl:1", "a.jsonl:2", "b.jsonl:1"}));
  EXPECT_EQ(make_windows({a, b}, options(3, WindowMode::Doc, 1), bytes_encoder).size(), 1u);
  // SPEC §7: each window knows its shard file, and a run counts windows and documents per file.
  EXPECT_EQ(three[2].file, 1);
  const auto c = jsonl("c.jsonl", {"e"});  // shorter than T - 1 = 2 tokens: gives nothing
  const auto per_file = geoattn::pipeline::windows_per_file({a, c, b}, make_windows({a, c, b}, options(3, WindowMode::Doc, 3), bytes_encoder));
  ASSERT_EQ(per_file.size(), 3u);
  EXPECT_EQ(per_file[0], (geoattn::metrics::FileWindows{a, 2, 2}));
  EXPECT_EQ(per_file[1], (geoattn::metrics::FileWindows{c, 0, 0}));
  EXPECT_EQ(per_file[2], (geoattn::metrics::FileWindows{b, 1, 1}));
}

TEST_F(Windows, DocModeUsesBinTokensWithoutEncoding) {
  const auto shard = bin_u16("train.bin", {500, 60000, 7, 8});
  const auto must_not_encode = [](const std::string&) -> std::vector<int64_t> {
    ADD_FAILURE() << "a .bin document was encoded";
    return {};
  };
  const auto windows = make_windows({shard}, options(3, WindowMode::Doc), must_not_encode);
  ASSERT_EQ(windows.size(), 1u);
  EXPECT_EQ(windows[0].doc_id, "train.bin");
  EXPECT_EQ(windows[0].ids, (std::vector<int64_t>{kBos, 500, 60000}));
}

// ---- hashed offsets ---------------------------------------------------------------------

TEST(DocumentHash, PinnedValuesAreStableAcrossPlatforms) {
  // FNV-1a 64 of the id, xor splitmix64(seed), through splitmix64; computed independently.
  EXPECT_EQ(document_hash(0, "s.jsonl:1"), 0xc01d9ad3d011779dULL);
  EXPECT_EQ(document_hash(1, "s.jsonl:1"), 0x5e0c2f6a3be80478ULL);
  EXPECT_EQ(document_hash(7, "s.jsonl:2"), 0x4e28a2e5810a5148ULL);
  EXPECT_EQ(document_hash(0, ""), 0x5b21f68ffa77f14cULL);
}

TEST_F(Windows, HashedOffsetIsDeterministicAndInRange) {
  const std::string alphabet = "abcdefghijklmnopqrstuvwxyz";
  const auto shard = jsonl("s.jsonl", {alphabet, alphabet, "xyz"});
  auto o = options(4, WindowMode::Doc);
  o.offset = OffsetMode::Hashed;
  for (const uint64_t seed : {0, 1, 2, 7}) {
    o.seed = seed;
    const auto windows = make_windows({shard}, o, bytes_encoder);
    ASSERT_EQ(windows.size(), 3u);
    for (size_t i = 0; i < 2; ++i) {
      // 26 tokens, T-1 = 3: offsets 0..23.
      const size_t offset = document_hash(seed, windows[i].doc_id) % 24;
      EXPECT_EQ(windows[i].ids, bos_then(alphabet.substr(offset, 3))) << "seed " << seed << " window " << i;
    }
    EXPECT_EQ(windows[2].ids, bos_then("xyz"));  // exactly T-1 tokens: the only offset is 0
    EXPECT_EQ(make_windows({shard}, o, bytes_encoder)[0].ids, windows[0].ids);  // same seed, same windows
  }
  // Pinned: seed 0 puts "s.jsonl:1" at offset 13 and "s.jsonl:2" at 16; seed 1 at 8 and 10.
  o.seed = 0;
  auto w0 = make_windows({shard}, o, bytes_encoder);
  EXPECT_EQ(w0[0].ids, bos_then("nop"));
  EXPECT_EQ(w0[1].ids, bos_then("qrs"));
  o.seed = 1;
  auto w1 = make_windows({shard}, o, bytes_encoder);
  EXPECT_EQ(w1[0].ids, bos_then("ijk"));
  EXPECT_EQ(w1[1].ids, bos_then("klm"));
}

TEST_F(Windows, HashedOffsetsDifferAcrossSeedsAndDocuments) {
  std::string numbered;  // distinct bytes so the window reveals its offset
  for (int i = 0; i < 200; ++i) numbered.push_back(static_cast<char>(33 + i % 90));  // no space: the ends get stripped
  const auto shard = jsonl("s.jsonl", {numbered, numbered, numbered, numbered});
  auto o = options(8, WindowMode::Doc);
  o.offset = OffsetMode::Hashed;
  std::set<std::vector<int64_t>> first_windows;
  for (uint64_t seed = 0; seed < 8; ++seed) {
    o.seed = seed;
    const auto windows = make_windows({shard}, o, bytes_encoder);
    first_windows.insert(windows[0].ids);
    std::set<std::vector<int64_t>> within;
    for (const auto& w : windows) within.insert(w.ids);
    EXPECT_GT(within.size(), 1u) << "same offset for every document, seed " << seed;
  }
  EXPECT_GT(first_windows.size(), 4u);
  // OffsetMode::Start ignores the seed.
  auto start = options(8, WindowMode::Doc);
  start.seed = 5;
  EXPECT_EQ(make_windows({shard}, start, bytes_encoder)[0].ids, bos_then(numbered.substr(0, 7)));
}

// ---- stream mode ------------------------------------------------------------------------

TEST_F(Windows, StreamModeConcatenatesWithBosAndDropsThePartialTail) {
  // Stream: BOS a b BOS c d e BOS f BOS g  -> [BOS a b] [BOS c d] [e BOS f], tail [BOS g] dropped.
  const auto shard = jsonl("s.jsonl", {"ab", "cde", "f", "", "g"});
  const auto windows = make_windows({shard}, options(3, WindowMode::Stream), bytes_encoder);
  ASSERT_EQ(windows.size(), 3u);
  EXPECT_EQ(windows[0].ids, bos_then("ab"));
  EXPECT_EQ(windows[1].ids, bos_then("cd"));
  EXPECT_EQ(windows[2].ids, (std::vector<int64_t>{'e', kBos, 'f'}));
  // A window belongs to the document its first id came from.
  EXPECT_EQ(doc_ids(windows), (std::vector<std::string>{"s.jsonl:1", "s.jsonl:2", "s.jsonl:2"}));
}

TEST_F(Windows, StreamModeCrossesShardsAndStopsAtMaxWindows) {
  const auto a = jsonl("a.jsonl", {"abc"});
  const auto b = bin_u16("b.bin", {500, 501, 502, 503});
  // BOS a b c BOS 500 501 502 503 -> [BOS a b c] [BOS 500 501 502], tail [503] dropped.
  const auto windows = make_windows({a, b}, options(4, WindowMode::Stream), bytes_encoder);
  ASSERT_EQ(windows.size(), 2u);
  EXPECT_EQ(windows[1].ids, (std::vector<int64_t>{kBos, 500, 501, 502}));
  EXPECT_EQ(windows[1].doc_id, "b.bin");
  EXPECT_EQ(windows[0].file, 0);
  EXPECT_EQ(windows[1].file, 1);  // stream mode: the file where the window starts
  const auto one = make_windows({a, b}, options(4, WindowMode::Stream, 1), bytes_encoder);
  ASSERT_EQ(one.size(), 1u);
  EXPECT_EQ(one[0].ids, bos_then("abc"));
}

// ---- errors -----------------------------------------------------------------------------

TEST_F(Windows, NoWindowIsAnErrorSayingWhy) {
  const auto shard = jsonl("short.jsonl", {"ab", "cd"});
  expect_error({shard}, options(4, WindowMode::Doc), {shard, "T-1=3", "doc mode", "--window stream"});
  expect_error({shard}, options(8, WindowMode::Stream), {shard, "T=8", "stream mode"});
}

TEST_F(Windows, BadOptionsAndShardErrorsPropagate) {
  const auto shard = jsonl("s.jsonl", {"abcdef"});
  expect_error({shard}, options(1, WindowMode::Doc), {"--ctx 1"});
  expect_error({shard}, options(4, WindowMode::Doc, 0), {"--max-windows 0"});
  expect_error({}, options(4, WindowMode::Doc), {"no shard"});
  const auto missing = (dir_ / "missing.jsonl").string();
  expect_error({shard, missing}, options(4, WindowMode::Doc), {missing, "no such file"});
}

}  // namespace
