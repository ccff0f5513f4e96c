"""Figs. 2-4: the per-head fits of the measure JSON (heads[].fits) against Assumptions 1-3:
value-state norms by position (norms), the exponential decay of c(k) (decay) and the
four-phase attention profile (profile).
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Sequence

from .common import arr, empty_panel, finite, head_name, new_figure, np, plt, positive

if TYPE_CHECKING:
    import numpy
    from matplotlib.figure import Figure

    from .runs import Model


def fit_part(h, part):
    """fits[part] when present and ok, else None."""
    fits = h.get("fits")
    if not isinstance(fits, dict):
        return None
    p = fits.get(part)
    if not isinstance(p, dict) or p.get("ok") is False:
        return None
    return p


def pick_quantile_heads(items, count=3):
    """items: [(value, head)] -> heads at the minimum, the median and the maximum value."""
    items = sorted((v, i, h) for i, (v, h) in enumerate(items) if finite(v))
    if not items:
        return []
    idx = sorted({0, (len(items) - 1) // 2, len(items) - 1})[:count]
    return [(items[i][0], items[i][2]) for i in idx]


def heads_with_fit(m, part, key):
    """[(fits[part], head)] of the heads of m whose fit `part` is there with its `key`."""
    rows = [(fit_part(h, part), h) for h in m.head_list]
    return [(p, h) for p, h in rows if p and p.get(key)]


def by_position(rows, key):
    """The per-position arrays fits[part][key] of `rows` as a [heads, T] matrix (T: the
    longest; NaN after a shorter one)."""
    T = max(len(p[key]) for p, _ in rows)
    mat = np.full((len(rows), T), np.nan)
    for k, (p, _) in enumerate(rows):
        a = arr(p[key])
        mat[k, :len(a)] = a
    return mat


def fit_figure(models, part, row, cols, title, **size):
    """One row of `cols` panels per model, drawn by row(m, *axes), under `title`; the reason
    instead when no head of any model has heads[].fits.<part>."""
    if not any(fit_part(h, part) for m in models for h in m.head_list):
        return f"no heads[].fits.{part} in the measure JSON(s)"
    fig, axes = new_figure(len(models), cols, **size)
    for m, panels in zip(models, axes):
        row(m, *panels)
    fig.suptitle(title, fontsize=11)
    return fig


def histogram(ax, values, color, marks, missing, xlabel, title):
    """A panel: the histogram of per-head values (its bin count growing with the heads) with the
    vertical lines marks(values) = [(x, line style, label)], or `missing` when there are none."""
    if values.size:
        ax.hist(values, bins=min(40, max(8, int(np.sqrt(values.size) * 2))), color=color, alpha=0.8,
                edgecolor="white", lw=0.5)
        for x, style, label in marks(values):
            ax.axvline(x, lw=1, label=label, **style)
        ax.legend(loc="best")
    else:
        empty_panel(ax, missing)
    ax.set(xlabel=xlabel, ylabel="heads (layer, head)", title=title)


def fig2_norms(models: Sequence[Model]) -> Figure | str:
    """Fig. 2 (Assumption 1): per model, the value-state norms by position and the histogram of
    their CV (norms_row); the reason instead when no head has heads[].fits.norms."""
    return fit_figure(models, "norms", norms_row, 2,
                      "Fig. 2: value-state norms are stable except the sink (Assumption 1)", w=5.0)


def norms_row(m, ax, ax2):
    """Fig. 2 of one model: mean ||v_i|| by position (quartile band, three heads), the CV histogram."""
    rows = heads_with_fit(m, "norms", "mean_norm")
    if not rows:
        empty_panel(ax, f"{m.label}: no norm fits")
        empty_panel(ax2, "")
        return
    mat = by_position(rows, "mean_norm")
    T = mat.shape[1]
    with np.errstate(all="ignore"):
        mean = np.nanmean(mat, axis=0)
        q25, q75 = np.nanpercentile(mat, 25, axis=0), np.nanpercentile(mat, 75, axis=0)
    pos = np.arange(T)
    ax.fill_between(pos, q25, q75, color="0.6", alpha=0.3, lw=0,
                    label="25-75% of heads")
    examples = pick_quantile_heads([(p.get("cv"), h) for p, h in rows])
    for k, (cv, h) in enumerate(examples):
        p = fit_part(h, "norms")
        ax.plot(pos[:len(p["mean_norm"])], arr(p["mean_norm"]), lw=0.7, alpha=0.8,
                color=plt.get_cmap("Set2")(k), label=f"{head_name(h)} (CV {cv:.3f})")
    ax.plot(pos, mean, color="k", lw=1.6, label=f"mean over {len(rows)} heads")
    if np.isfinite(mean[0]):
        ax.plot([0], [mean[0]], "o", color="tab:red", ms=6, zorder=5,
                label=f"sink $i=0$: {mean[0]:.3g}")
    med = np.nanmedian(mean[1:]) if T > 1 else np.nan
    if np.isfinite(med):
        ax.axhline(med, color="tab:red", ls=":", lw=0.9, label=f"median $i>0$: {med:.3g}")
    ax.set_xlabel("position $i$")
    ax.set_ylabel(r"mean $\Vert v_i\Vert_2$")
    ax.set_title(f"{m.label}: value-state norms by position")
    ax.set_xlim(-T * 0.01, T - 1 + T * 0.01)
    ax.legend(loc="best")

    cvs = np.array([p["cv"] for p, _ in rows if finite(p.get("cv"))])
    histogram(ax2, cvs, "tab:blue",
              lambda v: [(np.median(v), dict(color="k", ls="--"), f"median {np.median(v):.3f}")],
              "no CV values", r"CV of $\Vert v_i\Vert_2$, $i > 0$",
              f"{m.label}: coefficient of variation ({cvs.size} heads)")


def fig3_decay_mae(models: Sequence[Model]) -> Figure | str:
    """Fig. 3 (Assumption 2): per model, the histogram of the decay-fit MAE and c(k) with its fit
    (decay_row); the reason instead when no head has heads[].fits.decay."""
    return fit_figure(models, "decay", decay_row, 2,
                      "Fig. 3: cross-token similarity decays exponentially (Assumption 2)", w=5.0)


def decay_row(m, ax, ax2):
    """Fig. 3 of one model: the MAE histogram, c(k) and its fit for three heads."""
    rows = [(fit_part(h, "decay"), h) for h in m.head_list]
    rows = [(p, h) for p, h in rows if p]
    maes = np.array([p["mae"] for p, _ in rows if finite(p.get("mae"))])
    histogram(ax, maes, "tab:purple",
              lambda v: [(v.mean(), dict(color="k", ls="--"), f"mean {v.mean():.3f}"),
                         (np.median(v), dict(color="0.4", ls=":"), f"median {np.median(v):.3f}")],
              "no MAE values", r"MAE of $c(k) \approx e^{-\beta k}$",
              f"{m.label}: exponential-decay fit error ({maes.size} heads)")

    examples = pick_quantile_heads([(p.get("mae"), h) for p, h in rows])
    for k, (mae, h) in enumerate(examples):
        p = fit_part(h, "decay")
        c = arr(p.get("c") or [])
        if not c.size:
            continue
        ks = np.arange(1, c.size + 1)
        color = plt.get_cmap("tab10")(k)
        ax2.plot(ks, c, "o", ms=2.5, color=color,
                 label=f"{head_name(h)}: $c(k)$, MAE {mae:.3f}")
        if finite(p.get("beta")):
            ax2.plot(ks, np.exp(-p["beta"] * ks), "-", lw=1.2, color=color,
                     label=rf"$e^{{-\beta k}}$, $\beta$ = {p['beta']:.3g}")
    if not examples:
        empty_panel(ax2, "no decay fits")
    else:
        ax2.axhline(0, color="0.5", lw=0.6)
        ax2.legend(loc="best", ncol=1)
    ax2.set_xlabel(r"distance $k = |i - j|$")
    ax2.set_ylabel(r"$c(k)$ = mean $\cos(v_i, v_j)$, $i, j > 0$")
    ax2.set_title(f"{m.label}: $c(k)$ of the min / median / max MAE heads")


def profile_model(p: dict, T: int) -> numpy.ndarray:
    """Assumption 3: alpha_0 = p_sink; p_base for 1 <= i <= T1;
    p_base (1 + eta cos(omega i)) for T1 < i <= T2; p_base exp(eta (i - T2)) for i > T2."""
    i = np.arange(T, dtype=float)
    ps, pb, eta, om = (float(p[k]) for k in ("p_sink", "p_base", "eta", "omega"))
    T1, T2 = float(p["T1"]), float(p["T2"])
    out = np.where(i <= T1, pb,
                   np.where(i <= T2, pb * (1.0 + eta * np.cos(om * i)),
                            pb * np.exp(np.clip(eta * (i - T2), -700, 700))))
    out[0] = ps
    return out


def fig4_profile(models: Sequence[Model]) -> Figure | str:
    """Fig. 4 (Assumption 3): per model, the mean attention row and the best, median and worst
    four-phase fits (profile_row); the reason instead when no head has heads[].fits.profile."""
    return fit_figure(models, "profile", profile_row, 4,
                      "Fig. 4: attention mass by position: sink, plateau, oscillation, recency (Assumption 3)",
                      w=3.8, h=3.1)


def profile_row(m, *axes):
    """Fig. 4 of one model: the mean attention row, then the best, median and worst fitted heads."""
    needed = ("p_sink", "p_base", "eta", "omega", "T1", "T2")
    rows = heads_with_fit(m, "profile", "mean_row")
    if not rows:
        for ax in axes:
            empty_panel(ax, f"{m.label}: no profile fits")
        return
    mat = by_position(rows, "mean_row")
    T = mat.shape[1]
    with np.errstate(all="ignore"):
        mean = np.nanmean(mat, axis=0)
    ax = axes[0]
    ax.semilogy(np.arange(T), positive(mean), color="k", lw=1)
    ax.plot([0], positive(mean[:1]), "o", color="tab:red", ms=5, label="sink $i=0$")
    ax.set_title(f"{m.label}: mean over {len(rows)} heads")
    ax.set_xlabel("position $i$")
    ax.set_ylabel(r"mean attention $\bar\alpha_i$ (last query)")
    ax.legend(loc="best")

    fitted = [(p.get("error"), h) for p, h in rows
              if all(finite(p.get(k)) for k in needed)]
    examples = pick_quantile_heads(fitted)
    names = ("best fit", "median fit", "worst fit")
    if len(examples) < 3:
        names = names[:len(examples)]
    for k in range(3):
        ax = axes[k + 1]
        if k >= len(examples):
            empty_panel(ax, "no further fitted head")
            continue
        err, h = examples[k]
        p = fit_part(h, "profile")
        row = arr(p["mean_row"])
        pos = np.arange(row.size)
        ax.semilogy(pos, positive(row), color="0.35", lw=0.8, label="measured")
        ax.semilogy(pos, positive(profile_model(p, row.size)), color="tab:orange", lw=1.4,
                    label="four-phase fit")
        marks = ([(p["T1"], "$T_1$=$T_2$")] if p["T1"] == p["T2"]
                 else [(p["T1"], "$T_1$"), (p["T2"], "$T_2$")])
        for t, name in marks:
            ax.axvline(t, color="tab:blue", ls=":", lw=0.9)
            ax.text(t, 0.98 if name.startswith("$T_1") else 0.9, f" {name}={int(t)}",
                    transform=ax.get_xaxis_transform(),
                    va="top", ha="left", fontsize=7, color="tab:blue")
        ax.set_title(f"{head_name(h)} ({names[k]}, RMSE$_{{\\log}}$ {err:.2f})")
        ax.set_xlabel("position $i$")
        ax.set_ylabel(r"$\bar\alpha_i$")
        ax.legend(loc="lower right" if row.size > 2 else "best",
                  title=(rf"$p_{{\mathrm{{sink}}}}$={p['p_sink']:.2g}, "
                         rf"$p_{{\mathrm{{base}}}}$={p['p_base']:.2g}"
                         "\n" rf"$\eta$={p['eta']:.3g}, $\omega$={p['omega']:.3g}"),
                  title_fontsize=7)
