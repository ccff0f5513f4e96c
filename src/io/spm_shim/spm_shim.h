#pragma once
// The plain C ABI of libgeoattn_spm.so, the sentencepiece shim that io/tokenizer.cpp dlopen()s.
// No C++ type crosses it. Every buffer the shim hands out (ids, text, error messages) is
// released with geoattn_spm_free_buffer, so that allocation and release stay on the shim's
// side of the RTLD_DEEPBIND boundary. Functions that can fail return 0 on success and,
// on failure, a nonzero value with *error set to a one-line message.
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

// Bumped on any change below; the loader refuses a shim built for another version.
#define GEOATTN_SPM_ABI_VERSION 1

typedef struct geoattn_spm geoattn_spm;

int geoattn_spm_abi_version(void);

// Loads a sentencepiece model file; NULL on failure, with *error set.
geoattn_spm* geoattn_spm_load(const char* path, char** error);
void geoattn_spm_free(geoattn_spm* sp);

// Encodes text[0, text_len) into *count ids at *ids (no BOS/EOS added).
int geoattn_spm_encode(const geoattn_spm* sp, const char* text, size_t text_len, int64_t** ids,
                       size_t* count, char** error);
// Decodes ids[0, count) into *text_len bytes at *text (NUL-terminated as well).
int geoattn_spm_decode(const geoattn_spm* sp, const int64_t* ids, size_t count, char** text,
                       size_t* text_len, char** error);

int64_t geoattn_spm_piece_count(const geoattn_spm* sp);
int64_t geoattn_spm_bos_id(const geoattn_spm* sp);  // -1 when the model defines none
int64_t geoattn_spm_eos_id(const geoattn_spm* sp);

void geoattn_spm_free_buffer(void* buffer);

#ifdef __cplusplus
}  // extern "C"
#endif
