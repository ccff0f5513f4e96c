// FloatView's finiteness test on the stored bits of each dtype, and the capture check that reads
// it (io::check_finite): the window, layer and head at fault named, the same first one on a
// WorkerPool. Pure C++.
#include "geoattn/io/float_view.h"

#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <limits>

#include "geoattn/io/capture_checks.h"
#include "geoattn/util/error.h"
#include "geoattn/util/worker_pool.h"

using namespace geoattn;
using namespace geoattn::io;

namespace {

// The bits of x in each dtype: exact for the values below, which every dtype holds.
template <typename Stored>
Stored stored(double x, Dtype dtype) {
  if constexpr (std::is_same_v<Stored, double>) return x;
  else if constexpr (std::is_same_v<Stored, float>) return static_cast<float>(x);
  else if (dtype == Dtype::BF16) return static_cast<uint16_t>(std::bit_cast<uint32_t>(static_cast<float>(x)) >> 16);
  else {
    // binary16 of the few values used here: zeros, +-1, +-inf, NaN, 65504, 2^-24.
    if (std::isnan(x)) return uint16_t{0x7e00};
    const uint16_t sign = std::signbit(x) ? 0x8000 : 0;
    const double a = std::abs(x);
    if (a == 0) return sign;
    if (std::isinf(a)) return sign | 0x7c00;
    if (a == 1) return sign | 0x3c00;
    if (a == 65504) return sign | 0x7bff;
    if (a == 0x1p-24) return sign | 0x0001;
    ADD_FAILURE() << "no binary16 for " << x;
    return 0;
  }
}

template <typename Stored>
void expect_finite_test(Dtype dtype, double largest, double smallest) {
  const double inf = std::numeric_limits<double>::infinity(), nan = std::numeric_limits<double>::quiet_NaN();
  // Every finite kind: zeros, the largest finite, the smallest subnormal, each sign.
  std::vector<Stored> data;
  for (double x : {0.0, -0.0, 1.0, -1.0, largest, -largest, smallest, -smallest}) data.push_back(stored<Stored>(x, dtype));
  const FloatView all{data.data(), dtype, {static_cast<int64_t>(data.size())}};
  EXPECT_TRUE(all.all_finite(0, all.numel())) << dtype_name(dtype);
  for (double bad : {inf, -inf, nan}) {
    for (size_t at = 0; at < data.size(); ++at) {
      auto with = data;
      with[at] = stored<Stored>(bad, dtype);
      const FloatView v{with.data(), dtype, {static_cast<int64_t>(with.size())}};
      const auto n = static_cast<int64_t>(at);
      EXPECT_FALSE(v.all_finite(0, v.numel())) << dtype_name(dtype) << " " << bad << " at " << at;
      EXPECT_FALSE(v.all_finite(n, 1)) << dtype_name(dtype) << " " << bad << " at " << at;
      EXPECT_TRUE(v.all_finite(0, n)) << dtype_name(dtype) << " before " << at;  // the range stops short of it
      EXPECT_TRUE(v.all_finite(n + 1, v.numel() - n - 1)) << dtype_name(dtype) << " after " << at;
    }
  }
}

}  // namespace

TEST(FloatView, AllFiniteReadsEveryDtypesExponentBits) {
  expect_finite_test<double>(Dtype::F64, std::numeric_limits<double>::max(), std::numeric_limits<double>::denorm_min());
  expect_finite_test<float>(Dtype::F32, std::numeric_limits<float>::max(), std::numeric_limits<float>::denorm_min());
  expect_finite_test<uint16_t>(Dtype::F16, 65504, 0x1p-24);
  // bfloat16: the largest finite is float's max with its low 16 bits cleared.
  expect_finite_test<uint16_t>(Dtype::BF16, std::bit_cast<float>(0x7f7f0000u), std::bit_cast<float>(0x00010000u));
}

TEST(FloatView, CheckFiniteNamesTheFirstWindowLayerAndHeadAtFault) {
  // [W = 2, L = 2, heads = 3, 4 values]
  std::vector<float> x(2 * 2 * 3 * 4, 0.25f);
  const FloatView v{x.data(), Dtype::F32, {2, 2, 3, 4}};
  WorkerPool pool(3);
  EXPECT_NO_THROW(check_finite(v, "c.safetensors: values", "kv head"));
  EXPECT_NO_THROW(check_finite(v, "c.safetensors: values", "kv head", &pool));
  x[((1 * 2 + 0) * 3 + 2) * 4 + 3] = std::numeric_limits<float>::quiet_NaN();  // window 1, layer 0, head 2
  x[((1 * 2 + 1) * 3 + 0) * 4 + 0] = std::numeric_limits<float>::infinity();   // later: window 1, layer 1, head 0
  x[((0 * 2 + 0) * 3 + 0) * 4 + 1] = std::numeric_limits<float>::infinity();   // earlier: window 0, layer 0, head 0
  // In order, and on a pool's workers (every head read, whichever finishes first): the first head.
  const auto expect_first = [&](const std::string& where) {
    for (WorkerPool* p : {static_cast<WorkerPool*>(nullptr), &pool}) {
      try {
        check_finite(v, "c.safetensors: values", "kv head", p);
        ADD_FAILURE() << "a NaN passed";
      } catch (const Error& e) {
        EXPECT_EQ(e.what(), "c.safetensors: values: " + where + ": NaN or infinite values");
      }
    }
  };
  expect_first("window 0 layer 0 kv head 0");
  x[1] = 0.25f;
  expect_first("window 1 layer 0 kv head 2");
}
