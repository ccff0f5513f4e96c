#include "bench_inputs.h"

namespace geoattn::cli {

SyntheticWindow synthetic_window(int64_t layers, int64_t heads, int64_t kv_heads, int64_t T, int64_t d) {
  torch::manual_seed(0);
  auto logits = torch::randn({layers, heads, 1, T}, torch::kFloat64) * 4;
  logits.narrow(-1, 0, 1).add_(8);
  return {torch::softmax(logits, -1).to(torch::kFloat32), torch::randn({layers, kv_heads, T, d})};
}

}  // namespace geoattn::cli
