#pragma once
// One error type for everything a user can cause: its message is one line, names the file
// (or flag) and the problem, and the CLI prints it as `geoattn: error: <message>`.
#include <stdexcept>
#include <string>

#include <fmt/format.h>

namespace geoattn {

class Error : public std::runtime_error {
 public:
  explicit Error(const std::string& message);
};

// fail("{}: header length {} is past the end of the file", path, n)
template <typename... Args>
[[noreturn]] void fail(fmt::format_string<Args...> format, Args&&... args) {
  throw Error(fmt::format(format, std::forward<Args>(args)...));
}

}  // namespace geoattn
