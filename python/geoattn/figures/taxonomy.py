"""Figs. 7, 8 and 11: the head regimes (the --taxonomy labels Retriever, Mixer, Reset, and
Unlabelled for a head that meets no rule): the diagnostics of s(N) of one head per regime, the
regimes per layer and P, R against N averaged per regime.
"""
from __future__ import annotations

import math
from typing import TYPE_CHECKING, Sequence, cast

from .common import (LABEL_COLORS, REGIMES, UNLABELLED, arr, empty_panel, finite, head_name,
                     is_number, label_color, log_n_axis, new_figure, np, optional_curve,
                     ordered_labels, outside_legend, taxonomy_classes)
from .curves import random_note

if TYPE_CHECKING:
    from matplotlib.figure import Figure

    from .runs import Model

PROXY_TEX = {"max c_last": r"max $c_{\mathrm{last}}$",
             "median c_last": r"median $c_{\mathrm{last}}$",
             "max c_sink": r"max $c_{\mathrm{sink}}$"}


def fig7_columns(models):
    """Column keys and, per model, the head shown in each column."""
    tax_labels = []
    for m in models:
        if m.taxonomy is not None:
            tax_labels += [h["label"] for h in m.taxonomy["heads"]]
    proxies = ("max c_last", "median c_last", "max c_sink")
    proxy_of = dict(zip(REGIMES, proxies))
    # With a taxonomy: the paper's three regimes always (a regime no head has shows the head
    # closest to it), then any other label present (Unlabelled); without: the c_last / c_sink
    # extremes.
    columns = (list(REGIMES) + [x for x in ordered_labels(tax_labels) if x not in REGIMES]
               if tax_labels else list(proxies))

    def val(h, k):
        v = h.get(k)
        return v if finite(v) else -math.inf

    def choose(heads, how):
        if not heads:
            return None
        if how in ("Retriever", "max c_last"):
            return max(heads, key=lambda h: val(h, "c_last"))
        if how in ("Reset", "max c_sink"):
            return max(heads, key=lambda h: val(h, "c_sink"))
        s = sorted(heads, key=lambda h: val(h, "c_last"))
        return s[(len(s) - 1) // 2]

    picks = []
    for m in models:
        row = []
        labels = m.labels_of_heads()
        tax_heads = ({(t["layer"], t["head"]): t for t in m.taxonomy["heads"]}
                     if m.taxonomy is not None else {})
        for col in columns:
            color = LABEL_COLORS.get(col, "tab:blue")
            if labels is not None:
                heads = [h for h in m.head_list if labels.get((h["layer"], h["head"])) == col]
                h = choose(heads, col)
                if h is not None:
                    why = f"{col}\n{head_name(h)} (1 of {len(heads)} {col} heads)"
                    closest = tax_heads.get((h["layer"], h["head"]), {}).get("closest")
                    if col == UNLABELLED and isinstance(closest, str):
                        why += f", closest: {closest}"
                elif col in proxy_of:
                    proxy = proxy_of[col]
                    h = choose(m.head_list, proxy)
                    actual = labels.get((h["layer"], h["head"]), "?")
                    why = (f"no {col} head\nclosest: {head_name(h)} "
                           f"({PROXY_TEX[proxy]}, a {actual})")
                    color = LABEL_COLORS.get(actual, "0.3")
                else:
                    why = f"no {col} head"
            elif tax_labels:
                proxy = proxy_of.get(col, "median c_last")
                h = choose(m.head_list, proxy)
                why = f"{col} (no taxonomy)\n{head_name(h)} ({PROXY_TEX[proxy]})"
                color = "0.3"
            else:
                h = choose(m.head_list, col)
                why = f"{PROXY_TEX[col]}\n{head_name(h)}"
                color = ("tab:blue", "tab:green", "tab:red")[columns.index(col)]
            row.append((h, why, color))
        picks.append(row)
    return columns, picks


def fig7_s_diagnostics(models: Sequence[Model]) -> Figure | str:
    """Fig. 7: per model, ||s(N)|| with its leave-one-out norms (top) and cos(s, v_0),
    cos(s, v_L) (bottom) of the head of each column of fig7_columns."""
    columns, picks = fig7_columns(models)
    fig, axes = new_figure(2 * len(models), len(columns), w=4.2, h=2.9)
    for r, m in enumerate(models):
        for c, col in enumerate(columns):
            top, bot = axes[2 * r][c], axes[2 * r + 1][c]
            h, why, color = picks[r][c]
            if h is None:
                empty_panel(top, f"{m.label}\n{why}")
                empty_panel(bot, "")
                continue
            top.plot(m.grid, arr(h["s_norm"]), color=color, lw=1.8, label=r"$\Vert s(N)\Vert$")
            top.plot(m.grid, arr(h["s_loo_sink"]), color="k", ls="-.", lw=1.1,
                     label=r"$\Vert s(N \backslash \{0\})\Vert$")
            top.plot(m.grid, arr(h["s_loo_last"]), color="0.45", ls="--", lw=1.1,
                     label=r"$\Vert s(N \backslash \{L\})\Vert$")
            log_n_axis(top, m.grid)
            top.set_xlabel("")
            top.set_ylabel("norm")
            feats = []
            for k in ("c_sink", "c_last", "c_rest"):
                sym = r"c_{\mathrm{%s}}" % k[2:]
                if finite(h.get(k)):
                    feats.append(f"${sym}$={h[k]:.2g}")
            top.set_title(f"{m.label}: {why}\n" + ", ".join(feats), fontsize=8)
            top.legend(loc="best")
            bot.plot(m.grid, arr(h["cos_s_v0"]), color=color, lw=1.8, label=r"$\cos(s, v_0)$")
            bot.plot(m.grid, arr(h["cos_s_vL"]), color=color, ls="--", lw=1.8,
                     label=r"$\cos(s, v_L)$")
            bot.axhline(0, color="0.5", lw=0.6)
            both = np.concatenate([arr(h["cos_s_v0"]), arr(h["cos_s_vL"])])
            both = both[np.isfinite(both)]
            if both.size:
                bot.set_ylim(max(-1.05, min(-0.05, both.min() - 0.1)),
                             min(1.05, max(0.05, both.max() + 0.1)))
            log_n_axis(bot, m.grid)
            bot.set_ylabel("cosine")
            bot.legend(loc="best")
    fig.suptitle(r"Fig. 7: diagnostics of $s(N)$ by head regime (means over samples)",
                 fontsize=11)
    return fig


def unlabelled_note(tax):
    """"; closest: Mixer 2, Reset 1": the rules the taxonomy's Unlabelled heads came closest to
    (their "closest"), or "" when none says."""
    closest = {}
    for h in tax.get("heads") or []:
        if h.get("label") == UNLABELLED and isinstance(h.get("closest"), str):
            closest[h["closest"]] = closest.get(h["closest"], 0) + 1
    if not closest:
        return ""
    return "; closest: " + ", ".join(f"{k} {closest[k]}" for k in ordered_labels(closest))


def sensitivity_note(tax):
    """One line on the taxonomy's "sensitivity" rows: per distance of the factor from 1 (10%,
    25%), the most heads whose label changes when one threshold moves that far either way;
    "" without rows."""
    rows = [r for r in tax.get("sensitivity") or []
            if isinstance(r, dict) and is_number(r.get("factor")) and is_number(r.get("changed"))]
    if not rows:
        return ""
    most = {}
    for r in rows:
        step = round(abs(r["factor"] - 1), 6)
        most[step] = max(most.get(step, 0), int(r["changed"]))
    parts = [f"\u00b1{step:.0%}: {most[step]}" for step in sorted(most)]
    return (f"threshold moved ({', '.join(parts)}): the most of {len(tax.get('heads') or [])} "
            "heads that change label")


def fig8_labels_by_layer(models: Sequence[Model]) -> Figure | str:
    """Fig. 8: per model with a --taxonomy, its heads per regime and layer as stacked bars (every
    class of the taxonomy in the legend with its count, Unlabelled in grey); the reason instead
    when no model has one."""
    with_tax = [m for m in models if m.taxonomy is not None]
    if not with_tax:
        return "no --taxonomy given"
    fig, axes = new_figure(1, len(with_tax), w=5.0, h=3.8)
    extra: dict[str, str] = {}
    for c, m in enumerate(with_tax):
        ax = axes[0][c]
        tax = cast(dict, m.taxonomy)  # with_tax: not None
        layers = sorted(tax["layers"], key=lambda g: g["layer"])
        labels = taxonomy_classes(tax)
        x = np.array([g["layer"] for g in layers])
        bottom = np.zeros(len(layers))
        for lab in labels:
            counts = np.array([g.get(lab, 0) for g in layers], dtype=float)
            name = f"{lab} ({int(counts.sum())}"
            name += (unlabelled_note(tax) if lab == UNLABELLED else "") + ")"
            ax.bar(x, counts, bottom=bottom, color=label_color(lab, extra), width=0.8,
                   edgecolor="white", lw=0.4, label=name)
            bottom += counts
        ax.set_xlabel("layer")
        ax.set_ylabel("heads")
        if len(x) <= 40:
            ax.set_xticks(x)
            if len(x) > 16:
                ax.tick_params(axis="x", labelsize=6)
        ax.set_ylim(0, max(bottom.max() * (1.3 if len(labels) > 3 else 1.18), 1))
        ax.grid(axis="x", visible=False)
        title = f"{m.label}: head regimes by layer"
        sens = sensitivity_note(tax)
        if sens:
            title += "\n" + sens
        ax.set_title(title, fontsize=9 if sens else None)
        ax.legend(loc="upper center", ncol=len(labels) if len(labels) <= 3 else 2, frameon=False)
    fig.suptitle("Fig. 8: distribution of the regimes across layers", fontsize=11)
    return fig


def fig11_regimes(models: Sequence[Model]) -> Figure | str:
    """Fig. 11: per model with a --taxonomy, P and R against N averaged over the heads of each
    regime (band: 25-75% of them), with the global mean and the random control."""
    with_tax = [m for m in models if m.taxonomy is not None]
    if not with_tax:
        return "no --taxonomy given"
    fig, axes = new_figure(len(with_tax), 2, w=6.0, h=3.5)
    extra: dict[str, str] = {}
    for r, m in enumerate(with_tax):
        labels = m.labels_of_heads()
        groups: dict[str, list[dict]] = {}
        for h in m.head_list:
            lab = labels.get((h["layer"], h["head"]))
            if lab is not None:
                groups.setdefault(lab, []).append(h)
        for c, (key, sym, name) in enumerate((("P_rmax", r"$P(r_{\max}, N)$", "Precision"),
                                               ("R_rmin", r"$R(r_{\min}, N)$", "Recall"))):
            ax = axes[r][c]
            rnd = optional_curve(m.doc["global"], key + "_random")
            if rnd is not None:
                ax.plot(m.grid, rnd, color="0.45", ls=(0, (4, 2)), lw=1.0,
                        label=random_note(m) + ", all heads")
            ax.plot(m.grid, arr(m.doc["global"][key]), color="k", lw=0.9, alpha=0.6,
                    label="all heads (global)")
            for lab in ordered_labels(groups):
                hs = groups[lab]
                mat = np.vstack([arr(h[key]) for h in hs])
                with np.errstate(all="ignore"):
                    mean = np.nanmean(mat, axis=0)
                color = label_color(lab, extra)
                if len(hs) > 1:
                    with np.errstate(all="ignore"):
                        q25 = np.nanpercentile(mat, 25, axis=0)
                        q75 = np.nanpercentile(mat, 75, axis=0)
                    ax.fill_between(m.grid, q25, q75, color=color, alpha=0.15, lw=0)
                ax.plot(m.grid, mean, color=color, lw=1.8, marker="o", ms=2.5,
                        label=f"{lab} ({len(hs)} heads)")
            log_n_axis(ax, m.grid)
            ax.set_ylim(-0.03, 1.03)
            ax.set_ylabel(sym)
            ax.set_title(f"{m.label}: {name} by regime", fontsize=9.5)
            if c == 1:
                outside_legend(ax, title="mean over heads\n(band: 25-75% of heads)",
                               title_fontsize=7.5)
    fig.suptitle("Fig. 11: precision-recall trade-offs of the head regimes", fontsize=11)
    return fig
