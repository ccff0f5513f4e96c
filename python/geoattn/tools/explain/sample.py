"""One sample's top-N selection, token by token (SPEC §1-2): the stable top-N order by alpha, the
distances to s(N), r_max and r_min and which tokens each closed ball holds, P(r_max, N) and
R(r_min, N). numpy only.

Every ball membership is a comparison D_j <= D_i, decided on E_k = ||y_k||^2 - 2 <s, y_k> in
float64 (SPEC §2, DESIGN.md): a comparison is decided there when the two values differ by more
than twice their rounding bounds gamma_{2N+d+6} (a_k^2 + 2 a_k S_N); what is left (a near-tie)
is decided in exact integer arithmetic on y = alpha v (exact in float64) and listed.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from ...capture_io import Capture

__all__ = ["Sample", "Selection", "sample_of", "top_n_order", "select"]

_U = 2.0 ** -53      # float64's unit roundoff
_SHIFT = 1100        # 2^_SHIFT y is an integer for every float64 y (exponents reach -1074)


@dataclass
class Sample:
    """One (window, query, layer, head): the keys' absolute `positions` (SPEC §1: 0..q, or a
    windowed layer's visible keys), their `alpha` (float32) and `values` [n, d] (float32) of the
    KV head `kv`, and their token ids."""
    window: int
    query: int
    layer: int
    head: int
    kv: int
    positions: np.ndarray
    alpha: np.ndarray
    values: np.ndarray
    tokens: np.ndarray


@dataclass
class Selection:
    """What select() finds for one N: `order` (indices into the sample, by alpha, ties by
    position), `D` (float64 ||s - y_i||^2, displayed), the indices of r_max's and r_min's
    tokens, the balls' members (bool [n]), K_out, K_in, P, R and the `near_ties` decided exactly."""
    N: int
    order: np.ndarray
    y_norm: np.ndarray
    D: np.ndarray
    i_rmax: int
    j_rmin: int | None
    in_rmax: np.ndarray
    in_rmin: np.ndarray
    K_out: int
    K_in: int
    P: float
    R: float
    near_ties: list = field(default_factory=list)


def sample_of(cap: Capture, layer: int, head: int, window: int, query: int, window_tokens: str = "visible") -> Sample:
    """The sample (window, query, layer, head) of an open capture (geoattn.capture_io.Capture)."""
    H, KV = cap.alpha.shape[2], cap.values.shape[2]
    # SPEC §1: query head h reads KV head h / (heads / kv_heads)
    kv = head // (H // KV)
    windows = [int(e.get("window", 0)) for e in cap.meta_json("layer_attention", [])]
    w = windows[layer] if layer < len(windows) else 0
    # SPEC §1: a windowed layer's tokens are the keys its query sees, max(0, q-W+1)..q
    first = max(0, query - w + 1) if w > 0 and window_tokens == "visible" else 0
    qi = cap.queries.index(query)
    keys = slice(first, query + 1)
    return Sample(window, query, layer, head, kv, np.arange(first, query + 1),
                  np.array(cap.alpha[window, layer, head, qi, keys], np.float32),
                  np.array(cap.values[window, layer, kv, keys, :], np.float32),
                  np.array(cap.tokens[window, keys], np.int64))


def top_n_order(alpha: np.ndarray) -> np.ndarray:
    """Every token's index by decreasing alpha, ties lower position first (SPEC §2: stable)."""
    return np.argsort(-np.asarray(alpha, np.float64), kind="stable")


class _Exact:
    """E_k in exact integer arithmetic (scaled by 2^(2 _SHIFT)) from y and the selected I_N."""

    def __init__(self, y, selected):
        self.y = y
        self.scaled = {}
        self.s = [sum(col) for col in zip(*(self.row(i) for i in selected))] if len(selected) else [0] * y.shape[1]
        self.cache = {}

    def row(self, k):
        if k not in self.scaled:
            out = []
            for x in self.y[k].tolist():
                num, den = float(x).as_integer_ratio()
                out.append((num << _SHIFT) // den)
            self.scaled[k] = out
        return self.scaled[k]

    def E(self, k):
        # SPEC §2: E_k = ||y_k||^2 - 2 <s, y_k>, exactly
        if k not in self.cache:
            r = self.row(k)
            self.cache[k] = sum(a * a for a in r) - 2 * sum(a * b for a, b in zip(self.s, r))
        return self.cache[k]


def _decide(E, B, ks, others, exact, against_max, ball, near):
    """For each k of ks: E_k <= max (against_max) or min of E over `others`, decided in float64
    where the difference exceeds B_k + B_o, else exactly (recorded in `near` under `ball`)."""
    ks, others = np.asarray(ks), np.asarray(others)
    out = np.zeros(len(ks), bool)
    if len(ks) == 0 or len(others) == 0:
        return out
    bound = B[ks][:, None] + B[others][None, :]
    below = (E[others][None, :] - E[ks][:, None]) >= bound      # surely E_k <= E_o
    above = (E[ks][:, None] - E[others][None, :]) > bound       # surely E_k > E_o
    same = ks[:, None] == others[None, :]                        # E_k <= E_k
    below |= same
    above &= ~same
    if against_max:
        sure_in, sure_out = below.any(1), above.all(1)
    else:
        sure_in, sure_out = below.all(1), above.any(1)
    out[sure_in] = True
    for r in np.nonzero(~sure_in & ~sure_out)[0]:
        k = int(ks[r])
        cand = [int(o) for o in others[~above[r]]] if against_max else [int(o) for o in others[~below[r]]]
        ref = max(exact.E(o) for o in cand) if against_max else min(exact.E(o) for o in cand)
        out[r] = exact.E(k) <= ref
        near.append({"index": k, "ball": ball, "inside": bool(out[r])})
    return out


def select(sample: Sample, N: int) -> Selection:
    """SPEC §2 for one N: I_N, s(N), the distances, r_max, r_min, the balls, K_out, K_in, P, R."""
    n, d = sample.values.shape
    order = top_n_order(sample.alpha)
    selected, rest = order[:N], order[N:]
    # SPEC §2: y_i = alpha_i v_i (exact in float64)
    y = sample.alpha.astype(np.float64)[:, None] * sample.values.astype(np.float64)
    s = y[selected].sum(axis=0)
    # SPEC §2: D_i = ||s - y_i||^2 (displayed; the comparisons use E_k)
    D = ((s[None, :] - y) ** 2).sum(axis=1)
    a = np.sqrt((y * y).sum(axis=1))
    # SPEC §2: E_k = ||y_k||^2 - 2 <s, y_k>
    E = (y * y).sum(axis=1) - 2.0 * (y @ s)
    # SPEC §2: |fl(E_k) - E_k| <= gamma_{2N+d+6} (a_k^2 + 2 a_k S_N); decided past twice the bounds
    m = 2 * N + d + 6
    B = 2.0 * (m * _U / (1 - m * _U)) * (a * a + 2.0 * a * a[selected].sum()) * (1 + 16 * _U)
    exact = _Exact(y, [int(i) for i in selected])
    near: list[dict] = []
    in_rmax, in_rmin = np.zeros(n, bool), np.zeros(n, bool)
    in_rmax[selected] = True
    # SPEC §2: K_out = #{j not in I_N : D_j <= r_max^2}, r_max^2 = max_{i in I_N} D_i
    in_rmax[rest] = _decide(E, B, rest, selected, exact, True, "r_max", near)
    # SPEC §2: K_in = #{i in I_N : D_i <= r_min^2}, r_min^2 = min_{j not in I_N} D_j
    # SPEC §2: R = 1 when N = q+1 (no non-selected token: r_min is infinite, every i counts)
    in_rmin[selected] = _decide(E, B, selected, rest, exact, False, "r_min", near) if len(rest) else True
    in_rmin[rest] = _decide(E, B, rest, rest, exact, False, "r_min", near)
    K_out, K_in = int(in_rmax[rest].sum()), int(in_rmin[selected].sum())
    i_rmax = int(selected[np.argmax(E[selected])])
    j_rmin = int(rest[np.argmin(E[rest])]) if len(rest) else None
    # SPEC §2: P(r_max, N) = N / (N + K_out); R(r_min, N) = K_in / N, 1 when N = q+1
    P = N / (N + K_out)
    R = K_in / N if len(rest) else 1.0
    return Selection(N, order, a, D, i_rmax, j_rmin, in_rmax, in_rmin, K_out, K_in, P, R, near)
