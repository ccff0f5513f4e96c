#pragma once
// A one-line progress report on stderr: done/total, rate, ETA. Redrawn at most every
// `min_interval_s` on a terminal; into a file (a batch job's log), a full line at most every
// 30 s and at the end. Silent when quiet.
#include <atomic>
#include <chrono>
#include <string>

namespace geoattn {

class Progress {
 public:
  // `unit`: what the rate counts ("tok": tokens per second).
  static constexpr double kRedrawSeconds = 0.5;  // on a terminal
  Progress(std::string what, long long total, bool quiet, double min_interval_s = kRedrawSeconds,
           std::string unit = "tok");
  // `done` items, `units` (e.g. tokens) processed so far, for the rate.
  void update(long long done, long long units);
  void finish();

 private:
  std::string what_;
  long long total_;
  std::string unit_;
  bool quiet_;
  double min_interval_s_;
  std::chrono::steady_clock::time_point start_, last_;
  long long done_ = 0, units_ = 0;
  bool drawn_ = false;
  bool terminal_;  // stderr is a terminal: redraw one line; else print a line now and then
  void draw();
};

// Progress over items a WorkerPool's workers finish, in any order: counted by every worker, drawn
// only by worker 0 (the thread that called parallel_for), since a Progress draws from one thread.
class ItemProgress {
 public:
  ItemProgress(std::string what, long long total, bool quiet) : progress_(std::move(what), total, quiet, Progress::kRedrawSeconds, "items") {}
  void done(int worker, long long items = 1) {
    const long long d = done_ += items;
    if (worker == 0) progress_.update(d, d);
  }
  void finish() {
    progress_.update(done_, done_);
    progress_.finish();
  }

 private:
  Progress progress_;
  std::atomic<long long> done_{0};
};

}  // namespace geoattn
