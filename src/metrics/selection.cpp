#include "geoattn/metrics/selection.h"

#include <ATen/Parallel.h>

#include <algorithm>
#include <limits>

#include "geoattn/metrics/metric_names.h"
#include "geoattn/util/error.h"

namespace geoattn::metrics {

namespace {

using torch::indexing::Slice;

struct BallCounts {
  torch::Tensor k_out, k_in;  // [B, G] float64
  // D_k at the sink (token 0) and the last token (L = n - 1): ||s - y||^2, for the
  // leave-one-out norms of SPEC §2 where that token is selected.
  torch::Tensor d_sink, d_last;  // [B, G] float64
};

// SPEC §2 with D_k = ||s||^2 - 2 <s, y_k> + ||y_k||^2 over the sorted tokens k (selected: k < N):
//   r_max^2 = max_{k<N} D_k, r_min^2 = min_{k>=N} D_k,
//   K_out = #{k >= N : D_k <= r_max^2}, K_in = #{k < N : D_k <= r_min^2} (closed balls).
// The fused CPU loop: each (sample, N) row of n distances is made and used in L1.
constexpr double kInf = std::numeric_limits<double>::infinity();

BallCounts ball_counts_cpu(const torch::Tensor& dots, const torch::Tensor& s2, const torch::Tensor& y2,
                           const torch::Tensor& rank, const std::vector<int64_t>& grid, Distance distance) {
  const int64_t B = dots.size(0), G = dots.size(1), n = dots.size(2);
  auto opts = torch::TensorOptions().dtype(torch::kFloat64);
  BallCounts c{torch::empty({B, G}, opts), torch::empty({B, G}, opts), torch::empty({B, G}, opts),
               torch::empty({B, G}, opts)};
  const double* dot_p = dots.data_ptr<double>();
  const double* s2_p = s2.data_ptr<double>();
  const double* y2_p = y2.data_ptr<double>();
  const int64_t* rank_p = rank.data_ptr<int64_t>();
  double *out_p = c.k_out.data_ptr<double>(), *in_p = c.k_in.data_ptr<double>();
  double *sink_p = c.d_sink.data_ptr<double>(), *last_p = c.d_last.data_ptr<double>();
  const bool cosine = distance == Distance::Cosine;
  at::parallel_for(0, B * G, 16, [&](int64_t begin, int64_t end) {
    std::vector<double> D_row(n), y_norm_row(n);
    double *D = D_row.data(), *y_norm = y_norm_row.data();
    int64_t norms_of = -1;  // the sample whose ||y_k|| are in y_norm
    for (int64_t row = begin; row < end; ++row) {
      const int64_t b = row / G, N = grid[row % G];
      const double* dot = dot_p + row * n;
      const double* yy = y2_p + b * n;
      const double ss = s2_p[row];
      // Branch-free halves (selected k < N, the rest k >= N) so that the loops vectorise.
      if (cosine) {
        if (norms_of != b) {
          for (int64_t k = 0; k < n; ++k) y_norm[k] = std::sqrt(yy[k]);
          norms_of = b;
        }
        const double s_norm = std::sqrt(std::max(ss, 0.0));
#pragma omp simd
        for (int64_t k = 0; k < n; ++k) D[k] = 1.0 - dot[k] / (s_norm * y_norm[k] + kCosineEps);
      } else {
#pragma omp simd
        for (int64_t k = 0; k < n; ++k) D[k] = ss - 2.0 * dot[k] + yy[k];
      }
      double r_max2 = -kInf, r_min2 = kInf;
#pragma omp simd reduction(max : r_max2)
      for (int64_t k = 0; k < N; ++k) r_max2 = D[k] > r_max2 ? D[k] : r_max2;
#pragma omp simd reduction(min : r_min2)
      for (int64_t k = N; k < n; ++k) r_min2 = D[k] < r_min2 ? D[k] : r_min2;
      // Closed balls with the tie tolerance (selection.h): D_k <= r + tol (scale_k + |r|),
      // scale_k = ||s||^2 + ||y_k||^2 (Euclidean) or 1 (cosine).
      const double base = cosine ? 1.0 : ss, per_k = cosine ? 0.0 : kTieTolerance;
      const double lim_in = r_min2 + kTieTolerance * (base + std::abs(r_min2));
      const double lim_out = r_max2 + kTieTolerance * (base + std::abs(r_max2));
      int64_t in = 0, out = 0;
#pragma omp simd reduction(+ : in)
      for (int64_t k = 0; k < N; ++k) in += (D[k] - per_k * yy[k]) <= lim_in;
#pragma omp simd reduction(+ : out)
      for (int64_t k = N; k < n; ++k) out += (D[k] - per_k * yy[k]) <= lim_out;
      out_p[row] = static_cast<double>(out);
      in_p[row] = static_cast<double>(in);
      // ||s - y_t||^2 for the leave-one-out norms, Euclidean whatever the distance.
      const int64_t k0 = rank_p[b * 2], kL = rank_p[b * 2 + 1];
      sink_p[row] = ss - 2.0 * dot[k0] + yy[k0];
      last_p[row] = ss - 2.0 * dot[kL] + yy[kL];
    }
  });
  return c;
}

// The same counts with tensor operations (CUDA, and a cross-check on CPU).
BallCounts ball_counts_generic(const torch::Tensor& dots, const torch::Tensor& s2, const torch::Tensor& y2,
                               const torch::Tensor& rank, const torch::Tensor& grid_t, Distance distance) {
  const int64_t n = dots.size(2);
  const bool cosine = distance == Distance::Cosine;
  auto D_euclid = s2.unsqueeze(-1) - 2.0 * dots + y2.unsqueeze(1);
  auto D = cosine ? 1.0 - dots / (s2.clamp_min(0).sqrt().unsqueeze(-1) * y2.sqrt().unsqueeze(1) + kCosineEps) : D_euclid;
  auto selected = torch::arange(n, grid_t.options()).unsqueeze(0) < grid_t.unsqueeze(1);  // [G, n]
  const double inf = std::numeric_limits<double>::infinity();
  auto r_max2 = D.masked_fill(selected.logical_not(), -inf).amax(-1, true);
  auto r_min2 = D.masked_fill(selected, inf).amin(-1, true);
  auto base = cosine ? torch::ones_like(D) : s2.unsqueeze(-1) + y2.unsqueeze(1);
  auto in_max = D <= r_max2 + kTieTolerance * (base + r_max2.abs());
  auto in_min = D <= r_min2 + kTieTolerance * (base + r_min2.abs());
  auto at_rank = [&](int64_t j) {
    return D_euclid.gather(2, rank.select(1, j).view({-1, 1, 1}).expand({D.size(0), D.size(1), 1})).squeeze(-1);
  };
  return {(in_max & selected.logical_not()).sum(-1).to(torch::kFloat64), (in_min & selected).sum(-1).to(torch::kFloat64),
          at_rank(0), at_rank(1)};
}

// cos(a, b) along the last dim, 0 where either vector is zero (SPEC §3).
torch::Tensor safe_cos(const torch::Tensor& dot, const torch::Tensor& norm_a, const torch::Tensor& norm_b) {
  auto denom = norm_a * norm_b;
  return torch::where(denom > 0, dot / denom.clamp_min(std::numeric_limits<double>::min()), torch::zeros_like(dot));
}

// Per-sample scalars (SPEC §3, §6): rho0, c_sink, c_last, c_rest.
torch::Tensor sample_scalars(const torch::Tensor& A, const torch::Tensor& V, const torch::Tensor& Y) {
  const int64_t B = A.size(0), n = A.size(1);
  auto norms = V.norm(2, -1);  // [B, n]
  auto scalars = torch::zeros({B, kScalarMetrics}, A.options());
  if (n > 1) {
    // rho0 = mean_{j=1..q} cos(v_0, v_j)
    auto dots0 = (V.index({Slice(), Slice(1)}) * V.index({Slice(), Slice(0, 1)})).sum(-1);
    auto cos0 = safe_cos(dots0, norms.index({Slice(), Slice(0, 1)}), norms.index({Slice(), Slice(1)}));
    scalars.index_put_({Slice(), kRho0}, cos0.mean(-1));
  }
  scalars.index_put_({Slice(), kC_sink}, A.index({Slice(), 0}) * norms.index({Slice(), 0}));
  scalars.index_put_({Slice(), kC_last}, A.index({Slice(), n - 1}) * norms.index({Slice(), n - 1}));
  if (n > 2) scalars.index_put_({Slice(), kC_rest}, Y.index({Slice(), Slice(1, n - 1)}).sum(1).norm(2, -1));
  return scalars;
}

// One chunk of samples; every tensor float64 on the compute device.
// `dots_buffer` [>= B, G, n] float64 is reused across chunks: a fresh 100 MB result per chunk
// costs about as much in page faults as the product itself.
torch::Tensor chunk_curves(const torch::Tensor& A, const torch::Tensor& V, const torch::Tensor& Y,
                           const torch::Tensor& order, const std::vector<int64_t>& grid, const SelectionOptions& options,
                           torch::Tensor& dots_buffer) {
  const int64_t B = A.size(0), n = A.size(1), d = V.size(2), G = static_cast<int64_t>(grid.size());
  auto grid_t = torch::tensor(grid, torch::TensorOptions().dtype(torch::kInt64)).to(A.device());

  // Selection order, prefix sums: row N-1 of S is s(N).
  auto Ys = Y.gather(1, order.unsqueeze(-1).expand({B, n, d}));
  auto Sg = Ys.cumsum(1).index_select(1, grid_t - 1);  // [B, G, d]
  // One Gram-type product: every <s(N), y_k>.
  auto dots = dots_buffer.narrow(0, 0, B);
  torch::bmm_out(dots, Sg, Ys.transpose(1, 2));  // [B, G, n]
  auto s2 = (Sg * Sg).sum(-1);                      // [B, G]
  auto y2 = (Ys * Ys).sum(-1);                      // [B, n]
  // The sorted positions of the sink (token 0) and the last token (L = n - 1): [B, 2].
  auto rank = torch::empty_like(order).scatter_(1, order, torch::arange(n, order.options()).expand({B, n}));
  auto rank_ends = rank.index({Slice(), torch::tensor({int64_t(0), n - 1}, rank.options())}).contiguous();
  auto counts = (A.is_cuda() || options.generic_counts)
                    ? ball_counts_generic(dots, s2, y2, rank_ends, grid_t, options.distance)
                    : ball_counts_cpu(dots, s2.contiguous(), y2.contiguous(), rank_ends, grid, options.distance);
  auto N = grid_t.to(torch::kFloat64).unsqueeze(0);  // [1, G]

  auto curves = torch::empty({B, kCurveMetrics, G}, A.options());
  curves.narrow(1, kFirstOptionalCurve, kCurveMetrics - kFirstOptionalCurve).fill_(std::numeric_limits<double>::quiet_NaN());
  // SPEC §2: P(r_max, N) = N / (N + K_out), R(r_min, N) = K_in / N, F = 2x / (1 + x).
  auto P = N / (N + counts.k_out);
  auto R = counts.k_in / N;
  curves.select(1, kP_rmax).copy_(P);
  curves.select(1, kR_rmin).copy_(R);
  curves.select(1, kF_rmax).copy_(2 * P / (1 + P));
  curves.select(1, kF_rmin).copy_(2 * R / (1 + R));

  // s(N) diagnostics (SPEC §2): ||s||, leave-one-out of the sink (token 0) and of the last
  // token (L = n - 1) when selected, cos(s, v_0), cos(s, v_L).
  auto s_norm = s2.clamp_min(0).sqrt();
  // ||s - y_t|| = sqrt(D_t) where token t is selected, else ||s||.
  auto loo = [&](const torch::Tensor& d_t, int64_t j) {
    auto selected = rank_ends.index({Slice(), Slice(j, j + 1)}) < grid_t.unsqueeze(0);  // [B, G]
    return torch::where(selected, d_t.clamp_min(0).sqrt(), s_norm);
  };
  // <s(N), v_0> and <s(N), v_L> by one thin product: [B, G, 2].
  auto v_ends = V.index({Slice(), torch::tensor({int64_t(0), n - 1}, rank.options())});  // [B, 2, d]
  auto sv = torch::bmm(Sg, v_ends.transpose(1, 2));
  auto v_norms = v_ends.norm(2, -1);  // [B, 2]
  auto cos_with = [&](int64_t j) {
    return safe_cos(sv.select(2, j), s_norm, v_norms.index({Slice(), Slice(j, j + 1)}));
  };
  curves.select(1, kS_norm).copy_(s_norm);
  curves.select(1, kS_loo_sink).copy_(loo(counts.d_sink, 0));
  curves.select(1, kS_loo_last).copy_(loo(counts.d_last, 1));
  curves.select(1, kCos_s_v0).copy_(cos_with(0));
  curves.select(1, kCos_s_vL).copy_(cos_with(1));
  return curves;
}

void check_inputs(const torch::Tensor& alpha, const torch::Tensor& values, const std::vector<int64_t>& grid) {
  if (alpha.dim() != 2 || values.dim() != 3 || values.size(0) != alpha.size(0) || values.size(1) != alpha.size(1))
    fail("metrics: alpha must be [B, n] and values [B, n, d]");
  const int64_t n = alpha.size(1);
  if (n < 1) fail("metrics: a sample needs at least one token");
  for (int64_t N : grid)
    if (N < 1 || N > n) fail("metrics: N = {} is outside 1..{}", N, n);
}

}  // namespace

torch::Tensor top_n_order(const torch::Tensor& alpha) {
  // Stable descending sort: equal alphas keep position order, lower position first (SPEC §2).
  return std::get<1>(alpha.sort(/*stable=*/true, /*dim=*/-1, /*descending=*/true));
}

SampleMetrics metrics_for_order(const torch::Tensor& alpha, const torch::Tensor& values, const torch::Tensor& order,
                                const std::vector<int64_t>& grid, const SelectionOptions& options) {
  check_inputs(alpha, values, grid);
  c10::InferenceMode inference;
  const int64_t B = alpha.size(0), n = alpha.size(1), d = values.size(2), G = static_cast<int64_t>(grid.size());
  auto A = alpha.to(torch::kFloat64);
  auto V = values.to(A.device(), torch::kFloat64);
  auto Y = A.unsqueeze(-1) * V;  // y_i = alpha_i v_i
  auto ord = order.to(A.device(), torch::kInt64);

  // Chunk the samples so [chunk, G, n] float64 (dots and distances) stays under the bound.
  const int64_t per_sample = std::max<int64_t>(1, G * n * 8 * (A.is_cuda() || options.generic_counts ? 3 : 1) + n * d * 8 * 3);
  const int64_t chunk = std::max<int64_t>(1, options.max_chunk_bytes / per_sample);
  auto dots_buffer = torch::empty({std::min(chunk, B), G, n}, A.options());
  std::vector<torch::Tensor> parts;
  for (int64_t b0 = 0; b0 < B; b0 += chunk) {
    auto rows = Slice(b0, std::min(B, b0 + chunk));
    parts.push_back(chunk_curves(A.index({rows}), V.index({rows}), Y.index({rows}), ord.index({rows}), grid, options,
                                 dots_buffer));
  }
  auto curves = B > 0 ? torch::cat(parts) : torch::zeros({0, kCurveMetrics, G}, A.options());
  return {curves.to(torch::kCPU), sample_scalars(A, V, Y).to(torch::kCPU)};
}

SampleMetrics selection_metrics(const torch::Tensor& alpha, const torch::Tensor& values,
                                const std::vector<int64_t>& grid, const SelectionOptions& options) {
  return metrics_for_order(alpha, values, top_n_order(alpha.to(torch::kFloat64)), grid, options);
}

}  // namespace geoattn::metrics
