"""The sparsification readings of a geoattn intervene result (docs/intervene.md): each policy's
line of (fraction of keys kept, loss) points, and whether one policy does better than another,
read from the result's joint intervals alone. Standard library only.

A point p of one policy and a point q of another: q does better than p where q keeps no more
keys than p (q.kept <= p.kept) and costs less, its loss interval wholly below p's (q.hi < p.lo).
The result's intervals hold jointly (Bonferroni over all its interventions, `intervals`), so
every such statement of one result holds together at its family coverage. Where neither policy
does better at p, the data cannot decide there."""
from __future__ import annotations

import math
from typing import Any, NamedTuple

BETTER, WORSE, UNDECIDED, MIXED = "better", "worse", "cannot decide", "mixed"


class Point(NamedTuple):
    intervention: str  # as given: "top-n:8", "budget:R_rmin:0.7"
    kept: float        # kept_fraction
    loss: float        # loss_diff, nats per predicted token
    lo: float          # loss_diff_ci (NaN: no intervals)
    hi: float


def policy(reading: dict[str, Any]) -> tuple[str, str]:
    """(the policy's line, its family) of one reading: its kind with the heads it is on
    ("top-n on all 270 heads"), a budget's curve kept apart ("budget R_rmin on ..."), since each
    target of one curve is a point of that curve's line."""
    text, on = reading["intervention"], reading["name"].split(" on ", 1)[-1]
    family = text.split(":", 1)[0]
    kind = "budget " + text.split(":")[1] if family == "budget" else family
    return f"{kind} on {on}", family


def lines(doc: dict[str, Any]) -> dict[str, tuple[str, list[Point]]]:
    """{line: (family, its points sorted by the fraction kept)} of the readings that keep a
    fraction of the keys (zero ablation keeps none to count), in the result's order of lines."""
    out: dict[str, tuple[str, list[Point]]] = {}
    for r in doc["interventions"]:
        if r.get("kept_fraction") is None or r.get("loss_diff") is None:
            continue
        name, family = policy(r)
        lo, hi = r.get("loss_diff_ci") or (math.nan, math.nan)
        out.setdefault(name, (family, []))[1].append(Point(r["intervention"], r["kept_fraction"], r["loss_diff"], lo, hi))
    for _, points in out.values():
        points.sort(key=lambda p: p.kept)
    return out


def does_better(q: Point, p: Point) -> bool:
    """Whether q keeps no more keys than p and costs less, the intervals apart (NaN: never)."""
    return q.kept <= p.kept and q.hi < p.lo


def verdict(p: Point, others: list[Point]) -> tuple[str, list[str]]:
    """p against another policy's points: BETTER (p does better than one of them), WORSE (one
    does better than p), MIXED (both), or UNDECIDED; with the interventions that decide it."""
    worse = [q.intervention for q in others if does_better(q, p)]
    better = [q.intervention for q in others if does_better(p, q)]
    word = MIXED if worse and better else WORSE if worse else BETTER if better else UNDECIDED
    return word, worse + better


def compare(doc: dict[str, Any], line: str, against: str) -> list[tuple[Point, str, list[str]]]:
    """Every point of `line` against the points of `against` (both names of lines(doc)):
    (the point, its verdict, the interventions that decide it)."""
    all_lines = lines(doc)
    for name in (line, against):
        if name not in all_lines:
            raise ValueError(f"no line '{name}' in the result (its lines: {', '.join(all_lines)})")
    return [(p, *verdict(p, all_lines[against][1])) for p in all_lines[line][1]]
