#!/usr/bin/env python3
"""Compare (ctest): geoattn-compare (python/geoattn/compare.py) on real runs of stories260K.

Makes runs with the built geoattn: A (12 documents), A16 (the first 16 in bf16: 12 shared with A ->
paired), the two halves of the 60-document shard (--shard 0/2, 1/2: disjoint -> unpaired), and
runs whose settings differ. Checks, each against a second route: a run compared with itself
gives exactly 0 and zero-width intervals in every cell; the group means from the state
sidecar's per-document sums equal the run's reported means (1e-12), and with the C++
bootstrap's generator (util/random.h, in Python here) its own intervals; one paired cell
recomputed replicate by replicate; paired/unpaired detection and the documents left out; the
same bytes for a seed; the refusals (exit 2, one stderr line naming the setting, nothing
written); the JSON and the PNG; the calibration share docs/compare.md states; its CLI block.

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
    check(all(c["diff"] == 0.0 and c["ci"] == [0.0, 0.0] and not c["significant"] for c in every),
          "A vs A: every difference exactly 0, every interval [0, 0]")
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

    out, p = compared(src, tmp, "halves.json", h0, h1)
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
    layer_cells = [c for e in out["groups"] if e["group"] == "layer" for k in CURVES for c in e[k]]
    live = [c for c in layer_cells if c["ci"][0] != c["ci"][1]]  # N = 1 and N = T: alike in every replicate
    share = f"{sum(c['significant'] for c in live)} of {len(live)}"
    doc = open(os.path.join(src, "docs", "compare.md"), encoding="utf-8").read()
    check(f"{share} (layer, curve, N) cells" in doc, f"calibration: docs/compare.md states the measured {share}")
    return out


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
    check(out["schema"] == "geoattn.compare/1" and out["n_grid"] == [1, 2, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16],
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
    ok = all(lab["totals"]["a"][c] == ja["totals"][c] and lab["totals"]["b"][c] == jb["totals"][c]
             and lab["totals"]["diff"][c] == jb["totals"][c] - ja["totals"][c] for c in lab["classes"])
    ok = ok and all(row["diff"][c] == rb[c] - ra[c] for row, ra, rb in zip(lab["layers"], ja["layers"], jb["layers"])
                    for c in lab["classes"])
    check(ok and "labels (A, B, B - A)" in p.stdout, f"label counts per layer and in total, and B - A ({lab['totals']})")


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
                "--ctx", "256", "--max-windows", "24", "--quiet", "--out", smol], src)
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
    t = out["labels"]["totals"]
    labels = "; ".join(f"{c} {t['a'][c]}, {t['b'][c]}, {t['diff'][c]:+d}".replace("+0", "0") for c in out["labels"]["classes"])
    for text in (f"Marked: {mg} of {ng} global cells and {md} of {nd} depth cells", f"by depth {depth_rho}", labels):
        check(" ".join(text.split()) in " ".join(doc.split()), f"worked example: docs/compare.md says '{text}'")
    rows = re.findall(r"^\| (global|depth \d) \| (\d+) \| (.+?) \| (.+?) \| (.+?) \|$", doc, re.M)
    ok, bad = bool(rows), []
    for group, n, *cells in rows:
        entry = next(e for e in out["groups"] if (e["group"] == "global" if group == "global" else
                                                   e["group"] == "depth" and e["depth"] == int(group.split()[1])))
        i = out["n_grid"].index(int(n))
        for name, text in zip(("P_rmax", "R_rmin", "F_rmin"), cells):
            c = entry[name][i]
            want = f"{signed(c['diff'])} [{signed(c['ci'][0])}, {signed(c['ci'][1])}]"
            if want != text.strip():
                ok = False
                bad.append(f"{group} N={n} {name}: the run gives {want}, the page {text.strip()}")
    rho = next(e for e in out["groups"] if e["group"] == "global")["rho0"]
    rho_text = f"global {signed(rho['diff'])} [{signed(rho['ci'][0])}, {signed(rho['ci'][1])}]"
    check(ok and rho_text in doc, f"worked example: the {len(rows)} rows of docs/compare.md's table and its "
                                  f"{rho_text} recomputed" + (" (" + "; ".join(bad) + ")" if bad else ""))


def doc_block(src, bin_dir):
    tmp, p = run_doc_block(src, bin_dir, "compare.md", "test: compare-cli")
    if not check(p.returncode == 0 and os.path.exists(os.path.join(tmp, "out", "compare", "halves.json")),
                 "docs/compare.md's CLI block runs as written"):
        print("  stdout:", p.stdout[-2000:], "\n  stderr:", p.stderr[-2000:])
    remove_scratch(tmp, False)


def main():
    args, src, bin_dir, geoattn = parse_args(__file__)
    t0 = time.time()
    code = preamble(t0, geoattn)  # numpy and matplotlib (rerun under an interpreter that has them), geoattn built
    if code is not None:
        return code
    tmp = tempfile.mkdtemp(prefix="geoattn-compare-test-")
    try:
        a = measure(geoattn, src, os.path.join(tmp, "a.json"), "--max-windows", "12")
        a16 = measure(geoattn, src, os.path.join(tmp, "a16.json"), "--max-windows", "16", "--dtype", "bf16")
        h0 = measure(geoattn, src, os.path.join(tmp, "h0.json"), "--max-windows", "60", "--shard", "0/2")
        h1 = measure(geoattn, src, os.path.join(tmp, "h1.json"), "--max-windows", "60", "--shard", "1/2")
        self_checks(src, tmp, a)
        means_checks(src, a)
        pairing_checks(src, tmp, a, a16, h0, h1)
        refusal_checks(src, tmp, geoattn, a, h0)
        output_checks(src, tmp, a, a16)
        label_checks(src, tmp, geoattn, a, a16)
        doc_block(src, bin_dir)
        worked_example(src, tmp, geoattn)
    finally:
        remove_scratch(tmp, args.keep)
    return finish(t0)


if __name__ == "__main__":
    sys.exit(main())
