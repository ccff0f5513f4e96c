"""Figs. 5-6: the global curves against N: P(r_max, N) and R(r_min, N) with their bootstrap
bands, the random control, the envelopes of the measured samples themselves (the result's
"envelopes") and those of the --bounds files (Theorems 1-2), and
corr(R(r_min, N), rho0) globally and per layer.
"""
from __future__ import annotations

import os
from typing import TYPE_CHECKING, Sequence

from .common import (arr, finite, is_number, log_n_axis, new_figure, np, optional_curve,
                     outside_legend, plt)

if TYPE_CHECKING:
    from matplotlib.figure import Figure

    from .runs import Model

# (upper, lower) envelope colours of the 1st, 2nd, ... bounds file beside one measure
BOUND_COLORS = (("tab:orange", "tab:green"), ("tab:brown", "tab:olive"), ("tab:pink", "tab:cyan"))


def ci_arrays(g, key, n):
    """(lo, hi) arrays of an optional interval key, or None when absent or all null."""
    v = g.get(key) if isinstance(g, dict) else None
    if v is None:
        return None
    if isinstance(v, dict):
        lo, hi = arr(v["lo"]), arr(v["hi"])
    else:
        lo = np.full(n, np.nan)
        hi = np.full(n, np.nan)
        for i, p in enumerate(v):
            if p is not None:
                lo[i] = np.nan if p[0] is None else float(p[0])
                hi[i] = np.nan if p[1] is None else float(p[1])
    if not (np.isfinite(lo) & np.isfinite(hi)).any():
        return None
    return lo, hi


def model_color(i):
    """The i-th model's colour (tab10, cycling)."""
    return plt.get_cmap("tab10")(i % 10)


def ci_level(m):
    """The coverage of a model's intervals as the result's "bootstrap.percentiles" give it
    ("95%", SPEC section 2b's, where they do not say; "80%" from a run with --ci 80)."""
    b = m.doc.get("bootstrap")
    pc = b.get("percentiles") if isinstance(b, dict) else None
    if isinstance(pc, list) and len(pc) == 2 and all(finite(x) for x in pc):
        return f"{pc[1] - pc[0]:g}%"
    return "95%"


def bootstrap_note(m):
    """The legend text of a model's bootstrap bands, from the result's "bootstrap":
    "bootstrap 95% CI (B=2000, 8 documents)"."""
    b = m.doc.get("bootstrap")
    level = ci_level(m)
    parts = []
    if isinstance(b, dict):
        if is_number(b.get("replicates")):
            parts.append(f"B={int(b['replicates'])}")
        unit = b.get("unit") if isinstance(b.get("unit"), str) and b.get("unit") else "document"
        if is_number(b.get("units")):
            n = int(b["units"])
            parts.append(f"{n} {unit}{'' if n == 1 else 's'}")
    return f"bootstrap {level} CI" + (" (" + ", ".join(parts) + ")" if parts else "")


def random_note(m):
    """The legend text of the random control: "random selection (<n> perm.)" when the result
    says how many permutations."""
    c = m.doc.get("controls") or (m.doc.get("settings") or {}).get("controls")
    if isinstance(c, dict) and is_number(c.get("random_permutations")):
        return f"random selection ({int(c['random_permutations'])} perm.)"
    return "random selection"


def bootstrap_state(m):
    """A model's bootstrap as {"intervals", "few", "units", "unit", "why"}, or None when the run
    had none. "intervals": whether the result has any interval (False below two resampled
    units: then no *_ci key); "few": 2 <= units < 10. Older results that do not say are read
    from "units" alone."""
    b = m.doc.get("bootstrap")
    if not isinstance(b, dict):
        return None
    units = int(b["units"]) if is_number(b.get("units")) else None
    unit = b.get("unit") if isinstance(b.get("unit"), str) and b.get("unit") else "document"
    intervals = b.get("intervals")
    if not isinstance(intervals, bool):
        intervals = units is None or units >= 2
    few = b.get("few_units")
    if not isinstance(few, bool):
        few = units is not None and units < 10
    few = intervals and few
    why = b.get("why") if isinstance(b.get("why"), str) and b.get("why").strip() else None
    if why is None and not intervals:
        why = (f"the bootstrap resampled {units} {unit}{'' if units == 1 else 's'}; "
               "intervals need 2 at least") if units is not None else "fewer than 2 units"
    return {"intervals": intervals, "few": few, "units": units, "unit": unit, "why": why}


def bootstrap_usable(m):
    """Whether the model's intervals are drawn: not from fewer than two resampled units
    (bootstrap_state's "intervals"; True without a bootstrap, which has no intervals)."""
    state = bootstrap_state(m)
    return state is None or state["intervals"]


def shorten(text, width=72):
    """The first sentence of text, without its full stop, cut at a word to at most width
    characters (an ellipsis marks the cut)."""
    first = text.strip().split(". ")[0].rstrip(".").strip()
    if len(first) <= width:
        return first
    cut = first[:width - 1].rsplit(" ", 1)[0].rstrip(",;:")
    return cut + "\u2026"


def interval_note(m):
    """What a caption says of a model's intervals: "no intervals: <why>" when the run has none,
    "intervals from U documents (few)" when they rest on fewer than ten units, else ""."""
    state = bootstrap_state(m)
    if state is None:
        return ""
    if not state["intervals"]:
        return "no intervals: " + shorten(state["why"], 58)
    if state["few"] and state["units"] is not None:
        n = state["units"]
        return f"intervals from {n} {state['unit']}{'' if n == 1 else 's'} (few)"
    return ""


def draw_pr_panel(ax, m, g, key, grid, color="tab:blue", label=None, bands=True):
    """The curve g[key] against N: the measured mean, and with bands its bootstrap band, the
    random control with its band and a ring on every N where the CI of the difference
    (top-N minus random) excludes 0. No band and no ring without intervals (fewer than two
    resampled units: interval_note says why)."""
    n = len(grid)
    boot = bootstrap_usable(m)
    y = arr(g[key])
    ci = ci_arrays(g, key + "_ci", n) if bands and boot else None
    if ci is not None:
        ax.fill_between(grid, ci[0], ci[1], color=color, alpha=0.22, lw=0,
                        label=bootstrap_note(m))
    rnd = optional_curve(g, key + "_random") if bands else None
    rci = ci_arrays(g, key + "_random_ci", n) if bands and boot and rnd is not None else None
    if rci is not None:
        ax.fill_between(grid, rci[0], rci[1], color="0.5", alpha=0.18, lw=0)
    if rnd is not None:
        ax.plot(grid, rnd, color="0.45", ls=(0, (4, 2)), lw=1.2, marker=".", ms=3,
                label=random_note(m))
    ax.plot(grid, y, color=color, lw=1.8, marker="o", ms=2.5, label=label or "measured mean")
    diff = ci_arrays(g, key + "_diff_ci", n) if bands and boot else None
    if diff is not None:
        with np.errstate(invalid="ignore"):
            sig = (diff[0] > 0) | (diff[1] < 0)
        if sig.any():
            state = bootstrap_state(m)
            few = ", few units" if state is not None and state["few"] else ""
            ax.plot(np.asarray(grid)[sig], y[sig], "o", ms=5, mfc="none", mec=color, mew=0.9,
                    gid="significance-rings",
                    label=f"top-$N$ $\\neq$ random\n({ci_level(m)} CI of the difference{few})")


# The envelopes of the measure's own samples, and where a measured mean leaves them.
OWN_COLORS = ("tab:red", "tab:purple")  # upper, lower
FREE_COLOR = "#5a0000"  # the kappa-free upper envelope and the means above it


def percent(share):
    """A share in [0, 1] as a percentage: "11%", "0.4%"."""
    pct = 100.0 * share
    return f"{pct:.0f}%" if pct == 0 or pct >= 1 else f"{pct:.1g}%"


def leaving(m, g, key, env, name, up):
    """A bool array over the grid: the N where the group's mean g[key] lies above (up) or below
    the envelope env[name]; from the result's env["leaves"][name] (N values) where it has it,
    else from the arrays."""
    grid = np.asarray(m.grid, dtype=float)
    leaves = env.get("leaves")
    if isinstance(leaves, dict) and isinstance(leaves.get(name), list):
        want = [float(x) for x in leaves[name] if is_number(x)]
        return np.isin(grid, want)
    if name not in env:
        return np.zeros(len(grid), dtype=bool)
    y, e = arr(g[key]), arr(env[name])
    with np.errstate(invalid="ignore"):
        return (y > e) if up else (y < e)


def draw_own_envelopes(ax, m, g, key, lo, up):
    """SPEC §5's bounds of the very samples measured (the result's "envelopes") at the run's
    kappa, with how often the lower bounds are non-trivial; the kappa-free upper envelope
    (kappa -> 0+) where the result has it; a cross on every N whose measured mean lies outside
    the kappa envelopes and a filled mark where it lies above the kappa-free one. These are the
    realized envelopes (each sample's own cosines): they restate the samples' own distance
    comparisons where the sink is not selected, a consistency check of the algebra and not a
    test of the theory (SPEC §5), and the legend says so."""
    env = g.get("envelopes")
    if not isinstance(env, dict):
        return
    kappa = ((m.doc.get("settings") or {}).get("envelopes") or {}).get("kappa")
    tag = (f"realized: the samples' own cosines, $\\kappa$ = {kappa:g}" if finite(kappa)
           else "realized: the samples' own cosines")
    e_up, e_lo, y = arr(env[up]), arr(env[lo]), arr(g[key])
    # Beside predicted envelopes the realized ones are drawn faint: a consistency check.
    faint = 0.35 if isinstance(g.get("predicted_envelopes"), dict) else 1.0
    ax.plot(m.grid, e_up, color=OWN_COLORS[0], ls=":", lw=1.8, alpha=faint, label=f"upper bound ({tag})")
    lower = f"lower bound ({tag})"
    share = env.get("nontrivial_share")
    if finite(share):
        lower += f"\nbounds non-trivial in {percent(share)} of (sample, $N$)"
    ax.plot(m.grid, np.maximum(e_lo, 0.0), color=OWN_COLORS[1], ls="--", lw=1.6, alpha=faint, label=lower)
    up0 = up + "0"
    e_up0 = optional_curve(env, up0)
    if e_up0 is not None:
        ax.plot(m.grid, e_up0, color=FREE_COLOR, ls="-.", lw=1.3, alpha=faint, gid="kappa-free-upper",
                label="upper bound, $\\kappa$-free ($\\kappa \\to 0^+$), realized:\n"
                      "a consistency check, not a test of the theory")
    which = key.split("_")[0]  # P or R: the legend gathers both panels' marks
    outside = leaving(m, g, key, env, up, True) | leaving(m, g, key, env, lo, False)
    if outside.any():
        ax.plot(np.asarray(m.grid)[outside], y[outside], "x", color="k", ms=7, mew=1.3,
                gid="outside-envelopes",
                label=f"{which}: mean outside its own envelopes ({int(outside.sum())} of {len(y)} $N$)")
    above = leaving(m, g, key, env, up0, True) if e_up0 is not None else None
    if above is not None and above.any():
        ax.plot(np.asarray(m.grid)[above], y[above], "D", color=FREE_COLOR, ms=4.5,
                gid="above-kappa-free",
                label=f"{which}: mean above the $\\kappa$-free bound ({int(above.sum())} of {len(y)} $N$)")


PREDICTED_COLORS = ("tab:green", "darkgreen")  # upper, lower


def verdict_counts(m):
    """The run's verdicts on the theory (geoattn.verdicts: (head, N) cells per word, P and R), or
    None without predicted envelopes or per-document sums."""
    if "predict_from" not in (m.doc.get("settings") or {}):
        return None
    if m.verdicts is not None:
        return m.verdicts
    try:
        from ..tools.verdicts import envelope_verdicts
        return envelope_verdicts(m.path)
    except (OSError, ValueError, KeyError):
        return None


def draw_predicted_envelopes(ax, m, g, key, lo, up, verdicts):
    """SPEC §5's predicted envelopes (the result's "predicted_envelopes": each sample's measured
    a_i with rho from its head's fitted decay and rho0), the one source of a verdict on the
    theory; the legend gives the per-head verdicts' counts (geoattn.verdicts: intervals with the
    multiplicity over N and heads controlled) for this curve."""
    env = g.get("predicted_envelopes")
    if not isinstance(env, dict):
        return
    source = os.path.basename(((m.doc.get("settings") or {}).get("predict_from") or {}).get("file", "?"))
    ax.plot(m.grid, arr(env[up]), color=PREDICTED_COLORS[0], lw=1.8, gid="predicted-upper",
            label=f"upper bound, predicted (fits of {source})")
    ax.plot(m.grid, np.maximum(arr(env[lo]), 0.0), color=PREDICTED_COLORS[1], lw=1.5, ls=(0, (5, 2)),
            gid="predicted-lower", label="lower bound, predicted")
    if verdicts is not None:
        which = key.split("_")[0]
        c = verdicts["counts"][which]
        words = ", ".join(f"{c[w]} {w}" for w in ("above", "below", "within", "cannot decide"))
        ax.plot([], [], " ", label=f"{which} per head vs predicted, (head, $N$) cells:\n{words}")


def windowed_layers(m):
    """SPEC §1: (W, k, L) when k of the run's L layers have a window W shorter than its longest
    N and their tokens are the keys they see (the smallest such W), else None."""
    settings = m.doc.get("settings") or {}
    windows = settings.get("layer_windows") or []
    if settings.get("window_tokens") != "visible" or not windows:
        return None
    cut = [w for w in windows if is_number(w) and 0 < w < max(m.grid)]
    return (min(cut), len(cut), len(windows)) if cut else None


def draw_windowed_range(ax, m):
    """Shades the N past the shortest window: there the windowed layers have no sample (their
    curves stop at W) and a mean over layers is over the others only."""
    w = windowed_layers(m)
    if w is None:
        return
    W, k, L = w
    ax.axvspan(W, max(m.grid), color="0.5", alpha=0.12, lw=0,
               label=f"$N$ > {W}: {k} of {L} layers have a window of {W} keys\n"
                     f"(at $N$ = {W} they select them all: P = R = 1),\n"
                     f"the mean is over the other {L - k}")


def fig5_pr_vs_n(models: Sequence[Model]) -> Figure | str:
    """Fig. 5: per model, the global P(r_max, N) and R(r_min, N) against N with their bootstrap
    bands (the title says when there are none, or few units), the random control, the
    predicted envelopes where the result has them (SPEC §5: the theory's, with the per-head
    verdicts counted), the realized envelopes of its own samples (kappa and kappa-free: a
    consistency check) and those of its --bounds files."""
    fig, axes = new_figure(len(models), 2, w=6.2, h=3.5)
    for r, m in enumerate(models):
        g = m.doc["global"]
        verdicts = verdict_counts(m)
        for c, (key, lo, up, sym, name) in enumerate((
                ("P_rmax", "P_lo", "P_up", r"$P(r_{\max}, N)$", "Precision"),
                ("R_rmin", "R_lo", "R_up", r"$R(r_{\min}, N)$", "Recall"))):
            ax = axes[r][c]
            draw_windowed_range(ax, m)
            draw_pr_panel(ax, m, g, key, m.grid)
            draw_predicted_envelopes(ax, m, g, key, lo, up, verdicts)
            draw_own_envelopes(ax, m, g, key, lo, up)
            for k, (bp, b, why) in enumerate(m.bounds):
                bg = b["bounds"] if b["source"] == "params" else b["global"]
                parts = ([os.path.basename(bp)] if len(m.bounds) > 1 else []) + (
                    [why] if why else [])
                tag = f" ({', '.join(parts)})" if parts else ""
                c_up, c_lo = BOUND_COLORS[k % len(BOUND_COLORS)]
                ax.plot(m.grid, arr(bg[up]), color=c_up, ls=":", lw=1.6,
                        label=f"upper bound{tag}")
                ax.plot(m.grid, np.maximum(arr(bg[lo]), 0.0), color=c_lo, ls="--", lw=1.4,
                        label=f"lower bound{tag}")
            log_n_axis(ax, m.grid)
            ax.set_ylim(-0.03, 1.03)
            ax.set_ylabel(sym)
            title = f"{m.label}: {name} (global mean, {g.get('samples', '?')} samples)"
            caption = interval_note(m)
            ax.set_title(title + ("\n" + caption if caption else ""),
                         fontsize=9 if caption else None)
            if c == 1:  # one legend per row: this panel's entries, then the other's marks
                handles, names = ax.get_legend_handles_labels()
                for hd, nm in zip(*axes[r][0].get_legend_handles_labels()):
                    if nm not in names:
                        handles.append(hd)
                        names.append(nm)
                outside_legend(ax, handles=handles, labels=names)
    predicted = any(isinstance(m.doc["global"].get("predicted_envelopes"), dict) for m in models)
    fig.suptitle("Fig. 5: separability against N; " + (
        "green: Theorems 1-2 predicted from the fitted assumptions, faint: realized (a consistency check)" if predicted
        else "Theorems 1-2 realized on each sample's own cosines (a consistency check, not a test of the theory)"),
        fontsize=11)
    return fig


def fig6_sink_recall_corr(models: Sequence[Model]) -> Figure | str:
    """Fig. 6: corr(R(r_min, N), rho0) against N, global (with its bootstrap band and rho0) and
    per layer (thin lines), every model in one panel."""
    fig, axes = new_figure(1, 1, w=9.5, h=4.4)
    ax = axes[0][0]
    anything = False
    for i, m in enumerate(models):
        color = model_color(i)
        first_layer = True
        if len(models) == 1:
            draw_windowed_range(ax, m)
        for lg in m.layer_list:
            y = arr(lg["sink_recall_corr"])
            if np.isfinite(y).any():
                anything = True
                ax.plot(m.grid, y, color=color, lw=0.6, alpha=0.4,
                        label=(f"{m.label}: layers (thin)" if first_layer else None))
                first_layer = False
        g = m.doc["global"]
        y = arr(g["sink_recall_corr"])
        ci = ci_arrays(g, "sink_recall_corr_ci", len(m.grid)) if bootstrap_usable(m) else None
        if ci is not None:
            ax.fill_between(m.grid, ci[0], ci[1], color=color, alpha=0.2, lw=0,
                            label=f"{m.label}: {bootstrap_note(m)}")
        rho = g.get("rho0")
        label = f"{m.label}: global"
        if finite(rho):
            label += rf", $\rho_0$ = {rho:.3f}"
            rci = g.get("rho0_ci") if bootstrap_usable(m) else None
            if isinstance(rci, list) and len(rci) == 2 and all(finite(x) for x in rci):
                label += f" [{rci[0]:.3f}, {rci[1]:.3f}]"
        if np.isfinite(y).any():
            anything = True
        ax.plot(m.grid, y, color=color, lw=2.0, marker="o", ms=3, label=label)
    ax.axhline(0, color="0.3", lw=0.8)
    grid_all = [x for m in models for x in m.grid]
    log_n_axis(ax, grid_all)
    ax.set_ylabel(r"corr$(R(r_{\min}, N), \rho_0)$ over samples")
    ax.set_title(r"Fig. 6: sink similarity $\rho_0$ against Recall (Pearson, per $N$)")
    if not anything:
        ax.text(0.5, 0.7, "undefined at every N (no variance)", transform=ax.transAxes,
                ha="center", va="center", color="0.4")
    outside_legend(ax)
    return fig
