#include "geoattn/util/atomic_file.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <array>
#include <atomic>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <string_view>

#include "geoattn/util/error.h"
#include "geoattn/util/hash64.h"
#include "geoattn/util/input_files.h"

namespace geoattn {

namespace fs = std::filesystem;

void check_outputs(const std::vector<std::string>& outputs, const std::vector<std::string>& inputs) {
  for (const std::string& path : outputs) {
    if (path.empty()) fail("--out: empty output path");
    fs::path parent = fs::path(path).parent_path();
    if (parent.empty()) parent = ".";
    std::error_code ec;
    if (!fs::is_directory(parent, ec)) fail("{}: output folder {} does not exist", path, parent.string());
    check_not_input(path);
    const fs::file_status status = fs::status(path, ec);
    if (fs::is_directory(status)) fail("{}: output path is a folder", path);
    if (!fs::exists(status)) continue;  // a new file harms nothing
    if (!fs::is_regular_file(status))
      fail("{}: output path exists and is not a regular file (geoattn would replace it): choose another --out", path);
    for (const std::string& input : inputs) {
      if (input.empty()) continue;
      if (fs::equivalent(path, input, ec))
        fail("{}: output path is an input of this run ({}): choose another --out", path, input);
      if (fs::is_directory(input, ec) && fs::equivalent(parent, input, ec))
        fail("{}: output path is a file of the input folder {}: choose another --out", path, input);
    }
  }
}

void check_output_path(const std::string& path) { check_outputs({path}, {}); }

namespace {

constexpr std::string_view kTemporaryPrefix = ".geoattn-", kTemporarySuffix = ".tmp";

// The temporary files alive now, for the signal handler: fixed slots of plain characters, so that
// removing them needs nothing a handler may not call.
constexpr size_t kSlots = 64, kPathBytes = 4096;
std::array<std::atomic<bool>, kSlots> slot_used{};
std::array<std::array<char, kPathBytes>, kSlots> slot_path{};

// Slot of `tmp` while it exists (kSlots when all are taken: it is then only removed in-process).
size_t track(const std::string& tmp) {
  if (tmp.size() >= kPathBytes) return kSlots;
  for (size_t i = 0; i < kSlots; ++i) {
    bool expected = false;
    if (slot_used[i].load() || !slot_used[i].compare_exchange_strong(expected, true)) continue;
    std::memcpy(slot_path[i].data(), tmp.c_str(), tmp.size() + 1);
    return i;
  }
  return kSlots;
}
void untrack(size_t slot) {
  if (slot < kSlots) slot_used[slot].store(false);
}

extern "C" void remove_temporary_files_and_die(int sig) {
  for (size_t i = 0; i < kSlots; ++i)
    if (slot_used[i].load()) ::unlink(slot_path[i].data());
  std::signal(sig, SIG_DFL);
  std::raise(sig);
}

// A fresh name in `path`'s folder whose length does not depend on `path`'s (any name the folder
// takes as an output works), made with O_EXCL so that no two writers share one.
std::string temporary_name(const std::string& path) {
  static std::atomic<unsigned> counter{0};
  const fs::path parent = fs::path(path).parent_path();
  for (;;) {
    const std::string name = fmt::format("{}{}-{}{}", kTemporaryPrefix, ::getpid(), counter++, kTemporarySuffix);
    const std::string tmp = parent.empty() ? name : (parent / name).string();
    const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    if (fd >= 0) {
      ::close(fd);
      return tmp;
    }
    if (errno != EEXIST)
      fail("{}: cannot write in {} ({})", path, parent.empty() ? "." : parent.string(), std::strerror(errno));
  }
}

// The output each staged name stands for (OutputFiles::staged), for the messages.
std::mutex staged_mutex;
std::map<std::string, std::string>& staged_outputs() {
  static std::map<std::string, std::string> all;
  return all;
}
std::string output_of(const std::string& path) {
  const std::lock_guard<std::mutex> lock(staged_mutex);
  const auto it = staged_outputs().find(path);
  return it == staged_outputs().end() ? path : it->second;
}
void forget_staged(const std::string& tmp) {
  const std::lock_guard<std::mutex> lock(staged_mutex);
  staged_outputs().erase(tmp);
}

}  // namespace

namespace {
// The outputs this process holds (hold_output): each lock file, its descriptor and its slot.
struct HeldOutput {
  std::string lock;
  int fd;
  size_t slot;
};
std::mutex held_mutex;
std::vector<HeldOutput>& held_outputs() {
  static std::vector<HeldOutput> all;
  return all;
}
extern "C" void release_held_outputs_at_exit() { release_held_outputs(); }
}  // namespace

void release_held_outputs() {
  const std::lock_guard<std::mutex> lock(held_mutex);
  for (const HeldOutput& h : held_outputs()) {
    ::unlink(h.lock.c_str());  // still held: no other run can have taken it
    ::close(h.fd);
    untrack(h.slot);
  }
  held_outputs().clear();
}

void hold_output(const std::string& out) {
  std::error_code ec;
  const fs::path where = fs::weakly_canonical(fs::absolute(out, ec), ec);
  Hash64 hash;
  hash.add(where.string());
  const fs::path parent = fs::path(out).parent_path();
  const std::string name = fmt::format("{}lock-{:016x}{}", kTemporaryPrefix, hash.value(), kTemporarySuffix);
  const std::string lock = parent.empty() ? name : (parent / name).string();
  {
    const std::lock_guard<std::mutex> guard(held_mutex);
    for (const HeldOutput& h : held_outputs())
      if (h.lock == lock) return;  // held already
  }
  for (int attempt = 0; attempt < 16; ++attempt) {
    const int fd = ::open(lock.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (fd < 0) fail("{}: cannot write in {} ({})", out, parent.empty() ? "." : parent.string(), std::strerror(errno));
    if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
      const int err = errno;
      ::close(fd);
      if (err == EWOULDBLOCK)
        fail("{}: another geoattn run is writing this output now (it holds {}): wait for it to end, or choose another --out",
             out, lock);
      ::unlink(lock.c_str());  // no locks in this folder: written unlocked
      return;
    }
    struct stat held {}, named {};
    if (::fstat(fd, &held) == 0 && ::stat(lock.c_str(), &named) == 0 && held.st_dev == named.st_dev &&
        held.st_ino == named.st_ino) {
      const std::lock_guard<std::mutex> guard(held_mutex);
      if (held_outputs().empty()) std::atexit(release_held_outputs_at_exit);
      held_outputs().push_back({lock, fd, track(lock)});
      return;
    }
    ::close(fd);  // its holder removed it as we opened it: lock the one there now
  }
  fail("{}: cannot lock {} (it keeps being replaced)", out, lock);
}

bool is_temporary_name(const std::string& filename) {
  return filename.starts_with(kTemporaryPrefix) && filename.ends_with(kTemporarySuffix);
}

void remove_temporary_files_on_signals() {
  std::signal(SIGXFSZ, SIG_IGN);  // a file past `ulimit -f`: the write fails (EFBIG) and is reported
  for (int sig : {SIGTERM, SIGINT, SIGHUP}) std::signal(sig, remove_temporary_files_and_die);
}

namespace {
// `write` into `file`, a file this process made empty (temporary_name), then closed; geoattn::Error
// naming `shown` when a write fails. Opened for update ("r+"), not truncated: a truncation sets
// ext4's and XFS's replace-by-truncate heuristic, which writes the whole file back to disk when it
// is closed, on the writer's core (the bench capture's 109 MB state file: 16 ms under perf).
void write_into(const std::string& file, const std::string& shown, const std::function<void(std::ostream&)>& write) {
  std::fstream out(file, std::ios::binary | std::ios::in | std::ios::out);
  if (!out) fail("{}: cannot write ({})", shown, std::strerror(errno));
  errno = 0;
  write(out);
  out.flush();
  if (!out) fail("{}: write failed ({})", shown, errno ? std::strerror(errno) : "disk full?");
  out.close();
  if (!out) fail("{}: write failed ({})", shown, errno ? std::strerror(errno) : "disk full?");
}

// A staged file is written once: a second write would keep the first one's tail (write_into
// does not truncate). One that is gone is left to write_into's open, which names the output.
void check_unwritten(const std::string& staged) {
  std::error_code ec;
  if (const auto bytes = fs::file_size(staged, ec); !ec && bytes != 0) fail("internal: the staged file {} is written twice", staged);
}
}  // namespace

void write_file_atomic(const std::string& path, const std::function<void(std::ostream&)>& write) {
  check_output_path(path);
  // Errors name the file the user asked for (`path` may be a staged name of OutputFiles).
  const std::string shown = output_of(path);
  // A staged name (the one path output_of maps elsewhere) is already a temporary file that
  // OutputFiles renames or removes: written in place, not renamed over (a rename over a file
  // also writes the new one back at once on ext4).
  if (shown != path) {
    check_unwritten(path);
    return write_into(path, shown, write);
  }
  const std::string tmp = temporary_name(path);
  const size_t slot = track(tmp);
  try {
    write_into(tmp, shown, write);
    check_not_input(path);
    if (std::rename(tmp.c_str(), path.c_str()) != 0)
      fail("{}: cannot rename the written file into place ({})", shown, std::strerror(errno));
    untrack(slot);
  } catch (...) {
    std::remove(tmp.c_str());
    untrack(slot);
    throw;
  }
}

std::string OutputFiles::staged(const std::string& path) {
  check_output_path(path);
  std::string tmp = temporary_name(path);
  {
    const std::lock_guard<std::mutex> lock(staged_mutex);
    staged_outputs()[tmp] = path;
  }
  const std::lock_guard<std::mutex> lock(mutex_);
  staged_.push_back({tmp, path, track(tmp)});
  return tmp;
}

void OutputFiles::commit() {
  const std::lock_guard<std::mutex> lock(mutex_);
  // Every path checked before any is replaced: all of the files or none.
  for (const Staged& s : staged_) check_not_input(s.path);
  for (Staged& s : staged_) {
    if (std::rename(s.tmp.c_str(), s.path.c_str()) != 0)
      fail("{}: cannot rename the written file into place ({})", s.path, std::strerror(errno));
    forget_staged(s.tmp);
    s.tmp.clear();
    untrack(s.slot);
  }
  staged_.clear();
}

OutputFiles::~OutputFiles() {
  for (const Staged& s : staged_)
    if (!s.tmp.empty()) {
      std::remove(s.tmp.c_str());
      forget_staged(s.tmp);
      untrack(s.slot);
    }
}

}  // namespace geoattn
