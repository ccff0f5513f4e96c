#include "geoattn/util/progress.h"

#include <fmt/format.h>

#include <cstdio>

namespace geoattn {

Progress::Progress(std::string what, long long total, bool quiet, double min_interval_s)
    : what_(std::move(what)), total_(total), quiet_(quiet), min_interval_s_(min_interval_s),
      start_(std::chrono::steady_clock::now()), last_(start_) {}

void Progress::update(long long done, long long units) {
  done_ = done;
  units_ = units;
  if (quiet_) return;
  auto now = std::chrono::steady_clock::now();
  if (drawn_ && std::chrono::duration<double>(now - last_).count() < min_interval_s_) return;
  last_ = now;
  draw();
}

void Progress::draw() {
  double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  double rate = elapsed > 0 ? units_ / elapsed : 0.0;
  double per_item = done_ > 0 ? elapsed / done_ : 0.0;
  double eta = per_item * static_cast<double>(total_ - done_);
  std::string line = fmt::format("\r{} {}/{}  {:.0f} tok/s  elapsed {:.1f}s  ETA {:.1f}s   ", what_, done_,
                                 total_, rate, elapsed, eta);
  std::fputs(line.c_str(), stderr);
  std::fflush(stderr);
  drawn_ = true;
}

void Progress::finish() {
  if (quiet_) return;
  draw();
  std::fputs("\n", stderr);
}

}  // namespace geoattn
