#!/usr/bin/env python3
"""Compare (ctest): geoattn-compare (python/geoattn/tools/compare/) on real runs of stories260K.

First, on constructed runs (a measure JSON and a state sidecar written here from drawn per-document
sums, so the truth is known): a null (two samples of one distribution) that the per-cell view
marks and the family-wise marks (SPEC §2b: max-|t| bands over N, Benjamini-Hochberg across the
families) do not; a strong difference marked in nearly every cell; one head's moderate
difference whose families leave their bands at 5% but fail Benjamini-Hochberg (nothing marked),
and one that passes; Benjamini-Hochberg recomputed by a second route.

Then runs with the built geoattn: A (12 documents), A16 (the first 16 in bf16: 12 shared with A ->
paired), the two halves of the 60-document shard (--shard 0/2, 1/2: disjoint -> unpaired), two of
its quarters (a second null), and runs whose settings differ. Checks, each against a second
route: a run compared with itself gives exactly 0, zero-width intervals and nothing tested in
every cell; the group means from the state sidecar's per-document sums equal the run's reported
means (1e-12), and with the C++ bootstrap's generator (util/random.h, in Python here) its own
intervals; one paired cell recomputed replicate by replicate, and its family's standard errors,
critical value and p-value (the studentized max-|t| bootstrap) from explicit per-replicate
draws; paired/unpaired detection and the documents left out; the same bytes for a seed; the
nulls: nothing marked family-wise while the per-cell view marks cells, both as docs/compare.md
states; the refusals (exit 2, one stderr line naming the setting, nothing written); the JSON and
the PNG; label counts, shares and the slopes_by split (SPEC §6); docs/compare.md's CLI block and
worked example. The full calibration (nine nulls, stories15M vs stories260K) is
scripts/compare_calibration.py's, its figures in docs/compare.md.

    tests/test_compare.py [--source-dir DIR] [--bin-dir DIR] [--keep]
"""
import json
import os
import re
import sys
import tempfile
import time

from script_test_util import (check, finish, parse_args, plotter_python, preamble,  # beside this file
                              package_env, remove_scratch, run, run_doc_block)

DATA = "data/openwebtext/openwebtext-60docs.jsonl"
CURVES = ("P_rmax", "R_rmin", "F_rmax", "F_rmin")
PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
M64 = (1 << 64) - 1


def splitmix64_next(state):
    """util/random.h's splitmix64_next: (value, next state)."""
    x = (state + 0x9E3779B97F4A7C15) & M64
    x = ((x ^ (x >> 30)) * 0xBF58476D1CE4E5B9) & M64
    x = ((x ^ (x >> 27)) * 0x94D049BB133111EB) & M64
    return x ^ (x >> 31), (state + 0x9E3779B97F4A7C15) & M64


def cpp_draws(units, replicates, seed):
    """The C++ bootstrap's [replicate][unit] draw counts (bootstrap.cpp detail::resamples)."""
    out = []
    for b in range(replicates):
        v, _ = splitmix64_next(seed ^ 0xBB67AE8584CAA73B)
        state, w = v ^ b, [0.0] * units
        for _ in range(units):
            while True:  # uniform_below: Lemire's multiply-shift with rejection
                v, state = splitmix64_next(state)
                m = v * units
                if (m & M64) >= units or (m & M64) >= ((-units) % (1 << 64)) % units:
                    break
            w[m >> 64] += 1
        out.append(w)
    return out


def write_run(path, ids, sums, counts, layers, heads, grid):
    """A measure JSON at path and its state sidecar holding per-document sums [U, groups, S] and
    sample counts [U, L, G] (the layout docs/results.md gives; level head), as geoattn writes them."""
    import numpy as np
    doc = {"schema": "geoattn.measure/2", "model": {"path": "constructed", "layers": layers, "heads": heads},
           "n_grid": list(grid), "settings": {"ctx": 64, "bootstrap": {"unit": "document"}}, "data": {"complete": True}}
    with open(path, "w") as f:
        json.dump(doc, f)
    ids_raw = json.dumps(ids).encode()
    blobs = [("unit_shape", "I64", [4], np.array([layers, heads, len(grid), 2], "<i8").tobytes()),
             ("unit_ids", "U8", [len(ids_raw)], ids_raw),
             ("unit_sums", "F64", list(sums.shape), np.ascontiguousarray(sums, "<f8").tobytes()),
             ("unit_counts", "I64", list(counts.shape), np.ascontiguousarray(counts, "<i8").tobytes())]
    meta = {"format": "geoattn-state-1", "n_grid": json.dumps(list(grid)), "curves": json.dumps(list(CURVES)),
            "scalars": json.dumps(["rho0"])}
    header, offset = {"__metadata__": meta}, 0
    for name, dtype, shape, raw in blobs:
        header[name] = {"dtype": dtype, "shape": shape, "data_offsets": [offset, offset + len(raw)]}
        offset += len(raw)
    head = json.dumps(header).encode()
    with open(path[:-5] + ".state.safetensors", "wb") as f:
        f.write(len(head).to_bytes(8, "little") + head + b"".join(raw for *_, raw in blobs))
    return path


def constructed(path, rng, docs, prefix, shift=0.0, layers=2, heads=2, shift_head=None):
    """A constructed run of `docs` documents over N = 1..12: each document holds 1 to 3 samples
    per (layer, N) whose mean is mu(N) + shift + a document effect (sd 0.05, shared by its curves
    and N) + noise (sd 0.03 / sqrt(samples)); at N = 1 every sample is 1 (alike in every replicate),
    rho0 likewise around 0.2. `shift` moves every head, or only shift_head = (layer, head)."""
    import numpy as np
    grid = list(range(1, 13))
    G = len(grid)
    sums = np.zeros((docs, layers * heads, (len(CURVES) + 4) * G + 1))
    counts = np.zeros((docs, layers, G), np.int64)
    mu = 0.5 + 0.3 * np.log(np.array(grid, float)) / np.log(grid[-1])
    for u in range(docs):
        w = int(rng.integers(1, 4))
        counts[u] = w
        for g in range(layers * heads):
            s = shift if shift_head is None or g == shift_head[0] * heads + shift_head[1] else 0.0
            effect = rng.normal(0, 0.05)
            for m in range(len(CURVES)):
                values = mu + s + effect + rng.normal(0, 0.03 / np.sqrt(w), G)
                values[0] = 1.0
                sums[u, g, m * G:(m + 1) * G] = w * values
            sums[u, g, -1] = w * (0.2 + s + effect + rng.normal(0, 0.03))
    return write_run(path, [f"{prefix}{u}" for u in range(docs)], sums, counts, layers, heads, grid)


def family_cells(out, kinds=("global", "layer", "head", "depth")):
    """Every (group, family) of a comparison: (entry, name, family entry, its cells)."""
    return [(e, k, e["families"][k], e[k] if isinstance(e[k], list) else [e[k]])
            for e in out["groups"] if e["group"] in kinds for k in CURVES + ("rho0",)]


def bh_by_hand(out, alpha=0.05):
    """Benjamini-Hochberg's passing families by a second route: family i passes when some k has
    at least k families with p <= alpha k / m, p_i among them."""
    ps = [f["p"] for _, _, f, _ in family_cells(out) if f["p"] is not None]
    m = len(ps)
    best = max([k for k in range(1, m + 1) if sum(p <= alpha * k / m for p in ps) >= k], default=0)
    return [f["p"] is not None and best > 0 and f["p"] <= alpha * best / m for _, _, f, _ in family_cells(out)], \
        alpha * best / m if best else 0.0


def marks_consistent(out):
    """Family-wise marks: a cell is marked exactly where its family passes Benjamini-Hochberg and
    its t exceeds the family's critical value (its band excludes 0 then)."""
    for _, _, f, cells in family_cells(out):
        for c in cells:
            want = bool(f["passes_bh"] and c["tested"] and f["critical"] is not None and c["t"] > f["critical"])
            if c["marked"] != want or (c["marked"] and not (c["band"][0] > 0 or c["band"][1] < 0)):
                return False
    return True


def constructed_checks(src, tmp):
    """The family-wise marks on constructed runs whose truth is known."""
    import numpy as np
    sys.path.insert(0, os.path.join(src, "python"))
    from geoattn.compare import marked
    every = ("global", "layer", "head")

    def both(name, a, b):
        fw, _ = compared(src, tmp, name + ".json", a, b, "--replicates", "1000")
        pc, p = compared(src, tmp, name + "-cell.json", a, b, "--replicates", "1000", "--per-cell")
        return fw, pc, p

    rng = np.random.default_rng(7)
    a = constructed(os.path.join(tmp, "null-a.json"), rng, 15, "a")
    b = constructed(os.path.join(tmp, "null-b.json"), rng, 15, "b")
    fw, pc, p = both("null", a, b)
    (mf, nf, zf), (mc, nc, _) = marked(fw, every), marked(pc, every)
    rho = sum(e["rho0"]["marked"] for e in fw["groups"])
    check(mf == 0 and rho == 0 and fw["marks"]["families_passing"] == 0 and mc > 0 and nf == nc == 28 * 11 and zf == 28,
          f"a constructed null (15 documents a side, unpaired): family-wise {mf} of {nf} cells marked, per cell {mc} "
          f"of {nc}; the 28 cells at N = 1 (alike) not tested")
    check(pc["marks"]["view"] == "per cell (no multiplicity control)" and "per cell (no multiplicity control)" in p.stdout
          and fw["marks"]["view"] == "family-wise", "--per-cell: the JSON and the table say 'per cell (no multiplicity control)'")
    s = constructed(os.path.join(tmp, "strong-b.json"), np.random.default_rng(8), 15, "b", shift=0.1)
    fw, _, _ = both("strong", a, s)
    m, n, _ = marked(fw, every)
    check(m >= 0.95 * n and n == 308 and fw["marks"]["families_passing"] == fw["marks"]["families_tested"] == 35
          and marks_consistent(fw),
          f"a constructed difference of +0.1 at every head: {m} of {n} cells marked, "
          f"{fw['marks']['families_passing']} of {fw['marks']['families_tested']} families pass")
    for seed, what, passing in ((0, "fails", 0), (2, "passes", 5)):
        rng = np.random.default_rng(seed)
        a = constructed(os.path.join(tmp, f"bh{seed}-a.json"), rng, 20, "a", heads=8)
        b = constructed(os.path.join(tmp, f"bh{seed}-b.json"), rng, 20, "b", heads=8, shift=0.05, shift_head=(1, 5))
        fw, _ = compared(src, tmp, f"bh{seed}.json", a, b, "--replicates", "1000")
        head = next(e for e in fw["groups"] if e["group"] == "head" and (e["layer"], e["head"]) == (1, 5))
        own = [k for k in CURVES + ("rho0",) if head["families"][k]["p"] < 0.05
               and head["families"][k]["max_t"] > head["families"][k]["critical"]]
        passes, threshold = bh_by_hand(fw)
        got = [f["passes_bh"] for _, _, f, _ in family_cells(fw)]
        ok = (len(own) == 5 and fw["marks"]["families_tested"] == 95 and passes == got and sum(got) == passing
              and abs(fw["marks"]["bh_threshold"] - threshold) <= 1e-15 and marks_consistent(fw))
        marks = marked(fw, every)[0] + sum(e["rho0"]["marked"] for e in fw["groups"])
        check(ok and (marks == 0) == (passing == 0),
              f"one head moved by +0.05 (seed {seed}): its 5 families leave their 95% bands alone (p "
              + ", ".join(f"{head['families'][k]['p']:.3f}" for k in CURVES + ("rho0",))
              + f"); Benjamini-Hochberg over 95 families {what} (threshold {threshold:.4f}, {sum(got)} pass, recomputed "
              f"by hand): {marks} cells marked")


def measure(geoattn, src, out, *flags, model="models/stories260K"):
    ctx = () if "--ctx" in flags else ("--ctx", "256")
    p, dt = run([geoattn, "measure", "--model", model, "--data", DATA, *ctx, "--quiet", "--out", out, *flags], src)
    if not check(p.returncode == 0, f"measure {' '.join(flags)} ({dt:.1f}s)"):
        print("  stderr:", p.stderr[-2000:])
        raise SystemExit(1)
    return out


def compare(src, *argv):
    """geoattn-compare's process (python -m geoattn.compare, the checkout's package)."""
    p, _ = run([plotter_python(), "-m", "geoattn.compare", *argv], src, env=package_env(src))
    return p


def compared(src, tmp, name, *argv):
    """The --out JSON of a comparison that must succeed."""
    out = os.path.join(tmp, name)
    p = compare(src, *argv, "--out", out)
    if not check(p.returncode == 0 and os.path.exists(out), f"compare {name}"):
        print("  stderr:", p.stderr[-2000:])
        raise SystemExit(1)
    return json.load(open(out)), p


def cells(out, kinds=("global", "layer", "head", "depth")):
    return [c for e in out["groups"] if e["group"] in kinds for k in CURVES + ("rho0",)
            for c in (e[k] if isinstance(e[k], list) else [e[k]])]


def self_checks(src, tmp, a):
    out, _ = compared(src, tmp, "self.json", a, a)
    every = cells(out)
    check(len(every) == (1 + 5 + 40) * (4 * 24 + 1), f"A vs A: every group (global, 5 layers, 40 heads) ({len(every)} cells)")
    check(all(c["diff"] == 0.0 and c["ci"] == [0.0, 0.0] and c["t"] is None and c["band"] is None and not c["marked"]
              for c in every) and out["marks"]["families_tested"] == 0 and out["marks"]["families_passing"] == 0,
          "A vs A: every difference exactly 0, every interval [0, 0], no cell tested (alike in every replicate), none marked")
    check(out["pairing"] == "paired" and out["a"]["left_out"] == 0 and out["a"]["compared"] == 12, "A vs A: paired, 12 documents")


def means_checks(src, a):
    """geoattn.unit_sums' means against the run's (C++'s exact sums), and its replicate means
    with the C++ generator's draws against the run's own intervals."""
    sys.path.insert(0, os.path.join(src, "python"))
    import numpy as np
    from geoattn.compare_bootstrap import PERCENTILES, replicate_means
    from geoattn.results import load_measure
    from geoattn.unit_sums import read_unit_sums
    u, m = read_unit_sums(a), load_measure(a)
    groups = ([(u.global_group(), m["global"])] + [(u.layers_group([l]), m["layers"][l]) for l in range(u.layers)]
              + [(u.head_group(l, h), m["heads"][l * u.heads + h]) for l in range(u.layers) for h in range(u.heads)])
    worst = 0.0
    for group, rep in groups:
        for name in CURVES + ("s_norm", "cos_s_vL", "rho0", "c_sink"):
            ref = np.array(rep[name] if isinstance(rep[name], list) else [rep[name]], float)
            worst = max(worst, float(np.nanmax(np.abs(u.mean(group, name) - ref))))
    check(worst <= 1e-12, f"means from the unit sums equal the run's means, 46 groups x 8 statistics (worst {worst:.1e})")
    order = np.array(sorted(range(len(u.ids)), key=lambda i: u.ids[i]))
    W = np.array(cpp_draws(len(u.ids), m["bootstrap"]["replicates"], m["bootstrap"]["seed"]))
    worst, n = 0.0, 0
    for group, rep in groups[:1 + u.layers]:
        for name in CURVES + ("rho0",):
            cols = np.arange(len(u.n_grid)) if name in CURVES else np.array([0])
            lo, hi = np.percentile(replicate_means(u, group, name, cols, order, W), PERCENTILES, axis=0)
            ref = np.array(rep[name + "_ci"] if name in CURVES else [rep[name + "_ci"]], float)
            worst, n = max(worst, float(np.max(np.abs(ref - np.stack([lo, hi], 1))))), n + ref.size
    check(worst <= 1e-12, f"its replicates with the C++ draws give the run's own intervals ({n} ends, worst {worst:.1e})")


def read_sidecar(path):
    """(ids, sums [U][groups][S] flat lists, counts) of a state sidecar, by hand."""
    import numpy as np
    raw = open(path, "rb").read()
    n = int.from_bytes(raw[:8], "little")
    head = json.loads(raw[8:8 + n])

    def arr(name, dt):
        b, e = head[name]["data_offsets"]
        return np.frombuffer(raw[8 + n + b:8 + n + e], dt).reshape(head[name]["shape"])
    return json.loads(bytes(arr("unit_ids", "u1")).decode()), arr("unit_sums", "<f8"), arr("unit_counts", "<i8")


def pairing_checks(src, tmp, a, a16, h0, h1):
    import numpy as np
    out, _ = compared(src, tmp, "paired.json", a, a16, "--replicates", "400", "--seed", "3")
    check(out["pairing"] == "paired" and out["a"]["compared"] == out["b"]["compared"] == 12
          and out["a"]["left_out"] == 0 and out["b"]["left_out"] == 4 and out["b"]["documents"] == 16,
          f"A vs A16: paired on 12 documents, 4 of B's left out ({out['a']['compared']}, {out['b']['left_out']})")
    check(out["differ"] == {"settings.dtype": ["fp32", "bf16"]}, f"the dtype named as a setting that differs ({out['differ']})")
    # One cell by a second route: global P_rmax at N = 8, replicate by replicate.
    (ids_a, sa, ca), (ids_b, sb, cb) = read_sidecar(a[:-5] + ".state.safetensors"), read_sidecar(a16[:-5] + ".state.safetensors")
    shared = sorted(set(ids_a) & set(ids_b))
    g, H = 7, 8  # N = 8 in the default grid; 8 heads
    draws = np.random.Generator(np.random.PCG64(3)).integers(0, len(shared), size=(400, len(shared)))

    def mean(ids, s, c, picks):
        rows = [ids.index(shared[i]) for i in picks]
        return sum(s[r, :, g].sum() for r in rows) / sum(c[r, :, g].sum() * H for r in rows)
    diffs = sorted(mean(ids_b, sb, cb, d) - mean(ids_a, sa, ca, d) for d in draws)
    cell = out["groups"][0]["P_rmax"][g]
    lo, hi = np.percentile(diffs, [2.5, 97.5])
    point = mean(ids_b, sb, cb, range(len(shared))) - mean(ids_a, sa, ca, range(len(shared)))
    check(abs(cell["diff"] - point) <= 1e-12 and abs(cell["ci"][0] - lo) <= 1e-12 and abs(cell["ci"][1] - hi) <= 1e-12,
          f"paired global P_rmax at N = 8 recomputed replicate by replicate ({cell['diff']:+.5f} {cell['ci']})")
    family_by_hand(out, ids_a, sa, ca, ids_b, sb, cb, shared, draws, H)

    out, p = compared(src, tmp, "halves.json", h0, h1)
    # Unpaired standard errors by hand: each run's n/(n-1) sum_u ((S_u - m C_u) / sum C)^2, added.
    G, worst, tested = len(out["n_grid"]), 0.0, 0
    runs = [read_sidecar(x[:-5] + ".state.safetensors") for x in (h0, h1)]
    for i, c in enumerate(out["groups"][0]["R_rmin"]):
        if c["t"] is None:
            continue
        var = 0.0
        for _, s_, c_ in runs:
            S, C = s_[:, :, G + i].sum(axis=1), c_[:, :, i].sum(axis=1) * H
            m, n = S.sum() / C.sum(), len(S)
            var += n / (n - 1) * (((S - m * C) / C.sum()) ** 2).sum()
        worst, tested = max(worst, abs(var ** 0.5 - c["se"]) / c["se"]), tested + 1
    check(tested == G - 2 and worst <= 1e-12, f"halves, unpaired: global R_rmin's standard errors by hand at {tested} N "
                                             f"(worst relative {worst:.1e})")
    units = [json.load(open(x))["bootstrap"]["units"] for x in (h0, h1)]
    check(out["pairing"] == "unpaired" and [out["a"]["documents"], out["b"]["documents"]] == units,
          f"halves: unpaired, {units} documents")
    check("unpaired: A 33 documents, B 27" in p.stdout, "the table says unpaired and the documents")
    again, _ = compared(src, tmp, "halves2.json", h0, h1)
    check(open(os.path.join(tmp, "halves.json"), "rb").read() == open(os.path.join(tmp, "halves2.json"), "rb").read(),
          "the same seed: the same bytes")
    other, _ = compared(src, tmp, "halves3.json", h0, h1, "--seed", "1")
    same_diff = all(x["diff"] == y["diff"] for x, y in zip(cells(out), cells(other)))
    moved = sum(x["ci"] != y["ci"] for x, y in zip(cells(out), cells(other)))
    check(same_diff and moved > 0, f"another seed: the same differences, other intervals ({moved} moved)")
    return out


def family_by_hand(out, ids_a, sa, ca, ids_b, sb, cb, shared, draws, H):
    """The paired comparison's global R_rmin family by a second route: each replicate's documents
    listed (repeats included), its ratio means, each drawn document's influence and the
    delta-method standard error n/(n-1) sum e^2, its t per N, max over N; the critical value and
    p-value from those maxima; each cell's se and t and the band. Before it: the thin N (in fp32
    and bf16 most documents select alike at some N, and more than 5% of the replicates draw only
    those) are left out of their families, untested and unmarked."""
    import numpy as np
    grid, e = out["n_grid"], out["groups"][0]
    thin = [(f, g[k]) for g in out["groups"] for k, f in g["families"].items() if f.get("thin_n")]
    check(len(thin) > 0 and all(not c["tested"] and c["band"] is None and not c["marked"] and c["t"] is not None
                                for f, cs in thin for n, c in zip(grid, cs) if n in f["thin_n"]),
          f"A vs A16: {len(thin)} families with thin N (too few documents differ), those cells untested and unmarked")
    fam, cells_ = e["families"]["R_rmin"], e["R_rmin"]
    live = [i for i, c in enumerate(cells_) if c["t"] is not None]

    G = len(grid)

    def parts(ids, s, c, picks, g):  # R_rmin: the second curve, columns G..2G-1 of a row
        rows = [ids.index(shared[i]) for i in picks]
        return np.array([s[r, :, G + g].sum() for r in rows]), np.array([c[r, :, g].sum() * H for r in rows], float)

    def diff_and_se(picks, g):
        xa, na = parts(ids_a, sa, ca, picks, g)
        xb, nb = parts(ids_b, sb, cb, picks, g)
        ma, mb = xa.sum() / na.sum(), xb.sum() / nb.sum()
        infl = (xb - mb * nb) / nb.sum() - (xa - ma * na) / na.sum()
        n = len(picks)
        return mb - ma, float(np.sqrt(n / (n - 1) * (infl ** 2).sum()))

    everything = range(len(shared))
    point = {g: diff_and_se(everything, g) for g in live}
    per_rep = [{g: diff_and_se(d, g) for g in live} for d in draws]
    # thin: more than 5% of the replicates drew only documents alike there (their own se 0): left out
    thin = [g for g in live if sum(r[g][1] <= 1e-12 for r in per_rep) > 0.05 * len(draws)]
    live = [g for g in live if g not in thin]
    maxima = []
    for r in per_rep:
        z = []
        for g in live:
            rep, se = r[g]
            dev = abs(rep - point[g][0])
            z.append(dev / se if se > 1e-12 else (float("inf") if dev > 1e-12 else 0.0))
        maxima.append(max(z))
    maxima = np.array(maxima)
    observed = max(abs(point[g][0]) / point[g][1] for g in live)
    finite = np.sort(maxima)
    pos = (len(finite) - 1) * 0.95
    lo, hi = finite[int(np.floor(pos))], finite[int(np.ceil(pos))]
    critical = float("inf") if np.isinf(hi) else lo + (hi - lo) * (pos - np.floor(pos))
    p = (1 + (maxima >= observed).sum()) / (1 + len(maxima))
    worst = max(max(abs(cells_[g]["se"] - point[g][1]) / point[g][1],
                    abs(cells_[g]["t"] - abs(point[g][0]) / point[g][1]) / max(1.0, cells_[g]["t"]),
                    abs(cells_[g]["band"][0] - (point[g][0] - critical * point[g][1]))) for g in live)
    tested = [i for i, c in enumerate(cells_) if c["tested"]]
    check(tested == live and [grid[g] for g in thin] == fam["thin_n"] and abs(fam["critical"] - critical) <= 1e-9
          and abs(fam["p"] - p) <= 1e-12 and abs(fam["max_t"] - observed) <= 1e-9 and worst <= 1e-9,
          f"paired global R_rmin's family by hand: {len(live)} N tested (N = 1 and {grid[-1]} alike, thin {fam['thin_n']}) "
          f"over 400 replicates: critical value {critical:.4f}, p {p:.4f}, max |t| {observed:.3f}, every cell's se, t "
          f"and band (worst {worst:.1e})")


def null_checks(src, tmp, nulls):
    """Disjoint parts of one shard, one model: nothing marked family-wise, cells marked per cell, as
    docs/compare.md states it for these runs."""
    sys.path.insert(0, os.path.join(src, "python"))
    from geoattn.compare import marked
    doc = " ".join(open(os.path.join(src, "docs", "compare.md"), encoding="utf-8").read().split())
    for name, (x, y) in nulls.items():
        fw, _ = compared(src, tmp, name + ".json", x, y)
        pc, _ = compared(src, tmp, name + "-cell.json", x, y, "--per-cell")
        every = ("global", "layer", "head")
        mf, mc = marked(fw, every)[0], marked(pc, every)[0]
        rho = sum(e["rho0"]["marked"] for e in fw["groups"])
        (ml, nl, _), (mh, nh, _) = marked(pc, ["layer"]), marked(pc, ["head"])
        text = (f"{name}: {fw['a']['documents']} and {fw['b']['documents']} documents, {mf + rho} cells marked "
                f"family-wise ({fw['marks']['families_passing']} of {fw['marks']['families_tested']} families pass); "
                f"per cell {ml} of {nl} layer cells and {mh} of {nh} head cells")
        check(mf + rho == 0 and mc > 0 and marks_consistent(fw), f"null, {text}")
        check(text in doc, f"calibration: docs/compare.md states '{text}'")


def refusal_checks(src, tmp, geoattn, a, h0):
    runs = {
        "ctx": measure(geoattn, src, os.path.join(tmp, "ctx.json"), "--max-windows", "4", "--ctx", "128"),
        "cosine": measure(geoattn, src, os.path.join(tmp, "cos.json"), "--max-windows", "4", "--distance", "cosine"),
        "queries": measure(geoattn, src, os.path.join(tmp, "q.json"), "--max-windows", "4", "--queries", "-1,-2"),
        "noboot": measure(geoattn, src, os.path.join(tmp, "noboot.json"), "--max-windows", "4", "--bootstrap", "0"),
        "layers": measure(geoattn, src, os.path.join(tmp, "s15.json"), "--max-windows", "3", model="models/stories15M"),
    }
    nostate = os.path.join(tmp, "nostate.json")
    open(nostate, "w").write(open(a).read())
    broken = os.path.join(tmp, "broken.json")
    open(broken, "w").write("{")
    tax_a, tax_h = os.path.join(tmp, "ta.json"), os.path.join(tmp, "th.json")
    for m, t in ((a, tax_a), (h0, tax_h)):
        run([geoattn, "taxonomy", "--from", m, "--out", t, "--quiet"], src)
    cases = {
        "different ctx": ([a, runs["ctx"]], "settings.ctx"),
        "euclidean vs cosine": ([a, runs["cosine"]], "settings.distance"),
        "different queries": ([runs["queries"], a], "settings.queries"),
        "--bootstrap 0": ([a, runs["noboot"]], "--bootstrap"),
        "no state sidecar": ([nostate, a], "nostate.state.safetensors"),
        "layer counts differ": ([a, runs["layers"]], "--global"),
        "an N not on both grids": ([a, h0, "--n", "7,300"], "--n"),
        "one taxonomy": ([a, h0, "--taxonomy-a", tax_a], "--taxonomy-b"),
        "a taxonomy of another run": ([a, runs["layers"], "--global", "--taxonomy-a", tax_a, "--taxonomy-b", tax_h],
                                      "--taxonomy-b"),
        "a broken JSON": ([broken, a], "broken.json"),
        "a missing file": ([a, os.path.join(tmp, "nope.json")], "nope.json"),
    }
    for k, (what, (argv, name)) in enumerate(cases.items()):
        folder = os.path.join(tmp, f"refused{k}")
        os.makedirs(folder)
        p = compare(src, *argv, "--out", os.path.join(folder, "d.json"), "--figure", os.path.join(folder, "d.png"))
        lines = p.stderr.strip().splitlines()
        check(p.returncode == 2 and len(lines) == 1 and lines[0].startswith("geoattn-compare: error: ")
              and name in lines[0] and p.stdout == "" and os.listdir(folder) == [],
              f"refused, {what}: exit 2, one line naming {name}, nothing written ({p.returncode}: {lines})")
    for what, target in (("--out a folder", tmp), ("--out in a missing folder", os.path.join(tmp, "no", "d.json"))):
        p = compare(src, a, h0, "--out", target)
        lines = p.stderr.strip().splitlines()
        check(p.returncode == 2 and len(lines) == 1 and target in lines[0] and p.stdout == ""
              and not os.path.exists(os.path.join(tmp, "no")),
              f"refused, {what}: exit 2, one line naming it ({p.returncode}: {lines})")
    out, _ = compared(src, tmp, "global.json", a, runs["layers"], "--global")
    check([e["group"] for e in out["groups"]] == ["global"], "layer counts differ, --global: the whole model only")
    out, _ = compared(src, tmp, "depth.json", a, runs["layers"], "--depth", "2")
    depth = [(e["layers_a"], e["layers_b"]) for e in out["groups"][1:]]
    check(depth == [([0, 1, 2], [0, 1, 2]), ([3, 4], [3, 4, 5])], f"--depth 2: 5 and 6 layers by relative depth ({depth})")


def output_checks(src, tmp, a, a16):
    folder = os.path.join(tmp, "outputs")
    os.makedirs(folder)
    out_json, png = os.path.join(folder, "d.json"), os.path.join(folder, "d.png")
    p = compare(src, a, a16, "--n", "1,2,4:16", "--out", out_json, "--figure", png)
    check(p.returncode == 0 and f"wrote {out_json}" in p.stdout and f"wrote {png}" in p.stdout,
          f"--out and --figure written ({p.stderr.strip()[-300:]})")
    out = json.load(open(out_json))
    check(out["schema"] == "geoattn.compare/2" and out["n_grid"] == [1, 2, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16],
          f"the JSON: schema and the --n subset ({out['n_grid']})")
    head = open(png, "rb").read(8)
    check(head == PNG_SIGNATURE and os.path.getsize(png) > 10_000, f"the figure is a PNG ({os.path.getsize(png)} B)")
    check(sorted(os.listdir(folder)) == ["d.json", "d.png"], f"no temporary file left ({os.listdir(folder)})")


def label_checks(src, tmp, geoattn, a, a16):
    ta, tb = os.path.join(tmp, "la.json"), os.path.join(tmp, "lb.json")
    for m, t in ((a, ta), (a16, tb)):
        run([geoattn, "taxonomy", "--from", m, "--out", t, "--quiet"], src)
    out, p = compared(src, tmp, "labels.json", a, a16, "--taxonomy-a", ta, "--taxonomy-b", tb, "--replicates", "50")
    lab, ja, jb = out["labels"], json.load(open(ta)), json.load(open(tb))
    part = lab["parts"][0] if len(lab["parts"]) == 1 else None
    ok = (part is not None and part["slopes_by"] == "interval" and part["compared"] and lab["compared"] and lab["why"] is None
          and lab["slopes_by"] == {"a": {"interval": 40}, "b": {"interval": 40}})
    t = part["totals"] if ok else {}
    ok = ok and all(t["a"][c] == ja["totals"][c] and t["b"][c] == jb["totals"][c]
                    and t["diff"][c] == jb["totals"][c] - ja["totals"][c]
                    and abs(t["share_a"][c] - ja["totals"][c] / 40) <= 1e-15
                    and abs(t["share_diff"][c] - (jb["totals"][c] - ja["totals"][c]) / 40) <= 1e-15 for c in lab["classes"])
    ok = ok and all(row["a"][c] == ra[c] and row["diff"][c] == rb[c] - ra[c] and row["heads_a"] == 8
                    and abs(row["share_b"][c] - rb[c] / 8) <= 1e-15
                    for row, ra, rb in zip(part["layers"], ja["layers"], jb["layers"]) for c in lab["classes"])
    check(ok and "labels read by interval (A 40 heads, B 40; A, B, B - A)" in p.stdout,
          f"label counts and shares of heads per layer and in total, and B - A, read by interval in both ({t.get('a')}, "
          f"{t.get('b')})")
    # SPEC §6: a taxonomy whose Mixer slopes were read by sign (no head-level intervals) is not compared with one
    # read by interval.
    layer_level = measure(geoattn, src, os.path.join(tmp, "alayer.json"), "--max-windows", "12", "--bootstrap-level", "layer")
    tl = os.path.join(tmp, "lsign.json")
    run([geoattn, "taxonomy", "--from", layer_level, "--out", tl, "--quiet"], src)
    out, p = compared(src, tmp, "labels-sign.json", a, layer_level, "--taxonomy-a", ta, "--taxonomy-b", tl, "--replicates", "50")
    lab, jl = out["labels"], json.load(open(tl))
    parts = {q["slopes_by"]: q for q in lab["parts"]}
    ok = (not lab["compared"] and "SPEC §6" in (lab["why"] or "") and set(parts) == {"interval", "sign"}
          and parts["interval"]["totals"]["heads_b"] == 0 and parts["sign"]["totals"]["heads_a"] == 0
          and all(q["totals"]["diff"] is None and not q["compared"] for q in lab["parts"])
          and parts["sign"]["totals"]["b"] == {c: jl["totals"][c] for c in lab["classes"]}
          and parts["interval"]["totals"]["a"] == {c: ja["totals"][c] for c in lab["classes"]})
    check(ok and "never pooled or compared as one" in p.stdout and "not compared" in p.stdout,
          f"labels read by interval (A) and by sign (B, --bootstrap-level layer): each run's counts, not compared "
          f"(Mixer {ja['totals']['Mixer']} by interval, {jl['totals']['Mixer']} by sign)")
    # SPEC §6: taxonomies made by different rules (one threshold moved) are each counted, never compared.
    cfg, tm = os.path.join(tmp, "moved.json"), os.path.join(tmp, "lmoved.json")
    with open(cfg, "w") as f:
        json.dump({"retriever_cos_vL_min": 0.4}, f)
    run([geoattn, "taxonomy", "--from", a16, "--config", cfg, "--out", tm, "--quiet"], src)
    out, p = compared(src, tmp, "labels-rule.json", a, a16, "--taxonomy-a", ta, "--taxonomy-b", tm, "--replicates", "50")
    lab = out["labels"]
    ok = (not lab["compared"] and "different rules (retriever_cos_vL_min 0.5 in A, 0.4 in B)" in (lab["why"] or "")
          and all(q["totals"]["diff"] is None and not q["compared"] for q in lab["parts"])
          and all(r["diff"] is None for q in lab["parts"] for r in q.get("layers", [])))
    check(ok and "different rules" in p.stdout, f"taxonomies of different thresholds: each run's counts, not compared "
                                                f"({lab['why']})")


def signed(x):
    """A number as docs/compare.md's worked example writes it: -0.206, +0.001."""
    return f"{x:+.3f}".replace("+", "+" if x > 0 else "").replace("+0.000", "0.000")


def worked_example(src, tmp, geoattn):
    """docs/compare.md's worked example (stories15M against SmolLM2-135M) rerun: every cell of its
    table and its global rho0 recomputed. SmolLM2 is a real model fetched by scripts/get-model.sh:
    in CI (CI=true) its absence fails; elsewhere the check says it did not run."""
    if not os.path.isdir(os.path.join(src, "models", "smollm2-135m")):
        ci = os.environ.get("CI", "") not in ("", "0", "false")
        check(not ci, "worked example: models/smollm2-135m is absent" + (" in CI" if ci else " (not run here)"))
        return
    s15, smol = os.path.join(tmp, "s15.json"), os.path.join(tmp, "smol.json")
    measure(geoattn, src, s15, "--max-windows", "24", model="models/stories15M")
    p, _ = run([geoattn, "measure", "--model", "models/smollm2-135m", "--data", "models/smollm2-135m/openwebtext-60docs.bin",
                "--ctx", "256", "--max-windows", "24", "--bootstrap-level", "head", "--quiet", "--out", smol], src)
    if not check(p.returncode == 0, "worked example: SmolLM2's run"):
        print("  stderr:", p.stderr[-1500:])
        return
    t15, tsmol = os.path.join(tmp, "s15.tax.json"), os.path.join(tmp, "smol.tax.json")
    for m, t in ((s15, t15), (smol, tsmol)):
        run([geoattn, "taxonomy", "--from", m, "--out", t, "--quiet"], src)
    out, _ = compared(src, tmp, "worked.json", s15, smol, "--depth", "3", "--taxonomy-a", t15, "--taxonomy-b", tsmol)
    doc = open(os.path.join(src, "docs", "compare.md"), encoding="utf-8").read()
    sys.path.insert(0, os.path.join(src, "python"))
    from geoattn.compare import marked
    (mg, ng, _), (md, nd, _) = marked(out, ["global"]), marked(out, ["depth"])
    depth_rho = ", ".join(signed(e["rho0"]["diff"]) for e in out["groups"] if e["group"] == "depth")
    lab = out["labels"]
    t = lab["parts"][0]["totals"]
    labels = "; ".join(f"{c} {t['a'][c]} ({100 * t['share_a'][c]:.1f}%), {t['b'][c]} ({100 * t['share_b'][c]:.1f}%)"
                       for c in lab["classes"])
    check(lab["compared"] and [q["slopes_by"] for q in lab["parts"]] == ["interval"],
          "worked example: both taxonomies read the Mixer's slopes by interval (SmolLM2 at --bootstrap-level head)")
    passing = f"{out['marks']['families_passing']} of {out['marks']['families_tested']} families"
    for text in (f"Marked: {mg} of {ng} global cells and {md} of {nd} depth cells ({passing} pass", f"by depth {depth_rho}",
                 labels):
        check(" ".join(text.split()) in " ".join(doc.split()), f"worked example: docs/compare.md says '{text}'")
    rows = re.findall(r"^\| (global|depth \d) \| (\d+) \| (.+?) \| (.+?) \| (.+?) \|$", doc, re.M)
    ok, bad = bool(rows), []
    for group, n, *cells in rows:
        entry = next(e for e in out["groups"] if (e["group"] == "global" if group == "global" else
                                                   e["group"] == "depth" and e["depth"] == int(group.split()[1])))
        i = out["n_grid"].index(int(n))
        for name, text in zip(("P_rmax", "R_rmin", "F_rmin"), cells):
            c = entry[name][i]
            want = f"{signed(c['diff'])} [{signed(c['band'][0])}, {signed(c['band'][1])}]" + ("*" if c["marked"] else "")
            if want != text.strip():
                ok = False
                bad.append(f"{group} N={n} {name}: the run gives {want}, the page {text.strip()}")
    rho = next(e for e in out["groups"] if e["group"] == "global")["rho0"]
    rho_text = f"global {signed(rho['diff'])} [{signed(rho['band'][0])}, {signed(rho['band'][1])}]"
    check(ok and rho_text in doc, f"worked example: the {len(rows)} rows of docs/compare.md's table and its "
                                  f"{rho_text} recomputed" + (" (" + "; ".join(bad) + ")" if bad else ""))


def doc_block(src, bin_dir):
    tmp, p = run_doc_block(src, bin_dir, "compare.md", "test: compare-cli")
    if not check(p.returncode == 0 and os.path.exists(os.path.join(tmp, "out", "compare", "halves.json")),
                 "docs/compare.md's CLI block runs as written"):
        print("  stdout:", p.stdout[-2000:], "\n  stderr:", p.stderr[-2000:])
    remove_scratch(tmp, False)


def slim_checks(src, tmp, geoattn, a, a16):
    """The slim sums file (scripts/slim_state.py) in place of A's state: compare's global and
    layer cells equal those from the whole state; merge refuses it by name; compare runs against
    the committed findings, which ship slim files."""
    import shutil
    folder = os.path.join(tmp, "slim")
    os.makedirs(folder)
    for suffix in (".json", ".curves.safetensors"):
        shutil.copy(a[:-5] + suffix, os.path.join(folder, "a" + suffix))
    slim = os.path.join(folder, "a.state.safetensors")
    p, _ = run([plotter_python(), "scripts/slim_state.py", a[:-5] + ".state.safetensors", slim], src)
    size, whole = (os.path.getsize(slim) if os.path.exists(slim) else 0), os.path.getsize(a[:-5] + ".state.safetensors")
    check(p.returncode == 0 and 0 < size < whole / 4, f"slim_state.py writes the sums alone ({size} B of the state's {whole})")
    full, _ = compared(src, tmp, "slim-full.json", a, a16, "--replicates", "300")
    thin, _ = compared(src, tmp, "slim-thin.json", os.path.join(folder, "a.json"), a16, "--replicates", "300")
    kinds = ("global", "layer")
    pairs = list(zip(cells(full, kinds), cells(thin, kinds)))
    worst = max(abs(x - y) for f, t in pairs for key in ("diff", "ci") for x, y in
                zip(*([[v] if not isinstance(v, list) else v for v in (f[key], t[key])])) if x is not None and y is not None)
    check(len(pairs) == 6 * 97 and worst <= 1e-12 and len(cells(thin, ("head",))) == 0,
          f"compare from the slim file: its {len(pairs)} global and layer cells equal the whole state's (worst "
          f"{worst:.1e}); no head cells")
    p, _ = run([geoattn, "merge", "--out", os.path.join(tmp, "merged.json"), os.path.join(folder, "a.json")], src)
    check(p.returncode != 0 and "a slim file of per-document sums" in p.stderr and len(p.stderr.strip().splitlines()) == 1
          and not os.path.exists(os.path.join(tmp, "merged.json")), f"merge refuses the slim file by name ({p.stderr.strip()})")
    ship, _ = compared(src, tmp, "shipped.json", "docs/findings/gemma3/measure.json", "docs/findings/smollm2/measure.json",
                       "--depth", "3", "--replicates", "200")
    check(ship["pairing"] == "paired" and [e["group"] for e in ship["groups"]][:1] == ["global"],
          "compare runs against the committed findings (gemma3 vs SmolLM2 by depth, from their slim files)")


def main():
    args, src, bin_dir, geoattn = parse_args(__file__)
    t0 = time.time()
    code = preamble(t0, geoattn)  # numpy and matplotlib (rerun under an interpreter that has them), geoattn built
    if code is not None:
        return code
    tmp = tempfile.mkdtemp(prefix="geoattn-compare-test-")
    try:
        constructed_checks(src, tmp)
        a = measure(geoattn, src, os.path.join(tmp, "a.json"), "--max-windows", "12")
        a16 = measure(geoattn, src, os.path.join(tmp, "a16.json"), "--max-windows", "16", "--dtype", "bf16")
        h0 = measure(geoattn, src, os.path.join(tmp, "h0.json"), "--max-windows", "60", "--shard", "0/2")
        h1 = measure(geoattn, src, os.path.join(tmp, "h1.json"), "--max-windows", "60", "--shard", "1/2")
        q0 = measure(geoattn, src, os.path.join(tmp, "q0.json"), "--max-windows", "60", "--shard", "0/4")
        q1 = measure(geoattn, src, os.path.join(tmp, "q1.json"), "--max-windows", "60", "--shard", "1/4")
        self_checks(src, tmp, a)
        means_checks(src, a)
        pairing_checks(src, tmp, a, a16, h0, h1)
        null_checks(src, tmp, {"halves": (h0, h1), "quarters 0 and 1": (q0, q1)})
        refusal_checks(src, tmp, geoattn, a, h0)
        output_checks(src, tmp, a, a16)
        label_checks(src, tmp, geoattn, a, a16)
        slim_checks(src, tmp, geoattn, a, a16)
        doc_block(src, bin_dir)
        worked_example(src, tmp, geoattn)
    finally:
        remove_scratch(tmp, args.keep)
    return finish(t0)


if __name__ == "__main__":
    sys.exit(main())
