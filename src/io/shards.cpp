#include "geoattn/io/shards.h"

#include "geoattn/io/features.h"

#if GEOATTN_HAVE_LIBARCHIVE
#include <archive.h>
#include <archive_entry.h>
#endif

#include <algorithm>
#include <array>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <memory>
#include <string_view>
#include <utility>

#include <nlohmann/json.hpp>

#include "geoattn/util/input_files.h"
#include "geoattn/util/error.h"
#include "geoattn/util/utf8.h"
#include "geoattn/util/json_parse.h"

namespace geoattn::io {

namespace {

namespace fs = std::filesystem;
using Visit = std::function<bool(const Document&)>;

constexpr size_t kNotFound = std::string_view::npos;

bool ends_with(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

// SPEC §7: archive shards are tars, plain or compressed.
bool is_archive_name(std::string_view name) {
  constexpr std::array<std::string_view, 5> kSuffixes = {".tar", ".tar.xz", ".txz", ".tar.gz", ".tgz"};
  return std::any_of(kSuffixes.begin(), kSuffixes.end(), [&](std::string_view s) { return ends_with(name, s); });
}

// SPEC §7: inside an archive, a .txt member is a document, and an OpenWebText `*_data.xz`
// member (or any nested tar) is an archive of documents.
[[maybe_unused]] bool is_nested_archive_name(std::string_view name) { return ends_with(name, "_data.xz") || is_archive_name(name); }

// The shard's own name, the first half of every document id ("dir/" names "dir").
std::string shard_name(const std::string& path) {
  fs::path p = fs::path(path).lexically_normal();
  if (!p.has_filename()) p = p.parent_path();
  return p.filename().string();
}

// Document ids go into JSON (a capture's doc_ids, the state's unit_ids), which must be UTF-8;
// a member or file name in another encoding keeps its other bytes as "\xNN".
std::string utf8_id(const std::string& s) {
  std::string out;
  for (size_t i = 0; i < s.size();) {
    const size_t bad = first_invalid_utf8(std::string_view(s).substr(i));
    if (bad == kNotFound) {
      out.append(s, i, std::string::npos);
      break;
    }
    out.append(s, i, bad);
    out += fmt::format("\\x{:02X}", static_cast<unsigned char>(s[i + bad]));
    i += bad + 1;
  }
  return out;
}

std::string read_bytes(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) fail("{}: cannot open for reading", path.string());
  note_input(path.string());
  std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (in.bad()) fail("{}: read error", path.string());
  return bytes;
}

// Validates, normalises and hands documents to the visitor; remembers whether the shard
// gave any non-empty document, since a shard without one is an error (SPEC §7).
class Emitter {
 public:
  Emitter(std::string path, const Visit& visit)
      : path_(std::move(path)), name_(utf8_id(shard_name(path_))), visit_(visit) {}

  const std::string& path() const { return path_; }
  std::string id(const std::string& member) const { return name_ + ":" + utf8_id(member); }
  const std::string& name() const { return name_; }

  // false once the visitor asked to stop.
  bool text(std::string id, const std::string& raw) {
    if (const size_t bad = first_invalid_utf8(raw); bad != kNotFound)
      fail("{}: document {} is not valid UTF-8 (byte {})", path_, id, bad);
    Document doc;
    doc.id = std::move(id);
    doc.text = normalise_document(raw);
    if (doc.text.empty()) return true;  // SPEC §7: empty documents are skipped
    return send(doc);
  }

  bool tokens(std::string id, std::vector<int64_t> ids) {
    Document doc;
    doc.id = std::move(id);
    doc.tokens = std::move(ids);
    return send(doc);
  }

  void finish() const {
    if (sent_ == 0) fail("{}: the shard holds no non-empty document", path_);
  }

 private:
  bool send(const Document& doc) {
    ++sent_;
    return visit_(doc);
  }

  std::string path_;
  std::string name_;
  const Visit& visit_;
  int64_t sent_ = 0;
};

// ---- .jsonl ---------------------------------------------------------------------------

// SPEC §7: one JSON object per line, document in its string field "text"; blank lines are
// allowed, anything else that is not such an object is an error naming file:line.
std::string jsonl_text(const std::string& path, int64_t line_no, const std::string& line) {
  // A number like 1e999 is invalid too.
  const nlohmann::json row = parse_json_or_fail(fmt::format("{}:{}", path, line_no), line);
  const auto text = row.find("text");  // end() when the row is not an object
  if (text == row.end() || !text->is_string())
    fail("{}:{}: no string field \"text\"", path, line_no);
  return text->get<std::string>();
}

bool is_blank(std::string_view line) { return line.find_first_not_of(" \t\r") == std::string_view::npos; }

void read_jsonl(Emitter& out) {
  std::ifstream in(out.path(), std::ios::binary);
  if (!in) fail("{}: cannot open for reading", out.path());
  note_input(out.path());
  std::string line;
  for (int64_t line_no = 1; std::getline(in, line); ++line_no) {
    if (is_blank(line)) continue;
    if (!out.text(out.id(std::to_string(line_no)), jsonl_text(out.path(), line_no, line))) return;
  }
  if (in.bad()) fail("{}: read error", out.path());
}

// ---- .txt and directories -------------------------------------------------------------

void read_txt(Emitter& out) { out.text(out.name(), read_bytes(out.path())); }

// SPEC §7: every .txt below the directory, recursively, sorted by path.
std::vector<fs::path> txt_files_below(const fs::path& dir) {
  std::vector<fs::path> files;
  try {
    for (const auto& entry : fs::recursive_directory_iterator(dir))
      if (entry.is_regular_file() && entry.path().extension() == ".txt")
        files.push_back(entry.path().lexically_relative(dir));
  } catch (const fs::filesystem_error& e) {
    fail("{}: cannot list the directory ({})", dir.string(), e.code().message());
  }
  std::sort(files.begin(), files.end(),
            [](const fs::path& a, const fs::path& b) { return a.generic_string() < b.generic_string(); });
  return files;
}

void read_directory(Emitter& out) {
  const fs::path dir(out.path());
  const auto files = txt_files_below(dir);
  if (files.empty()) fail("{}: the directory holds no .txt document", out.path());
  for (const auto& rel : files)
    if (!out.text(out.id(rel.generic_string()), read_bytes(dir / rel))) return;
}

// ---- archives (libarchive) ------------------------------------------------------------

#if GEOATTN_HAVE_LIBARCHIVE

using Archive = std::unique_ptr<struct archive, int (*)(struct archive*)>;

Archive new_tar_reader() {
  Archive a(archive_read_new(), &archive_read_free);
  if (!a) fail("libarchive: out of memory");
  archive_read_support_filter_all(a.get());
  archive_read_support_format_tar(a.get());
  return a;
}

// `where` names what is being read in messages: the shard path, or "path: member m".
[[noreturn]] void fail_archive(const std::string& where, struct archive* a) {
  const char* why = archive_error_string(a);
  fail("{}: corrupt archive ({})", where, why ? why : "unknown libarchive error");
}

std::string read_member(const std::string& where, struct archive* a) {
  std::string bytes;
  std::array<char, 1 << 16> buffer;
  for (;;) {
    const la_ssize_t n = archive_read_data(a, buffer.data(), buffer.size());
    if (n < 0) fail_archive(where, a);
    if (n == 0) return bytes;
    bytes.append(buffer.data(), static_cast<size_t>(n));
  }
}

bool walk_archive(const std::string& where, struct archive* a, Emitter& out);

// SPEC §7: an OpenWebText `*_data.xz` member is read by a second reader over its bytes.
bool walk_nested(const std::string& member, const std::string& bytes, Emitter& out) {
  const std::string where = fmt::format("{}: member {}", out.path(), member);
  Archive inner = new_tar_reader();
  if (archive_read_open_memory(inner.get(), bytes.data(), bytes.size()) != ARCHIVE_OK)
    fail_archive(where, inner.get());
  return walk_archive(where, inner.get(), out);
}

// Visits the archive's documents in archive order; false once the visitor asked to stop.
bool walk_archive(const std::string& where, struct archive* a, Emitter& out) {
  for (;;) {
    struct archive_entry* entry = nullptr;
    const int rc = archive_read_next_header(a, &entry);
    if (rc == ARCHIVE_EOF) return true;
    if (rc != ARCHIVE_OK && rc != ARCHIVE_WARN) fail_archive(where, a);
    const char* raw_name = archive_entry_pathname(entry);
    if (archive_entry_filetype(entry) != AE_IFREG || raw_name == nullptr) continue;
    const std::string name(raw_name);
    bool go_on = true;
    if (ends_with(name, ".txt"))
      go_on = out.text(out.id(name), read_member(where, a));
    else if (is_nested_archive_name(name))
      go_on = walk_nested(name, read_member(where, a), out);
    if (!go_on) return false;
  }
}

void read_archive(Emitter& out) {
  Archive a = new_tar_reader();
  if (archive_read_open_filename(a.get(), out.path().c_str(), 1 << 16) != ARCHIVE_OK)
    fail_archive(out.path(), a.get());
  note_input(out.path());
  walk_archive(out.path(), a.get(), out);
}
#else
void read_archive(Emitter& out) {
  fail("{}: a tar archive, and this geoattn was built without libarchive: extract it first (tar -xf, then "
       "tar -xJf each *_data.xz inside) and pass the folder of .txt files",
       out.path());
}
#endif

// ---- .bin -----------------------------------------------------------------------------

// SPEC §7: nanoGPT's train.bin, little-endian uint16 (or uint32) ids, one document; with a
// token index beside it (X.bin.json), the documents it lists.
std::vector<int64_t> decode_little_endian(const std::string& path, const std::string& bytes, TokenWidth width) {
  const size_t w = width == TokenWidth::U16 ? 2 : 4;
  if (bytes.size() % w != 0)
    fail("{}: size {} bytes is not a multiple of {} (uint{} token ids)", path, bytes.size(), w, 8 * w);
  std::vector<int64_t> ids(bytes.size() / w);
  for (size_t i = 0; i < ids.size(); ++i) {
    uint64_t v = 0;
    for (size_t b = 0; b < w; ++b) v |= uint64_t{static_cast<unsigned char>(bytes[i * w + b])} << (8 * b);
    ids[i] = static_cast<int64_t>(v);
  }
  return ids;
}

// The sidecar X.bin.json of scripts/tokenize_docs.py ("geoattn-tokens-1"): the ids' width and
// the documents, [[id, offset, length], ...] in tokens. Without it X.bin is one document.
struct TokenIndex {
  TokenWidth width = TokenWidth::U16;
  struct Doc {
    std::string id;
    int64_t offset, length;
  };
  std::vector<Doc> docs;
};

TokenIndex read_token_index(const std::string& path, int64_t file_bytes) {
  std::ifstream in(path, std::ios::binary);
  if (!in) fail("{}: cannot open", path);
  note_input(path);
  const auto j = parse_json_or_fail(path, in);
  if (!j.is_object() || j.value("format", "") != "geoattn-tokens-1")
    fail("{}: not a geoattn token index (expected \"format\": \"geoattn-tokens-1\")", path);
  TokenIndex index;
  const auto dtype = j.contains("dtype") && j["dtype"].is_string() ? j["dtype"].get<std::string>() : "";
  if (dtype != "uint16" && dtype != "uint32") fail("{}: dtype must be \"uint16\" or \"uint32\"", path);
  index.width = dtype == "uint16" ? TokenWidth::U16 : TokenWidth::U32;
  const int64_t n_ids = file_bytes / (index.width == TokenWidth::U16 ? 2 : 4);
  if (!j.contains("documents") || !j["documents"].is_array()) fail("{}: no \"documents\" list", path);
  int64_t k = 0;
  for (const auto& d : j["documents"]) {
    if (!d.is_array() || d.size() != 3 || !d[0].is_string() || !d[1].is_number_integer() || !d[2].is_number_integer())
      fail("{}: documents[{}] is not [id, offset, length]", path, k);
    const int64_t offset = d[1].get<int64_t>(), length = d[2].get<int64_t>();
    if (offset < 0 || length < 0 || offset > n_ids || length > n_ids - offset)
      fail("{}: documents[{}] (offset {}, length {}) lies outside the {} ids of the .bin", path, k, offset, length, n_ids);
    index.docs.push_back({d[0].get<std::string>(), offset, length});
    ++k;
  }
  return index;
}

void read_bin(Emitter& out, TokenWidth width) {
  const std::string bytes = read_bytes(out.path());
  const std::string index_path = out.path() + ".json";
  if (!fs::exists(index_path)) {
    out.tokens(out.name(), decode_little_endian(out.path(), bytes, width));
    return;
  }
  const TokenIndex index = read_token_index(index_path, static_cast<int64_t>(bytes.size()));
  const std::vector<int64_t> ids = decode_little_endian(out.path(), bytes, index.width);
  for (const auto& d : index.docs) {
    if (d.length == 0) continue;  // SPEC §7: empty documents are skipped
    if (!out.tokens(d.id, std::vector<int64_t>(ids.begin() + d.offset, ids.begin() + d.offset + d.length))) return;
  }
}

// ---- dispatch -------------------------------------------------------------------------

enum class ShardKind { Jsonl, Txt, Bin, Archive, Directory };

ShardKind shard_kind(const std::string& path) {
  std::error_code ec;
  const fs::file_status st = fs::status(path, ec);
  if (!fs::exists(st)) fail("{}: no such file or directory", path);
  if (fs::is_directory(st)) return ShardKind::Directory;
  if (fs::is_regular_file(st) && fs::file_size(path, ec) == 0 && !ec) fail("{}: the file is empty", path);
  if (ends_with(path, ".jsonl")) return ShardKind::Jsonl;
  if (ends_with(path, ".txt")) return ShardKind::Txt;
  if (ends_with(path, ".bin")) return ShardKind::Bin;
  if (is_archive_name(path)) return ShardKind::Archive;
  fail("{}: unknown shard type (expected .jsonl, .txt, .bin, .tar, .tar.xz or a directory)", path);
}

}  // namespace

void for_each_document(const std::string& path, const std::function<bool(const Document&)>& visit,
                       TokenWidth bin_width) {
  const ShardKind kind = shard_kind(path);
  Emitter out(path, visit);
  switch (kind) {
    case ShardKind::Jsonl: read_jsonl(out); break;
    case ShardKind::Txt: read_txt(out); break;
    case ShardKind::Bin: read_bin(out, bin_width); break;
    case ShardKind::Archive: read_archive(out); break;
    case ShardKind::Directory: read_directory(out); break;
  }
  out.finish();
}

// SPEC §7 normalisation: "\n{3,}" -> "\n\n", then strip " \t\n\r" from both ends.
std::string normalise_document(const std::string& text) {
  std::string out;
  out.reserve(text.size());
  size_t newlines = 0;  // length of the run of '\n' just copied
  for (const char c : text) {
    newlines = c == '\n' ? newlines + 1 : 0;
    if (newlines <= 2) out.push_back(c);
  }
  constexpr const char* kSpace = " \t\n\r";
  const size_t first = out.find_first_not_of(kSpace);
  if (first == std::string::npos) return {};
  return out.substr(first, out.find_last_not_of(kSpace) - first + 1);
}

}  // namespace geoattn::io
