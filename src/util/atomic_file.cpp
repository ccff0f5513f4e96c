#include "geoattn/util/atomic_file.h"

#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>

#include "geoattn/util/error.h"

namespace geoattn {

namespace fs = std::filesystem;

void check_output_path(const std::string& path) {
  if (path.empty()) fail("--out: empty output path");
  fs::path parent = fs::path(path).parent_path();
  if (parent.empty()) parent = ".";
  std::error_code ec;
  if (!fs::is_directory(parent, ec)) fail("{}: output folder {} does not exist", path, parent.string());
  if (fs::is_directory(path, ec)) fail("{}: output path is a folder", path);
}

void write_file_atomic(const std::string& path, const std::function<void(std::ostream&)>& write) {
  check_output_path(path);
  const std::string tmp = path + ".tmp." + std::to_string(::getpid());
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

}  // namespace geoattn
