#include "geoattn/io/checkpoint.h"

#include <algorithm>
#include <cstring>

#include "geoattn/arch/tensors.h"

#include <filesystem>
#include <fstream>

#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include "geoattn/io/tokenizer.h"
#include "geoattn/util/error.h"
#include "geoattn/util/json_parse.h"

namespace geoattn::io {

namespace fs = std::filesystem;
using arch::ModelConfig;
using nlohmann::json;

namespace {
// The roots a checkpoint may keep the decoder under, most common first (arch::TensorRoot).
constexpr arch::TensorRoot kRoots[] = {
    {"model.", ""}, {"language_model.model.", "language_model."}, {"model.language_model.", ""}};
}  // namespace

std::vector<ExpectedTensor> expected_tensors(const ModelConfig& c, arch::TensorRoot root) {
  const auto table = arch::tensor_table(c.tensor_layout);
  std::vector<ExpectedTensor> out;
  auto add = [&](const arch::TensorSpec& spec, int64_t layer) {
    if (arch::is_present(spec, c)) out.push_back({arch::tensor_name(spec, layer, root), arch::tensor_shape(spec, c)});
  };
  bool layers_done = false;
  for (const auto& spec : table) {
    if (!spec.per_layer()) {
      add(spec, 0);
    } else if (!layers_done) {  // the per-layer rows, layer by layer
      for (int64_t l = 0; l < c.n_layers; ++l)
        for (const auto& row : table)
          if (row.per_layer()) add(row, l);
      layers_done = true;
    }
  }
  return out;
}

arch::TensorRoot find_tensor_root(const ModelConfig& config, const TensorStore& store) {
  const auto* embed = arch::find_tensor(config, arch::TensorKind::Embed);
  for (const auto& root : kRoots)
    if (store.contains(arch::tensor_name(*embed, 0, root))) return root;
  return kRoots[0];  // validate_tensors names the missing tensor
}

namespace {

// Whether element i of a float tensor's bytes is NaN or infinite: its exponent bits all set.
template <typename Bits, Bits kExponent>
bool non_finite_at(const uint8_t* bytes, int64_t i) {
  Bits x;
  std::memcpy(&x, bytes + i * sizeof(Bits), sizeof(Bits));
  return (x & kExponent) == kExponent;
}

// The index of the first NaN or infinite element of `n` elements of `dtype` (F32, F16, BF16) at
// `bytes`, or -1: one pass over the bits, in blocks whose test the compiler vectorises.
template <typename Bits, Bits kExponent>
int64_t first_non_finite(const uint8_t* bytes, int64_t n) {
  constexpr int64_t kBlock = 4096;
  for (int64_t b = 0; b < n; b += kBlock) {
    const int64_t e = std::min(n, b + kBlock);
    bool any = false;
    for (int64_t i = b; i < e; ++i) any |= non_finite_at<Bits, kExponent>(bytes, i);
    if (any)
      for (int64_t i = b; i < e; ++i)
        if (non_finite_at<Bits, kExponent>(bytes, i)) return i;
  }
  return -1;
}

int64_t first_non_finite(const uint8_t* bytes, Dtype dtype, int64_t n) {
  switch (dtype) {
    case Dtype::F32: return first_non_finite<uint32_t, 0x7f800000u>(bytes, n);
    case Dtype::F16: return first_non_finite<uint16_t, 0x7c00>(bytes, n);
    case Dtype::BF16: return first_non_finite<uint16_t, 0x7f80>(bytes, n);
    default: return -1;
  }
}

}  // namespace

void validate_tensors(const ModelConfig& config, const TensorStore& store, arch::TensorRoot root) {
  for (const auto& want : expected_tensors(config, root)) {
    const auto entry = store.at(want.name);
    const Dtype dt = entry.info->dtype;
    if (dt != Dtype::F32 && dt != Dtype::F16 && dt != Dtype::BF16)
      fail("{}: tensor '{}' has dtype {}; expected F32, F16 or BF16", entry.file->path(), want.name, dtype_name(dt));
    if (entry.info->shape != want.shape)
      fail("{}: tensor '{}' has shape [{}] but config.json implies [{}]", entry.file->path(), want.name,
           fmt::join(entry.info->shape, ","), fmt::join(want.shape, ","));
    // Every weight finite, checked once here: a NaN would spread through the forward unnamed.
    const int64_t bad = first_non_finite(entry.file->data(*entry.info), dt, entry.info->numel());
    entry.file->release(*entry.info);
    if (bad >= 0)
      fail("{}: tensor '{}' holds a NaN or infinite value (element {})", entry.file->path(), want.name, bad);
  }
}

Checkpoint Checkpoint::open(const std::string& dir) {
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) fail("{}: not a folder (--model takes a Hugging Face checkpoint folder)", dir);
  ModelConfig config = load_config(dir);
  TensorStore tensors = TensorStore::open(dir);
  const arch::TensorRoot root = find_tensor_root(config, tensors);
  validate_tensors(config, tensors, root);
  const fs::path tok = fs::path(dir) / "tokenizer.model";
  return Checkpoint{dir, std::move(config), std::move(tensors), root, fs::exists(tok, ec) ? tok.string() : std::string()};
}

void check_tokenizer_matches(const Tokenizer& tokenizer, const arch::ModelConfig& config) {
  if (tokenizer.vocab_size() > config.vocab)
    fail("{}: tokenizer has {} pieces but the model's vocab_size is {} (wrong tokenizer.model?)", tokenizer.path(),
         tokenizer.vocab_size(), config.vocab);
  if (config.bos_id >= 0 && tokenizer.bos_id() >= 0 && tokenizer.bos_id() != config.bos_id)
    fail("{}: tokenizer BOS id is {} but config.json says bos_token_id {} (wrong tokenizer.model?)", tokenizer.path(),
         tokenizer.bos_id(), config.bos_id);
}

}  // namespace geoattn::io
