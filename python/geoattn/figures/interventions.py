"""The figures of geoattn intervene results (docs/intervene.md): the sparsification curve (the
loss the model pays against the fraction of keys kept, one line per policy, with the result's
bootstrap band) and the per-head importance map of an --each run."""
from __future__ import annotations

import os
from typing import Any, Sequence

from ..sparsification import lines
from .common import new_figure, np, outside_legend

STYLES = {"top-n": ("tab:blue", "o"), "sink-recent": ("tab:orange", "s"), "random": ("tab:gray", "^"),
          "budget": ("tab:green", "D")}
BUDGET_LINES = {"R_rmin": "-", "P_rmax": "--", "F_rmin": "-.", "F_rmax": ":"}  # a budget's curve


class InterveneRun:
    """One --intervene file: the document, named in the figures by `label`."""

    def __init__(self, path: str, doc: dict):
        self.path = path
        self.doc = doc
        self.label: str | None = None

    @property
    def model_path(self):
        return self.doc["model"].get("path")


def sparsification_points(doc: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """{line: {"family", "kept", "loss", "lo", "hi"}}: geoattn.sparsification.lines as arrays
    (lo/hi NaN where the run has no intervals)."""
    return {name: {"family": family, **{key: np.asarray([getattr(p, key) for p in points], dtype=float)
                                         for key in ("kept", "loss", "lo", "hi")}}
            for name, (family, points) in lines(doc).items()}


def fig_sparsification(runs: Sequence[InterveneRun]):
    """One panel per run: loss_diff against kept_fraction per policy, the band its intervals."""
    fig, axes = new_figure(1, len(runs), w=5.2, h=3.8)
    for ax, run in zip(axes[0], runs):
        lines = sparsification_points(run.doc)
        for name, line in lines.items():
            color, marker = STYLES.get(line["family"], ("black", "x"))
            dash = BUDGET_LINES.get(name.split()[1], "-") if line["family"] == "budget" else "-"
            ax.plot(line["kept"], line["loss"], marker=marker, color=color, ls=dash, label=name, lw=1.2, ms=4)
            if np.isfinite(line["lo"]).all():
                ax.fill_between(line["kept"], line["lo"], line["hi"], color=color, alpha=0.18, lw=0)
        ax.axhline(0, color="black", lw=0.6)
        ax.set_xscale("log")
        ax.set_xlabel("fraction of the keys kept (the edited rows')")
        ax.set_ylabel("loss - plain loss (nats/token)")
        iv = run.doc["intervals"]
        band = f"bands {iv['family_ci']:g}% jointly" if iv["intervals"] else "no bands: " + iv.get("why", "no intervals")
        ax.set_title(f"{run.label}\n{run.doc['data']['windows']} windows of T = {run.doc['settings']['ctx']}, "
                     f"{iv['documents']} documents; {band}", fontsize=8)
        if lines:
            outside_legend(ax, fontsize=7)
        else:
            ax.text(0.5, 0.5, "no intervention that keeps a fraction of the keys", ha="center", transform=ax.transAxes)
    return fig


def fig_head_importance(runs: Sequence[InterveneRun]):
    """Per --each run and intervention kind, the layers x heads map of the loss each head alone
    costs (a head not run: blank); or why there is none."""
    panels = []
    for run in runs:
        if not run.doc["settings"].get("each"):
            continue
        kinds: dict[str, list[dict[str, Any]]] = {}
        for r in run.doc["interventions"]:
            if len(r["heads"]) == 1:
                kinds.setdefault(r["intervention"], []).append(r)
        panels += [(run, kind, rows) for kind, rows in kinds.items()]
    if not panels:
        return "no --each run among the --intervene files"
    fig, axes = new_figure(1, len(panels), w=4.6, h=4.0)
    for ax, (run, kind, rows) in zip(axes[0], panels):
        L, H = run.doc["model"]["layers"], run.doc["model"]["heads"]
        grid = np.full((L, H), np.nan)
        for r in rows:
            (l, h), = r["heads"]
            grid[l, h] = r["loss_diff"] if r["loss_diff"] is not None else np.nan
        im = ax.imshow(grid, aspect="auto", origin="lower", cmap="viridis", interpolation="nearest")
        fig.colorbar(im, ax=ax, label="loss - plain loss (nats/token)")
        ax.set_xlabel("head")
        ax.set_ylabel("layer")
        ax.set_title(f"{run.label}: {kind} on each head alone", fontsize=9)
    return fig


def label_runs(runs: Sequence[InterveneRun]) -> None:
    """Names the runs by their model folder's name, with the file name where two would read alike."""
    base = [os.path.basename(os.path.normpath(r.model_path)) if r.model_path else os.path.basename(r.path) for r in runs]
    for r, b in zip(runs, base):
        r.label = b if base.count(b) == 1 else f"{b} [{os.path.basename(r.path)}]"
