#include "geoattn/util/atomic_file.h"

#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>

#include "geoattn/util/error.h"

namespace geoattn {

namespace fs = std::filesystem;

void check_outputs(const std::vector<std::string>& outputs, const std::vector<std::string>& inputs) {
  for (const std::string& path : outputs) {
    if (path.empty()) fail("--out: empty output path");
    fs::path parent = fs::path(path).parent_path();
    if (parent.empty()) parent = ".";
    std::error_code ec;
    if (!fs::is_directory(parent, ec)) fail("{}: output folder {} does not exist", path, parent.string());
    const fs::file_status status = fs::status(path, ec);
    if (fs::is_directory(status)) fail("{}: output path is a folder", path);
    if (!fs::exists(status)) continue;  // a new file harms nothing
    if (!fs::is_regular_file(status))
      fail("{}: output path exists and is not a regular file (geoattn would replace it): choose another --out", path);
    for (const std::string& input : inputs) {
      if (input.empty()) continue;
      if (fs::equivalent(path, input, ec))
        fail("{}: output path is an input of this run ({}): choose another --out", path, input);
      if (fs::is_directory(input, ec) && fs::equivalent(parent, input, ec))
        fail("{}: output path is a file of the input folder {}: choose another --out", path, input);
    }
  }
}

void check_output_path(const std::string& path) { check_outputs({path}, {}); }

namespace {
std::string temporary_name(const std::string& path) { return path + ".tmp." + std::to_string(::getpid()); }
}  // namespace

void write_file_atomic(const std::string& path, const std::function<void(std::ostream&)>& write) {
  check_output_path(path);
  const std::string tmp = temporary_name(path);
  try {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    if (!out) fail("{}: cannot open for writing", tmp);
    write(out);
    out.flush();
    if (!out) fail("{}: write failed (disk full?)", path);
    out.close();
    if (std::rename(tmp.c_str(), path.c_str()) != 0) fail("{}: cannot rename {} into place", path, tmp);
  } catch (...) {
    std::remove(tmp.c_str());
    throw;
  }
}

std::string OutputFiles::staged(const std::string& path) {
  check_output_path(path);
  const std::lock_guard<std::mutex> lock(mutex_);
  staged_.emplace_back(temporary_name(path) + ".staged", path);
  return staged_.back().first;
}

void OutputFiles::commit() {
  const std::lock_guard<std::mutex> lock(mutex_);
  for (auto& [tmp, path] : staged_) {
    if (std::rename(tmp.c_str(), path.c_str()) != 0) fail("{}: cannot rename {} into place", path, tmp);
    tmp.clear();
  }
  staged_.clear();
}

OutputFiles::~OutputFiles() {
  for (const auto& [tmp, path] : staged_)
    if (!tmp.empty()) std::remove(tmp.c_str());
}

}  // namespace geoattn
