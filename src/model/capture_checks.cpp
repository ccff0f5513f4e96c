#include "geoattn/model/capture_checks.h"

#include <fmt/format.h>

#include "geoattn/util/error.h"

namespace geoattn::model {

namespace {

// The index of the first true element of `mask` (a bool tensor), row-major.
std::vector<int64_t> first_true(const torch::Tensor& mask) {
  const torch::Tensor at = mask.nonzero();  // [n, dims]
  const torch::Tensor first = at[0].cpu();
  return {first.data_ptr<int64_t>(), first.data_ptr<int64_t>() + first.numel()};
}

}  // namespace

void check_finite(const torch::Tensor& x, const std::string& name, const std::string& head_word) {
  for (int64_t w = 0; w < x.size(0); ++w) {
    const torch::Tensor bad = ~torch::isfinite(x[w]);  // [L, heads, ...]
    if (!bad.any().item<bool>()) continue;
    const auto at = first_true(bad);
    fail("{}: window {} layer {} {} {}: NaN or infinite values", name, w, at[0], head_word, at[1]);
  }
}

void check_capture(const torch::Tensor& alpha, const torch::Tensor& values, const std::vector<int64_t>& queries,
                   const std::string& alpha_name, const std::string& values_name) {
  if (alpha.dim() != 5) fail("{}: {} dims, expected [windows, layers, heads, queries, T]", alpha_name, alpha.dim());
  if (values.dim() != 5) fail("{}: {} dims, expected [windows, layers, kv_heads, T, d]", values_name, values.dim());
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
  check_finite(alpha, alpha_name);
  check_finite(values, values_name, "kv head");

  // Keys after each row's query: [Q, T].
  const auto q = torch::tensor(queries, torch::kInt64).to(alpha.device());
  const auto after = torch::arange(T, torch::TensorOptions().dtype(torch::kInt64).device(alpha.device())).unsqueeze(0) >
                     q.unsqueeze(1);
  const auto where = [&](int64_t w, int64_t l, const std::vector<int64_t>& at) {
    return fmt::format("{}: window {} layer {} head {} query {}", alpha_name, w, l, at[0], queries[at[1]]);
  };
  for (int64_t w = 0; w < W; ++w)
    for (int64_t l = 0; l < L; ++l) {
      const auto a = alpha[w][l].to(torch::kFloat64);  // [H, Q, T]
      const auto negative = (a < 0).any(-1);           // [H, Q]
      if (negative.any().item<bool>()) fail("{}: negative weights", where(w, l, first_true(negative)));
      const auto late = a.masked_fill(~after, 0).sum(-1) > kRowTolerance;  // [H, Q]
      if (late.any().item<bool>())
        fail("{}: weight after the query's position (rows must be causal)", where(w, l, first_true(late)));
      const auto sums = a.sum(-1);  // [H, Q]
      const auto off = (sums - 1).abs() > kRowTolerance;
      if (off.any().item<bool>()) {
        const auto at = first_true(off);
        fail("{}: a row whose sum is {:.6g}, not 1 (tolerance {:g})", where(w, l, at), sums[at[0]][at[1]].item<double>(),
             kRowTolerance);
      }
    }
}

}  // namespace geoattn::model
