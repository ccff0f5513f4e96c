#include "geoattn/util/error.h"

#include <algorithm>

namespace geoattn {

namespace {
// Messages are one line: embedded newlines (from a parser, say) become spaces.
std::string one_line(std::string s) {
  std::replace(s.begin(), s.end(), '\n', ' ');
  std::replace(s.begin(), s.end(), '\r', ' ');
  return s;
}
}  // namespace

std::string echoed(const std::string& text) {
  return text.size() <= kEchoChars ? text : text.substr(0, kEchoChars) + "...";
}

Error::Error(const std::string& message) : std::runtime_error(one_line(message)) {}

}  // namespace geoattn
