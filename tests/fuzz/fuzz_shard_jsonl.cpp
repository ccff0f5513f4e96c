// libFuzzer target: a .jsonl text shard (one JSON object per line, field "text") through the
// shard reader and the window cutter.
#include "fuzz_shards.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace geoattn;
  const std::string path = fuzz::scratch().write("shard.jsonl", data, size);
  fuzz::exercise_shard(path, io::TokenWidth::U16);
  return 0;
}
