#pragma once
// Output files are written whole or not at all: write to a temporary file in the same folder
// (`.geoattn-<pid>-<n>.tmp`, whatever the output's name), then rename it into place.
#include <functional>
#include <mutex>
#include <ostream>
#include <string>
#include <vector>

namespace geoattn {

// Fails (geoattn::Error, naming the path) before anything is written unless every path of
// `outputs` can be written without harm: its folder exists; it is neither a folder nor any other
// file that is not a regular one (a FIFO, a device: the write would rename a new file over it);
// it is none of `inputs` (the same file, links resolved) nor of the files this run has read
// (input_files.h: check_not_input); and it is no existing file inside an input that is a folder
// (a checkpoint's). Empty inputs are skipped.
void check_outputs(const std::vector<std::string>& outputs, const std::vector<std::string>& inputs);

// check_outputs({path}, {}).
void check_output_path(const std::string& path);

// Holds the output `out` for this process until it exits: an exclusive lock (flock) on a file
// beside it (`.geoattn-lock-<16 hex of its path>.tmp`, removed at exit and on the signals above),
// so that a second run onto the same output fails at once, in one line naming the output, where
// two runs would otherwise race on its files. A folder whose files cannot be locked (no flock
// there) is written unlocked.
void hold_output(const std::string& out);
// Lets go of every output held (at exit, and before std::_Exit, which skips atexit).
void release_held_outputs();

// Whether a file name is one of those temporary names (a file geoattn left, or is writing now).
bool is_temporary_name(const std::string& filename);

// The programs' signal handling: SIGXFSZ (a file past `ulimit -f`) ignored, so that the write
// fails with EFBIG and is reported; SIGTERM, SIGINT and SIGHUP remove the temporary files of
// the writes under way, then end the process as the signal would.
void remove_temporary_files_on_signals();

// Calls `write` on a stream to a temporary file beside `path`, flushes it, and renames it
// over `path`. If `write` throws or the stream fails, the temporary file is removed and
// `path` is untouched. `path` is checked against the run's inputs again before the rename.
// A `path` that OutputFiles::staged gave is itself such a temporary file: it is written in
// place, once (a second write is an internal error), and OutputFiles renames or removes it.
void write_file_atomic(const std::string& path, const std::function<void(std::ostream&)>& write);

// The files of one run, all or none: each is written under the temporary name staged(path)
// gives (beside `path`, checked as check_output_path does); commit() checks every path against
// the run's inputs again, then renames them into place in the order they were staged (stage the
// file that names the others last). Destroyed before
// commit() (a failed run), it removes every staged file: what was at the paths stays as it was.
class OutputFiles {
 public:
  OutputFiles() = default;
  OutputFiles(const OutputFiles&) = delete;
  OutputFiles& operator=(const OutputFiles&) = delete;
  ~OutputFiles();
  std::string staged(const std::string& path);  // thread-safe
  void commit();

 private:
  std::mutex mutex_;
  struct Staged {
    std::string tmp, path;
    size_t slot;  // for the signal handler
  };
  std::vector<Staged> staged_;
};

}  // namespace geoattn
