// Shard readers and normalisation (SPEC §7).
#include "geoattn/io/shards.h"

#include <gtest/gtest.h>
#if GEOATTN_HAVE_LIBARCHIVE
#include <archive.h>
#include <archive_entry.h>
#endif

#include "test_util.h"
#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <utility>

#include "geoattn/io/features.h"
#include "geoattn/util/error.h"

namespace fs = std::filesystem;
using geoattn::io::Document;
using geoattn::io::for_each_document;
using geoattn::io::normalise_document;
using geoattn::io::TokenWidth;

namespace {

const std::string kOwtTar = std::string(GEOATTN_SOURCE_DIR) + "/data/openwebtext/urlsf_subset00.tar";

// Every test gets a fresh folder of its own for its inputs, removed afterwards.
class Shards : public ::testing::Test {
 protected:
  // Writes `bytes` to dir/name (making parent folders) and returns the path.
  std::string write(const std::string& name, const std::string& bytes) const {
    const fs::path path = dir_ / name;
    fs::create_directories(path.parent_path());
    std::ofstream(path, std::ios::binary) << bytes;
    return path.string();
  }

  geoattn::testing::TempDir tmp_;
  const fs::path& dir_ = tmp_.path();
};

std::vector<Document> read_all(const std::string& path, TokenWidth width = TokenWidth::U16) {
  std::vector<Document> docs;
  for_each_document(
      path,
      [&](const Document& d) {
        docs.push_back(d);
        return true;
      },
      width);
  return docs;
}

std::vector<std::string> ids_of(const std::vector<Document>& docs) {
  std::vector<std::string> ids;
  for (const auto& d : docs) ids.push_back(d.id);
  return ids;
}

// Reading `path` throws geoattn::Error whose message names `path` and contains `what`.
void expect_error(const std::string& path, const std::string& what, TokenWidth width = TokenWidth::U16) {
  try {
    read_all(path, width);
    ADD_FAILURE() << "no error reading " << path;
  } catch (const geoattn::Error& e) {
    const std::string message = e.what();
    EXPECT_NE(message.find(path), std::string::npos) << message;
    EXPECT_NE(message.find(what), std::string::npos) << message;
    EXPECT_EQ(message.find('\n'), std::string::npos) << message;
  }
}

// The tests of tar shards run where this build reads them (io/features.h).
#define REQUIRE_LIBARCHIVE() \
  if (!geoattn::io::kHaveLibarchive) GTEST_SKIP() << "built without libarchive"

#if GEOATTN_HAVE_LIBARCHIVE
// A tar (xz-compressed when `xz`) of the given (name, bytes) members, written with libarchive.
std::string tar_bytes(const std::vector<std::pair<std::string, std::string>>& members, bool xz) {
  std::string out(1 << 20, '\0');
  size_t used = 0;
  struct archive* a = archive_write_new();
  archive_write_set_format_pax_restricted(a);
  if (xz) archive_write_add_filter_xz(a);
  archive_write_open_memory(a, out.data(), out.size(), &used);
  for (const auto& [name, bytes] : members) {
    struct archive_entry* e = archive_entry_new();
    archive_entry_set_pathname(e, name.c_str());
    archive_entry_set_filetype(e, AE_IFREG);
    archive_entry_set_perm(e, 0644);
    archive_entry_set_size(e, static_cast<la_int64_t>(bytes.size()));
    archive_write_header(a, e);
    archive_write_data(a, bytes.data(), bytes.size());
    archive_entry_free(e);
  }
  archive_write_close(a);
  archive_write_free(a);
  out.resize(used);
  return out;
}
#else
std::string tar_bytes(const std::vector<std::pair<std::string, std::string>>&, bool) { return {}; }
#endif

std::string file_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// ---- normalisation ----------------------------------------------------------------------

TEST(Normalise, CollapsesRunsOfThreeOrMoreNewlinesToTwo) {
  EXPECT_EQ(normalise_document("a\n\n\nb"), "a\n\nb");
  EXPECT_EQ(normalise_document("a\n\n\n\n\n\nb\n\n\nc"), "a\n\nb\n\nc");
  EXPECT_EQ(normalise_document("a\nb\n\nc"), "a\nb\n\nc");  // one or two are kept
}

TEST(Normalise, StripsTheEndsOnly) {
  EXPECT_EQ(normalise_document(" \t\r\n  x  y \r\n\t "), "x  y");
  EXPECT_EQ(normalise_document("\n\n\n\nx\n\n\n\n"), "x");
  EXPECT_EQ(normalise_document("a \n\n\n b"), "a \n\n b");  // spaces around a run stay
  EXPECT_EQ(normalise_document("a\r\n\r\n\r\nb"), "a\r\n\r\n\r\nb");  // only runs of '\n' collapse
}

TEST(Normalise, WhitespaceOnlyBecomesEmpty) {
  EXPECT_EQ(normalise_document(""), "");
  EXPECT_EQ(normalise_document(" \n\n\n\t\r "), "");
}

// ---- formats ----------------------------------------------------------------------------

TEST_F(Shards, JsonlOneDocumentPerLineEmptyOnesSkipped) {
  const auto path = write("s.jsonl",
                          "{\"text\": \"first\\n\\n\\n\\nline  \"}\n"
                          "{\"text\": \" \\n\\n \", \"url\": \"x\"}\n"
                          "\n"
                          "{\"meta\": 1, \"text\": \"caf\\u00e9 \u2014 third\"}\n");
  const auto docs = read_all(path);
  ASSERT_EQ(docs.size(), 2u);
  EXPECT_EQ(docs[0].id, "s.jsonl:1");
  EXPECT_EQ(docs[0].text, "first\n\nline");
  EXPECT_EQ(docs[1].id, "s.jsonl:4");  // line numbers count the empty document and the blank line
  EXPECT_EQ(docs[1].text, "caf\u00e9 \u2014 third");
  EXPECT_TRUE(docs[1].tokens.empty());
}

TEST_F(Shards, TxtIsOneNormalisedDocument) {
  const auto docs = read_all(write("story.txt", "\n\nOnce upon a time.\n\n\n\nThe end.\n"));
  ASSERT_EQ(docs.size(), 1u);
  EXPECT_EQ(docs[0].id, "story.txt");
  EXPECT_EQ(docs[0].text, "Once upon a time.\n\nThe end.");
}

TEST_F(Shards, DirectoryReadsEveryTxtRecursivelySortedByPath) {
  write("corpus/b.txt", "bee");
  write("corpus/a.txt", "ay\n\n\n");
  write("corpus/sub/c.txt", "sea");
  write("corpus/aa/z.txt", "zed");
  write("corpus/notes.md", "not a document");
  write("corpus/blank.txt", "  \n ");
  const auto docs = read_all((dir_ / "corpus").string() + "/");
  EXPECT_EQ(ids_of(docs), (std::vector<std::string>{"corpus:a.txt", "corpus:aa/z.txt", "corpus:b.txt", "corpus:sub/c.txt"}));
  ASSERT_EQ(docs.size(), 4u);
  EXPECT_EQ(docs[0].text, "ay");
  EXPECT_EQ(docs[3].text, "sea");
}

TEST_F(Shards, OpenWebTextReleaseTar) {
  REQUIRE_LIBARCHIVE();
  const auto docs = read_all(kOwtTar);
  EXPECT_EQ(ids_of(docs),
            (std::vector<std::string>{
                "urlsf_subset00.tar:urlsf_subset00-1_data/0000005-93544d279b4a2417d2201864e28639b1.txt",
                "urlsf_subset00.tar:urlsf_subset00-1_data/0000031-3207f8f62f3945d00ca85bd440c8faaa.txt",
                "urlsf_subset00.tar:urlsf_subset00-2_data/0000036-585b205b8fa6ea83669d62036770cbe2.txt",
                "urlsf_subset00.tar:urlsf_subset00-2_data/0000068-1ad7382d9e2e97d93b002a64642ab65d.txt",
            }));
  ASSERT_EQ(docs.size(), 4u);
  EXPECT_EQ(docs[0].text.rfind("A magazine supplement with an image of Adolf Hitler and the title 'The Unreadable Book'", 0), 0u);
  EXPECT_EQ(docs[1].text.rfind("For today\u2019s post, I\u2019d like to take a look at California\u2019s", 0), 0u);
  EXPECT_EQ(docs[2].text.rfind("Anarchists in solidarity with the purged immigrants", 0), 0u);
  EXPECT_EQ(docs[3].text.rfind("The 45-year-old \u201chighway shooter\u201d", 0), 0u);
  // Byte sizes after normalisation; the last document has runs of 3+ newlines (4050 bytes raw).
  EXPECT_EQ(docs[0].text.size(), 4772u);
  EXPECT_EQ(docs[1].text.size(), 3577u);
  EXPECT_EQ(docs[2].text.size(), 3933u);
  EXPECT_EQ(docs[3].text.size(), 4046u);
  EXPECT_EQ(docs[3].text.find("\n\n\n"), std::string::npos);
  EXPECT_EQ(docs[3].text.substr(docs[3].text.size() - 12), " It follows.");
}

TEST_F(Shards, VisitorStopsEarly) {
  REQUIRE_LIBARCHIVE();
  std::vector<std::string> seen;
  for_each_document(kOwtTar, [&](const Document& d) {
    seen.push_back(d.id);
    return seen.size() < 3;
  });
  EXPECT_EQ(seen.size(), 3u);
}

TEST_F(Shards, PlainTarAndTarXzOfTxt) {
  REQUIRE_LIBARCHIVE();
  const std::vector<std::pair<std::string, std::string>> members = {
      {"docs/one.txt", "one\n\n\n\n"}, {"docs/readme.md", "skipped"}, {"docs/two.txt", "two"}};
  for (const bool xz : {false, true}) {
    const auto path = write(xz ? "d.tar.xz" : "d.tar", tar_bytes(members, xz));
    const auto docs = read_all(path);
    const std::string shard = xz ? "d.tar.xz" : "d.tar";
    EXPECT_EQ(ids_of(docs), (std::vector<std::string>{shard + ":docs/one.txt", shard + ":docs/two.txt"}));
    ASSERT_EQ(docs.size(), 2u);
    EXPECT_EQ(docs[0].text, "one");
  }
}

TEST_F(Shards, NestedDataXzMembersInArchiveOrder) {
  REQUIRE_LIBARCHIVE();
  const auto inner2 = tar_bytes({{"x-2_data/b.txt", "second member"}}, true);
  const auto inner1 = tar_bytes({{"x-1_data/z.txt", "zed"}, {"x-1_data/a.txt", "ay"}}, true);
  const auto path = write("x.tar", tar_bytes({{"owt/x-2_data.xz", inner2}, {"owt/x-1_data.xz", inner1}}, false));
  EXPECT_EQ(ids_of(read_all(path)),
            (std::vector<std::string>{"x.tar:x-2_data/b.txt", "x.tar:x-1_data/z.txt", "x.tar:x-1_data/a.txt"}));
}

TEST_F(Shards, BinU16RoundTrip) {
  const auto path = write("train.bin", std::string("\x01\x00\x02\x01\xff\xff\x00\x00", 8));
  const auto docs = read_all(path);
  ASSERT_EQ(docs.size(), 1u);
  EXPECT_EQ(docs[0].id, "train.bin");
  EXPECT_TRUE(docs[0].text.empty());
  EXPECT_EQ(docs[0].tokens, (std::vector<int64_t>{1, 258, 65535, 0}));
}

TEST_F(Shards, BinU32RoundTrip) {
  const auto path = write("val.bin", std::string("\x01\x00\x00\x00\x70\x11\x01\x00\xff\xff\xff\xff", 12));
  const auto docs = read_all(path, TokenWidth::U32);
  ASSERT_EQ(docs.size(), 1u);
  EXPECT_EQ(docs[0].tokens, (std::vector<int64_t>{1, 70000, 4294967295LL}));
}

// scripts/tokenize_docs.py's token index: the documents of X.bin, their ids and its width.
TEST_F(Shards, BinWithTokenIndexKeepsDocuments) {
  const auto path = write("owt.bin", std::string("\x01\x00\x00\x00\x70\x11\x01\x00\x05\x00\x00\x00", 12));
  write("owt.bin.json", R"({"format": "geoattn-tokens-1", "dtype": "uint32", "tokenizer": "t", "vocab_size": 80000,
                            "bos_id": 1, "documents": [["a.jsonl:1", 0, 2], ["a.jsonl:2", 2, 0], ["a.jsonl:3", 2, 1]]})");
  const auto docs = read_all(path);  // the index's width wins over the default
  ASSERT_EQ(docs.size(), 2u);        // the empty document is skipped
  EXPECT_EQ(docs[0].id, "a.jsonl:1");
  EXPECT_EQ(docs[0].tokens, (std::vector<int64_t>{1, 70000}));
  EXPECT_EQ(docs[1].id, "a.jsonl:3");
  EXPECT_EQ(docs[1].tokens, (std::vector<int64_t>{5}));
}

TEST_F(Shards, BadTokenIndexNamesIt) {
  const auto path = write("x.bin", std::string("\x01\x00\x02\x00", 4));
  const std::string index = path + ".json";
  auto with = [&](const std::string& json) {
    write("x.bin.json", json);
    return geoattn::testing::error_of([&] { read_all(path); });
  };
  EXPECT_NE(with(R"({"format": "other"})").find(index + ": not a geoattn token index"), std::string::npos);
  EXPECT_NE(with(R"({"format": "geoattn-tokens-1", "dtype": "int8", "documents": []})").find("dtype must be"),
            std::string::npos);
  EXPECT_NE(with(R"({"format": "geoattn-tokens-1", "dtype": "uint16", "documents": [["d", 1, 2]]})")
                .find(index + ": documents[0] (offset 1, length 2) lies outside the 2 ids"),
            std::string::npos);
  EXPECT_NE(with(R"({"format": "geoattn-tokens-1", "dtype": "uint16", "documents": [["d", 0]]})").find("[id, offset, length]"),
            std::string::npos);
  EXPECT_NE(with("{").find(index + ": not valid JSON"), std::string::npos);
}

// ---- errors: one line, naming the file --------------------------------------------------

TEST_F(Shards, MissingPath) { expect_error((dir_ / "nope.jsonl").string(), "no such file"); }

TEST_F(Shards, UnknownExtension) { expect_error(write("data.csv", "a,b\n"), "unknown shard type"); }

TEST_F(Shards, EmptyFiles) {
  for (const char* name : {"e.jsonl", "e.txt", "e.bin", "e.tar"}) expect_error(write(name, ""), "empty");
}

TEST_F(Shards, NoNonEmptyDocument) {
  expect_error(write("blank.jsonl", "{\"text\": \"  \"}\n{\"text\": \"\\n\\n\"}\n"), "no non-empty document");
  expect_error(write("blank.txt", " \n\n\n "), "no non-empty document");
  if (geoattn::io::kHaveLibarchive)
    expect_error(write("none.tar", tar_bytes({{"readme.md", "no .txt here"}}, false)), "no non-empty document");
  fs::create_directories(dir_ / "empty-dir");
  expect_error((dir_ / "empty-dir").string(), "no .txt");
}

TEST_F(Shards, BadJsonLineNamesFileAndLine) {
  const auto path = write("bad.jsonl", "{\"text\": \"ok\"}\n{\"text\": \"unterminated}\n");
  expect_error(path, path + ":2: not valid JSON");
  const auto deep = write("deep.jsonl", "{\"text\": \"ok\"}\n{\"x\": " + std::string(50000, '[') + std::string(50000, ']') + "}\n");
  expect_error(deep, deep + ":2: nested deeper than 128 levels");
}

TEST_F(Shards, JsonlLineWithoutTextNamesFileAndLine) {
  const auto path = write("notext.jsonl", "{\"text\": \"ok\"}\n{\"text\": \"ok\"}\n{\"body\": \"x\"}\n");
  expect_error(path, path + ":3: no string field \"text\"");
  const auto number = write("number.jsonl", "{\"text\": 5}\n");
  expect_error(number, number + ":1: no string field");
  const auto array = write("array.jsonl", "[\"text\"]\n");
  expect_error(array, array + ":1: no string field");
}

TEST_F(Shards, BinSizeNotAMultipleOfTheWidth) {
  expect_error(write("odd.bin", std::string("\x01\x00\x02", 3)), "not a multiple of 2");
  expect_error(write("odd32.bin", std::string(6, '\x01')), "not a multiple of 4", TokenWidth::U32);
}

TEST_F(Shards, TruncatedOpenWebTextTar) {
  REQUIRE_LIBARCHIVE();
  const std::string bytes = file_bytes(kOwtTar);
  ASSERT_EQ(bytes.size(), 20480u);
  // Cut inside the first member's data, then inside the second member's data.
  expect_error(write("cut1.tar", bytes.substr(0, 3000)), "corrupt archive");
  expect_error(write("cut2.tar", bytes.substr(0, 8000)), "corrupt archive");
}

// Built without libarchive: a tar is refused in one line that names it and says what to do.
TEST_F(Shards, TarWithoutLibarchiveIsRefusedByName) {
  if (geoattn::io::kHaveLibarchive) GTEST_SKIP() << "built with libarchive";
  expect_error(kOwtTar, "built without libarchive: extract it first");
}

TEST_F(Shards, CorruptArchive) {
  REQUIRE_LIBARCHIVE();
  expect_error(write("junk.tar", std::string(2048, 'x')), "corrupt archive");
  // A damaged nested member: the outer tar is fine, the xz inside is not.
  auto inner = tar_bytes({{"y-1_data/a.txt", std::string(5000, 'a')}}, true);
  inner[inner.size() / 2] ^= 0x55;
  const auto path = write("y.tar", tar_bytes({{"owt/y-1_data.xz", inner}}, false));
  expect_error(path, "member owt/y-1_data.xz: corrupt archive");
}

TEST_F(Shards, InvalidUtf8NamesTheDocument) {
  expect_error(write("latin1.txt", "caf\xe9 au lait"), "document latin1.txt is not valid UTF-8 (byte 3)");
  expect_error(write("surrogate.txt", "ok \xed\xa0\x80"), "not valid UTF-8 (byte 3)");
  expect_error(write("overlong.txt", "\xc0\xaf"), "not valid UTF-8 (byte 0)");
  if (geoattn::io::kHaveLibarchive)
    expect_error(write("u.tar", tar_bytes({{"docs/bad.txt", "ab\xff"}}, false)), "document u.tar:docs/bad.txt is not valid UTF-8");
  write("d/ok.txt", "fine");
  write("d/sub/bad.txt", "\x80");
  expect_error((dir_ / "d").string(), "document d:sub/bad.txt is not valid UTF-8");
}

}  // namespace
