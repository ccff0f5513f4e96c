"""Verdicts of the measured curves against the predicted envelopes (SPEC §5, "Which envelope tests
the theory"; §2b, many comparisons at once), from a measure result with predicted envelopes
(`geoattn measure --predict-from`) and its state sidecar's per-document sums.

    from geoattn.verdicts import envelope_verdicts
    v = envelope_verdicts("out/m.json")        # {"heads": [...], "counts": {...}, ...}
    python3 -m geoattn.verdicts out/m.json     # the counts per word; --json for everything
                                               # (the command line: geoattn.tools.verdicts.cli)

Per head with a predicted envelope and per curve (P(r_max, N) against [P_lo, P_up], R(r_min, N)
against [R_lo, R_up]), at every N where the bounds are open (1 < N < n; null elsewhere), one word
of WORDS:
"above" only where the measured mean is above the upper envelope beyond its simultaneous band,
"below" where it is below the lower one so, "within" where the band lies inside both, and "cannot
decide" elsewhere, where every document alike at N (no spread to measure chance by: `live` false)
included. The band is the studentized max-|t| bootstrap over N of the head's curve
(compare_bootstrap.max_t's, one-sided for above and below), resampling documents; each (head,
curve, word) is one family with the p-value of its largest standardized margin, and
Benjamini-Hochberg across every family of the run decides which may speak at all. The envelope's
mean is taken as given (SPEC §5: the interval of the measured mean against the envelope's mean).
numpy only.
"""
from __future__ import annotations

import math
import warnings
from typing import TYPE_CHECKING

from ...console import numpy_for

if TYPE_CHECKING:
    import numpy as np
else:
    np = numpy_for("geoattn.verdicts")  # one line, not a traceback, where numpy is missing (python3 -m)

from ...compare_bootstrap import ALIKE, _quantile, benjamini_hochberg, weights_of
from ...results import RUN_ID, load_measure
from ...unit_sums import UnitSums, read_unit_sums

__all__ = ["WORDS", "CURVES", "FEW_UNITS", "head_band", "envelope_verdicts"]

# SPEC §5: the only words a verdict on the theory uses.
WORDS = ("above", "below", "within", "cannot decide")
# (curve key in the verdicts, the measured curve, its lower and upper envelope)
CURVES = (("P", "P_rmax", "P_lo", "P_up"), ("R", "R_rmin", "R_lo", "R_up"))
# SPEC §2b: intervals from fewer documents than this are flagged as from few units.
FEW_UNITS = 10
# Replicates per chunk when building the replicates' standard errors ([chunk, U, G] at a time).
_CHUNK = 128


def _ratio_se(S: np.ndarray, C: np.ndarray, W: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(means [B, G], standard errors [B, G]) of ratio means sum_u w S_u / sum_u w C_u over the
    documents, for each weight row of W [B, U]: the delta-method standard error
    sqrt(U/(U-1) sum_u w_u (S_u - m C_u)^2) / sum_u w_u C_u, from the residuals themselves."""
    U = S.shape[0]
    means, ses = np.empty((W.shape[0], S.shape[1])), np.empty((W.shape[0], S.shape[1]))
    for b0 in range(0, W.shape[0], _CHUNK):
        w = W[b0:b0 + _CHUNK]
        with np.errstate(invalid="ignore", divide="ignore"):
            c = w @ C
            m = (w @ S) / c
            r = S[None, :, :] - m[:, None, :] * C[None, :, :]  # [b, U, G]
            v = np.einsum("bu,bug->bg", w, r * r) * (U / (U - 1.0))
            means[b0:b0 + _CHUNK], ses[b0:b0 + _CHUNK] = m, np.sqrt(v) / c
    return means, ses


def head_band(units: UnitSums, layer: int, head: int, name: str, W: np.ndarray) -> dict:
    """The head's curve `name`: its mean "m" and standard error "se" [G] over every document, its
    replicates' means "reps" and own standard errors "se_reps" [B, G] under the draws W [B, U]."""
    g = units.head_group(layer, head)
    S, C = units.group_sums(g, name), units.group_samples(g, name)
    m, se = _ratio_se(S, C, np.ones((1, S.shape[0])))
    reps, se_reps = _ratio_se(S, C, W)
    return {"m": m[0], "se": se[0], "reps": reps, "se_reps": se_reps}


def _curve(values) -> np.ndarray:
    """A result's curve as float64, NaN for its nulls."""
    return np.array([np.nan if x is None else x for x in values], float)


def _family(t: np.ndarray, z: np.ndarray, alpha: float) -> tuple[float, float]:
    """(p, critical) of a family: t [G] its standardized margins (NaN: not tested), z [B] the
    replicates' largest standardized deviation (the null's reach). p = (1 + #{z >= max t}) / (1 + B)."""
    live = np.isfinite(t)
    z = z[np.isfinite(z)]
    if not live.any() or not z.size:
        return math.nan, math.nan
    observed = float(t[live].max())
    return (1.0 + float((z >= observed).sum())) / (1.0 + z.size), _quantile(z, 1.0 - alpha)


def envelope_verdicts(json_path: str, alpha: float = 0.05, replicates: int | None = None, seed: int | None = None,
                      doc: dict | None = None, units: UnitSums | None = None) -> dict:
    """The verdicts of a measure result with predicted envelopes (module docstring). `replicates`
    and `seed` default to the run's bootstrap's; `doc`: the result as load_measure reads it (read
    from json_path when None); `units`: its per-document sums (json_path's state sidecar's when
    None; a calibration passes documents drawn from them). ValueError when the result has no
    predicted envelopes or no per-document sums at level head."""
    doc = load_measure(json_path) if doc is None else doc
    units = read_unit_sums(json_path, doc) if units is None else units
    source = doc.get("settings", {}).get("predict_from")
    if source is None:
        raise ValueError(f"{json_path}: no predicted envelopes (run geoattn measure with --predict-from RESULT.json)")
    if units.level != "head":
        raise ValueError(f"{json_path}: the per-document sums are at level {units.level}; verdicts per head need "
                         "--bootstrap-level head")
    boot = doc.get("bootstrap", {})
    B = int(replicates if replicates is not None else boot.get("replicates", 2000))
    seed = int(seed if seed is not None else boot.get("seed", 0))
    U = len(units.ids)
    if U < 2:  # SPEC §2b: no interval from fewer than 2 units, so no verdict
        raise ValueError(f"{json_path}: {U} document: no intervals to read a verdict from (SPEC §2b)")
    rng = np.random.Generator(np.random.PCG64(seed))
    W = weights_of(rng.integers(0, U, size=(B, U)), U)
    n_grid = doc["n_grid"]
    tests: list[tuple] = []  # (head index, curve key, word, t [G], z [B])
    heads: list[dict] = []
    without = 0
    for hd in doc["heads"]:
        pe = hd.get("predicted_envelopes")
        if pe is None or not any(s > 0 for s in pe["samples"]):
            without += 1
            continue
        l, h = hd["layer"], hd["head"]
        entry = {"layer": l, "head": h}
        for key, name, lo_key, up_key in CURVES:
            b = head_band(units, l, h, name, W)
            lo, up, nontrivial = (_curve(pe[k]) for k in (lo_key, up_key, "nontrivial"))
            m, se, reps, se_reps = b["m"], b["se"], b["reps"], b["se_reps"]
            # Live N: open (the bounds are not 1 by definition: nontrivial defined), an envelope, a
            # standard error, and replicates that differ (compare_bootstrap.max_t's rules).
            with warnings.catch_warnings():  # a column no replicate reaches (past a layer's window): NaN
                warnings.simplefilter("ignore", RuntimeWarning)
                sd = np.nanstd(reps, axis=0)
            thin = ((se_reps <= ALIKE) | ~np.isfinite(se_reps)).mean(axis=0) > alpha
            judged = np.isfinite(nontrivial) & np.isfinite(lo) & np.isfinite(up) & np.isfinite(m)
            live = judged & (se > ALIKE) & (sd > ALIKE) & ~thin
            entry[key] = {"mean": m.tolist(), "se": se.tolist(), "judged": judged.tolist(), "live": live.tolist()}
            with np.errstate(invalid="ignore", divide="ignore"), warnings.catch_warnings():
                warnings.simplefilter("ignore", RuntimeWarning)  # a replicate with no live N: its max is NaN
                dev = (reps - m) / np.where(se_reps > ALIKE, se_reps, np.nan)  # [B, G]
                dev = np.where(live, dev, np.nan)
                up_z, down_z, abs_z = (np.nanmax(dev, axis=1), np.nanmax(-dev, axis=1), np.nanmax(np.abs(dev), axis=1))
                t_above = np.where(live, (m - up) / se, np.nan)  # SPEC §5: the mean above P_up / R_up
                t_below = np.where(live, (lo - m) / se, np.nan)  # below P_lo / R_lo
                t_within = np.where(live, np.minimum(m - lo, up - m) / se, np.nan)  # inside both
            for word, t, z in (("above", t_above, up_z), ("below", t_below, down_z), ("within", t_within, abs_z)):
                tests.append((len(heads), key, word, t, z))
        heads.append(entry)
    families = [(i, key, word, t, *_family(t, z, alpha)) for i, key, word, t, z in tests]
    threshold, passes = benjamini_hochberg([f[4] for f in families], alpha)
    for entry in heads:
        for key, *_ in CURVES:
            entry[key]["verdicts"] = [None if not x else "cannot decide" for x in entry[key]["judged"]]
            entry[key]["families"] = {}
    for (i, key, word, t, p, critical), ok in zip(families, passes):
        c = heads[i][key]
        c["families"][word] = {"p": None if math.isnan(p) else p, "critical": None if math.isnan(critical) else critical,
                               "passes": bool(ok)}
        if ok:
            for g in np.nonzero(np.isfinite(t) & (t > critical))[0]:
                c["verdicts"][g] = word
    counts = {key: {w: sum(v == w for e in heads for v in e[key]["verdicts"]) for w in WORDS} for key, *_ in CURVES}
    return {"file": json_path, **({RUN_ID: doc[RUN_ID]} if RUN_ID in doc else {}), "n_grid": n_grid, "alpha": alpha, "replicates": B, "seed": seed, "documents": U,
            "few_units": U < FEW_UNITS,
            "predict_from": {"file": source["file"], "fingerprint": source["fingerprint"]},
            "method": ("per head and curve, the studentized max-|t| bootstrap over the open N (documents resampled); "
                       "one family per (head, curve, word); Benjamini-Hochberg across all families"),
            "families": sum(1 for f in families if not math.isnan(f[4])), "bh_threshold": threshold,
            "heads_without": without, "heads": heads, "counts": counts}
