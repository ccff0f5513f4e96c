#pragma once
// A window's query positions as the user gives them (--queries), read once where they are given:
// "last", "all", or a list i,j,... (negative: from the end). Its positions wait for the window
// length T. Plain C++.
#include <cstdint>
#include <string>
#include <vector>

namespace geoattn::pipeline {

class Queries {
 public:
  // geoattn::Error naming no flag on any other text (no space, no empty item).
  static Queries parse(const std::string& text);
  // Sorted, unique positions in 0..T-1; geoattn::Error on one outside the window.
  std::vector<int64_t> at(int64_t T) const;
  bool all() const { return text_ == "all"; }
  const std::string& text() const { return text_; }  // as given (what a run records)

 private:
  std::string text_ = "last";
  std::vector<int64_t> list_;  // a list's positions as given
};

}  // namespace geoattn::pipeline
