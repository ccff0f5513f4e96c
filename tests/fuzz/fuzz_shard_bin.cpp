// libFuzzer target: a nanoGPT token shard (.bin, little-endian uint16 or uint32 ids) through
// the shard reader and the window cutter, at both widths.
#include "fuzz_shards.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace geoattn;
  const std::string path = fuzz::scratch().write("train.bin", data, size);
  fuzz::exercise_shard(path, io::TokenWidth::U16);
  fuzz::exercise_shard(path, io::TokenWidth::U32);
  return 0;
}
