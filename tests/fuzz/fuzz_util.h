#pragma once
// Shared by the libFuzzer targets (tests/fuzz/fuzz_*.cpp) and the corpus replay driver.
//
// The contract every target checks: on any input the API under test either succeeds or
// throws geoattn::Error. Anything else is a finding and aborts, so libFuzzer (or the replay
// driver) records it: another exception type escaping (an nlohmann::json exception means a
// parser let the library's own JSON errors through; std::bad_alloc means a size taken from
// the input was trusted), a crash, a hang, or a sanitizer report.
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <new>
#include <string>
#include <typeinfo>

#include <nlohmann/json.hpp>

#include "geoattn/util/error.h"
#include "geoattn/util/json_parse.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

namespace geoattn::fuzz {

[[noreturn]] inline void finding(const char* kind, const char* what) {
  std::fprintf(stderr, "geoattn fuzz finding: %s: %s\n", kind, what);
  std::fflush(stderr);
  std::abort();
}

// Runs `body`; geoattn::Error is an expected outcome, anything else a finding.
template <typename Body>
void expect_ok_or_error(Body&& body) {
  try {
    body();
  } catch (const geoattn::Error&) {
    // the expected outcome for malformed input
  } catch (const nlohmann::json::exception& e) {
    finding("an nlohmann::json exception escaped the API (should be geoattn::Error)", e.what());
  } catch (const std::bad_alloc& e) {
    finding("std::bad_alloc (an allocation sized from the input)", e.what());
  } catch (const std::exception& e) {
    finding(typeid(e).name(), e.what());
  } catch (...) {
    finding("an exception of unknown type", "");
  }
}

// A check on a result the API returned (a round trip, an invariant).
inline void require(bool ok, const char* what) {
  if (!ok) finding("invariant violated", what);
}

// The input as the CLI reads a JSON file (read_json -> parse_json): discarded when it is not
// JSON or nests too deep, which the CLI refuses before any reader sees it.
inline nlohmann::json cli_json(const uint8_t* data, size_t size) { return parse_json(nullptr, data, data + size); }

inline std::string as_string(const uint8_t* data, size_t size) {
  return std::string(reinterpret_cast<const char*>(data), size);
}

// A file's bytes (the round-trip checks compare what was saved).
inline std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

// A private folder for the targets that read files, removed at exit.
class ScratchDir {
 public:
  ScratchDir() {
    const std::filesystem::path base = std::filesystem::temp_directory_path();
    std::string templ = (base / "geoattn-fuzz-XXXXXX").string();
    if (::mkdtemp(templ.data()) == nullptr) finding("setup", "mkdtemp failed");
    path_ = templ;
  }
  ~ScratchDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;

  std::string operator/(const std::string& name) const { return (path_ / name).string(); }
  const std::filesystem::path& path() const { return path_; }

  // Writes `size` bytes to `name` in the folder, replacing what was there; returns its path.
  std::string write(const std::string& name, const void* data, size_t size) const {
    const std::string file = *this / name;
    std::ofstream out(file, std::ios::binary | std::ios::trunc);
    out.write(static_cast<const char*>(data), static_cast<std::streamsize>(size));
    out.close();
    if (!out) finding("setup", ("cannot write " + file).c_str());
    return file;
  }

 private:
  std::filesystem::path path_;
};

// One scratch folder per process (libFuzzer workers are processes).
inline ScratchDir& scratch() {
  static ScratchDir dir;
  return dir;
}

// A safetensors file: 8-byte little-endian header length, the header, then the data.
inline std::string safetensors_bytes(const std::string& header, const std::string& data) {
  std::string out(8, '\0');
  const uint64_t n = header.size();
  for (int i = 0; i < 8; ++i) out[i] = static_cast<char>((n >> (8 * i)) & 0xff);
  return out + header + data;
}

}  // namespace geoattn::fuzz
