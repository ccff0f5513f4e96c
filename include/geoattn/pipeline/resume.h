#pragma once
// Resume, as measure and sinks share it: a run saves its state beside its output every
// --checkpoint-every windows (data.windows_done, data.complete = false, and data.inputs: the
// fingerprint of every file it had read, util/input_files.h), and a rerun with the same
// arguments picks it up after those windows, once it has found each of those files as it was.
// A rerun with other arguments starts over; one whose files changed is refused, naming the file
// (--restart starts over).
#include <algorithm>
#include <csignal>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "geoattn/util/error.h"
#include "geoattn/util/input_files.h"

namespace geoattn::pipeline {

// How a run saves its state and picks it up (--checkpoint-every, --restart).
struct Checkpointing {
  int64_t every = 50;    // save the state every K windows (0: never); a rerun resumes
  bool restart = false;  // a saved partial state is not resumed: the run starts over
};

// What must match for a saved partial run to be resumed: everything but the progress, the
// inputs' fingerprints (checked on their own) and the timing.
template <class Info>
bool same_identity(const Info& a, const Info& b) {
  const auto data = [](auto d) {
    d.windows_done.reset(), d.complete.reset(), d.inputs.clear();
    return d;
  };
  return a.model == b.model && a.command == b.command && a.method == b.method && data(a.data) == data(b.data);
}

// The fingerprints of the files this run has read so far, each taken once (when first asked
// for): what a partial state records in data.inputs.
class InputFingerprints {
 public:
  const std::vector<FileFingerprint>& now() {
    for (const std::string& path : inputs_read())
      if (std::none_of(prints_.begin(), prints_.end(), [&](const FileFingerprint& f) { return f.path == path; }))
        prints_.push_back(fingerprint(path));
    return prints_;
  }

 private:
  std::vector<FileFingerprint> prints_;
};

// Fails, naming the file, unless every file of `saved` is still the one it fingerprints.
inline void check_unchanged(const std::vector<FileFingerprint>& saved, const std::string& state_file, int64_t done) {
  for (const FileFingerprint& then : saved) {
    const FileFingerprint now = fingerprint(then.path);
    if (now == then) continue;
    const std::string what = now.size < 0               ? "is gone"
                             : now.size != then.size    ? fmt::format("has {} bytes, not {}", now.size, then.size)
                                                        : "has other contents";
    fail("{}: {} since the run saved {} after {} windows: rerun with --restart to start over", then.path, what,
         state_file, done);
  }
}

// A saved partial state of the run `state` describes (its run_info), read by `load` from
// `state_file`: it replaces `state` (its description kept), and the windows it holds are returned;
// 0 (and `state` untouched) when there is none to resume, its arguments differ, or `restart`.
// The state file is the run's own output: it is released from the run's inputs. W: the run's
// windows.
template <class State, class Load>
int64_t resume(const std::string& state_file, const std::string& out, int64_t W, const Checkpointing& checkpoint,
               bool quiet, State& state, const Load& load) {
  if (checkpoint.restart || !std::filesystem::exists(state_file)) return 0;
  // A sidecar this geoattn cannot read (an older one's): the run would replace it, but whether it
  // is a partial run to resume cannot be told, so the user says so.
  State saved = [&] {
    try {
      return load(state_file);
    } catch (const Error& e) {
      fail("{} (to replace it and start over, rerun with --restart)", e.what());
    }
  }();
  release_input(state_file);
  const auto& d = saved.run_info.data;
  if (d.complete.value_or(true)) return 0;
  const int64_t done = d.windows_done.value_or(0);
  // A file the partial run read that changed since (its data, its model's weights or config.json)
  // is refused by name before the arguments are compared: a changed config.json changes the
  // model's description too, and would otherwise start over without a word.
  check_unchanged(d.inputs, state_file, done);
  if (!same_identity(saved.run_info, state.run_info)) return 0;
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
