#pragma once
// Shared by the tests: a temporary folder that cleans itself up, and file helpers.
#include <sys/wait.h>
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <random>
#include <set>
#include <sstream>
#include <string>

#include <gtest/gtest.h>

#include "geoattn/util/error.h"

namespace geoattn::testing {

class TempDir {
 public:
  TempDir() {
    std::random_device rd;
    path_ = std::filesystem::temp_directory_path() /
            ("geoattn-test-" + std::to_string(::getpid()) + "-" + std::to_string(rd()));
    std::filesystem::create_directories(path_);
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  std::string operator/(const std::string& name) const { return (path_ / name).string(); }
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

inline void write_file(const std::string& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

inline std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// A safetensors file from a literal header and `data_bytes` bytes of data.
inline std::string safetensors_bytes(const std::string& header, size_t data_bytes) {
  std::string out(8, '\0');
  uint64_t n = header.size();
  for (int i = 0; i < 8; ++i) out[i] = static_cast<char>((n >> (8 * i)) & 0xff);
  return out + header + std::string(data_bytes, '\0');
}

// Every file under `dir` by path with its bytes ("(not a file)" for anything else), less the
// files named in `skip`: a folder before and after a command that must leave it as it was.
inline std::map<std::string, std::string> folder_snapshot(const std::filesystem::path& dir,
                                                         const std::set<std::string>& skip) {
  std::map<std::string, std::string> files;
  for (const auto& e : std::filesystem::recursive_directory_iterator(dir)) {
    if (skip.count(e.path().filename().string())) continue;
    files[e.path().string()] = e.is_regular_file() ? read_file(e.path().string()) : std::string("(not a file)");
  }
  return files;
}

inline std::string fixture(const std::string& rel) { return std::string(GEOATTN_FIXTURES) + "/" + rel; }
inline std::string source(const std::string& rel) { return std::string(GEOATTN_SOURCE_DIR) + "/" + rel; }

// Whether this run is CI's (the CI variable, set by CI services and .ci/run): there a real model
// that scripts/get-model.sh could not fetch fails its tests instead of skipping them.
inline bool in_ci() {
  const char* ci = std::getenv("CI");
  return ci && *ci && std::string(ci) != "0" && std::string(ci) != "false";
}

// A test on a real model (RealModel.*): skips where the converted model `dir` is absent on a
// developer's machine, fails in CI. `how` says how to get it (the scripts/get-model.sh call).
#define GEOATTN_REQUIRE_REAL_MODEL(dir, how)                                                      \
  do {                                                                                            \
    if (!std::filesystem::exists(std::string(dir) + "/model.safetensors")) {                     \
      if (::geoattn::testing::in_ci()) FAIL() << (dir) << " is absent in CI: " << (how) << " failed"; \
      GTEST_SKIP() << (dir) << " is absent: " << (how) << " fetches and converts it";             \
    }                                                                                             \
  } while (0)

// The message of the geoattn::Error that f throws, or "(no error)".
inline std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const geoattn::Error& e) {
    return e.what();
  }
  return "(no error)";
}

// Runs a built tool: `args` starts with its name ("geoattn measure ..."); stdout and stderr
// are captured through files in `tmp`. A signal shows as 128 + its number.
struct RunResult {
  int code;
  std::string out, err;
};
// Runs the tool of folder `dir` the same way (a copy of a built program elsewhere).
inline RunResult run_tool_in(const std::string& dir, const std::string& args, const TempDir& tmp,
                             const std::string& prefix = "") {
  const std::string out = tmp / "stdout.txt", err = tmp / "stderr.txt";
  const std::string cmd = prefix + dir + "/" + args + " >" + out + " 2>" + err;
  const int status = std::system(cmd.c_str());
  return {WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status), read_file(out), read_file(err)};
}
#ifdef GEOATTN_BIN_DIR
// `prefix`: shell words run before it in the same shell (a limit: "ulimit -v N; ").
inline RunResult run_tool(const std::string& args, const TempDir& tmp, const std::string& prefix = "") {
  return run_tool_in(GEOATTN_BIN_DIR, args, tmp, prefix);
}
// `geoattn args`: its exit code, its stderr into `err` where given.
inline int run_geoattn(const std::string& args, const TempDir& tmp, std::string* err = nullptr) {
  const auto r = run_tool("geoattn " + args, tmp);
  if (err) *err = r.err;
  return r.code;
}
#endif

}  // namespace geoattn::testing
