#include "geoattn/metrics/run_state.h"

#include "geoattn/io/safetensors.h"
#include "geoattn/util/error.h"

namespace geoattn::metrics {

void RunState::merge(const RunState& other) {
  metrics.merge(other.metrics);
  if (assumptions.empty() != other.assumptions.empty())
    fail("one run has the assumption statistics (a last query) and the other does not");
  assumptions.merge(other.assumptions);
}

void save_run_state(const std::string& path, const RunState& state) {
  AssumptionStats::Arrays storage;
  const auto extra = state.assumptions.empty() ? std::vector<io::TensorBlob>{} : state.assumptions.to_tensors(storage);
  save_state(path, state.metrics, state.run_info, extra);
}

RunState load_run_state(const std::string& path) {
  auto [metrics, run_info] = load_state(path);
  RunState state{std::move(metrics), {}, std::move(run_info)};
  io::SafetensorsFile file(path);
  const io::TensorInfo* counts = file.header().find("assume_counts");
  const io::TensorInfo* sums = file.header().find("assume_sums");
  if (!counts && !sums) return state;
  try {
    if (!counts || !sums) fail("one of assume_sums and assume_counts is missing");
    if (counts->shape.size() != 3 || sums->shape.size() != 4) fail("assume_sums or assume_counts has the wrong rank");
    const int64_t L = state.metrics.layers(), H = state.metrics.heads();
    const int64_t K = counts->shape[2] - 1, T = (sums->shape[2] - K - 1) / 2;
    if (K < 1 || T < 1) fail("assume_sums [{} x {}] does not hold T and K >= 1", sums->shape[2], counts->shape[2]);
    state.assumptions = AssumptionStats::from_tensors(L, H, T, K, file.read<int64_t>("assume_sums", io::Dtype::I64, {L, H, 2 * T + K + 1, 2}),
                                                      file.read<int64_t>("assume_counts", io::Dtype::I64, {L, H, K + 1}));
  } catch (const Error& e) {
    fail("{}: {}", path, e.what());
  }
  return state;
}

}  // namespace geoattn::metrics
