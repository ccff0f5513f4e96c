// libFuzzer target: the sharded checkpoint index (model.safetensors.index.json) as
// TensorStore::open reads it. The input is written as the index of a scratch folder that
// holds two small valid shards; the store it opens must find every tensor the index names.
#include <cstring>
#include <string>

#include "fuzz_util.h"
#include "geoattn/io/safetensors.h"

using namespace geoattn;
using namespace geoattn::fuzz;

namespace {
// Two shards, as a real sharded checkpoint has them (the seed corpus's index names them).
void write_shards(const ScratchDir& dir) {
  static bool done = false;
  if (done) return;
  const std::string one = safetensors_bytes(
      R"({"__metadata__":{"format":"pt"},"model.embed_tokens.weight":{"dtype":"F32","shape":[2,2],"data_offsets":[0,16]},)"
      R"("model.norm.weight":{"dtype":"BF16","shape":[2],"data_offsets":[16,20]}})",
      std::string(20, '\x01'));
  const std::string two = safetensors_bytes(
      R"({"lm_head.weight":{"dtype":"F16","shape":[2,2],"data_offsets":[0,8]},)"
      R"("model.layers.0.input_layernorm.weight":{"dtype":"F32","shape":[0],"data_offsets":[8,8]}})",
      std::string(8, '\x02'));
  dir.write("model-00001-of-00002.safetensors", one.data(), one.size());
  dir.write("model-00002-of-00002.safetensors", two.data(), two.size());
  done = true;
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const ScratchDir& dir = scratch();
  write_shards(dir);
  dir.write("model.safetensors.index.json", data, size);
  expect_ok_or_error([&] {
    const io::TensorStore store = io::TensorStore::open(dir.path().string());
    uint64_t bytes = 0;
    for (const std::string& name : store.names()) {
      require(store.contains(name), "contains() agrees with names()");
      const io::TensorStore::Entry e = store.at(name);
      require(e.file != nullptr && e.info != nullptr && e.info->name == name, "at() returns the named tensor");
      require(e.file->header().find(name) == e.info, "the entry points into its shard's header");
      const uint8_t* p = e.file->data(*e.info);
      const size_t n = static_cast<size_t>(e.info->end - e.info->begin);
      uint8_t sink = 0;
      for (size_t i = 0; i < n; ++i) sink ^= p[i];  // inside the mapped shard
      (void)sink;
      bytes += n;
    }
    require(bytes == store.total_bytes(), "total_bytes() is the sum over the entries");
    require(!store.files().empty(), "an opened store has a file");
  });
  return 0;
}
