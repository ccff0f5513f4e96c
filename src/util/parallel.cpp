#include "geoattn/util/parallel.h"

#include <algorithm>
#include <atomic>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

namespace geoattn {

void parallel_for(int64_t n, int threads, const std::function<void(int64_t, int64_t, int)>& f) {
  if (n <= 0) return;
  const int64_t workers = std::max<int64_t>(1, std::min<int64_t>(threads, n));
  const int64_t chunk = (n + workers - 1) / workers;
  std::exception_ptr error;
  std::mutex error_mutex;
  auto run = [&](int w) {
    const int64_t begin = w * chunk, end = std::min(n, begin + chunk);
    if (begin >= end) return;
    try {
      f(begin, end, w);
    } catch (...) {
      std::lock_guard<std::mutex> lock(error_mutex);
      if (!error) error = std::current_exception();
    }
  };
  std::vector<std::thread> pool;
  for (int w = 1; w < workers; ++w) pool.emplace_back(run, w);
  run(0);
  for (auto& t : pool) t.join();
  if (error) std::rethrow_exception(error);
}

int hardware_threads() { return static_cast<int>(std::max(1u, std::thread::hardware_concurrency())); }

namespace {
std::atomic<int> g_worker_threads{0};
}
void set_worker_threads(int threads) { g_worker_threads = threads; }
int worker_threads() {
  const int t = g_worker_threads.load();
  return t > 0 ? t : hardware_threads();
}

}  // namespace geoattn
