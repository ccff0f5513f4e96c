#include "geoattn/util/worker_pool.h"

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <exception>
#include <mutex>
#include <system_error>
#include <thread>

#include "geoattn/util/error.h"

namespace geoattn {

int hardware_threads() { return static_cast<int>(std::max(1u, std::thread::hardware_concurrency())); }

namespace {
// The pool whose loop this thread is running (a nested loop on it would wait for itself).
thread_local const WorkerPool* t_running = nullptr;
}  // namespace

// What the threads share: the loop in hand, published under `mutex` with a new generation.
struct WorkerPool::Shared {
  std::mutex loop;   // one loop at a time
  std::mutex mutex;  // everything below
  std::condition_variable wake, done;
  uint64_t generation = 0;
  bool stop = false;
  const Body* f = nullptr;
  int64_t n = 0, chunk = 0;
  int workers = 0;  // of this loop
  int pending = 0;  // started threads of this loop not done yet
  std::exception_ptr error;
  std::vector<std::thread> threads;

  // Worker w's range of the loop in hand; the first exception kept.
  void run(const WorkerPool* pool, int w) {
    const int64_t begin = w * chunk, end = std::min(n, begin + chunk);
    if (begin >= end) return;
    const WorkerPool* outer = t_running;  // a loop of another pool this one runs inside
    t_running = pool;
    try {
      (*f)(begin, end, w);
    } catch (...) {
      std::lock_guard<std::mutex> lock(mutex);
      if (!error) error = std::current_exception();
    }
    t_running = outer;
  }
};

WorkerPool::WorkerPool(int threads)
    : locals_(static_cast<size_t>(threads > 0 ? threads : hardware_threads())), shared_(std::make_unique<Shared>()) {
  for (int w = 1; w < size(); ++w) {
    try {
      shared_->threads.emplace_back([this, w] { work(w); });
    } catch (const std::system_error& e) {
      // The machine (its thread or memory limits) gives fewer threads than asked: the ones
      // started are stopped and joined, since no destructor runs after a throwing constructor.
      stop_and_join();
      fail("--threads {}: the machine could start only {} threads ({}): ask for fewer", size(), w, e.what());
    }
  }
}

void WorkerPool::stop_and_join() {
  {
    std::lock_guard<std::mutex> lock(shared_->mutex);
    shared_->stop = true;
  }
  shared_->wake.notify_all();
  for (auto& t : shared_->threads) t.join();
}

WorkerPool::~WorkerPool() { stop_and_join(); }

void WorkerPool::work(int w) {
  Shared& s = *shared_;
  uint64_t seen = 0;
  for (;;) {
    {
      std::unique_lock<std::mutex> lock(s.mutex);
      s.wake.wait(lock, [&] { return s.stop || s.generation != seen; });
      if (s.stop) return;
      seen = s.generation;
      if (w >= s.workers) continue;  // not needed in this loop
    }
    s.run(this, w);
    std::lock_guard<std::mutex> lock(s.mutex);
    if (--s.pending == 0) s.done.notify_one();
  }
}

void WorkerPool::parallel_for(int64_t n, const Body& f) {
  if (n <= 0) return;
  if (t_running == this) fail("WorkerPool::parallel_for: a loop inside a loop of the same pool");
  Shared& s = *shared_;
  std::lock_guard<std::mutex> loop(s.loop);
  const int workers = static_cast<int>(std::max<int64_t>(1, std::min<int64_t>(size(), n)));
  {
    std::lock_guard<std::mutex> lock(s.mutex);
    s.f = &f, s.n = n, s.chunk = (n + workers - 1) / workers;
    s.workers = workers, s.pending = workers - 1;
    s.error = nullptr;
    if (workers > 1) ++s.generation;
  }
  if (workers > 1) s.wake.notify_all();
  s.run(this, 0);
  std::exception_ptr error;
  {
    std::unique_lock<std::mutex> lock(s.mutex);
    s.done.wait(lock, [&] { return s.pending == 0; });
    error = s.error;
    s.f = nullptr;
  }
  if (error) std::rethrow_exception(error);
}

void WorkerPool::for_each_item(int64_t n, const ItemBody& f) {
  std::atomic<int64_t> next{0};
  parallel_for(std::min<int64_t>(n, size()), [&](int64_t, int64_t, int worker) {
    for (int64_t i = next++; i < n; i = next++) f(i, worker);
  });
}

}  // namespace geoattn
