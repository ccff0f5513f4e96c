#pragma once
// Resume, as measure and sinks share it: a run saves its state beside its output every
// --checkpoint-every windows (data.windows_done, data.complete = false), and a rerun with the
// same arguments picks it up after those windows.
#include <csignal>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <utility>

#include <fmt/format.h>

#include "geoattn/util/error.h"

namespace geoattn::pipeline {

// What must match for a saved partial run to be resumed: everything but the progress and timing.
template <class Info>
bool same_identity(const Info& a, const Info& b) {
  const auto data = [](auto d) {
    d.windows_done.reset(), d.complete.reset();
    return d;
  };
  return a.model == b.model && a.command == b.command && a.method == b.method && data(a.data) == data(b.data);
}

// A saved partial state of the run `state` describes (its run_info), read by `load` from
// `state_file`: it replaces `state` (its description kept), and the windows it holds are returned;
// 0 (and `state` untouched) when there is none to resume. W: the run's windows.
template <class State, class Load>
int64_t resume(const std::string& state_file, const std::string& out, int64_t W, bool quiet, State& state, const Load& load) {
  if (!std::filesystem::exists(state_file)) return 0;
  State saved = load(state_file);
  const auto& d = saved.run_info.data;
  if (d.complete.value_or(true) || !same_identity(saved.run_info, state.run_info)) return 0;
  const int64_t done = d.windows_done.value_or(0);
  if (done < 0 || done > W) fail("{}: {} windows done of {}", state_file, done, W);
  saved.run_info = state.run_info;
  state = std::move(saved);
  if (!quiet) fmt::print(stderr, "resuming {} after {} of {} windows\n", out, done, W);
  return done;
}

// Whether a run saves its state after `windows_done` of its W windows (the last is the result's).
inline bool checkpoint_due(int64_t every, int64_t windows_done, int64_t W) {
  return every > 0 && windows_done % every == 0 && windows_done < W;
}

// The tests of resume kill the process here (GEOATTN_TEST_KILL_AFTER_WINDOWS=K: after window K).
inline void killed_for_tests(int64_t windows_done) {
  static const char* after = std::getenv("GEOATTN_TEST_KILL_AFTER_WINDOWS");
  if (after && windows_done == std::atoll(after)) std::raise(SIGKILL);
}

}  // namespace geoattn::pipeline
