#pragma once
// A sentencepiece tokenizer behind a plain interface. The implementation dlopen()s our own
// shim (libgeoattn_spm.so, RTLD_LOCAL | RTLD_DEEPBIND) so that Debian's sentencepiece and its
// private protobuf never meet LibTorch's protobuf in one symbol namespace. That isolation
// lives in src/io/tokenizer.cpp and nowhere else.
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace geoattn::io {

class Tokenizer {
 public:
  // Loads a sentencepiece `tokenizer.model`; geoattn::Error on a missing or invalid file.
  static std::unique_ptr<Tokenizer> load(const std::string& model_path);
  virtual ~Tokenizer() = default;

  // Ids of `text` as sentencepiece encodes it (no BOS/EOS added).
  virtual std::vector<int64_t> encode(const std::string& text) const = 0;
  virtual std::string decode(const std::vector<int64_t>& ids) const = 0;
  virtual int64_t vocab_size() const = 0;
  virtual int64_t bos_id() const = 0;  // -1 when the model defines none
  virtual int64_t eos_id() const = 0;
  virtual const std::string& path() const = 0;
};

}  // namespace geoattn::io
