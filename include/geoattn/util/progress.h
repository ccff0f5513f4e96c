#pragma once
// A one-line progress report on stderr: done/total, rate, ETA. Redrawn at most every
// `min_interval_s` on a terminal; into a file (a batch job's log), a full line at most every
// 30 s and at the end. Silent when quiet.
#include <chrono>
#include <string>

namespace geoattn {

class Progress {
 public:
  Progress(std::string what, long long total, bool quiet, double min_interval_s = 0.5);
  // `done` items, `units` (e.g. tokens) processed so far, for the rate.
  void update(long long done, long long units);
  void finish();

 private:
  std::string what_;
  long long total_;
  bool quiet_;
  double min_interval_s_;
  std::chrono::steady_clock::time_point start_, last_;
  long long done_ = 0, units_ = 0;
  bool drawn_ = false;
  bool terminal_;  // stderr is a terminal: redraw one line; else print a line now and then
  void draw();
};

}  // namespace geoattn
