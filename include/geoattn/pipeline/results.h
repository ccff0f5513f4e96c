#pragma once
// What measure, metrics and merge share once the windows are in: the state sidecar (written
// meanwhile, SidecarWrite), the bootstrap and the fits (finalize), then the result JSON and its
// arrays file (write_results).
#include <future>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "geoattn/io/checkpoint.h"
#include "geoattn/io/windows.h"
#include "geoattn/metrics/finalize/bootstrap.h"
#include "geoattn/metrics/finalize/head_fits.h"
#include "geoattn/metrics/finalize/kappa_range.h"
#include "geoattn/metrics/stats/run_state.h"
#include "geoattn/pipeline/stage_times.h"
#include "geoattn/report/measure_json.h"
#include "geoattn/util/atomic_file.h"
#include "geoattn/util/result_files.h"
#include "geoattn/util/worker_pool.h"

namespace geoattn::pipeline {

// The state sidecar beside a result JSON: x.json -> x.state.safetensors (util/result_files.h).
using geoattn::state_path;
// What a run computes once its windows are in: the bootstrap of the run's settings (with
// per-document statistics; "bootstrap": replicates, seed, so a merge recomputes it over all the
// documents) and the fits of every head, on `pool`. Timed into `times`; a progress line per stage
// on stderr unless `quiet`.
struct Finalized {
  std::optional<metrics::BootstrapResult> bootstrap;
  std::vector<metrics::HeadFits> fits;  // one per (layer, head); none without a last query
  std::optional<metrics::KappaRanges> kappa;  // with the envelopes at a kappa grid
};
Finalized finalize(WorkerPool& pool, const metrics::RunState& state, StageTimes* times = nullptr, bool quiet = true);
// The result JSON of a finalized run: with `arrays`, every per-layer and per-head array goes
// there and the JSON names `arrays_file` (what write_results writes); without, all inline.
nlohmann::ordered_json results_json(const metrics::RunState& state, const Finalized& done,
                                    report::MeasureArrays* arrays = nullptr, const std::string& arrays_file = "",
                                    WorkerPool* pool = nullptr);
// The files of result `out`, all or none (util/atomic_file.h: OutputFiles): its state sidecar,
// staged on a thread of its own from construction on (once the windows are in, the state no
// longer changes, and the bootstrap, the fits and the JSON only read it, so the 100 MB of a large
// grid are written while they run), then the arrays file and the JSON (write_results). The run's
// description is copied as it is at construction (its timing covers the windows); the rest is
// read in place, so `state` must neither change nor move until the write is done. wait()
// rethrows the writer's error; the destructor waits too, and removes what was staged unless
// write_results committed it.
class SidecarWrite {
 public:
  SidecarWrite(const std::string& out, const metrics::RunState& state);
  void wait();
  OutputFiles& files() { return files_; }
  // The run's identity (report/run_identity.h), in the state and in what write_results writes.
  const std::string& run_id() const { return run_id_; }

 private:
  OutputFiles files_;  // destroyed after the writer has finished
  std::string run_id_;
  std::future<void> written_;
};
// Stages the result JSON and its arrays file beside `sidecar`'s state, then commits the three
// (the JSON, which names the arrays file, last); the JSON built on `pool` where given.
void write_results(const std::string& out, const metrics::RunState& state, const Finalized& done, SidecarWrite& sidecar,
                   StageTimes* times = nullptr, WorkerPool* pool = nullptr);
void write_results(const std::string& out, const metrics::RunState& state, const Finalized& done,
                   StageTimes* times = nullptr);
void write_results(WorkerPool& pool, const std::string& out, const metrics::RunState& state);  // finalize + write
// The run's last line (measure, metrics): what it wrote, its windows and samples, its time and the
// stages over 5% of it; where the intervals are missing or from few units (SPEC §2b), it says so.
std::string end_line(const std::string& out, int64_t windows, int64_t samples_per_window, double total_s,
                     const StageTimes& stages, const Finalized& done);
// The "model" of the run's description: a checkpoint, or a capture file.
metrics::ModelInfo model_info(const io::Checkpoint& checkpoint);
// A capture's: alpha [W, L, H, Q, T] and values [W, L, KV, T, d] shapes, its __metadata__.
metrics::ModelInfo capture_model_info(const std::vector<int64_t>& alpha_shape, const std::vector<int64_t>& values_shape,
                                      const std::map<std::string, std::string>& metadata, const std::string& path);
// The "data" of the W windows of T tokens of a capture file (or of the capture in memory that
// `path` stands for).
metrics::DataInfo capture_data(const std::string& path, int64_t W, int64_t T);
// SPEC §7: the windows and documents each of `files` gave `windows` (io::Window::file, the
// index of its file; in stream mode a window counts for the file and document it starts in).
std::vector<metrics::FileWindows> windows_per_file(const std::vector<std::string>& files,
                                                   const std::vector<io::Window>& windows);
// The "data" of a merge of `inputs`: their windows and tokens summed, each shard's own "data",
// and the shards missing from the split (pipeline/shard_set.h: refused unless `partial`).
metrics::DataInfo merged_data(const std::vector<std::string>& inputs, std::vector<metrics::DataInfo> shards,
                              bool partial);
}  // namespace geoattn::pipeline
