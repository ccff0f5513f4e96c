#pragma once
// A 64-bit hash of byte blocks (not cryptographic: it tells one file or run from another, not an
// adversary's): each 8-byte word multiplied in, the tail and the length last. The fingerprint of
// an input (input_files.h) and a run's identity (report/run_identity.h) both use it.
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string_view>

namespace geoattn {

class Hash64 {
 public:
  void add(const void* data, size_t n) {
    const auto* p = static_cast<const unsigned char*>(data);
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
      uint64_t w;
      std::memcpy(&w, p + i, 8);
      mix(w);
    }
    uint64_t tail = 0;
    std::memcpy(&tail, p + i, n - i);
    mix(tail ^ (uint64_t{n - i} << 56));
    mix(n);
  }
  void add(std::string_view text) { add(text.data(), text.size()); }
  uint64_t value() const { return h_; }

 private:
  void mix(uint64_t w) {
    h_ ^= w * 0xbf58476d1ce4e5b9ULL;
    h_ = ((h_ << 27) | (h_ >> 37)) * 0x94d049bb133111ebULL;
  }
  uint64_t h_ = 0x6a09e667f3bcc909ULL;
};

}  // namespace geoattn
