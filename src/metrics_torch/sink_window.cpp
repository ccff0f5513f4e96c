// One window's attention-sink numbers (SPEC §9), in float64 on the capture's device.
#include "geoattn/metrics_torch/sink_window.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <array>
#include <cmath>
#include <limits>
#include <optional>
#include <string>

#include "geoattn/analysis/frames.h"
#include "geoattn/arch/config.h"
#include "geoattn/util/blas_threads.h"
#include "geoattn/util/error.h"

namespace geoattn::metrics {

namespace {

using torch::indexing::Slice;

std::vector<double> to_host(const torch::Tensor& t) {
  const auto c = t.to(torch::kCPU, torch::kFloat64).contiguous();
  return {c.data_ptr<double>(), c.data_ptr<double>() + c.numel()};
}

// "[2, 3, 4]"
std::string shape_of(const torch::Tensor& t) { return "[" + fmt::format("{}", fmt::join(t.sizes(), ", ")) + "]"; }

// x / ||x|| along the last dim, a zero vector staying zero (so its cosines are 0).
torch::Tensor unit(const torch::Tensor& x) { return x / x.norm(2, -1, true).clamp_min(1e-300); }

// The reference set of each row of c [G, T] (analysis::reference_set) as a 0/1 mask [G, T].
torch::Tensor reference_mask(const torch::Tensor& c) {
  const int64_t G = c.size(0), T = c.size(1);
  const std::vector<double> host = to_host(c);
  auto mask = torch::zeros({G, T}, torch::kFloat64);
  auto m = mask.accessor<double, 2>();
  for (int64_t g = 0; g < G; ++g)
    for (const int64_t j : analysis::reference_set(&host[g * T], T)) m[g][j] = 1;
  return mask.to(c.device());
}

// SPEC §9 reference points, geoattn's convention: A [G, T, T], x [G, T, D], mask [G, T] (R) ->
// [G, kNumReferenceStats]: |R|, and over the queries i not in R the means of ||r_i|| / ||y_i||
// and (1 + cos(r_i, y_i)) / 2, with y_i = sum_j A[i,j] x_j and r_i = sum_{j in R} A[i,j] x_j.
torch::Tensor reference_measures(const torch::Tensor& A, const torch::Tensor& x, const torch::Tensor& mask) {
  const auto y = A.bmm(x);                             // [G, T, D]
  const auto r = (A * mask.unsqueeze(1)).bmm(x);       // [G, T, D]
  const auto y_norm = y.norm(2, -1), r_norm = r.norm(2, -1);  // [G, T]
  // ||r|| / ||y|| (0 where y = 0) and (1 + cos) / 2 (cos with a zero vector: 0).
  const auto magnitude = torch::where(y_norm > 0, r_norm / y_norm.clamp_min(1e-300), torch::zeros_like(y_norm));
  const auto direction = (1 + (unit(r) * unit(y)).sum(-1)) / 2;
  const auto outside = 1 - mask;                       // the queries not in R
  const auto n = outside.sum(1).clamp_min(1);          // [G]
  std::array<torch::Tensor, kNumReferenceStats> stats;  // [G] each, in ReferenceStat order
  stats[kReferenceSize] = mask.sum(1);
  stats[kRelativeMagnitude] = (magnitude * outside).sum(1) / n;
  stats[kDirectionalInfluence] = (direction * outside).sum(1) / n;
  return torch::stack(stats, 1);
}

// SPEC §9 reference points, the authors' convention (reference_point.ipynb,
// decompose_value_transformations): the rows of A renormalised (a row summing to at most 1e-10
// is 0), ||r_i|| / ||y_i|| clipped to [0, 1] (1 where only y_i is below 1e-10 in norm, 0 where
// both are), (1 + cos(r_i, y_i)) / 2 with the cosine clipped to [-1, 1] (0.5 where either norm
// is below 1e-10), and 0.5 for both at each query in R; the means over all T queries.
torch::Tensor reference_measures_authors(const torch::Tensor& A, const torch::Tensor& x, const torch::Tensor& mask) {
  constexpr double kTiny = 1e-10;  // the notebook's floor on row sums and norms
  const auto row_sum = A.sum(-1, true);                                                        // [G, T, 1]
  const auto An = torch::where(row_sum > kTiny, A / row_sum.clamp_min(kTiny), torch::zeros_like(A));
  const auto y = An.bmm(x);                                                                    // [G, T, D]
  const auto r = (An * mask.unsqueeze(1)).bmm(x);                                             // [G, T, D]
  const auto y_norm = y.norm(2, -1), r_norm = r.norm(2, -1);                                  // [G, T]
  const auto y_small = y_norm < kTiny, r_small = r_norm < kTiny;
  const auto half = torch::full_like(y_norm, 0.5);
  const auto magnitude = torch::where(y_small, r_small.logical_not().to(torch::kFloat64),
                                      (r_norm / y_norm.clamp_min(kTiny)).clamp(0, 1));
  const auto cosine = ((r * y).sum(-1) / (r_norm * y_norm).clamp_min(1e-300)).clamp(-1, 1);
  const auto direction = torch::where(y_small.logical_or(r_small), half, (cosine + 1) / 2);
  const auto in_R = mask > 0;
  const double T = static_cast<double>(A.size(1));
  std::array<torch::Tensor, kNumReferenceStats> stats;  // [G] each, in ReferenceStat order
  stats[kReferenceSize] = mask.sum(1);
  stats[kRelativeMagnitude] = torch::where(in_R, half, magnitude).sum(1) / T;
  stats[kDirectionalInfluence] = torch::where(in_R, half, direction).sum(1) / T;
  return torch::stack(stats, 1);
}

torch::Tensor reference_measures(const torch::Tensor& A, const torch::Tensor& x, const torch::Tensor& mask,
                                 SinkConvention convention) {
  return convention == SinkConvention::authors ? reference_measures_authors(A, x, mask)
                                               : reference_measures(A, x, mask);
}

// SPEC §9 Guo et al.'s row score of every head of A [H, T, T] -> [H], with H the entropy in nats.
// geoattn: mean_{i=1..T-1} H(A_i) / log(i+1) (row 0 has one key and no entropy to normalise).
// authors (entropy.py): the rows renormalised, row 0 scored 0, the mean over all T rows.
torch::Tensor row_score(const torch::Tensor& A, SinkConvention convention) {
  const int64_t T = A.size(2);
  const auto log_i1 = torch::arange(2, T + 1, A.options()).log();  // [T-1] log(i+1), i = 1..T-1
  if (convention == SinkConvention::geoattn)
    return ((-torch::xlogy(A, A).sum(2)).index({Slice(), Slice(1)}) / log_i1).mean(1);
  const auto P = torch::where(A > 0, A / A.sum(2, true), torch::zeros_like(A));
  return ((-torch::xlogy(P, P).sum(2)).index({Slice(), Slice(1)}) / log_i1).sum(1) / static_cast<double>(T);
}

}  // namespace

// SPEC §9 attention graph. geoattn: B = [Abar > tau] on the edges i > j (a query to an earlier
// key), n = T. authors (laplacian.ipynb, compute_laplacian_eigenvalues): every Abar[i,j] > tau,
// the diagonal too; for T > 50 the graph's nodes are those with an edge (it is built from its
// edge list), else all T; fewer than 2 edges record no density and no Gini (NaN) and 0 for the rest.
torch::Tensor graph_stats(const torch::Tensor& abar, const std::vector<double>& taus, SinkConvention convention) {
  const bool authors = convention == SinkConvention::authors;
  const int64_t T = abar.size(0), n_tau = static_cast<int64_t>(taus.size());
  const auto f64 = abar.options().dtype(torch::kFloat64);
  if (n_tau == 0) return torch::zeros({0, kNumGraphStats}, f64);
  const double n = static_cast<double>(T);
  const auto tau = torch::tensor(taus, torch::kFloat64).to(abar.device()).view({n_tau, 1, 1});
  const auto over = (abar.to(torch::kFloat64).unsqueeze(0) > tau).to(torch::kFloat64);  // [n_tau, T, T]
  const auto B = authors ? over : over * torch::ones({T, T}, f64).tril(-1);
  const auto edges = B.sum({1, 2});  // [n_tau]
  // density: geoattn the edges over the T (T - 1) / 2 possible ones; authors over T^2.
  const auto density = authors ? edges / (n * n) : edges / (n * (n - 1) / 2);
  // in-degree d_j = sum_i B[i, j], over the graph's nodes (present: 1).
  const auto d_in = B.sum(1);  // [n_tau, T]
  const auto present = authors && T > 50 ? (d_in + B.sum(2) > 0).to(torch::kFloat64) : torch::ones_like(d_in);
  const auto n_g = present.sum(1);  // [n_tau] the nodes
  // Gini = sum_i (2 i - n - 1) x_(i) / (n sum x) over the nodes' in-degrees x ascending, i = 1..n
  // (the absent nodes, sorted first as -1, weigh 0).
  const auto sorted = std::get<0>(torch::where(present > 0, d_in, torch::full_like(d_in, -1)).sort(1));
  const auto rank = torch::arange(1, T + 1, f64).unsqueeze(0) - (n - n_g).unsqueeze(1);  // [n_tau, T]
  const auto weight = torch::where(sorted >= 0, 2 * rank - n_g.unsqueeze(1) - 1, torch::zeros_like(rank));
  const auto total = d_in.sum(1);
  const auto gini = torch::where(total > 0, (weight * sorted).sum(1) / (n_g * total).clamp_min(1), torch::zeros_like(total));
  // star-likeness: 0.3 max d_in / (n - 1) + 0.7 Gini.
  const auto max_in = std::get<0>(d_in.max(1));
  const auto star = 0.3 * max_in / (n_g - 1).clamp_min(1) + 0.7 * gini;
  // U = B + B^T, the undirected graph; deg its degrees.
  const auto U = B + B.transpose(1, 2);
  const auto deg = U.sum(2);
  torch::Tensor central;
  if (authors) {
    // in-degree centralisation (the notebook's degree_centralization): sum_j (max d - d_j) / (n - 1)^2.
    central = torch::where((n_g > 1).logical_and(max_in > 0), (n_g * max_in - total) / (n_g - 1).square().clamp_min(1),
                           torch::zeros_like(total));
  } else {
    // Freeman's degree centralisation of U: sum_i (max deg - deg_i) / ((n - 1)(n - 2)).
    central = T > 2 ? (std::get<0>(deg.max(1)).unsqueeze(1) - deg).sum(1) / ((n - 1) * (n - 2)) : torch::zeros_like(total);
  }
  // Laplacian L = D - U/2, D the diagonal of the row sums of U/2 (a self-loop cancels in it); the
  // Fiedler value lambda_2 and the gap lambda_3 - lambda_2 (ascending), exact in both conventions.
  const auto lap = torch::diag_embed(deg / 2) - U / 2;
  // On the CPU, LAPACK single-threaded: OpenBLAS rounds differently with other thread counts,
  // and a window must give the same numbers in every run (and so a merge those of one run).
  torch::Tensor eig;  // [n_tau, T]
  {
    std::optional<SingleThreadedBlas> one_thread;
    if (!lap.is_cuda()) one_thread.emplace();
    eig = torch::linalg_eigvalsh(lap, "L");  // ATen's name: LibTorch 1.13 and 2.x
  }
  const auto fiedler = T > 1 ? eig.index({Slice(), 1}) : torch::zeros_like(total);
  const auto gap = T > 2 ? eig.index({Slice(), 2}) - eig.index({Slice(), 1}) : torch::zeros_like(total);
  std::array<torch::Tensor, kNumGraphStats> stats;  // [n_tau] each, in GraphStat order
  stats[kDensity] = density, stats[kGini] = gini, stats[kStar] = star, stats[kCentralization] = central;
  stats[kFiedler] = fiedler, stats[kGap] = gap;
  if (authors) {  // the notebook's early return, fewer than 2 edges: no density and no Gini (NaN:
    // SinkStats leaves the window out of their means), the rest 0
    const auto few = edges < 2;
    const auto none = torch::full_like(total, std::numeric_limits<double>::quiet_NaN());
    for (int64_t k = 0; k < kNumGraphStats; ++k)
      stats[k] = torch::where(few, k == kDensity || k == kGini ? none : torch::zeros_like(total), stats[k]);
  }
  return torch::stack(stats, 1);
}

SinkWindow sink_window(const torch::Tensor& alpha, const torch::Tensor& values, const torch::Tensor& resid,
                       const std::vector<double>& taus, SinkConvention convention) {
  if (alpha.dim() != 4 || alpha.size(2) != alpha.size(3))
    fail("sinks: attention must be [layers, heads, T, T] with every query, got {}", shape_of(alpha));
  const int64_t L = alpha.size(0), H = alpha.size(1), T = alpha.size(3);
  if (values.dim() != 4 || values.size(0) != L || values.size(2) != T || values.size(1) < 1 || H % values.size(1) != 0)
    fail("sinks: values {} do not fit attention {}", shape_of(values), shape_of(alpha));
  const bool residual = resid.defined();
  if (residual && (resid.dim() != 3 || resid.size(0) != L || resid.size(1) != T))
    fail("sinks: residual stream {} does not fit attention {}", shape_of(resid), shape_of(alpha));
  const int64_t KV = values.size(1);
  const auto f64 = alpha.options().dtype(torch::kFloat64);
  // SPEC §1: query head h reads KV head kv_of[h].
  const auto kv_of = torch::tensor(arch::kv_heads_of(H, KV), torch::kInt64).to(alpha.device());  // [H]

  const auto k = torch::arange(T, f64);
  const auto seen = T - k;  // [T] the queries that see key k: t = k..T-1
  std::vector<torch::Tensor> alpha_k, row, col, ref_v, rho0, norms, ref_bar, ref_resid, graph;
  for (int64_t l = 0; l < L; ++l) {
    const auto A = alpha[l].to(torch::kFloat64);  // [H, T, T] rows t (queries), columns k (keys)
    const auto colsum = A.sum(1);                 // [H, T]
    // Gu et al.: alpha_k = (1/(T-k)) sum_{t>=k} A[t,k].
    alpha_k.push_back(colsum / seen);
    row.push_back(row_score(A, convention));  // [H]
    // Guo et al. column score: max_{j<=T-2} H(A[.,j] / sum_i A[i,j]) / log(T-j).
    const auto P = A / colsum.clamp_min(1e-300).unsqueeze(1);
    const auto h_col = -torch::xlogy(P, P).sum(1);  // [H, T]
    col.push_back(std::get<0>((h_col.index({Slice(), Slice(0, T - 1)}) / seen.index({Slice(0, T - 1)}).log()).max(1)));
    // Reference points with x = v, per head: c_j = (1/T) sum_i A[i,j].
    const auto V = values[l].to(torch::kFloat64);                   // [KV, T, d]
    const auto Vh = V.index_select(0, kv_of);                        // [H, T, d]
    ref_v.push_back(reference_measures(A, Vh, reference_mask(colsum / T), convention));
    // SPEC §3 rho0 at query t: mean_{j=1..t} cos(v_0, v_j); here the mean over t = 1..T-1.
    const auto Vu = unit(V);
    const auto cos0 = (Vu.index({Slice(), Slice(1)}) * Vu.index({Slice(), Slice(0, 1)})).sum(-1);  // [KV, T-1]
    const auto rho_t = cos0.cumsum(1) / k.index({Slice(1)});
    rho0.push_back(rho_t.mean(1).index_select(0, kv_of));  // [H]
    norms.push_back(V.norm(2, -1));  // [KV, T]
    // Abar, the mean over heads: its reference set, the residual stream's measures, the graph.
    const auto Abar = A.mean(0);  // [T, T]
    const auto mask_bar = reference_mask((Abar.sum(0) / T).unsqueeze(0));
    ref_bar.push_back(mask_bar.sum());
    if (residual) {
      auto x = resid[l].to(torch::kFloat64);  // [T, D]
      // The authors' extract_value_vectors: a stream above 1e5 in magnitude scaled down to 1e5.
      if (convention == SinkConvention::authors) x = x * (1e5 / x.abs().max().clamp_min(1e5));
      ref_resid.push_back(reference_measures(Abar.unsqueeze(0), x.unsqueeze(0), mask_bar, convention));
    }
    graph.push_back(graph_stats(Abar, taus, convention));
  }
  SinkWindow w;
  w.shape = {L, H, KV, T, static_cast<int64_t>(taus.size()), residual};
  w.alpha = to_host(torch::stack(alpha_k));
  w.row_score = to_host(torch::stack(row));
  w.col_score = to_host(torch::stack(col));
  w.reference_v = to_host(torch::stack(ref_v));
  w.rho0 = to_host(torch::stack(rho0));
  w.norms = to_host(torch::stack(norms));
  w.reference_bar = to_host(torch::stack(ref_bar));
  if (residual) w.reference_resid = to_host(torch::cat(ref_resid));
  w.graph = to_host(torch::stack(graph));
  return w;
}

}  // namespace geoattn::metrics
