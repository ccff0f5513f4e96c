"""What the Python script tests share: their arguments, ok/FAIL lines and running a command."""
import argparse
import os
import shutil
import subprocess
import tempfile
import sys
import time

failures = []


def plotter_python():
    """An interpreter with numpy + matplotlib (this one, else Debian's /usr/bin/python3, which the
    Debian route's python3-numpy and python3-matplotlib serve), or None."""
    for exe in (sys.executable, "/usr/bin/python3"):
        if exe and os.path.exists(exe):
            p = subprocess.run([exe, "-c", "import numpy, matplotlib"], capture_output=True)
            if p.returncode == 0:
                return exe
    return None


def preamble(t0, geoattn):
    """The start of a check script that reads arrays with numpy, draws, and runs the built geoattn:
    None to go on, or the exit code to return: this script's run again under plotter_python() when
    this interpreter lacks numpy or matplotlib, else finish(t0)'s when no interpreter has them or
    geoattn is not built."""
    py = plotter_python()
    if py and py != sys.executable:
        return subprocess.run([py, *sys.argv]).returncode
    if not check(py is not None, "an interpreter with numpy and matplotlib (this one or /usr/bin/python3)"):
        return finish(t0)
    if not check(os.access(geoattn, os.X_OK), f"geoattn is built ({geoattn})"):
        return finish(t0)
    return None


def python_first_on_path(env, scratch):
    """env with a `python3` that has numpy + matplotlib first on PATH (a link in `scratch`), for
    documentation blocks that say `python3 scripts/...` on a machine whose own python3 lacks them;
    env unchanged when none has them (the block then fails, naming what is missing)."""
    exe = plotter_python()
    if not exe:
        return env
    os.makedirs(scratch, exist_ok=True)
    link = os.path.join(scratch, "python3")
    if not os.path.exists(link):
        os.symlink(exe, link)
    return dict(env, PATH=scratch + os.pathsep + env.get("PATH", ""))


def run_doc_block(src, bin_dir, page, marker, timeout=600):
    """The sh block after `<!-- marker` in docs/`page`, run as written in a fresh workspace of src
    with the built geoattn, the checkout's package and a python3 with numpy first on PATH:
    (the workspace, the CompletedProcess). The caller removes the workspace."""
    block = block_after(os.path.join(src, "docs", page), marker, "sh")
    tmp = workspace(src, tempfile.mkdtemp(prefix="geoattn-doc-block-"))
    env = python_first_on_path(dict(package_env(src), PATH=bin_dir + os.pathsep + os.environ.get("PATH", "")),
                               os.path.join(tmp, ".python"))
    p = subprocess.run(["bash", "-euo", "pipefail", "-c", block], cwd=tmp, env=env, capture_output=True, text=True,
                       timeout=timeout)
    return tmp, p


def start(test_file):
    """The start of a check script that runs the built geoattn: (t0, parsed args, source dir, geoattn,
    early), early None to go on or the exit code to return (preamble's)."""
    t0 = time.time()
    args, src, _, geoattn = parse_args(test_file)
    return t0, args, src, geoattn, preamble(t0, geoattn)


def remove_scratch(tmp, keep):
    """A check script's scratch folder removed, or kept (--keep), saying where."""
    if keep:
        print("kept", tmp)
    else:
        shutil.rmtree(tmp, ignore_errors=True)


def finish(t0):
    """A check script's last line, its tally since t0; its exit code (1 when a check failed)."""
    print(f"{'FAILED: ' + str(len(failures)) + ' check(s)' if failures else 'all checks passed'}"
          f" in {time.time() - t0:.1f}s")
    return 1 if failures else 0


def check(cond, what):
    print(("ok    " if cond else "FAIL  ") + what, flush=True)
    if not cond:
        failures.append(what)
    return cond


def run(cmd, cwd, timeout=300, env=None):
    t = time.time()
    try:
        p = subprocess.run(cmd, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           text=True, timeout=timeout, env=env)
    except (OSError, subprocess.TimeoutExpired) as e:
        p = subprocess.CompletedProcess(cmd, -1, "", f"{type(e).__name__}: {e}")
    return p, time.time() - t


def package_env(src):
    """This environment with the checkout's python/ first on PYTHONPATH: `python3 -m geoattn.X`
    runs the package of src."""
    path = os.path.abspath(os.path.join(src, "python"))
    return dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, (path, os.environ.get("PYTHONPATH")))))


def must(cmd, cwd, what):
    p, dt = run(cmd, cwd)
    if not check(p.returncode == 0, f"{what} ({dt:.1f}s)"):
        print("  command:", " ".join(cmd), "\n  stdout:", p.stdout[-2000:],
              "\n  stderr:", p.stderr[-2000:])
        raise SystemExit(1)
    return p


def block_after(path, marker, language):
    """The fenced block of `language` that follows the HTML comment `<!-- marker` in `path`: the
    lines a page shows and a test runs as written."""
    text = open(path, encoding="utf-8").read()
    if "<!-- " + marker not in text:
        raise SystemExit(f"{path}: no '<!-- {marker}' marker")
    return text.split("<!-- " + marker, 1)[1].split(f"```{language}\n", 1)[1].split("```", 1)[0]


def workspace(src, folder):
    """`folder` (made if missing) with an entry linking to each of the repository's top-level
    entries, less what runs write (out/, build folders) and .git: commands copied from the docs
    run there as in a clone, and write into it."""
    os.makedirs(folder, exist_ok=True)
    for name in os.listdir(src):
        if name not in ("out", ".git") and not name.startswith("build"):
            os.symlink(os.path.join(src, name), os.path.join(folder, name))
    return folder


def parse_args(test_file):
    """--source-dir, --bin-dir, --keep -> (args, source dir, bin dir, the geoattn binary)."""
    here = os.path.dirname(os.path.abspath(test_file))
    ap = argparse.ArgumentParser()
    ap.add_argument("--source-dir", default=os.environ.get("GEOATTN_SOURCE_DIR",
                                                           os.path.dirname(here)))
    ap.add_argument("--bin-dir", default=os.environ.get("GEOATTN_BIN_DIR"))
    ap.add_argument("--keep", action="store_true", help="keep the temporary folder")
    args = ap.parse_args()
    src = os.path.abspath(args.source_dir)
    bin_dir = os.path.abspath(args.bin_dir or os.path.join(src, "build", "bin"))
    return args, src, bin_dir, os.path.join(bin_dir, "geoattn")


# The names of the quantities that differ between the conventions (SPEC section 9), as the result
# writes them: the density, the centralisation, the reference measures and the dormant row score.
SINK_KEYS = {"geoattn": ("density_undirected", "centralization_freeman", "magnitude_ratio", "direction_agreement",
                         "row_score_from_1"),
             "authors": ("density", "degree_centralization", "relative_magnitude", "directional_influence", "row_score")}


def synthetic_sinks(layers=3, heads=4, P=8, taus=(0.05, 0.1), residual=False, text=True, convention="geoattn"):
    """A valid geoattn.sinks/1 document (include/geoattn/report/sinks_json.h) with plausible
    numbers: strong sinks at position 0 in the later layers, one dormant head, a layer without
    a single anchor, NaN (null) where a head is undefined. `text`: token texts (False: a run
    from a capture file, every text null); `convention` names the quantities."""
    import math
    density_key, central_key, magnitude_key, direction_key, row_key = SINK_KEYS[convention]
    texts = {1: "<s>", 13: "\n", 29889: ".", 278: " the", 42: "$x"}
    types = ["none", "centralized", "bidirectional", "distributed"]
    cfg = {"anchor_alpha_min": 0.3, "comparable_ratio": 0.5, "centralized_consistency": 0.9,
           "distributed_consistency": 0.5, "distributed_min_S": 3, "distributed_min_R": 2,
           "density_min": 0.05, "density_max": 0.95, "dormant_row_max": 0.3, "dormant_col_min": 0.9}

    def txt(tok):
        return texts.get(tok) if text and tok is not None else None

    def profile(mass0, decay):
        rest = [(1 - mass0) * math.exp(-decay * k) for k in range(1, P)]
        scale = (1 - mass0) / sum(rest) if sum(rest) else 0
        return [round(mass0, 6)] + [round(r * scale, 6) for r in rest]

    def top2(alpha, token):
        order = sorted(range(P), key=lambda k: (-alpha[k], k))[:2]
        return [{"position": k, "alpha": alpha[k], "token": token if k == 0 else None,
                 "text": txt(token) if k == 0 else None} for k in order]

    def anchor(token, share):
        return {"position": 0, "position_share": share, "token": token, "text": txt(token),
                "token_share": share, "consistency": share}

    out_layers, dormant_n, sinks_at_0 = [], 0, 0
    for l in range(layers):
        hs = []
        for h in range(heads):
            mass0 = min(0.95, 0.15 + 0.3 * l + 0.05 * h)
            alpha = profile(mass0, 0.3 + 0.1 * h)
            dormant = l == layers - 1 and h == 0
            undefined = l == 0 and h == heads - 1
            tok = [1, 13, 29889, 278, 42][(l + h) % 5]
            dormant_n += dormant
            sinks_at_0 += mass0 > 0.3
            hs.append({
                "head": h, "mass0": mass0, "rho0": None if undefined else round(0.8 - 1.6 * h / max(1, heads - 1), 3),
                "lambda": None if undefined else round(0.05 + 0.4 * (1 - mass0) * (h + 1) / heads, 4),
                "alpha": alpha, "sink_rate": [100.0 if a > 0.3 else 0.0 for a in alpha],
                "top2": top2(alpha, tok), "anchor": anchor(tok, 0.75),
                "anchor_tokens": [{"token": tok, "text": txt(tok), "windows": 6},
                                  {"token": 13, "text": txt(13), "windows": 2}][:1 + h % 2],
                "dormant": {row_key: 0.2 if dormant else min(0.95, 0.4 + 0.1 * h),
                            "col_score": 0.95 if dormant else min(0.85, 0.5 + 0.05 * l), "dormant": dormant},
                "reference": {"size": 1.5, magnitude_key: 0.4 + 0.1 * l,
                              direction_key: None if undefined else 0.7}})
        bar = [sum(hd["alpha"][k] for hd in hs) / heads for k in range(P)]
        ftype = types[l % 4]
        density = [round(max(0.01, 0.5 / (1 + 10 * t) - 0.1 * l), 4) for t in taus]
        graph = [{"tau": t, density_key: d, "gini": min(0.9, 0.3 + 0.1 * l), "star": 0.2,
                  central_key: 0.4, "fiedler": None if (l, i) == (0, 1) else max(0.0, 0.5 - 0.1 * l),
                  "gap": 0.1, "windows": 4, "effective": cfg["density_min"] <= d <= cfg["density_max"]}
                 for i, (t, d) in enumerate(zip(taus, density))]
        out_layers.append({
            "layer": l, "alpha": bar, "sink_rate": [sum(hd["sink_rate"][k] for hd in hs) / heads for k in range(P)],
            "top2": top2(bar, 1), "anchor": anchor(1, 0.9),
            "reference": {"positions": [0, 3], "size": 2.0,  # the measures only with --residual
                          magnitude_key: 0.3 if residual else None,
                          direction_key: 0.6 if residual else None},
            "graph": graph,
            "frame": {"type": ftype, "rule": f"{ftype}: synthetic", "S": [0] if ftype == "centralized" else [],
                      "anchor": 0 if bar[0] >= 0.3 else -1, "alpha1": max(bar), "alpha2": sorted(bar)[-2],
                      "switched": ftype == "bidirectional", "consistency": 0.9, "reference_size": 2},
            "heads": hs})
    profile_of = {t: sum(ly["frame"]["type"] == t for ly in out_layers) / layers for t in types}
    return {
        "schema": "geoattn.sinks/1",
        "model": {"path": "models/synthetic", "layers": layers, "heads": heads},
        "data": {"path": "data/synthetic.txt", "window": "stream", "windows": 6},
        "settings": {"ctx": 64, "convention": convention, "eps": 0.3, "taus": list(taus), "profile_positions": P,
                     "residual": residual, "dtype": "fp32"},
        "timing": {"total_seconds": 1.0},
        "convention_note": f"synthetic, named as the {convention} convention names its quantities",
        "rule": {"note": "geoattn's own rule (the sources describe the types only in words)",
                 "config": cfg, "source": "built-in"},
        "layers_n": layers, "heads_n": heads, "kv_heads_n": max(1, heads // 2), "T": 64, "windows": 6,
        "summary": {
            "sink_rate": [sum(ly["sink_rate"][k] for ly in out_layers) / layers for k in range(P)],
            "frame_profile": profile_of,
            "sweep": [{"key": "anchor_alpha_min", "value": v, "frame_profile": profile_of,
                       "types": [ly["frame"]["type"] for ly in out_layers][::-1]} for v in (0.2, 0.4)],
            "dormant_heads": dormant_n, "sink_heads_at_0": sinks_at_0},
        "layers": out_layers}
