"""The kappa each head allows: per head, by layer, the range of kappa at which
the mean envelopes of Theorems 1-2 bracket its measured P and R at every N; the heads with no
such kappa marked with the assumption they depart from most (the result's "kappa_range").
"""
from .common import new_figure, np

# The marker letter and colour of each named assumption.
FAILS = {"norms": ("n", "tab:purple"), "decay": ("d", "tab:red"), "profile": ("p", "tab:orange"),
         "none stands out": ("?", "0.35")}


def legend_handles():
    """What the marks of fig_kappa_ranges mean: the bar, its ends at the scan's edge, the white dot
    of a range with gaps, the default kappa."""
    from matplotlib.lines import Line2D
    return [Line2D([], [], color="tab:blue", lw=1.6, label=r"$\kappa$ range of a head"),
            Line2D([], [], color="tab:blue", marker="^", ls="none", ms=3,
                   label="range reaches the scan's end (may go past it)"),
            Line2D([], [], marker="o", mfc="white", mec="tab:blue", ls="none", ms=3,
                   label="range with gaps: some kappas inside it do not bracket"),
            Line2D([], [], color="0.5", lw=0.8, ls=":", label=r"$\kappa$ = 1, the envelopes' default")]


def fig_kappa_ranges(models):
    """kappa_ranges: per model whose heads have a "kappa_range", each head's range of kappa as a
    bar by layer, a head without one lettered by the assumption it departs from most; the
    reason instead when no result has one (the scan is opt-in: geoattn measure --kappa-scan)."""
    with_kappa = [m for m in models if "kappa_range" in (m.head_list[0] if m.head_list else {})]
    if not with_kappa:
        return ("no kappa_range in the --measure results: the kappa scan is off by default "
                "(geoattn measure --kappa-scan LIST computes it)")
    fig, axes = new_figure(len(with_kappa), 1, w=max(6.0, 0.35 * max(m.layers for m in with_kappa) + 3), h=3.6)
    for r, m in enumerate(with_kappa):
        ax = axes[r][0]
        kappas = ((m.doc.get("settings") or {}).get("kappa_scan") or {}).get("kappas") or [1.0]
        lo_k, hi_k = min(kappas), max(kappas)
        floor = lo_k / 2 ** 0.75  # where the heads without a range are marked
        H = max(m.heads, 1)
        counts = {name: 0 for name in FAILS}
        with_range = 0
        for h in m.head_list:
            x = h["layer"] + (h["head"] + 0.5) / H - 0.5  # the heads of a layer side by side
            k = h["kappa_range"]
            if k.get("lo") is not None:
                with_range += 1
                ax.plot([x, x], [k["lo"], k["hi"]], color="tab:blue", lw=1.6, solid_capstyle="butt")
                for end, at_edge, marker in (("lo", k.get("lo_at_edge"), "v"), ("hi", k.get("hi_at_edge"), "^")):
                    if at_edge:  # the range may reach past the scan's end
                        ax.plot(x, k[end], marker, color="tab:blue", ms=3)
                if k.get("contiguous") is False:
                    ax.plot(x, np.sqrt(k["lo"] * k["hi"]), "o", mfc="white", mec="tab:blue", ms=3)
            else:
                name = (k.get("fails") or {}).get("assumption", "none stands out")
                letter, color = FAILS.get(name, FAILS["none stands out"])
                counts[name] = counts.get(name, 0) + 1
                ax.text(x, floor, letter, color=color, ha="center", va="center", fontsize=7, fontweight="bold")
        ax.axhline(1.0, color="0.5", lw=0.8, ls=":")  # the default kappa of the envelopes
        ax.set_yscale("log", base=2)
        ax.set_ylim(floor / 1.6, hi_k * 1.6)
        ax.set_xlim(-0.7, m.layers - 0.3)
        if m.layers <= 40:
            ax.set_xticks(range(m.layers))
            ax.tick_params(axis="x", labelsize=6 if m.layers > 16 else 8)
        ax.legend(handles=legend_handles(), fontsize=6, loc="upper right", framealpha=0.85)
        ax.set_xlabel("layer (its heads side by side)")
        ax.set_ylabel(r"$\kappa$")
        missing = ", ".join(f"{FAILS[n][0]} {n}: {c}" for n, c in counts.items() if c)
        ax.set_title(f"{m.label}: {with_range} of {len(m.head_list)} heads have a $\\kappa$ range "
                     f"(scan {lo_k:g}..{hi_k:g}); without one, the assumption named: {missing or 'none'}",
                     fontsize=9)
    fig.suptitle(r"The $\kappa$ each head allows: its envelopes bracket every measured mean",
                 fontsize=11)
    return fig
