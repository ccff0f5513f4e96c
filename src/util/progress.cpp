#include "geoattn/util/progress.h"

#include <fmt/format.h>

#include <algorithm>

#include <unistd.h>

#include <cstdio>

namespace geoattn {

Progress::Progress(std::string what, long long total, bool quiet, double min_interval_s, std::string unit)
    : what_(std::move(what)), total_(total), unit_(std::move(unit)), quiet_(quiet), min_interval_s_(min_interval_s),
      start_(std::chrono::steady_clock::now()), last_(start_), terminal_(isatty(fileno(stderr)) == 1) {
  // A log file (a batch job's stderr) gets a whole line every 30 s instead of a redrawn one.
  if (!terminal_) min_interval_s_ = std::max(min_interval_s_, 30.0);
}

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
  // Before the first item there is no rate to extrapolate: the ETA is unknown, not 0.
  const std::string eta = done_ > 0 ? fmt::format("{:.1f}s", per_item * static_cast<double>(total_ - done_)) : "?";
  std::string line = fmt::format("{}{} {}/{}  {:.0f} {}/s  elapsed {:.1f}s  ETA {}{}", terminal_ ? "\r" : "", what_,
                                 done_, total_, rate, unit_, elapsed, eta, terminal_ ? "   " : "\n");
  std::fputs(line.c_str(), stderr);
  std::fflush(stderr);
  drawn_ = true;
}

void Progress::finish() {
  if (quiet_) return;
  draw();
  if (terminal_) std::fputs("\n", stderr);
}

}  // namespace geoattn
