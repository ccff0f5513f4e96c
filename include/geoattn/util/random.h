#pragma once
// Portable pseudo-randomness: the same numbers on every platform, compiler and LibTorch version
// (std::*_distribution and LibTorch's generators promise neither). Pure C++.
#include <cstdint>

namespace geoattn {

// splitmix64's mixer (Steele, Lea, Flood 2014): a bijection of 64-bit values, for seeding.
inline uint64_t splitmix64(uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

// The splitmix64 generator: advances `state` and returns the next value.
inline uint64_t splitmix64_next(uint64_t& state) {
  const uint64_t out = splitmix64(state);
  state += 0x9e3779b97f4a7c15ULL;
  return out;
}

// A uniform draw in [0, range), range >= 1 (Lemire's multiply-shift with rejection: unbiased).
inline uint64_t uniform_below(uint64_t& state, uint64_t range) {
  unsigned __int128 m = static_cast<unsigned __int128>(splitmix64_next(state)) * range;
  uint64_t low = static_cast<uint64_t>(m);
  if (low < range) {
    const uint64_t threshold = -range % range;
    while (low < threshold) {
      m = static_cast<unsigned __int128>(splitmix64_next(state)) * range;
      low = static_cast<uint64_t>(m);
    }
  }
  return static_cast<uint64_t>(m >> 64);
}

}  // namespace geoattn
