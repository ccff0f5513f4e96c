#include "geoattn/metrics/run_state.h"

#include "geoattn/io/safetensors.h"
#include "geoattn/util/error.h"

namespace geoattn::metrics {

void RunState::merge(const RunState& other) {
  metrics.merge(other.metrics);
  if (assumptions.empty() != other.assumptions.empty())
    fail("one run has the assumption statistics (a last query) and the other does not");
  assumptions.merge(other.assumptions);
  if (units.empty() != other.units.empty())
    fail("one run has the bootstrap's per-document statistics and the other does not");
  units.merge(other.units);
}

void RunState::add_sample(const std::string& unit, int64_t layer, int64_t head, const double* curves, int64_t n_valid,
                          const double* scalars) {
  metrics.add_sample(layer, head, curves, n_valid, scalars);  // checks every value first
  if (!units.empty()) units.add_sample(unit, layer, head, curves, n_valid, scalars);
}

void save_run_state(const std::string& path, const RunState& state) {
  AssumptionStats::Arrays storage;
  UnitStats::Arrays unit_storage;
  auto extra = state.assumptions.empty() ? std::vector<io::TensorBlob>{} : state.assumptions.to_tensors(storage);
  if (!state.units.empty()) {
    const auto blobs = state.units.to_tensors(unit_storage);
    extra.insert(extra.end(), blobs.begin(), blobs.end());
  }
  save_state(path, state.metrics, state.run_info, extra);
}

namespace {
// With per-document sums, the result JSON runs the bootstrap with the run's
// settings.bootstrap.{replicates, seed} (tools/geoattn/results.cpp): they must be there.
void check_bootstrap_settings(const nlohmann::ordered_json& run_info) {
  const auto settings = run_info.find("settings");
  if (settings == run_info.end() || !settings->is_object() || !settings->contains("bootstrap") ||
      !settings->at("bootstrap").is_object())
    fail("the state has per-document sums but run_info has no settings.bootstrap object");
  const auto& b = settings->at("bootstrap");
  const auto replicates = b.find("replicates");
  if (replicates == b.end() || !replicates->is_number_integer() || replicates->get<int64_t>() < 1)
    fail("run_info settings.bootstrap.replicates is not a positive integer");
  const auto seed = b.find("seed");
  if (seed == b.end() || !(seed->is_number_unsigned() || (seed->is_number_integer() && seed->get<int64_t>() >= 0)))
    fail("run_info settings.bootstrap.seed is not an integer >= 0");
}
}  // namespace

RunState load_run_state(const std::string& path) {
  auto [metrics, run_info] = load_state(path);
  RunState state{std::move(metrics), {}, std::move(run_info), {}};
  io::SafetensorsFile file(path);
  try {
    if (const io::TensorInfo* shape = file.header().find("unit_shape")) {
      const auto dims = file.read<int64_t>("unit_shape", io::Dtype::I64, {4});
      const io::TensorInfo* sums = file.header().find("unit_sums");
      const io::TensorInfo* ids = file.header().find("unit_ids");
      if (!sums || !ids || sums->shape.size() != 3) fail("unit_sums or unit_ids is missing or malformed");
      const int64_t U = sums->shape[0];
      const auto id_bytes = file.read<uint8_t>("unit_ids", io::Dtype::U8, ids->shape);
      state.units = UnitStats::from_arrays(dims, file.read<double>("unit_sums", io::Dtype::F64, sums->shape),
                                           file.read<int64_t>("unit_counts", io::Dtype::I64, {U, dims[2]}),
                                           std::string(id_bytes.begin(), id_bytes.end()));
      (void)shape;
      if (state.units.layers() != state.metrics.layers() || state.units.heads() != state.metrics.heads() ||
          state.units.grid_size() != static_cast<int64_t>(state.metrics.n_grid().size()))
        fail("unit_shape [{}, {}, {}] does not match the metrics ({} layers, {} heads, {} grid values)",
             state.units.layers(), state.units.heads(), state.units.grid_size(), state.metrics.layers(),
             state.metrics.heads(), state.metrics.n_grid().size());
      check_bootstrap_settings(state.run_info);
    }
  } catch (const Error& e) {
    fail("{}: {}", path, e.what());
  }
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
