#pragma once
// Every file a run reads, recorded where it is opened (the readers of io/ and report/ call
// note_input), so that no output of the run can replace one (atomic_file.h asks
// check_not_input before it stages or renames anything) and a resume can tell whether the bytes
// it started on are still there (fingerprint). An input protects its companions too
// (result_files.h: X.curves.safetensors, X.state.safetensors, X.means.safetensors beside X.json), read or not:
// they belong to it. Recording is on in the geoattn programs (record_inputs()); a library user
// (the Python module) records nothing, since one process serves many runs.
#include <cstdint>
#include <string>
#include <vector>

namespace geoattn {

// Switches recording on for this process (the CLI's main).
void record_inputs();
// Records `path` (as it was opened; its file identity is taken now) as an input of this run.
void note_input(const std::string& path);
// Forgets `path`: a file the run reads and then replaces by design (its own state sidecar, read
// to resume).
void release_input(const std::string& path);
// The inputs recorded so far, in the order first opened.
std::vector<std::string> inputs_read();

// geoattn::Error naming `output` and the input when `output` is a file the run read (the same
// file, links resolved) or a companion of one.
void check_not_input(const std::string& output);

// What a resume compares of an input: its size and a hash of its bytes. Files up to
// kFullHashBytes are hashed whole; a larger one (a model's weights) by its first and last MiB and
// 62 blocks of 64 KiB spread evenly between them, about 6 MiB read per file.
struct FileFingerprint {
  std::string path;
  int64_t size = -1;  // -1: missing or unreadable
  std::string hash;   // 16 hex digits
  bool operator==(const FileFingerprint&) const = default;
};
inline constexpr int64_t kFullHashBytes = int64_t{64} << 20;
FileFingerprint fingerprint(const std::string& path);

}  // namespace geoattn
