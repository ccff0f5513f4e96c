#!/usr/bin/env python3
"""docs/intervene.md says what its committed geoattn intervene runs give (ctest
InterveneReadings).

Each reading sits between `<!-- intervene-reading: NAME -->` and `<!-- /intervene-reading -->`;
its run is docs/findings/MODEL/intervene-WHAT.json (NAME = MODEL/WHAT). The check renders every
block from its run with geoattn.sparsification's verdicts (a point of one policy against another
policy's points: better, worse, or cannot decide, from the run's joint intervals) and fails where
the page differs; it re-derives every verdict by a loop of its own over the readings and fails
where the package's differs. --write rewrites the blocks from the runs.

    tests/check_intervene_readings.py SOURCE_DIR [--write]
Standard library only.
"""
import json
import os
import re
import sys

BLOCK = re.compile(r"(<!-- intervene-reading: ([A-Za-z0-9_]+)/([a-z0-9-]+) -->)(.*?)(<!-- /intervene-reading -->)", re.S)


def second_route(doc, budget_text, family):
    """The verdict of the budget reading `budget_text` against the readings of `family` on the
    same heads, by a plain loop over the result: 'worse' where one of them keeps no more keys
    and its interval lies wholly below, 'better' the other way round."""
    rows = {r["intervention"]: r for r in doc["interventions"]}
    p = rows[budget_text]
    worse = better = False
    for r in doc["interventions"]:
        if r["intervention"].split(":")[0] != family or r["kept_fraction"] is None:
            continue
        if r["kept_fraction"] <= p["kept_fraction"] and r["loss_diff_ci"][1] < p["loss_diff_ci"][0]:
            worse = True
        if p["kept_fraction"] <= r["kept_fraction"] and p["loss_diff_ci"][1] < r["loss_diff_ci"][0]:
            better = True
    return "mixed" if worse and better else "worse" if worse else "better" if better else "cannot decide"


def render(doc, sparsification):
    """The block of one sparsification run: per point of each budget line, its kept fraction, its
    loss with the interval, and its verdict against uniform top-n and sink-recent on the same
    heads; then the counts."""
    lines = sparsification.lines(doc)
    iv = doc["intervals"]
    out = [f"{doc['model']['path']}, {doc['data']['windows']} windows of T = {doc['settings']['ctx']} from "
           f"{iv['documents']} documents, {len(doc['interventions'])} interventions, every interval at "
           f"{iv['each_ci']:.2f}% ({iv['family_ci']:g}% jointly):", "",
           "| budget | kept | loss_diff [interval] | against top-n | against sink-recent |",
           "| --- | --- | --- | --- | --- |"]
    counts = {}
    for name, (family, points) in lines.items():
        if family != "budget":
            continue
        on = name.split(" on ", 1)[1]
        cells = {}
        for against in ("top-n", "sink-recent"):
            for p, word, by in sparsification.compare(doc, name, f"{against} on {on}"):
                cells.setdefault(p.intervention, [p]).append(f"{word}" + (f" ({', '.join(by)})" if by else ""))
                counts[(against, word)] = counts.get((against, word), 0) + 1
                if word != second_route(doc, p.intervention, against):
                    raise SystemExit(f"{p.intervention} against {against}: the package says {word}, the loop "
                                     f"{second_route(doc, p.intervention, against)}")
        for text, (p, a, b) in sorted(cells.items(), key=lambda kv: kv[1][0].kept):
            out.append(f"| `{text}` | {p.kept:.3f} | {p.loss:+.3f} [{p.lo:.3f}, {p.hi:.3f}] | {a} | {b} |")
    out.append("")
    for against in ("top-n", "sink-recent"):
        better, worse, undecided = (counts.get((against, w), 0) for w in ("better", "worse", "cannot decide"))
        answer = ("**cannot decide** at any point" if not better and not worse else
                  f"**no** where the data decides: {against} does better at {worse} point(s), the budget at none"
                  if not better else f"**yes** at {better} point(s)" + (f", and **no** at {worse}" if worse else ""))
        out.append(f"Does a geometry budget beat {against} at equal kept fraction? {answer}; "
                   f"{undecided} of {better + worse + undecided} budget point(s) undecided.")
    return "\n" + "\n".join(out) + "\n"


def main(argv):
    source = argv[1] if len(argv) > 1 and not argv[1].startswith("--") else "."
    write = "--write" in argv
    sys.path.insert(0, os.path.join(source, "python"))
    import geoattn.sparsification as sparsification
    page = os.path.join(source, "docs", "intervene.md")
    text = open(page, encoding="utf-8").read()
    problems, found = [], 0

    def block(m):
        nonlocal found
        found += 1
        path = os.path.join(source, "docs", "findings", m.group(2), f"intervene-{m.group(3)}.json")
        doc = json.load(open(path, encoding="utf-8"))
        source_run = doc["settings"].get("budget_from")
        if source_run:  # its budgets came from the committed measure result, that very run
            measure = json.load(open(os.path.join(source, source_run["file"]), encoding="utf-8"))
            if measure.get("run_id") != source_run["run_id"]:
                problems.append(f"{path}: its budgets are from run {source_run['run_id']}, "
                                f"{source_run['file']} is run {measure.get('run_id')}")
        body = render(doc, sparsification)
        if body != m.group(4):
            problems.append(f"{m.group(2)}/{m.group(3)}: the page's block differs from its run (--write renders it)")
        return m.group(1) + body + m.group(5)

    new = BLOCK.sub(block, text)
    if write:
        with open(page, "w", encoding="utf-8") as f:
            f.write(new)
        print(f"wrote {found} block(s) of {page}")
        return 0
    if not found:
        problems.append("no intervene-reading block in docs/intervene.md")
    for p in problems:
        print("FAIL ", p)
    print("all checks passed" if not problems else f"FAILED: {len(problems)} check(s)", f"({found} block(s))")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
