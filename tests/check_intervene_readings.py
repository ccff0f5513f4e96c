#!/usr/bin/env python3
"""docs/intervene.md says what its committed geoattn intervene runs give (ctest
InterveneReadings).

Each reading sits between `<!-- intervene-reading: MODEL/WHAT -->` and `<!-- /intervene-reading -->`,
its runs in docs/findings/MODEL/; the check renders every block from its runs and fails where the
page differs (--write rewrites the blocks):
  sparsification  intervene-sparsification.json: each budget point against uniform top-n and
                  sink-recent by geoattn.sparsification's verdicts (better, worse, cannot decide
                  from the run's joint intervals), each verdict re-derived by a loop of its own;
  classes         intervene-class-LABEL.json (zero on a class beside random sets of as many
                  heads): the class's rank among the sets, its one-sided permutation p-values
                  (1 + sets at least as costly) / (sets + 1) and the other way, Bonferroni over
                  the classes and both directions;
  streaming       intervene-streaming.json (--each with sink-recent:K) and taxonomy.json: the
                  heads whose loss interval lies below STREAMING_EPS nats/token, by label.

    tests/check_intervene_readings.py SOURCE_DIR [--write]
Standard library only.
"""
import json
import os
import re
import sys

BLOCK = re.compile(r"(<!-- intervene-reading: ([A-Za-z0-9_]+)/([a-z0-9-]+) -->)(.*?)(<!-- /intervene-reading -->)", re.S)
LEVEL = 0.05           # the family-wise level of the class questions
STREAMING_EPS = 0.01   # nats/token: a head whose sink-recent loss interval lies below it is streaming
LABELS = ("Retriever", "Mixer", "Reset", "Unlabelled")


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


def caveat(doc):
    """The run's own word on its intervals where it has one (few documents), as a sentence."""
    why = doc["intervals"].get("why")
    return f" The run says: {why}." if why else ""


def render(doc, sparsification):
    """The block of one sparsification run: per point of each budget line, its kept fraction, its
    loss with the interval, and its verdict against uniform top-n and sink-recent on the same
    heads; then the counts."""
    lines = sparsification.lines(doc)
    iv = doc["intervals"]
    out = [f"{doc['model']['path']}, {doc['data']['windows']} windows of T = {doc['settings']['ctx']} from "
           f"{iv['documents']} documents, {len(doc['interventions'])} interventions, every interval at "
           f"{iv['each_ci']:.2f}% ({iv['family_ci']:g}% jointly).{caveat(doc)}", "",
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


def render_classes(folder):
    """The block of a model's class runs: per class, its loss beside the random sets', its rank
    and its permutation p-values; the verdict after Bonferroni over the classes and both
    directions (more and less costly than random heads)."""
    runs = []
    for label in LABELS:
        path = os.path.join(folder, f"intervene-class-{label}.json")
        if os.path.exists(path):
            runs.append((label, json.load(open(path, encoding="utf-8"))))
    tests = 2 * len(runs)
    out = ["| class | heads | loss_diff [interval] | random sets: median [min, max] | sets costing less | p (more costly) | p (less costly) |",
           "| --- | --- | --- | --- | --- | --- | --- |"]
    words = []
    for label, doc in runs:
        cls, sets = doc["interventions"][0], doc["interventions"][1:]
        loss = cls["loss_diff"]
        others = sorted(r["loss_diff"] for r in sets)
        K = len(others)
        below = sum(x < loss for x in others)
        p_more = (1 + sum(x >= loss for x in others)) / (K + 1)
        p_less = (1 + sum(x <= loss for x in others)) / (K + 1)
        lo, hi = cls["loss_diff_ci"]
        out.append(f"| {label} | {len(cls['heads'])} | {loss:+.3f} [{lo:.3f}, {hi:.3f}] | {others[K // 2]:+.3f} "
                   f"[{others[0]:+.3f}, {others[-1]:+.3f}] | {below} of {K} | {p_more:.3f} | {p_less:.3f} |")
        level = LEVEL / tests
        word = ("**yes**, more costly" if p_more <= level else "**no**, less costly" if p_less <= level
                else "**cannot decide**")
        words.append(f"{label}: {word} (the least p {K} sets can give is {1 / (K + 1):.3f}; "
                     f"its {tests} p-values need {level:.4f})")
    doc = runs[0][1]
    head = (f"{doc['model']['path']}, zero ablation, {doc['data']['windows']} windows of T = {doc['settings']['ctx']} "
            f"from {doc['intervals']['documents']} documents, every interval at {doc['intervals']['each_ci']:.2f}% "
            f"({doc['intervals']['family_ci']:g}% jointly over a run's interventions).{caveat(doc)}")
    question = (f"Does removing the class cost more than removing as many random heads (p-values Bonferroni over "
                f"{len(runs)} classes and both directions, level {LEVEL})? ")
    return "\n" + head + "\n\n" + "\n".join(out) + "\n\n" + question + "; ".join(words) + ".\n"


def render_streaming(folder):
    """The block of a model's --each sink-recent run: how many heads of each label are streaming
    (their loss interval wholly below STREAMING_EPS) and which."""
    doc = json.load(open(os.path.join(folder, "intervene-streaming.json"), encoding="utf-8"))
    tax = json.load(open(os.path.join(folder, "taxonomy.json"), encoding="utf-8"))
    label_of = {(h["layer"], h["head"]): h["label"] for h in tax["heads"]}
    streaming = {}
    total = {}
    for r in doc["interventions"]:
        (l, h), = r["heads"]
        label = label_of[(l, h)]
        total[label] = total.get(label, 0) + 1
        if r["loss_diff_ci"] is not None and r["loss_diff_ci"][1] < STREAMING_EPS:
            streaming.setdefault(label, []).append(f"{l}.{h}")
    kind = doc["interventions"][0]["intervention"]
    iv = doc["intervals"]
    out = [f"{doc['model']['path']}, `{kind}` on each of its {len(doc['interventions'])} heads alone, "
           f"{doc['data']['windows']} windows of T = {doc['settings']['ctx']} from {iv['documents']} documents, every "
           f"interval at {iv['each_ci']:.3f}% ({iv['family_ci']:g}% jointly); streaming: the interval wholly below "
           f"{STREAMING_EPS} nats/token.{caveat(doc)}", "", "| label | heads | streaming | which |", "| --- | --- | --- | --- |"]
    for label in LABELS:
        if label in total:
            which = streaming.get(label, [])
            shown = ", ".join(which[:12]) + (f", ... ({len(which) - 12} more)" if len(which) > 12 else "")
            out.append(f"| {label} | {total[label]} | {len(which)} | {shown or 'none'} |")
    n = sum(len(v) for v in streaming.values())
    out += ["", f"{n} of {len(doc['interventions'])} heads are streaming."]
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
        folder = os.path.join(source, "docs", "findings", m.group(2))
        if m.group(3) in ("classes", "streaming"):
            body = (render_classes if m.group(3) == "classes" else render_streaming)(folder)
            if body != m.group(4):
                problems.append(f"{m.group(2)}/{m.group(3)}: the page's block differs from its runs (--write renders it)")
            return m.group(1) + body + m.group(5)
        path = os.path.join(folder, f"intervene-{m.group(3)}.json")
        doc = json.load(open(path, encoding="utf-8"))
        source_run = doc["settings"].get("budget_from")
        if source_run and source_run["file"].startswith("docs/"):  # from a committed measure result: that very run
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
