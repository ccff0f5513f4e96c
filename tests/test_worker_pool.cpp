// util/worker_pool.h: the ranges, the errors, and what the pool keeps between loops.
#include "geoattn/util/worker_pool.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <mutex>
#include <set>
#include <stdexcept>
#include <thread>
#include <vector>

#include "geoattn/util/error.h"

using geoattn::WorkerPool;

namespace {

// [begin, end, worker] of every call of a loop over n.
struct Range {
  int64_t begin, end;
  int worker;
};
std::vector<Range> ranges_of(WorkerPool& pool, int64_t n) {
  std::mutex m;
  std::vector<Range> out;
  pool.parallel_for(n, [&](int64_t b, int64_t e, int w) {
    std::lock_guard<std::mutex> lock(m);
    out.push_back({b, e, w});
  });
  return out;
}

}  // namespace

TEST(WorkerPool, CoversEveryIndexOnceInContiguousChunks) {
  WorkerPool pool(3);
  EXPECT_EQ(pool.size(), 3);
  for (int64_t n : {1, 2, 3, 4, 7, 100, 1001}) {
    std::vector<std::atomic<int>> hits(static_cast<size_t>(n));
    pool.parallel_for(n, [&](int64_t b, int64_t e, int) {
      for (int64_t i = b; i < e; ++i) ++hits[i];
    });
    for (int64_t i = 0; i < n; ++i) EXPECT_EQ(hits[i].load(), 1) << "n = " << n << ", i = " << i;
    // Worker w takes [w c, (w + 1) c), c = ceil(n / min(3, n)): the split does not depend on timing.
    const int64_t workers = std::min<int64_t>(3, n), chunk = (n + workers - 1) / workers;
    for (const Range& r : ranges_of(pool, n)) {
      EXPECT_EQ(r.begin, r.worker * chunk);
      EXPECT_EQ(r.end, std::min(n, r.begin + chunk));
    }
  }
  pool.parallel_for(0, [](int64_t, int64_t, int) { FAIL() << "no range for n = 0"; });
}

TEST(WorkerPool, TakesItemsOneAtATimeUntilNoneAreLeft) {
  WorkerPool pool(3);
  for (int64_t n : {0, 1, 2, 3, 4, 7, 100}) {
    std::vector<std::atomic<int>> hits(static_cast<size_t>(n));
    pool.for_each_item(n, [&](int64_t i, int worker) {
      EXPECT_GE(worker, 0);
      EXPECT_LT(worker, 3);
      ++hits[i];
    });
    for (int64_t i = 0; i < n; ++i) EXPECT_EQ(hits[i].load(), 1) << "n = " << n << ", i = " << i;
  }
  // While one worker is held by a slow item 0, the others take every other item (equal ranges
  // would leave items 1..16 behind item 0: it gives up after 30 s, and the count shows it).
  std::atomic<bool> released{false};
  std::atomic<int> others{0};
  pool.for_each_item(50, [&](int64_t i, int) {
    if (i == 0) {
      const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(30);
      while (!released && std::chrono::steady_clock::now() < give_up) std::this_thread::yield();
      EXPECT_TRUE(released.load()) << "item 0 held its worker while items were left";
    } else if (++others == 49) {
      released = true;
    }
  });
  EXPECT_EQ(others.load(), 49);
  EXPECT_THROW(pool.for_each_item(5, [](int64_t i, int) {
    if (i == 3) geoattn::fail("item 3");
  }),
               geoattn::Error);
}

TEST(WorkerPool, RunsOnItsOwnThreadsAndTheCaller) {
  WorkerPool pool(2);
  std::mutex m;
  std::set<std::thread::id> threads;
  std::thread::id worker0;
  for (int call = 0; call < 20; ++call)
    pool.parallel_for(2, [&](int64_t, int64_t, int w) {
      std::lock_guard<std::mutex> lock(m);
      threads.insert(std::this_thread::get_id());
      if (w == 0) worker0 = std::this_thread::get_id();
    });
  EXPECT_EQ(worker0, std::this_thread::get_id());  // the caller is worker 0
  EXPECT_EQ(threads.size(), 2u);                   // one started thread, the same in every call
}

TEST(WorkerPool, RethrowsTheFirstErrorAndStaysUsable) {
  WorkerPool pool(4);
  EXPECT_THROW(pool.parallel_for(8, [](int64_t b, int64_t, int) {
                 if (b >= 4) throw std::runtime_error("worker failed");
               }),
               std::runtime_error);
  EXPECT_THROW(pool.parallel_for(4, [](int64_t, int64_t, int w) {
                 if (w == 0) geoattn::fail("caller failed");
               }),
               geoattn::Error);
  std::atomic<int64_t> sum{0};
  pool.parallel_for(100, [&](int64_t b, int64_t e, int) {
    for (int64_t i = b; i < e; ++i) sum += i;
  });
  EXPECT_EQ(sum.load(), 4950);
}

TEST(WorkerPool, RefusesALoopInsideItsOwnLoop) {
  WorkerPool pool(2);
  EXPECT_THROW(pool.parallel_for(2, [&](int64_t, int64_t, int) { pool.parallel_for(2, [](int64_t, int64_t, int) {}); }),
               geoattn::Error);
  WorkerPool other(2);  // another pool's loop is fine
  std::atomic<int> inner{0};
  pool.parallel_for(2, [&](int64_t, int64_t, int w) {
    if (w == 0) other.parallel_for(4, [&](int64_t b, int64_t e, int) { inner += static_cast<int>(e - b); });
  });
  EXPECT_EQ(inner.load(), 4);
}

TEST(WorkerPool, ScratchSurvivesBetweenLoops) {
  WorkerPool pool(2);
  std::vector<const double*> first(2), second(2);
  auto grab = [&](std::vector<const double*>& where) {
    pool.parallel_for(2, [&](int64_t, int64_t, int w) {
      auto& buffer = pool.local<std::vector<double>>(w);
      if (buffer.empty()) buffer.assign(1 << 20, static_cast<double>(w));
      where[w] = buffer.data();
    });
  };
  grab(first);
  grab(second);
  for (int w = 0; w < 2; ++w) {
    EXPECT_EQ(first[w], second[w]) << "worker " << w;  // the same buffer, not a new one
    EXPECT_EQ(pool.local<std::vector<double>>(w).front(), static_cast<double>(w));
  }
  EXPECT_NE(first[0], first[1]);  // one per worker
  EXPECT_TRUE(pool.local<std::vector<int>>(0).empty());  // per type
}

TEST(WorkerPool, CallersOnOtherThreadsTakeTurns) {
  WorkerPool pool(2);
  std::atomic<int64_t> sum{0};
  std::vector<std::thread> callers;
  for (int c = 0; c < 4; ++c)
    callers.emplace_back([&] {
      for (int call = 0; call < 50; ++call)
        pool.parallel_for(10, [&](int64_t b, int64_t e, int) { sum += e - b; });
    });
  for (auto& t : callers) t.join();
  EXPECT_EQ(sum.load(), 4 * 50 * 10);
}

TEST(WorkerPool, ZeroThreadsIsEveryCore) { EXPECT_EQ(WorkerPool(0).size(), geoattn::hardware_threads()); }
