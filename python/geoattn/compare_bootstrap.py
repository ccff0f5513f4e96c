"""The bootstrap of the difference B - A between two runs' group means (SPEC §2b, over
documents): paired when the runs share documents (one draw of the shared ids per replicate,
the same for both runs), unpaired otherwise (each run's documents drawn on their own).

    from geoattn.compare_bootstrap import pairing, draws, difference
    p = pairing(a.ids, b.ids)                  # Pairing: paired?, the rows of each run used
    wa, wb = draws(p, 2000, seed=0)            # [B, U_a], [B, U_b]: times each document is drawn
    d = difference(a, ga, b, gb, "P_rmax", cols_a, cols_b, p, wa, wb)   # point, lo, hi per N

A replicate's group mean is the replicate's sums over its drawn documents divided by the
samples they hold, as the C++ bootstrap builds it (src/metrics/finalize/bootstrap.cpp); the
interval is the 2.5 and 97.5 percentiles of the replicates' differences (numpy's linear
interpolation, as the C++ uses), over the replicates where both means are defined. numpy only.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .unit_sums import Group, UnitSums

__all__ = ["Pairing", "pairing", "draws", "weights_of", "replicate_means", "difference", "PERCENTILES"]

# SPEC §2b: 95% percentile intervals.
PERCENTILES = (2.5, 97.5)


@dataclass
class Pairing:
    """How two runs' documents go together: `paired` (they share documents), the rows of each
    run's sums that are used (`rows_a`, `rows_b`: in the order of the ids; in a paired
    comparison row i of one is row i of the other) and how many of each run's are left out."""
    paired: bool
    rows_a: np.ndarray
    rows_b: np.ndarray
    left_out_a: int
    left_out_b: int


def pairing(ids_a: list, ids_b: list) -> Pairing:
    """Paired on the documents both runs hold (those of one run alone left out), or unpaired
    (every document of each) when they hold none in common."""
    shared = sorted(set(ids_a) & set(ids_b))
    if shared:
        pos_a = {d: i for i, d in enumerate(ids_a)}
        pos_b = {d: i for i, d in enumerate(ids_b)}
        return Pairing(True, np.array([pos_a[d] for d in shared]), np.array([pos_b[d] for d in shared]),
                       len(ids_a) - len(shared), len(ids_b) - len(shared))
    order_a = sorted(range(len(ids_a)), key=lambda i: ids_a[i])
    order_b = sorted(range(len(ids_b)), key=lambda i: ids_b[i])
    return Pairing(False, np.array(order_a), np.array(order_b), 0, 0)


def weights_of(index: np.ndarray, units: int) -> np.ndarray:
    """[B, units]: how often each unit appears in each row of `index` [B, draws]."""
    B = index.shape[0]
    flat = (np.arange(B)[:, None] * units + index).ravel()
    return np.bincount(flat, minlength=B * units).reshape(B, units).astype(np.float64)


def draws(p: Pairing, replicates: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """Each replicate's draw with replacement, as many documents as there are, from
    numpy's Generator(PCG64(seed)): one draw of the shared documents for both runs (paired), or
    A's then B's (unpaired). [B, U_a] and [B, U_b] weights over the rows of the Pairing."""
    rng = np.random.Generator(np.random.PCG64(seed))
    ua, ub = len(p.rows_a), len(p.rows_b)
    wa = weights_of(rng.integers(0, ua, size=(replicates, ua)), ua)
    wb = wa if p.paired else weights_of(rng.integers(0, ub, size=(replicates, ub)), ub)
    return wa, wb


def replicate_means(u: UnitSums, group: Group, name: str, columns: np.ndarray, rows: np.ndarray,
                    weights: np.ndarray) -> np.ndarray:
    """[B, columns]: each replicate's group mean of `name` at the given columns (grid indices of
    a curve; [0] for a scalar), the documents `rows` weighted by `weights` [B, len(rows)]; NaN
    where a replicate drew no sample."""
    sums = u.group_sums(group, name)[rows][:, columns]
    samples = u.group_samples(group, name)[rows][:, columns]
    with np.errstate(invalid="ignore", divide="ignore"):
        # SPEC §2b: a replicate's mean is its drawn documents' sums over their samples.
        return (weights @ sums) / (weights @ samples)


def _percentiles(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The PERCENTILES of each column of x over its finite rows (NaN where none is)."""
    finite = np.isfinite(x)
    if finite.all():
        lo, hi = np.percentile(x, PERCENTILES, axis=0)
        return lo, hi
    lo, hi = np.full(x.shape[1], np.nan), np.full(x.shape[1], np.nan)
    for c in range(x.shape[1]):
        col = x[finite[:, c], c]
        if col.size:
            lo[c], hi[c] = np.percentile(col, PERCENTILES)
    return lo, hi


def difference(a: UnitSums, group_a: Group, b: UnitSums, group_b: Group, name: str, columns_a: np.ndarray,
               columns_b: np.ndarray, p: Pairing, wa: np.ndarray, wb: np.ndarray) -> dict:
    """B - A of the group means of `name` at the paired columns: "a", "b" (each run's mean over
    the documents compared), "diff", and its interval "lo", "hi" (arrays, NaN where undefined)."""
    ones_a, ones_b = np.ones((1, len(p.rows_a))), np.ones((1, len(p.rows_b)))
    mean_a = replicate_means(a, group_a, name, columns_a, p.rows_a, ones_a)[0]
    mean_b = replicate_means(b, group_b, name, columns_b, p.rows_b, ones_b)[0]
    reps = (replicate_means(b, group_b, name, columns_b, p.rows_b, wb)
            - replicate_means(a, group_a, name, columns_a, p.rows_a, wa))
    lo, hi = _percentiles(reps)
    return {"a": mean_a, "b": mean_b, "diff": mean_b - mean_a, "lo": lo, "hi": hi}
