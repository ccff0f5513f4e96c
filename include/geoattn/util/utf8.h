#pragma once
// UTF-8 as JSON needs it: geoattn's results are JSON, and what goes into them (document ids,
// paths given on the command line) must be UTF-8.
#include <cstddef>
#include <cstdint>
#include <string_view>

namespace geoattn {

// Byte offset of the first byte that does not start a well-formed UTF-8 sequence (no
// overlongs, no surrogates, nothing past U+10FFFF), or std::string_view::npos.
inline size_t first_invalid_utf8(std::string_view s) {
  size_t i = 0;
  while (i < s.size()) {
    const auto lead = static_cast<unsigned char>(s[i]);
    if (lead < 0x80) {
      ++i;
      continue;
    }
    size_t len = 0;
    uint32_t cp = 0, min = 0;
    if ((lead & 0xE0) == 0xC0) {
      len = 2, cp = lead & 0x1F, min = 0x80;
    } else if ((lead & 0xF0) == 0xE0) {
      len = 3, cp = lead & 0x0F, min = 0x800;
    } else if ((lead & 0xF8) == 0xF0) {
      len = 4, cp = lead & 0x07, min = 0x10000;
    } else {
      return i;
    }
    if (i + len > s.size()) return i;
    for (size_t k = 1; k < len; ++k) {
      const auto cont = static_cast<unsigned char>(s[i + k]);
      if ((cont & 0xC0) != 0x80) return i;
      cp = (cp << 6) | (cont & 0x3F);
    }
    if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return i;
    i += len;
  }
  return std::string_view::npos;
}


}  // namespace geoattn
