#include "geoattn/util/input_files.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstring>
#include <filesystem>
#include <mutex>

#include <fmt/format.h>

#include "geoattn/util/error.h"
#include "geoattn/util/hash64.h"
#include "geoattn/util/result_files.h"

namespace geoattn {

namespace fs = std::filesystem;

namespace {

struct Input {
  std::string path;
  dev_t dev;
  ino_t ino;
};

std::atomic<bool> recording{false};
std::mutex inputs_mutex;
std::vector<Input>& inputs() {
  static std::vector<Input> all;
  return all;
}

bool is(const struct stat& st, const Input& in) { return st.st_dev == in.dev && st.st_ino == in.ino; }

// `path` with its existing part's links resolved, for comparing names that may not exist yet.
fs::path resolved(const std::string& path) {
  std::error_code ec;
  fs::path p = fs::weakly_canonical(fs::absolute(path, ec), ec);
  return ec ? fs::path(path).lexically_normal() : p;
}

}  // namespace

void record_inputs() { recording = true; }

void note_input(const std::string& path) {
  if (!recording) return;
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return;  // the reader says why it cannot open it
  const std::lock_guard<std::mutex> lock(inputs_mutex);
  for (const Input& in : inputs())
    if (is(st, in)) return;
  inputs().push_back({path, st.st_dev, st.st_ino});
}

void release_input(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return;
  const std::lock_guard<std::mutex> lock(inputs_mutex);
  std::erase_if(inputs(), [&](const Input& in) { return is(st, in); });
}

std::vector<std::string> inputs_read() {
  const std::lock_guard<std::mutex> lock(inputs_mutex);
  std::vector<std::string> out;
  for (const Input& in : inputs()) out.push_back(in.path);
  return out;
}

void check_not_input(const std::string& output) {
  if (!recording) return;
  struct stat st {};
  const bool exists = ::stat(output.c_str(), &st) == 0;
  const fs::path where = resolved(output);
  const std::lock_guard<std::mutex> lock(inputs_mutex);
  for (const Input& in : inputs()) {
    if (exists && is(st, in)) fail("{}: output path is an input of this run ({}): choose another --out", output, in.path);
    if (!in.path.ends_with(".json")) continue;  // only a result X.json has companions
    for (const std::string& companion : {arrays_path(in.path), state_path(in.path), means_path(in.path)})
      if (resolved(companion) == where)
        fail("{}: output path is {}, a companion file of the input {}: choose another --out", output, companion, in.path);
  }
}

namespace {


// Hashes [offset, offset + bytes) of `fd` into `hash`; false on a read error.
bool hash_range(int fd, int64_t offset, int64_t bytes, Hash64& hash, std::vector<unsigned char>& buffer) {
  while (bytes > 0) {
    const auto want = static_cast<size_t>(std::min<int64_t>(bytes, static_cast<int64_t>(buffer.size())));
    const ssize_t got = ::pread(fd, buffer.data(), want, offset);
    if (got <= 0) return false;
    hash.add(buffer.data(), static_cast<size_t>(got));
    offset += got, bytes -= got;
  }
  return true;
}

}  // namespace

FileFingerprint fingerprint(const std::string& path) {
  FileFingerprint out{path, -1, ""};
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return out;
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(fd);
    return out;
  }
  const int64_t size = st.st_size;
  constexpr int64_t kEnd = int64_t{1} << 20, kBlock = int64_t{64} << 10, kBlocks = 62;
  std::vector<unsigned char> buffer(static_cast<size_t>(kEnd));
  Hash64 hash;
  bool ok = true;
  if (size <= kFullHashBytes) {
    ok = hash_range(fd, 0, size, hash, buffer);
  } else {
    ok = hash_range(fd, 0, kEnd, hash, buffer) && hash_range(fd, size - kEnd, kEnd, hash, buffer);
    const int64_t span = size - 2 * kEnd - kBlock;
    for (int64_t k = 0; ok && k < kBlocks; ++k) ok = hash_range(fd, kEnd + span * k / (kBlocks - 1), kBlock, hash, buffer);
  }
  ::close(fd);
  if (!ok) return out;
  out.size = size;
  out.hash = fmt::format("{:016x}", hash.value());
  return out;
}

}  // namespace geoattn
