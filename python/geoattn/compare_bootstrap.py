"""The bootstrap of the difference B - A between two runs' group means (SPEC §2b, over
documents): paired when the runs share documents (one draw of the shared ids per replicate,
the same for both runs), unpaired otherwise (each run's documents drawn on their own).

    from geoattn.compare_bootstrap import pairing, draws, difference
    p = pairing(a.ids, b.ids)                  # Pairing: paired?, the rows of each run used
    wa, wb = draws(p, 2000, seed=0)            # [B, U_a], [B, U_b]: times each document is drawn
    d = difference(a, ga, b, gb, "P_rmax", cols_a, cols_b, p, wa, wb)   # point, lo, hi, reps per N
    f = max_t(d["diff"], d["reps"], d["se"], d["se_reps"], 0.05)   # Family: the band over N, its p-value
    threshold, passes = benjamini_hochberg([f.p, ...], 0.05)   # which families may mark

A replicate's group mean is the replicate's sums over its drawn documents divided by the
samples they hold, as the C++ bootstrap builds it (src/metrics/finalize/bootstrap.cpp); the
per-cell interval is the 2.5 and 97.5 percentiles of the replicates' differences (numpy's linear
interpolation, as the C++ uses), over the replicates where both means are defined.

Many cells at once (SPEC §2b, docs/compare.md): a curve's cells over N in one group are one
family. `max_t` standardises each replicate's deviation from the point difference by that
replicate's standard error at that N (the delta-method standard error of a difference of ratio
means over the documents it drew: a studentized bootstrap) and takes its largest absolute value
over N; the (1 - alpha) quantile of that maximum is the family's critical value (a simultaneous
band over N: diff +- critical x se), and the share of replicates whose maximum reaches the
observed max |diff| / se is its p-value ((1 + that count) / (1 + replicates)).
`benjamini_hochberg` then decides, over every family of a comparison, which may mark at all. N
where every replicate is alike (e.g. N = 1 where P = R = 1 in every sample), and N where too few
documents differ for the studentized bootstrap (more than alpha of the replicates drew only
alike ones), are left out of a family. Where the documents are nearly alike, a standard error is
the sum of squared deviations itself, not its expansion, which would keep only rounding. numpy
only.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from .unit_sums import Group, UnitSums

CURVES = ("P_rmax", "R_rmin", "F_rmax", "F_rmin")  # the curves compared, per N
PER_CELL = "per cell (no multiplicity control)"  # the view that marks each cell alone

__all__ = ["CURVES", "PER_CELL", "Pairing", "pairing", "draws", "weights_of", "replicate_means", "difference", "PERCENTILES",
           "Family", "max_t", "benjamini_hochberg", "ALIKE"]

# SPEC §2b: 95% percentile intervals.
PERCENTILES = (2.5, 97.5)
# A column whose replicates' sd is at most this is alike in every replicate (P, R, F and rho0 lie
# in [-1, 1]; an sd this small is rounding at most): left out of its family, never marked.
ALIKE = 1e-12


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


def _percentiles(x: np.ndarray, percentiles=PERCENTILES) -> tuple[np.ndarray, np.ndarray]:
    """The percentiles (PERCENTILES by default) of each column of x over its finite rows (NaN
    where none is)."""
    finite = np.isfinite(x)
    if finite.all():
        lo, hi = np.percentile(x, percentiles, axis=0)
        return lo, hi
    lo, hi = np.full(x.shape[1], np.nan), np.full(x.shape[1], np.nan)
    for c in range(x.shape[1]):
        col = x[finite[:, c], c]
        if col.size:
            lo[c], hi[c] = np.percentile(col, percentiles)
    return lo, hi


def difference(a: UnitSums, group_a: Group, b: UnitSums, group_b: Group, name: str, columns_a: np.ndarray,
               columns_b: np.ndarray, p: Pairing, wa: np.ndarray, wb: np.ndarray,
               percentiles=PERCENTILES) -> dict:
    """B - A of the group means of `name` at the paired columns: "a", "b" (each run's mean over
    the documents compared), "diff", its per-cell interval "lo", "hi" (the given percentiles of
    the replicates; arrays, NaN where undefined) and the replicates "reps" [B, columns] (NaN
    where a replicate drew no sample)."""
    ones_a, ones_b = np.ones((1, len(p.rows_a))), np.ones((1, len(p.rows_b)))
    mean_a = replicate_means(a, group_a, name, columns_a, p.rows_a, ones_a)[0]
    mean_b = replicate_means(b, group_b, name, columns_b, p.rows_b, ones_b)[0]
    reps = (replicate_means(b, group_b, name, columns_b, p.rows_b, wb)
            - replicate_means(a, group_a, name, columns_a, p.rows_a, wa))
    lo, hi = _percentiles(reps, percentiles)
    se, se_reps = _standard_errors(a, group_a, b, group_b, name, columns_a, columns_b, p, wa, wb)
    return {"a": mean_a, "b": mean_b, "diff": mean_b - mean_a, "lo": lo, "hi": hi, "reps": reps,
            "se": se, "se_reps": se_reps}


def _ratio_parts(u: UnitSums, group: Group, name: str, columns: np.ndarray, rows: np.ndarray):
    """(S, C): each document's sums of `name` and the samples behind them [U, columns]."""
    return u.group_sums(group, name)[rows][:, columns], u.group_samples(group, name)[rows][:, columns]


def _standard_errors(a: UnitSums, group_a: Group, b: UnitSums, group_b: Group, name: str, columns_a: np.ndarray,
                     columns_b: np.ndarray, p: Pairing, wa: np.ndarray, wb: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(se [columns], se of each replicate [B, columns]) of B - A: the delta-method (linearised)
    standard error of a difference of two ratio means over documents, n/(n-1) sum_u w_u e_u^2 with
    e_u a document's influence ((S_u - m C_u) / sum C for one run; B's minus A's paired), over the
    documents compared (weights 1) and over each replicate's draw (its weights)."""
    sa, ca = _ratio_parts(a, group_a, name, columns_a, p.rows_a)
    sb, cb = _ratio_parts(b, group_b, name, columns_b, p.rows_b)
    na, nb, k = sa.shape[0], sb.shape[0], sa.shape[1]
    # Each run's weighted sums in one product: sum w S, C, S^2, S C, C^2.
    stack_a = np.hstack([sa, ca, sa * sa, sa * ca, ca * ca])
    stack_b = np.hstack([sb, cb, sb * sb, sb * cb, cb * cb])
    if p.paired:  # and the cross sums of A's and B's
        stack_a = np.hstack([stack_a, sa * sb, sa * cb, ca * sb, ca * cb])

    def variance(wa_, wb_):
        ua, ub = wa_ @ stack_a, wb_ @ stack_b
        part = [ua[:, i * k:(i + 1) * k] for i in range(ua.shape[1] // k)]
        qart = [ub[:, i * k:(i + 1) * k] for i in range(5)]
        with np.errstate(invalid="ignore", divide="ignore"):
            ta, tb = part[1], qart[1]
            ma, mb = part[0] / ta, qart[0] / tb
            # sum_u w_u (S_u - m C_u)^2 / (sum C)^2, and the size of the terms it is the difference of
            va = (part[2] - 2 * ma * part[3] + ma * ma * part[4]) / (ta * ta)
            vb = (qart[2] - 2 * mb * qart[3] + mb * mb * qart[4]) / (tb * tb)
            scale = (part[2] + ma * ma * part[4]) / (ta * ta) + (qart[2] + mb * mb * qart[4]) / (tb * tb)
            if p.paired:
                x = (part[5] - mb * part[6] - ma * part[7] + ma * mb * part[8]) / (ta * tb)
                v = va + vb - 2 * x
            else:
                v = na / (na - 1) * va + nb / (nb - 1) * vb
        # Where the expansion cancelled most of its digits (documents nearly alike, or alike: a
        # variance of 0 must come out 0), the sum of squared deviations itself.
        redo = np.nonzero(~(v > 1e-6 * scale))
        if redo[0].size:
            rows, cols = redo
            ra = (sa[:, cols].T - ma[rows, cols][:, None] * ca[:, cols].T) / ta[rows, cols][:, None]
            rb = (sb[:, cols].T - mb[rows, cols][:, None] * cb[:, cols].T) / tb[rows, cols][:, None]
            if p.paired:
                v[rows, cols] = (wa_[rows] * (rb - ra) ** 2).sum(axis=1)
            else:
                v[rows, cols] = (na / (na - 1) * (wa_[rows] * ra * ra).sum(axis=1)
                                 + nb / (nb - 1) * (wb_[rows] * rb * rb).sum(axis=1))
        if p.paired:
            v = na / (na - 1) * v
        return np.maximum(v, 0.0)

    return (np.sqrt(variance(np.ones((1, na)), np.ones((1, nb))))[0], np.sqrt(variance(wa, wb)))


@dataclass
class Family:
    """One family of cells (a curve over N in one group, or a scalar): per column the standard
    error `se`, `t` = |diff| / se, `alike` (every replicate alike there, or no se: nothing to test;
    t is NaN), `thin` (too few documents differ there: more than alpha of the replicates drew only
    alike ones) and `live` (the columns the family tests: neither); the family's observed `max_t`
    over its live columns, its `critical` value (the (1 - alpha) quantile of the replicates' max
    |t|), its `p`-value, the `replicates` behind them, and `passes` (set by the caller from
    benjamini_hochberg). With no live column, max_t, critical and p are NaN: nothing to test."""
    se: np.ndarray
    t: np.ndarray
    alike: np.ndarray
    thin: np.ndarray
    live: np.ndarray
    max_t: float
    critical: float
    p: float
    replicates: int
    passes: bool = False

    @property
    def tested(self) -> bool:
        return bool(self.live.any())

    def outside(self) -> np.ndarray:
        """[columns]: the live cells outside the simultaneous band (t above the critical value)."""
        if not self.tested or math.isnan(self.critical):
            return np.zeros(self.live.shape, bool)
        return self.live & (np.nan_to_num(self.t, nan=0.0) > self.critical)


def max_t(diff: np.ndarray, reps: np.ndarray, se: np.ndarray, se_reps: np.ndarray, alpha: float) -> Family:
    """The max-|t| bootstrap of one family (SPEC §2b), studentized: `diff` [columns] the point
    differences and `se` their standard errors, `reps` [B, columns] the replicates' differences
    and `se_reps` each replicate's own standard errors (difference()'s). A replicate's t at a
    column is its deviation from the point difference over its own standard error there, and its
    largest |t| over the live columns estimates how far the largest standardized deviation reaches
    by chance alone; the (1 - alpha) quantile of that maximum (numpy's linear interpolation) is the
    critical value, and the p-value is (1 + the replicates whose largest |t| reaches the observed
    max |diff| / se) / (1 + replicates).

    Left out of the family: the columns alike in every replicate (their sd at most ALIKE) or
    with se at most ALIKE, and the thin ones, where more than alpha of the replicates drew only
    documents alike there (their own se at most ALIKE: the studentized bootstrap cannot say how far
    t reaches). At a live column a replicate whose own se is at most ALIKE counts as t = 0 where it
    does not deviate and t = inf where it does (the conservative side)."""
    diff = np.asarray(diff, np.float64)
    reps = np.asarray(reps, np.float64)
    se = np.asarray(se, np.float64)
    se_reps = np.asarray(se_reps, np.float64)
    finite = np.isfinite(reps)
    count = finite.sum(axis=0)
    with np.errstate(invalid="ignore", divide="ignore"):
        mean = np.where(finite, reps, 0.0).sum(axis=0) / count
        sd = np.sqrt(np.where(finite, (reps - mean) ** 2, 0.0).sum(axis=0) / (count - 1))
    alike = ~(np.isfinite(diff) & (count >= 2) & np.isfinite(sd) & (sd > ALIKE) & np.isfinite(se) & (se > ALIKE))
    thin = ~alike & (((se_reps <= ALIKE) | ~np.isfinite(se_reps)).mean(axis=0) > alpha)
    live = ~alike & ~thin
    t = np.full(diff.shape, np.nan)
    t[~alike] = np.abs(diff[~alike]) / se[~alike]
    if not live.any():
        return Family(se, t, alike, thin, live, math.nan, math.nan, math.nan, 0)
    dev = np.abs(reps[:, live] - diff[live])
    den = se_reps[:, live]
    with np.errstate(invalid="ignore", divide="ignore"):
        z = np.where(den > ALIKE, dev / den, np.where(dev > ALIKE, np.inf, 0.0))
    z = np.where(np.isnan(dev) | np.isnan(den), -np.inf, z).max(axis=1)  # a replicate undefined at a column skips it
    z = z[z > -np.inf]
    observed = float(t[live].max())
    if not z.size:
        return Family(se, t, alike, thin, live, observed, math.nan, math.nan, 0)
    critical = _quantile(z, 1.0 - alpha)
    p = (1.0 + float((z >= observed).sum())) / (1.0 + z.size)
    return Family(se, t, alike, thin, live, observed, critical, p, int(z.size))


def _quantile(x: np.ndarray, q: float) -> float:
    """numpy's linear-interpolation quantile of x, inf where it would interpolate towards an
    infinite value (numpy's gives NaN or an arbitrary large number there)."""
    x = np.sort(x)
    pos = (x.size - 1) * q
    lo, hi = int(math.floor(pos)), int(math.ceil(pos))
    if math.isinf(x[hi]):
        return math.inf
    return float(x[lo] + (x[hi] - x[lo]) * (pos - lo))


def benjamini_hochberg(p_values, alpha: float) -> tuple[float, np.ndarray]:
    """(threshold, passes) of the Benjamini-Hochberg step-up procedure at level alpha over the
    p-values given (NaN: a family with nothing to test, neither counted nor passing): the
    largest k with p_(k) <= alpha k / m, the threshold alpha k / m (0 when no k is), and which
    p-values are at most it."""
    p = np.asarray(p_values, np.float64)
    tested = np.isfinite(p)
    m = int(tested.sum())
    passes = np.zeros(p.shape, bool)
    if m == 0:
        return 0.0, passes
    ordered = np.sort(p[tested])
    ok = np.nonzero(ordered <= alpha * np.arange(1, m + 1) / m)[0]
    if not ok.size:
        return 0.0, passes
    threshold = alpha * (ok[-1] + 1) / m
    passes[tested] = p[tested] <= threshold
    return threshold, passes
