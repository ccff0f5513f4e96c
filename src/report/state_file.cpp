#include "geoattn/report/state_file.h"

#include <algorithm>
#include <array>
#include <iterator>
#include <map>
#include <string_view>

#include "geoattn/io/safetensors.h"
#include "geoattn/io/safetensors_writer.h"
#include "geoattn/report/run_identity.h"
#include "geoattn/report/run_info_json.h"
#include "geoattn/util/error.h"
#include "geoattn/util/json_parse.h"

namespace geoattn::report {

using namespace geoattn::metrics;
using nlohmann::ordered_json;

// ---------------------------------------------------------------------------------------------
// State sidecar (layout in aggregate.h)

namespace {
constexpr const char* kStateFormat = "geoattn-state-1";
// The slim file of per-document sums alone (python/geoattn/unit_sums.py, write_slim): compare
// reads it; merging and resuming need the whole state, so it is refused here by name.
constexpr const char* kSlimStateFormat = "geoattn-unit-sums-1";

template <size_t N>
ordered_json names_json(const std::array<std::string_view, N>& names) {
  ordered_json out = ordered_json::array();
  for (auto n : names) out.push_back(std::string(n));
  return out;
}

// The sidecar's arrays as read back (the tensor order of save_state).
struct StateArrays {
  std::vector<int64_t> counts, sums, cross;
  std::vector<double> extrema;
};

// An ExactSum as its two's-complement halves, low first (read back by halves()).
void put_halves(const ExactSum& e, int64_t* out) {
  out[0] = static_cast<int64_t>(e.lo());
  out[1] = e.hi();
}

// One of the Aggregator's arrays, [layer, head, per_head ...], written head by head as the file
// is written: `fill(stats, row)` puts one head's values into row (per_head values), so that no
// copy of the whole state (100 MB at --n all) is held beside the Aggregator. The four arrays are
// written a head at a time (io::TensorBlob::fill_row): each head's statistics read once.
template <class T, class Fill>
io::TensorBlob head_rows(std::string name, io::Dtype dtype, std::vector<int64_t> shape, const Aggregator& agg, Fill fill) {
  io::TensorBlob blob{std::move(name), dtype, std::move(shape), nullptr, {}};
  blob.rows = agg.layers() * agg.heads();
  blob.fill_row = [&agg, fill](int64_t r, void* row) {
    fill(agg.head_stats(r / agg.heads(), r % agg.heads()), static_cast<T*>(row));
  };
  return blob;
}

const std::string& meta_text(const io::SafetensorsHeader& header, const std::string& key) {
  auto it = header.metadata.find(key);
  if (it == header.metadata.end()) fail("not a geoattn state file (no '{}' in __metadata__)", key);
  return it->second;
}

ordered_json meta_json(const io::SafetensorsHeader& header, const std::string& key) {
  std::string why;
  ordered_json j = parse_json<ordered_json>(&why, meta_text(header, key));
  if (j.is_discarded()) fail("__metadata__ '{}' is {}", key, why);
  return j;
}

int64_t meta_positive(const io::SafetensorsHeader& header, const std::string& key) {
  ordered_json j = meta_json(header, key);
  if (!j.is_number_integer() || j.get<int64_t>() < 1) fail("__metadata__ '{}' is not a positive integer", key);
  return j.get<int64_t>();
}

std::vector<int64_t> meta_grid(const io::SafetensorsHeader& header) {
  ordered_json j = meta_json(header, "n_grid");
  if (!j.is_array()) fail("__metadata__ 'n_grid' is not an array");
  std::vector<int64_t> grid;
  for (const auto& v : j) {
    if (!v.is_number_integer()) fail("__metadata__ 'n_grid' holds a non-integer");
    grid.push_back(v.get<int64_t>());
  }
  return grid;
}

ExactSum halves(const std::vector<int64_t>& v, size_t i) {
  return ExactSum::from_halves(static_cast<uint64_t>(v[i]), v[i + 1]);
}

std::pair<Aggregator, ordered_json> read_state(const io::SafetensorsFile& file) {
  const auto& header = file.header();
  if (meta_text(header, "format") == kSlimStateFormat)
    fail("a slim file of per-document sums (format '{}'): geoattn compare reads it; merge and resume need the "
         "whole state the run wrote", kSlimStateFormat);
  if (meta_text(header, "format") != kStateFormat)
    fail("not a geoattn state file (format '{}', expected '{}')", meta_text(header, "format"), kStateFormat);
  if (meta_json(header, "curves") != names_json(kCurveNames) || meta_json(header, "scalars") != names_json(kScalarNames))
    fail("the state holds other metrics than this build of geoattn");
  ordered_json run_info = meta_json(header, "run_info");
  if (!run_info.is_object()) fail("__metadata__ 'run_info' is not a JSON object");
  Aggregator agg(meta_positive(header, "layers"), meta_positive(header, "heads"), meta_grid(header));

  const int64_t L = agg.layers(), H = agg.heads(), G = static_cast<int64_t>(agg.n_grid().size());
  const int64_t M = agg.head_stats(0, 0).slots();
  StateArrays a;
  a.counts = file.read<int64_t>("counts", io::Dtype::I64, {L, H, M});
  a.sums = file.read<int64_t>("sums", io::Dtype::I64, {L, H, M, 2, 2});
  a.cross = file.read<int64_t>("cross", io::Dtype::I64, {L, H, G, 2});
  a.extrema = file.read<double>("extrema", io::Dtype::F64, {L, H, M, 2});

  size_t slot = 0, g_all = 0;
  for (int64_t l = 0; l < L; ++l)
    for (int64_t h = 0; h < H; ++h) {
      GroupStats& s = agg.head_stats(l, h);
      for (int64_t i = 0; i < M; ++i, ++slot)
        s.slot(i) = Moments::from_parts(a.counts[slot], halves(a.sums, 4 * slot), halves(a.sums, 4 * slot + 2),
                                        a.extrema[2 * slot], a.extrema[2 * slot + 1]);
      for (int64_t g = 0; g < G; ++g, ++g_all) s.cross(g) = halves(a.cross, 2 * g_all);
    }
  return {std::move(agg), std::move(run_info)};
}
}  // namespace

void save_state(const std::string& path, const Aggregator& agg, const ordered_json& run_info,
                const std::vector<io::TensorBlob>& extra, const std::string& run_id) {
  const int64_t L = agg.layers(), H = agg.heads(), G = static_cast<int64_t>(agg.n_grid().size());
  const int64_t M = agg.head_stats(0, 0).slots();
  std::map<std::string, std::string> metadata = {
      {"format", kStateFormat},
      {"layers", std::to_string(L)},
      {"heads", std::to_string(H)},
      {"n_grid", ordered_json(agg.n_grid()).dump()},
      {"curves", names_json(kCurveNames).dump()},
      {"scalars", names_json(kScalarNames).dump()},
      {"run_info", run_info.dump()},
  };
  if (!run_id.empty()) metadata[kRunIdKey] = run_id;
  std::vector<io::TensorBlob> tensors = {
      head_rows<int64_t>("counts", io::Dtype::I64, {L, H, M}, agg,
                        [](const GroupStats& s, int64_t* row) {
                          for (int64_t i = 0; i < s.slots(); ++i) row[i] = s.slot(i).count();
                        }),
      head_rows<int64_t>("sums", io::Dtype::I64, {L, H, M, 2, 2}, agg,
                        [](const GroupStats& s, int64_t* row) {
                          for (int64_t i = 0; i < s.slots(); ++i) {
                            put_halves(s.slot(i).sum(), row + 4 * i);
                            put_halves(s.slot(i).sum_sq(), row + 4 * i + 2);
                          }
                        }),
      head_rows<int64_t>("cross", io::Dtype::I64, {L, H, G, 2}, agg,
                        [](const GroupStats& s, int64_t* row) {
                          for (int64_t g = 0; g < s.grid_size(); ++g) put_halves(s.cross(g), row + 2 * g);
                        }),
      head_rows<double>("extrema", io::Dtype::F64, {L, H, M, 2}, agg, [](const GroupStats& s, double* row) {
        for (int64_t i = 0; i < s.slots(); ++i) {
          row[2 * i] = s.slot(i).min();
          row[2 * i + 1] = s.slot(i).max();
        }
      })};
  tensors.insert(tensors.end(), extra.begin(), extra.end());
  io::write_safetensors(path, tensors, metadata);
}

std::pair<Aggregator, ordered_json> load_state(const std::string& path) {
  io::SafetensorsFile file(path);  // its errors name the file
  try {
    return read_state(file);
  } catch (const Error& e) {
    fail("{}: {}", path, e.what());
  }
}

std::vector<io::TensorBlob> tensor_blobs(const std::vector<ArrayView>& arrays) {
  std::vector<io::TensorBlob> out;
  for (const auto& a : arrays) out.push_back({a.name, a.dtype, a.shape, a.bytes.data()});
  return out;
}

void save_run_state(const std::string& path, const RunState& state, const MeasureInfo& info, const std::string& run_id) {
  std::vector<ArrayView> views;  // alive until the file is written: derived arrays live in them
  if (!state.assumptions.empty()) views = state.assumptions.arrays();
  if (!state.units.empty()) std::ranges::move(state.units.arrays(), std::back_inserter(views));
  if (!state.envelopes.empty()) std::ranges::move(state.envelopes.arrays(), std::back_inserter(views));
  if (!state.kappa_scan.empty()) std::ranges::move(state.kappa_scan.arrays(), std::back_inserter(views));
  if (!state.predicted.empty()) std::ranges::move(state.predicted.arrays("predicted"), std::back_inserter(views));
  save_state(path, state.metrics, to_json(info), tensor_blobs(views), run_id);
}

void save_run_state(const std::string& path, const RunState& state) {
  save_run_state(path, state, state.run_info, run_identity(state));
}

namespace {
// With per-document sums, the result JSON runs the bootstrap with the run's
// settings.bootstrap.{replicates, seed} (metrics::MetricRecord, read by pipeline::finalize):
// they must be there, checked here so that a bad sidecar is one clear error.
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

// "unit_counts" [U, L, G], or [U, G] from a sidecar before SPEC §1's window convention.
std::vector<int64_t> read_unit_counts(io::SafetensorsFile& file, int64_t U, int64_t L, int64_t G) {
  const io::TensorInfo* counts = file.header().find("unit_counts");
  if (counts && counts->shape.size() == 2) return file.read<int64_t>("unit_counts", io::Dtype::I64, {U, G});
  return file.read<int64_t>("unit_counts", io::Dtype::I64, {U, L, G});
}

RunState load_run_state(const std::string& path) {
  auto [metrics, run_info] = load_state(path);
  RunState state{std::move(metrics), {}, {}, {}, {}};
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
                                           read_unit_counts(file, U, dims[0], dims[2]),
                                           std::string(id_bytes.begin(), id_bytes.end()));
      (void)shape;
      if (state.units.layers() != state.metrics.layers() || state.units.heads() != state.metrics.heads() ||
          state.units.grid_size() != static_cast<int64_t>(state.metrics.n_grid().size()))
        fail("unit_shape [{}, {}, {}] does not match the metrics ({} layers, {} heads, {} grid values)",
             state.units.layers(), state.units.heads(), state.units.grid_size(), state.metrics.layers(),
             state.metrics.heads(), state.metrics.n_grid().size());
      check_bootstrap_settings(run_info);
    }
    state.run_info = measure_info_from_json(run_info);
    // SPEC §5's envelopes of the samples: present exactly when the settings name their kappa.
    const io::TensorInfo* env_sums = file.header().find("envelope_sums");
    const io::TensorInfo* env_counts = file.header().find("envelope_counts");
    const auto kappa = state.run_info.method.envelope_kappa();
    if (kappa.has_value() != (env_sums != nullptr) || (env_sums != nullptr) != (env_counts != nullptr))
      fail("envelope_sums, envelope_counts and settings.envelopes must come together");
    const int64_t L = state.metrics.layers(), H = state.metrics.heads(), G = std::ssize(state.metrics.n_grid());
    const auto envelopes_named = [&](const std::string& prefix) {
      if (!file.header().find(prefix + "_open") || !file.header().find(prefix + "_nontrivial") ||
          !file.header().find(prefix + "_sink_in_sums") || !file.header().find(prefix + "_sink_in_counts"))
        fail("the envelopes have no {0}_open/{0}_nontrivial/{0}_sink_in_sums/{0}_sink_in_counts (an older geoattn "
             "wrote them without the kappa-free envelopes or the split by the sink; run it again)", prefix);
      return EnvelopeStats::from_tensors(
          L, H, G, *kappa, file.read<int64_t>(prefix + "_sums", io::Dtype::I64, {L, H, analysis::kBoundCurves, G, 2}),
          file.read<int64_t>(prefix + "_counts", io::Dtype::I64, {L, H, G}),
          file.read<int64_t>(prefix + "_open", io::Dtype::I64, {L, H, G}),
          file.read<int64_t>(prefix + "_nontrivial", io::Dtype::I64, {L, H, G}),
          file.read<int64_t>(prefix + "_sink_in_sums", io::Dtype::I64, {L, H, analysis::kBoundCurves, G, 2}),
          file.read<int64_t>(prefix + "_sink_in_counts", io::Dtype::I64, {L, H, G}));
    };
    if (kappa) state.envelopes = envelopes_named("envelope");
    // The predicted envelopes: present exactly when the settings name their source (and so the envelopes' kappa).
    const auto& prediction = state.run_info.method.prediction;
    if (prediction.has_value() != (file.header().find("predicted_sums") != nullptr) || (prediction && !kappa))
      fail("predicted_sums, settings.predict_from and settings.envelopes must come together");
    if (prediction) {
      if (prediction->layers != L || prediction->heads != H)
        fail("settings.predict_from is for {}x{} heads, the state {}x{}", prediction->layers, prediction->heads, L, H);
      state.predicted = envelopes_named("predicted");
    }
    // The envelopes at the kappa grid: present exactly when the settings list it.
    const auto& kappas = state.run_info.method.params.kappa_scan.list();
    if (kappas.empty() != (file.header().find("kappa_sums") == nullptr))
      fail("kappa_sums and settings.kappa_scan must come together");
    if (!kappas.empty()) {
      const int64_t L = state.metrics.layers(), H = state.metrics.heads(), G = std::ssize(state.metrics.n_grid());
      const auto K = std::ssize(kappas);
      if (file.read<double>("kappa_values", io::Dtype::F64, {K}) != kappas) fail("kappa_values differ from settings.kappa_scan");
      std::optional<BootLevel> level;
      std::vector<double> unit_sums;
      std::string ids;
      if (file.header().find("kappa_unit_level")) {
        const auto v = file.read<int64_t>("kappa_unit_level", io::Dtype::I64, {1});
        if (v[0] < 0 || v[0] > 2) fail("kappa_unit_level {} is not a bootstrap level", v[0]);
        level = static_cast<BootLevel>(v[0]);
        const io::TensorInfo* us = file.header().find("kappa_unit_sums");
        const io::TensorInfo* ui = file.header().find("kappa_unit_ids");
        if (!us || !ui) fail("kappa_unit_sums or kappa_unit_ids is missing");
        unit_sums = file.read<double>("kappa_unit_sums", io::Dtype::F64, us->shape);
        const auto bytes = file.read<uint8_t>("kappa_unit_ids", io::Dtype::U8, ui->shape);
        ids.assign(bytes.begin(), bytes.end());
      }
      state.kappa_scan = KappaStats::from_arrays(
          L, H, G, kappas, file.read<int64_t>("kappa_sums", io::Dtype::I64, {L, H, K, kKappaCurves, G, 2}),
          file.read<int64_t>("kappa_counts", io::Dtype::I64, {L, H, G}), level, std::move(unit_sums), ids);
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
                                                      file.read<int64_t>("assume_counts", io::Dtype::I64, {L, H, K + 1}),
                                                      // sidecars before SPEC §1's window convention: T on every layer
                                                      file.header().find("assume_tokens")
                                                          ? file.read<int64_t>("assume_tokens", io::Dtype::I64, {L})
                                                          : std::vector<int64_t>{});
  } catch (const Error& e) {
    fail("{}: {}", path, e.what());
  }
  return state;
}

}  // namespace geoattn::report
