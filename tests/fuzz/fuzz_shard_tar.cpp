// libFuzzer target: an OpenWebText release shard (urlsf_subsetNN.tar of *_data.xz members,
// each an xz-compressed tar of .txt documents; plain, gzip or xz tars alike, since libarchive
// detects the compression) through the shard reader and the window cutter.
#include "fuzz_shards.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace geoattn;
  const std::string path = fuzz::scratch().write("urlsf_subset00.tar", data, size);
  fuzz::exercise_shard(path, io::TokenWidth::U16);
  return 0;
}
