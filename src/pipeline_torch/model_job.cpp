#include "geoattn/pipeline_torch/model_job.h"

#include <algorithm>

#include "geoattn/util/stopwatch.h"

namespace geoattn::pipeline {

metrics::Timing forward_timing(const ModelJob& job, const ForwardTimes& times, double total_s, int64_t windows, int64_t T) {
  const double ran = static_cast<double>(windows), loop_s = std::max(1e-9, times.wall_s);
  metrics::Timing t;
  t.device = job.device;
  t.batch = job.batch;
  t.seconds_total = total_s;
  t.seconds_forward_and_capture = times.forward_s;
  t.windows_per_second = ran / loop_s;
  t.tokens_per_second = ran * static_cast<double>(T) / loop_s;
  t.peak_rss_bytes = peak_rss_bytes();
  return t;
}

}  // namespace geoattn::pipeline
