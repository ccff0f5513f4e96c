// libgeoattn_spm.so: sentencepiece behind the plain C ABI of spm_shim.h, loaded only through
// dlopen by io/tokenizer.cpp. Debian's libsentencepiece.so.0 carries its own protobuf, which must
// not meet LibTorch's (RTLD_DEEPBIND); vendor/'s copy is linked in, hidden.
#include "spm_shim.h"

#include <sentencepiece_processor.h>

#include <cstdlib>
#include <cstring>
#include <exception>
#include <memory>
#include <new>
#include <string>
#include <vector>

#define GEOATTN_SPM_EXPORT extern "C" __attribute__((visibility("default")))

struct geoattn_spm {
  sentencepiece::SentencePieceProcessor processor;
};

namespace {

// malloc(0) may return NULL, which callers would read as failure: ask for at least a byte.
void* allocate(size_t bytes) {
  void* p = std::malloc(bytes == 0 ? 1 : bytes);
  if (p == nullptr) throw std::bad_alloc();
  return p;
}

char* copy_string(const std::string& s) {
  char* out = static_cast<char*>(allocate(s.size() + 1));
  std::memcpy(out, s.c_str(), s.size() + 1);
  return out;
}

// Reports `message` (trailing blanks cut) through the out-parameter; returns the failure code.
int set_error(char** error, std::string message) {
  message.erase(message.find_last_not_of(" \t\r\n") + 1);
  if (error == nullptr) return 1;
  // Out of memory leaves *error NULL; the caller then reports a generic failure.
  *error = static_cast<char*>(std::malloc(message.size() + 1));
  if (*error != nullptr) std::memcpy(*error, message.c_str(), message.size() + 1);
  return 1;
}

// Runs `body`, turning any C++ exception into an error code: none may cross the C ABI.
template <typename Body>
int guarded(char** error, Body&& body) {
  try {
    return body();
  } catch (const std::exception& e) {
    return set_error(error, e.what());
  } catch (...) {
    return set_error(error, "unknown error in the sentencepiece shim");
  }
}

}  // namespace

GEOATTN_SPM_EXPORT int geoattn_spm_abi_version(void) { return GEOATTN_SPM_ABI_VERSION; }

#if GEOATTN_SPM_VENDORED
// vendor/sentencepiece's logging (src/common.h): its INFO lines (an empty normaliser, say) are
// not geoattn's to print; warnings and errors still are.
namespace sentencepiece::logging {
void SetMinLogLevel(int v);
}
#endif

GEOATTN_SPM_EXPORT geoattn_spm* geoattn_spm_load(const char* path, char** error) {
#if GEOATTN_SPM_VENDORED
  sentencepiece::logging::SetMinLogLevel(1);
#endif
  geoattn_spm* sp = nullptr;
  const int rc = guarded(error, [&] {
    auto loaded = std::make_unique<geoattn_spm>();
    const auto status = loaded->processor.Load(path);
    if (!status.ok()) return set_error(error, status.ToString());
    if (loaded->processor.GetPieceSize() <= 0) return set_error(error, "the model has no pieces");
    sp = loaded.release();
    return 0;
  });
  return rc == 0 ? sp : nullptr;
}

GEOATTN_SPM_EXPORT void geoattn_spm_free(geoattn_spm* sp) { delete sp; }

GEOATTN_SPM_EXPORT int geoattn_spm_encode(const geoattn_spm* sp, const char* text,
                                          size_t text_len, int64_t** ids, size_t* count,
                                          char** error) {
  return guarded(error, [&] {
    std::vector<int> pieces;
    const auto status = sp->processor.Encode(absl::string_view(text, text_len), &pieces);
    if (!status.ok()) return set_error(error, status.ToString());
    *ids = static_cast<int64_t*>(allocate(pieces.size() * sizeof(int64_t)));
    for (size_t i = 0; i < pieces.size(); ++i) (*ids)[i] = pieces[i];
    *count = pieces.size();
    return 0;
  });
}

GEOATTN_SPM_EXPORT int geoattn_spm_decode(const geoattn_spm* sp, const int64_t* ids, size_t count,
                                          char** text, size_t* text_len, char** error) {
  return guarded(error, [&] {
    const int64_t pieces = sp->processor.GetPieceSize();
    std::vector<int> narrow(count);
    for (size_t i = 0; i < count; ++i) {
      if (ids[i] < 0 || ids[i] >= pieces) {
        return set_error(error, "id " + std::to_string(ids[i]) + " is outside the vocabulary [0, " +
                                    std::to_string(pieces) + ")");
      }
      narrow[i] = static_cast<int>(ids[i]);
    }
    std::string decoded;
    const auto status = sp->processor.Decode(narrow, &decoded);
    if (!status.ok()) return set_error(error, status.ToString());
    *text = copy_string(decoded);
    *text_len = decoded.size();
    return 0;
  });
}

GEOATTN_SPM_EXPORT int64_t geoattn_spm_piece_count(const geoattn_spm* sp) {
  return sp->processor.GetPieceSize();
}

GEOATTN_SPM_EXPORT int64_t geoattn_spm_bos_id(const geoattn_spm* sp) {
  return sp->processor.bos_id();
}

GEOATTN_SPM_EXPORT int64_t geoattn_spm_eos_id(const geoattn_spm* sp) {
  return sp->processor.eos_id();
}

GEOATTN_SPM_EXPORT void geoattn_spm_free_buffer(void* buffer) { std::free(buffer); }
