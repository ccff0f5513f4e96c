#include "geoattn/io/capture_checks.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "geoattn/util/error.h"
#include "geoattn/util/worker_pool.h"

namespace geoattn::io {

void check_finite(const FloatView& x, const std::string& name, const std::string& head_word, WorkerPool* pool) {
  if (x.shape.size() < 3) fail("internal: check_finite of a {}-dim array", x.shape.size());
  const int64_t W = x.size(0), L = x.size(1), heads = x.size(2), per_head = x.numel() / std::max<int64_t>(1, W * L * heads);
  // Head b = (w * L + l) * heads + h: every head read (on the pool's workers where there is one),
  // then the first at fault named, in order.
  const int64_t n = W * L * heads;
  std::vector<char> finite(static_cast<size_t>(n));
  const auto read = [&](int64_t b, int) { finite[static_cast<size_t>(b)] = x.all_finite(b * per_head, per_head); };
  if (pool) pool->for_each_item(n, read);
  else for (int64_t b = 0; b < n; ++b) read(b, 0);
  for (int64_t b = 0; b < n; ++b)
    if (!finite[static_cast<size_t>(b)])
      fail("{}: window {} layer {} {} {}: NaN or infinite values", name, b / heads / L, b / heads % L, head_word,
           b % heads);
}

void check_capture(const FloatView& alpha, const FloatView& values, const std::vector<int64_t>& queries,
                   const std::string& alpha_name, const std::string& values_name, WorkerPool* pool) {
  if (alpha.shape.size() != 5)
    fail("{}: {} dims, expected [windows, layers, heads, queries, T]", alpha_name, alpha.shape.size());
  if (values.shape.size() != 5)
    fail("{}: {} dims, expected [windows, layers, kv_heads, T, d]", values_name, values.shape.size());
  const int64_t W = alpha.size(0), L = alpha.size(1), H = alpha.size(2), Q = alpha.size(3), T = alpha.size(4);
  const int64_t KV = values.size(2), d = values.size(4);
  const std::pair<const char*, int64_t> sizes[] = {{"windows", W}, {"layers", L}, {"heads", H}, {"queries", Q}, {"T", T}};
  for (const auto& [what, n] : sizes)
    if (n < 1) fail("{}: no {} (shape [{}, {}, {}, {}, {}])", alpha_name, what, W, L, H, Q, T);
  if (KV < 1 || d < 1) fail("{}: {} kv heads of head_dim {}: both must be at least 1", values_name, KV, d);
  if (values.size(0) != W || values.size(1) != L || values.size(3) != T)
    fail("{}: shape [{}, {}, {}, {}, {}] does not fit {} [windows={}, layers={}, T={}]", values_name, values.size(0),
         values.size(1), KV, values.size(3), d, alpha_name, W, L, T);
  if (H % KV != 0) fail("{}: {} kv heads do not divide {}'s {} heads", values_name, KV, alpha_name, H);
  if (static_cast<int64_t>(queries.size()) != Q)
    fail("{}: {} query positions for {} query rows", alpha_name, queries.size(), Q);
  for (int64_t i = 0; i < Q; ++i)
    if (queries[i] < 0 || queries[i] >= T || (i > 0 && queries[i] <= queries[i - 1]))
      fail("{}: query positions must increase strictly within 0..{} (position {} is {})", alpha_name, T - 1, i,
           queries[i]);
  check_finite(alpha, alpha_name, "head", pool);
  check_finite(values, values_name, "kv head", pool);

  // Each layer's rows [H, Q, T], checked for negative weights, then weight after the query, then
  // sums off 1: the first row at fault of each, in that order.
  std::vector<double> a(static_cast<size_t>(H * Q * T));
  const auto where = [&](int64_t w, int64_t l, int64_t h, int64_t i) {
    return fmt::format("{}: window {} layer {} head {} query {}", alpha_name, w, l, h, queries[i]);
  };
  for (int64_t w = 0; w < W; ++w)
    for (int64_t l = 0; l < L; ++l) {
      alpha.to_double((w * L + l) * H * Q * T, a);
      const auto row = [&](int64_t h, int64_t i) { return std::span<const double>(a).subspan((h * Q + i) * T, T); };
      for (int64_t h = 0; h < H; ++h)
        for (int64_t i = 0; i < Q; ++i)
          for (const double x : row(h, i))
            if (x < 0) fail("{}: negative weights", where(w, l, h, i));
      for (int64_t h = 0; h < H; ++h)
        for (int64_t i = 0; i < Q; ++i) {
          double late = 0;
          for (int64_t t = queries[i] + 1; t < T; ++t) late += row(h, i)[t];
          if (late > kMaskedTolerance)
            fail("{}: weight {:.3g} after the query's position (rows must be causal)", where(w, l, h, i), late);
        }
      for (int64_t h = 0; h < H; ++h)
        for (int64_t i = 0; i < Q; ++i) {
          double sum = 0;
          for (const double x : row(h, i)) sum += x;
          if (std::abs(sum - 1) > kRowTolerance)
            fail("{}: a row whose sum is {:.6g}, not 1 (tolerance {:g})", where(w, l, h, i), sum, kRowTolerance);
        }
    }
}

void check_layer_windows(const FloatView& alpha, const std::vector<int64_t>& queries,
                         const std::vector<int64_t>& layer_windows, const std::string& alpha_name,
                         const std::string& windows_name) {
  if (layer_windows.empty()) return;
  const int64_t W = alpha.size(0), L = alpha.size(1), H = alpha.size(2), Q = alpha.size(3), T = alpha.size(4);
  if (std::ssize(layer_windows) != L) fail("{}: {} windows for {} layers", windows_name, layer_windows.size(), L);
  std::vector<double> a(static_cast<size_t>(H * Q * T));
  for (int64_t l = 0; l < L; ++l) {
    const int64_t window = layer_windows[static_cast<size_t>(l)];
    if (window <= 0) continue;
    for (int64_t w = 0; w < W; ++w) {
      alpha.to_double((w * L + l) * H * Q * T, a);
      for (int64_t h = 0; h < H; ++h)
        for (int64_t i = 0; i < Q; ++i) {
          // SPEC §1: query q sees keys max(0, q - W + 1)..q.
          const int64_t first = std::max<int64_t>(0, queries[i] - window + 1);
          double hidden = 0;
          for (int64_t t = 0; t < first; ++t) hidden += a[static_cast<size_t>((h * Q + i) * T + t)];
          if (hidden > kMaskedTolerance)
            fail("{}: window {} layer {} head {} query {}: weight {:.3g} on keys before {}, outside the layer's "
                 "window of {} ({})", alpha_name, w, l, h, queries[i], hidden, first, window, windows_name);
        }
    }
  }
}

}  // namespace geoattn::io
