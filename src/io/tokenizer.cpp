// The sentencepiece tokenizer. Debian's libsentencepiece.so.0 carries its own copy of protobuf
// and crashes at load when libtorch_cpu (linked to libprotobuf.so.32) is in the same process:
// the two export the same symbols. So sentencepiece is never linked here; our shim
// libgeoattn_spm.so (a plain C ABI, spm_shim.h) is opened in isolation (open_isolated below):
// dlopen with RTLD_LOCAL | RTLD_DEEPBIND, which makes the shim and its dependencies resolve
// their own symbols first and keeps them out of the global scope; under AddressSanitizer, which
// refuses RTLD_DEEPBIND, dlmopen into a link-map namespace of its own instead.
// This file is the only place that isolation lives.
#include "geoattn/io/tokenizer.h"

#include <dlfcn.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <system_error>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "geoattn/io/features.h"
#include "geoattn/util/error.h"
#include "geoattn/util/input_files.h"
#include "spm_shim/spm_shim.h"

namespace geoattn::io {
namespace {

namespace fs = std::filesystem;

constexpr const char* kShimName = "libgeoattn_spm.so";

// The shim's entry points; their types come from the declarations in spm_shim.h.
struct ShimApi {
  decltype(&geoattn_spm_abi_version) abi_version = nullptr;
  decltype(&geoattn_spm_load) load = nullptr;
  decltype(&geoattn_spm_free) free = nullptr;
  decltype(&geoattn_spm_encode) encode = nullptr;
  decltype(&geoattn_spm_decode) decode = nullptr;
  decltype(&geoattn_spm_piece_count) piece_count = nullptr;
  decltype(&geoattn_spm_bos_id) bos_id = nullptr;
  decltype(&geoattn_spm_eos_id) eos_id = nullptr;
  decltype(&geoattn_spm_free_buffer) free_buffer = nullptr;
};

// The outcome of opening the shim: the API, or why it could not be had.
struct Shim {
  ShimApi api;
  std::string error;
};

fs::path executable_dir() {
  std::error_code ec;
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  return ec ? fs::path() : exe.parent_path();
}

// Where the shim may be, in the order tried.
std::vector<fs::path> shim_candidates() {
  std::vector<fs::path> candidates;
  if (const char* env = std::getenv("GEOATTN_SPM_LIB"); env != nullptr && *env != '\0') {
    std::error_code ec;
    const fs::path given(env);
    candidates.push_back(fs::is_directory(given, ec) ? given / kShimName : given);
  }
  const fs::path exe_dir = executable_dir();
  if (!exe_dir.empty()) candidates.push_back(exe_dir / kShimName);
#ifdef GEOATTN_SPM_BUILD_PATH
  candidates.emplace_back(GEOATTN_SPM_BUILD_PATH);
#endif
  if (!exe_dir.empty()) candidates.push_back(exe_dir / ".." / "lib" / "geoattn" / kShimName);
  return candidates;
}

std::string dl_error() {
  const char* message = dlerror();
  return message != nullptr ? message : "unknown dlopen error";
}

// Looks up `name` in the shim; records it in `missing` when absent.
template <typename Fn>
void resolve(void* handle, const char* name, Fn& fn, std::vector<std::string>& missing) {
  fn = reinterpret_cast<Fn>(dlsym(handle, name));
  if (fn == nullptr) missing.emplace_back(name);
}

// AddressSanitizer aborts the process on any dlopen with RTLD_DEEPBIND (it would lose its
// interceptors). Under it (-DGEOATTN_SANITIZE=ON) the shim, built uninstrumented
// (src/CMakeLists.txt), goes into a new link-map namespace with its own libc and libstdc++:
// nothing of LibTorch is visible there. Only plain C data crosses, and every buffer is freed on
// the shim's side (spm_shim.h), so the two heaps never meet.
#if defined(__SANITIZE_ADDRESS__)
constexpr bool kUnderAddressSanitizer = true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
constexpr bool kUnderAddressSanitizer = true;
#else
constexpr bool kUnderAddressSanitizer = false;
#endif
#else
constexpr bool kUnderAddressSanitizer = false;
#endif

// The shim of vendor/sentencepiece holds sentencepiece and its protobuf-lite inside, hidden
// (src/CMakeLists.txt): nothing of it can meet LibTorch's, and RTLD_DEEPBIND would only harm it.
// (Deep-bound, it would reach libstdc++'s own std::cerr rather than the executable's copy of it,
// which is the one initialised, and crash at its first log line.)
#if GEOATTN_SPM_VENDORED
constexpr bool kShimVendored = true;
#else
constexpr bool kShimVendored = false;
#endif

// Opens the shim so that its symbols (and sentencepiece's protobuf) never meet LibTorch's.
void* open_isolated(const fs::path& path) {
  if (kUnderAddressSanitizer) return dlmopen(LM_ID_NEWLM, path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (kShimVendored) return dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  return dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL | RTLD_DEEPBIND);
}

Shim open_shim_at(const fs::path& path) {
  void* handle = open_isolated(path);
  if (handle == nullptr) {
    return {{}, fmt::format("cannot load the sentencepiece shim: {}", dl_error())};
  }
  ShimApi api;
  std::vector<std::string> missing;
  resolve(handle, "geoattn_spm_abi_version", api.abi_version, missing);
  resolve(handle, "geoattn_spm_load", api.load, missing);
  resolve(handle, "geoattn_spm_free", api.free, missing);
  resolve(handle, "geoattn_spm_encode", api.encode, missing);
  resolve(handle, "geoattn_spm_decode", api.decode, missing);
  resolve(handle, "geoattn_spm_piece_count", api.piece_count, missing);
  resolve(handle, "geoattn_spm_bos_id", api.bos_id, missing);
  resolve(handle, "geoattn_spm_eos_id", api.eos_id, missing);
  resolve(handle, "geoattn_spm_free_buffer", api.free_buffer, missing);
  std::string error;
  if (!missing.empty()) {
    error = fmt::format("the sentencepiece shim {} lacks {}", path.string(),
                        fmt::join(missing, ", "));
  } else if (api.abi_version() != GEOATTN_SPM_ABI_VERSION) {
    error = fmt::format("the sentencepiece shim {} has ABI version {}, expected {}", path.string(),
                        api.abi_version(), GEOATTN_SPM_ABI_VERSION);
  }
  if (error.empty()) return {api, ""};  // the handle stays open for the life of the process
  dlclose(handle);
  return {{}, error};
}

// Opens the first candidate that exists as a file.
Shim open_shim() {
  std::vector<std::string> looked;
  for (const fs::path& candidate : shim_candidates()) {
    std::error_code ec;
    if (fs::is_regular_file(candidate, ec)) return open_shim_at(candidate);
    looked.push_back(candidate.string());
  }
  return {{}, fmt::format("sentencepiece shim {} not found (looked at {})", kShimName,
                          fmt::join(looked, ", "))};
}

// Opened once per process; a failure is kept too, and reported on every load().
const Shim& shim() {
  static const Shim opened = open_shim();
  return opened;
}

// Frees a buffer the shim allocated, on the shim's side.
struct ShimFree {
  decltype(&geoattn_spm_free_buffer) free_buffer;
  void operator()(void* buffer) const { free_buffer(buffer); }
};

// Takes ownership of a shim error message and returns it as a string.
std::string take_error(const ShimApi& api, char* error) {
  std::unique_ptr<char, ShimFree> owned(error, ShimFree{api.free_buffer});
  return owned ? std::string(owned.get()) : "out of memory";
}

class SpmTokenizer final : public Tokenizer {
 public:
  SpmTokenizer(const ShimApi& api, geoattn_spm* handle, std::string path)
      : api_(api), handle_(handle), path_(std::move(path)) {}
  ~SpmTokenizer() override { api_.free(handle_); }
  SpmTokenizer(const SpmTokenizer&) = delete;
  SpmTokenizer& operator=(const SpmTokenizer&) = delete;

  std::vector<int64_t> encode(const std::string& text) const override {
    return call<std::vector<int64_t>>("encode text", api_.encode, text.data(), text.size());
  }

  std::string decode(const std::vector<int64_t>& ids) const override {
    return call<std::string>("decode ids", api_.decode, ids.data(), ids.size());
  }

  int64_t vocab_size() const override { return api_.piece_count(handle_); }
  int64_t bos_id() const override { return api_.bos_id(handle_); }
  int64_t eos_id() const override { return api_.eos_id(handle_); }
  const std::string& path() const override { return path_; }

 private:
  // A shim call that returns a buffer of its own, (in, n) -> Out: `what` names it in the error.
  template <class Out, class In, class Element>
  Out call(const char* what, int (*fn)(const geoattn_spm*, const In*, size_t, Element**, size_t*, char**), const In* in,
           size_t n) const {
    Element* buffer = nullptr;
    size_t count = 0;
    char* error = nullptr;
    if (fn(handle_, in, n, &buffer, &count, &error) != 0) fail("{}: cannot {}: {}", path_, what, take_error(api_, error));
    std::unique_ptr<Element, ShimFree> owned(buffer, ShimFree{api_.free_buffer});
    return Out(buffer, buffer + count);
  }

  ShimApi api_;
  geoattn_spm* handle_;
  std::string path_;
};

// Reports the file problems sentencepiece would only describe vaguely.
void check_model_file(const std::string& model_path) {
  std::error_code ec;
  const auto status = fs::status(model_path, ec);
  if (!fs::exists(status)) fail("{}: no such tokenizer model file", model_path);
  if (!fs::is_regular_file(status)) {
    fail("{}: not a regular file (expected a sentencepiece tokenizer.model)", model_path);
  }
  if (!std::ifstream(model_path, std::ios::binary)) fail("{}: cannot be read", model_path);
  note_input(model_path);
}

}  // namespace

std::unique_ptr<Tokenizer> Tokenizer::load(const std::string& model_path) {
  check_model_file(model_path);
  if (!kHaveSentencepiece) {
    fail("{}: this geoattn was built without sentencepiece (GEOATTN_WITH_SENTENCEPIECE=OFF): tokenise the text first, "
         "scripts/tokenize_docs.py --tokenizer DIR/tokenizer.json SHARD... --out X.bin, then --data X.bin",
         model_path);
  }
  const Shim& opened = shim();
  if (!opened.error.empty()) fail("{}: {}", model_path, opened.error);
  char* error = nullptr;
  geoattn_spm* handle = opened.api.load(model_path.c_str(), &error);
  if (handle == nullptr) {
    fail("{}: not a sentencepiece model ({})", model_path, take_error(opened.api, error));
  }
  return std::make_unique<SpmTokenizer>(opened.api, handle, model_path);
}

}  // namespace geoattn::io
