#include "geoattn/pipeline/results.h"

#include "geoattn/io/model_info.h"

#include <chrono>
#include <filesystem>
#include <optional>
#include <set>

#include "geoattn/metrics/finalize/bootstrap.h"
#include "geoattn/report/measure_json.h"
#include "geoattn/report/run_identity.h"
#include "geoattn/report/run_info_json.h"
#include "geoattn/report/state_file.h"
#include "geoattn/pipeline/shard_set.h"
#include "geoattn/util/atomic_file.h"
#include "geoattn/util/enum_names.h"
#include "geoattn/util/stopwatch.h"

namespace geoattn::pipeline {


Finalized finalize(WorkerPool& pool, const metrics::RunState& state, StageTimes* times, bool quiet) {
  Finalized done;
  auto t = Clock::now();
  if (!state.units.empty()) {
    const auto& b = state.run_info.method.params;
    done.bootstrap = metrics::bootstrap(pool, state.units, b.bootstrap, b.seed, state.metrics.n_grid(),
                                        name_of(metrics::kBootUnitNames, b.boot_unit), b.ci, quiet);
  }
  if (times) times->bootstrap += seconds_since(t);
  t = Clock::now();
  if (!state.assumptions.empty()) done.fits = metrics::fit_heads(pool, state.assumptions, quiet);
  if (times) times->fits += seconds_since(t);
  // The kappa each head allows, with the metric bootstrap's resamples.
  t = Clock::now();
  if (!state.kappa_scan.empty()) {
    const auto& b = state.run_info.method.params;
    // Resampled only where the metric bootstrap has intervals (SPEC §2b).
    const bool resample = done.bootstrap && done.bootstrap->status.intervals;
    done.kappa = metrics::kappa_ranges(pool, state.metrics, state.kappa_scan, resample ? &state.units : nullptr,
                                       b.bootstrap, b.seed, b.ci, quiet);
    if (!done.fits.empty()) metrics::name_failing_assumptions(*done.kappa, done.fits);
  }
  if (times) times->bootstrap += seconds_since(t);
  return done;
}

nlohmann::ordered_json results_json(const metrics::RunState& state, const Finalized& done, report::MeasureArrays* arrays,
                                    const std::string& arrays_file, WorkerPool* pool) {
  return report::measure_json(state.metrics, report::to_json(state.run_info), &done.fits, done.bootstrap ? &*done.bootstrap : nullptr,
                              arrays, arrays_file, state.envelopes.empty() ? nullptr : &state.envelopes,
                              done.kappa ? &*done.kappa : nullptr, pool,
                              state.predicted.empty() ? nullptr : &state.predicted);
}

SidecarWrite::SidecarWrite(const std::string& out, const metrics::RunState& state)
    : run_id_(report::run_identity(state)),
      written_(std::async(std::launch::async, [path = files_.staged(state_path(out)), &state, info = state.run_info,
                                               id = run_id_] { report::save_run_state(path, state, info, id); })) {}

void SidecarWrite::wait() {
  if (written_.valid()) written_.get();
}

void write_results(const std::string& out, const metrics::RunState& state, const Finalized& done, SidecarWrite& sidecar,
                   StageTimes* times, WorkerPool* pool) {
  const auto t = Clock::now();
  // Three files, all or none; the JSON, which names the arrays file, comes last.
  report::MeasureArrays arrays;
  const std::string arrays_file = report::arrays_path(out);
  const auto json = report::with_run_id(
      results_json(state, done, &arrays, std::filesystem::path(arrays_file).filename().string(), pool), sidecar.run_id());
  report::write_measure_arrays(sidecar.files().staged(arrays_file), arrays, sidecar.run_id());
  sidecar.wait();
  write_file_atomic(sidecar.files().staged(out), [&](std::ostream& stream) { stream << json.dump(1) << "\n"; });
  sidecar.files().commit();
  if (times) times->write += seconds_since(t);
}

void write_results(const std::string& out, const metrics::RunState& state, const Finalized& done, StageTimes* times) {
  SidecarWrite sidecar(out, state);
  write_results(out, state, done, sidecar, times);
}

void write_results(WorkerPool& pool, const std::string& out, const metrics::RunState& state) {
  write_results(out, state, finalize(pool, state));
}

metrics::ModelInfo capture_model_info(const std::vector<int64_t>& alpha_shape, const std::vector<int64_t>& values_shape,
                                      const std::map<std::string, std::string>& metadata, const std::string& path) {
  metrics::ModelInfo model{metrics::ModelInfo::Source::Capture, path,
                           {{"layers", alpha_shape.at(1)},
                            {"heads", alpha_shape.at(2)},
                            {"kv_heads", values_shape.at(2)},
                            {"head_dim", values_shape.at(4)}}};
  for (const auto& [k, v] : metadata) model.description["metadata"][k] = v;
  return model;
}

metrics::DataInfo capture_data(const std::string& path, int64_t W, int64_t T) {
  return {metrics::CaptureData{path}, W, W * T, std::nullopt, std::nullopt};
}

std::vector<metrics::FileWindows> windows_per_file(const std::vector<std::string>& files,
                                                   const std::vector<io::Window>& windows) {
  std::vector<metrics::FileWindows> out;
  for (const auto& f : files) out.push_back({f, 0, 0});
  std::vector<std::set<std::string>> docs(files.size());
  for (const auto& w : windows) {
    if (w.file < 0 || w.file >= std::ssize(files)) fail("internal: a window of file {} of {}", w.file, files.size());
    const auto k = static_cast<size_t>(w.file);
    ++out[k].windows;
    docs[k].insert(w.doc_id);
  }
  for (size_t k = 0; k < out.size(); ++k) out[k].documents = static_cast<int64_t>(docs[k].size());
  return out;
}

metrics::DataInfo merged_data(const std::vector<std::string>& inputs, std::vector<metrics::DataInfo> shards,
                              bool partial) {
  metrics::DataInfo d;
  auto missing = missing_shards(inputs, shards, partial);
  for (const auto& shard : shards) d.windows += shard.windows, d.tokens += shard.tokens;
  // SPEC §7: each file's windows and documents over the shards (disjoint by document).
  for (const auto& shard : shards)
    for (const auto& f : shard.per_file) {
      auto at = std::find_if(d.per_file.begin(), d.per_file.end(), [&](const auto& g) { return g.file == f.file; });
      if (at == d.per_file.end()) at = d.per_file.insert(d.per_file.end(), {f.file, 0, 0});
      at->windows += f.windows, at->documents += f.documents;
    }
  d.source = metrics::MergedData{inputs, std::move(shards), std::move(missing)};
  return d;
}

metrics::ModelInfo model_info(const io::Checkpoint& checkpoint) {
  return {metrics::ModelInfo::Source::Checkpoint, checkpoint.dir, io::describe_model(checkpoint.config)};
}

std::string end_line(const std::string& out, int64_t windows, int64_t samples_per_window, double total_s,
                     const StageTimes& stages, const Finalized& done) {
  const std::string note =
      done.bootstrap && !done.bootstrap->status.why.empty() ? "; " + done.bootstrap->status.why : "";
  return fmt::format("wrote {} ({} windows, {} samples per window, {:.1f}s: {}){}", out, windows, samples_per_window,
                     total_s, stages.over(total_s), note);
}

}  // namespace geoattn::pipeline
