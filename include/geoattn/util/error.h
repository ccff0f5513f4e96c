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

// A value a user gave, as an error echoes it: at most kEchoChars characters of it, then "..."
// (a list of thousands of numbers makes no readable line). Every error that quotes a flag's
// value or an argument's quotes it through here.
inline constexpr size_t kEchoChars = 60;
std::string echoed(const std::string& text);

// fail("{}: header length {} is past the end of the file", path, n)
template <typename... Args>
[[noreturn]] void fail(fmt::format_string<Args...> format, Args&&... args) {
  throw Error(fmt::format(format, std::forward<Args>(args)...));
}

}  // namespace geoattn
