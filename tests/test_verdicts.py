#!/usr/bin/env python3
"""Verdicts (ctest): geoattn.verdicts (SPEC §5's words against the predicted envelopes, from
intervals with the multiplicity over N and heads controlled) on a real stories260K run.

Two measures over the same windows, the second predicting from the first's fits. Checks, each
against a second route: the result's predicted envelopes took the first run's own fits (in
sample); each head's mean and standard error equal an explicit per-document computation; every
word follows from the record's numbers and the result's envelopes (tests/findings/common.py's
cell_words, which ctest Findings runs on the committed records); with the envelopes moved by hand
(fifty standard errors below one head's measured mean R at every N: "above" at its every live
N; fifty above: "below"; the studentized band of 24 documents reaches past 10), and with the envelopes set to the measured means themselves (a null: no
word but "cannot decide" anywhere); the same seed gives the same record; a result without
predicted envelopes is refused in one line, and --record never replaces an input. Calibration over
many nulls: 40 worlds of documents drawn with replacement from the run's, judged against envelopes
at the run's own means (the worlds' truth), mark a cell in at most 4; with every head's R
envelopes 4 standard errors below the mean, most (head, world) pairs read "above".

    tests/test_verdicts.py [--source-dir DIR] [--bin-dir DIR] [--keep]
"""
import copy
import dataclasses
import json
import math
import os
import sys
import tempfile
import time

from script_test_util import check, finish, must, package_env, parse_args, preamble, remove_scratch, run  # beside this file

DATA = "data/openwebtext/openwebtext-60docs.jsonl"


def main():
    t0 = time.time()
    args, src, bin_dir, geoattn = parse_args(__file__)
    early = preamble(t0, geoattn)
    if early is not None:
        return early
    os.environ.update(package_env(src))  # python3 -m geoattn.verdicts: this checkout's package
    sys.path.insert(0, os.path.join(src, "python"))
    sys.path.insert(0, os.path.join(src, "tests", "findings"))
    import numpy as np
    from geoattn.results import load_measure
    from geoattn.unit_sums import read_unit_sums
    from geoattn.verdicts import envelope_verdicts
    import common

    tmp = tempfile.mkdtemp(prefix="geoattn-verdicts-")
    base = [geoattn, "measure", "--quiet", "--model", os.path.join(src, "models/stories260K"), "--data",
            os.path.join(src, DATA), "--ctx", "128", "--max-windows", "24", "--bootstrap-level", "head"]
    fits, out = os.path.join(tmp, "fits.json"), os.path.join(tmp, "m.json")
    must(base + ["--out", fits], tmp, "measure: the first pass (the fits)")
    must(base + ["--predict-from", fits, "--out", out], tmp, "measure --predict-from: the second pass")
    m, f = load_measure(out), load_measure(fits)
    source = m["settings"]["predict_from"]
    check(all(source["beta"][h["layer"]][h["head"]] == (h["fits"]["decay"]["beta"] if h["fits"]["decay"]["ok"] else None)
              and source["rho0"][h["layer"]][h["head"]] == h["rho0"] for h in f["heads"]),
          "settings.predict_from holds the first run's beta (null where its decay fit is not ok) and rho0")

    v = envelope_verdicts(out)
    check(len(v["heads"]) + v["heads_without"] == len(m["heads"]) and len(v["heads"]) > 0,
          f"{len(v['heads'])} heads with a prediction, {v['heads_without']} without")
    # Mean and standard error of one head's P by an explicit loop over the documents.
    u = read_unit_sums(out)
    h0 = v["heads"][0]
    g = u.head_group(h0["layer"], h0["head"])
    S, C = u.group_sums(g, "P_rmax"), u.group_samples(g, "P_rmax")
    U = S.shape[0]
    worst_m = worst_se = 0.0
    for col in range(S.shape[1]):
        mean = S[:, col].sum() / C[:, col].sum()
        se = math.sqrt(U / (U - 1) * sum((S[k, col] - mean * C[k, col]) ** 2 for k in range(U))) / C[:, col].sum()
        worst_m = max(worst_m, abs(mean - h0["P"]["mean"][col]))
        worst_se = max(worst_se, abs(se - h0["P"]["se"][col]))
    check(worst_m < 1e-12 and worst_se < 1e-12, f"one head's mean and standard error by a loop over the {U} "
          f"documents (largest differences {worst_m:.1e}, {worst_se:.1e})")
    measured = {(h["layer"], h["head"]): h for h in m["heads"]}
    check(all(abs(h["P"]["mean"][i] - measured[(h["layer"], h["head"])]["P_rmax"][i]) < 1e-9
              for h in v["heads"] for i, j in enumerate(h["P"]["judged"]) if j),
          "the verdicts' means are the result's")
    run_ = {"measure": m, "verdicts": v}
    try:
        words = common.cell_words(run_)
        ok = True
    except AssertionError as e:
        ok, words = False, {}
        print("  ", e)
    check(ok, "every word follows from the record's numbers and the result's envelopes (a second route)")
    counts = {w: sum(ws.count(w) for ws in words.values()) for w in ("above", "below", "within", "cannot decide")}
    print("   words:", counts)

    def moved(shift):  # R's envelopes of head h0 moved to its mean + shift standard errors
        d = copy.deepcopy(m)
        h = d["heads"][[i for i, x in enumerate(d["heads"]) if (x["layer"], x["head"]) == (h0["layer"], h0["head"])][0]]
        pe = h["predicted_envelopes"]
        for i, j in enumerate(h0["R"]["judged"]):
            if j:
                x = h0["R"]["mean"][i] + shift * h0["R"]["se"][i]
                pe["R_up"][i] = pe["R_lo"][i] = x
        return envelope_verdicts(out, doc=d)

    for shift, word in ((-50.0, "above"), (50.0, "below")):
        w = moved(shift)["heads"][0]["R"]
        live = [i for i, x in enumerate(w["live"]) if x]
        check(live and all(w["verdicts"][i] == word for i in live),
              f"envelopes {abs(shift):g} standard errors {'below' if shift < 0 else 'above'} one head's mean: "
              f"'{word}' at its {len(live)} live N")
    null = copy.deepcopy(m)
    for h in null["heads"]:
        pe = h.get("predicted_envelopes")
        if pe:
            for key, lo, up in (("P_rmax", "P_lo", "P_up"), ("R_rmin", "R_lo", "R_up")):
                pe[lo] = pe[up] = list(h[key])
    nv = envelope_verdicts(out, doc=null)
    marked = sum(c[w] for c in nv["counts"].values() for w in ("above", "below", "within"))
    check(marked == 0, f"envelopes at the measured means (a null): {marked} cells marked")

    # Calibration over many nulls (SPEC §2b): worlds of documents drawn with replacement from the
    # run's, each judged against envelopes at the run's own means (the world's truth, so every
    # "above" or "below" is a false mark). At most about 5% of the worlds may mark anything.
    worlds, marking, cells, live = 40, 0, 0, 0
    draw = np.random.Generator(np.random.PCG64(12345))
    for k in range(worlds):
        idx = draw.integers(0, U, size=U)
        world = dataclasses.replace(u, ids=[u.ids[i] for i in idx], sums=u.sums[idx], counts=u.counts[idx])
        wv = envelope_verdicts(out, replicates=400, seed=k, doc=null, units=world)
        n = sum(c[w] for c in wv["counts"].values() for w in ("above", "below"))
        marking, cells = marking + (n > 0), cells + n
        live += sum(sum(h[key]["live"]) for h in wv["heads"] for key in ("P", "R"))
    check(marking <= 4 and live > 0, f"{worlds} null worlds (documents redrawn, envelopes at the run's means): "
                                     f"{marking} mark any cell ({cells} of {live} live cells in all), at most "
                                     "about 5% allowed (4 of 40)")
    # The same worlds with every head's R envelopes 4 standard errors below the run's mean: found
    # ("above") in most heads. (One head alone is not: a family's bootstrap p-value is at least
    # 1 / (B + 1), and Benjamini-Hochberg passes one family of F only at p <= alpha / F.)
    shifted, found, heads_tried = copy.deepcopy(null), 0, 0
    by_head = {(x["layer"], x["head"]): x for x in v["heads"]}
    for h in shifted["heads"]:
        vh = by_head.get((h["layer"], h["head"]))
        if vh is None:
            continue
        pe = h["predicted_envelopes"]
        for i, j in enumerate(vh["R"]["judged"]):
            if j:
                pe["R_up"][i] = pe["R_lo"][i] = vh["R"]["mean"][i] - 4 * vh["R"]["se"][i]
    for k in range(10):
        idx = draw.integers(0, U, size=U)
        world = dataclasses.replace(u, ids=[u.ids[i] for i in idx], sums=u.sums[idx], counts=u.counts[idx])
        wv = envelope_verdicts(out, replicates=400, seed=k, doc=shifted, units=world)
        with_live = [x for x in wv["heads"] if any(x["R"]["live"])]
        heads_tried += len(with_live)
        found += sum(any(w == "above" for w in x["R"]["verdicts"]) for x in with_live)
    check(found >= 0.6 * heads_tried, f"every head's R envelopes 4 standard errors below its mean: 'above' in {found} "
                                      f"of {heads_tried} (head, world) pairs with a live N")

    rec1, rec2 = os.path.join(tmp, "v1.json"), os.path.join(tmp, "v2.json")
    env = package_env(src)
    must([sys.executable, "-m", "geoattn.verdicts", out, "--record", rec1], tmp, "geoattn.verdicts --record")
    must([sys.executable, "-m", "geoattn.verdicts", out, "--record", rec2], tmp, "geoattn.verdicts --record again")
    check(open(rec1, "rb").read() == open(rec2, "rb").read(), "the same seed gives the same record")
    p, _ = run([sys.executable, "-m", "geoattn.verdicts", fits], tmp, env=env)
    check(p.returncode == 2 and p.stderr.count("\n") == 1 and "--predict-from" in p.stderr,
          f"a result without predicted envelopes: exit 2, one line ({p.stderr.strip()})")
    before = open(out, "rb").read()
    p, _ = run([sys.executable, "-m", "geoattn.verdicts", out, "--record", out], tmp, env=env)
    check(p.returncode == 2 and open(out, "rb").read() == before, "--record over the result itself is refused")
    remove_scratch(tmp, args.keep)
    return finish(t0)


if __name__ == "__main__":
    sys.exit(main())
