#include "binaries.h"

#include <filesystem>

namespace geoattn::cli {

std::string sibling_program(const std::string& name) {
  std::error_code ec;
  const auto self = std::filesystem::read_symlink("/proc/self/exe", ec);
  return ec ? name : (self.parent_path() / name).string();
}

}  // namespace geoattn::cli
