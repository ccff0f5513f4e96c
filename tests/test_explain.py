#!/usr/bin/env python3
"""Explain (ctest): geoattn-explain (python/geoattn/tools/explain/) on real captures of stories260K.

Captures three 64-token windows at two queries with the built geoattn, then for several (layer,
head, window, query, N) runs the command with --json and checks, each against a second route:
P(r_max, N) and R(r_min, N) equal `geoattn metrics` on a one-sample capture that this test
writes itself (its own safetensors reader and writer), to the last bit, and the command says
"agrees with the exact core"; the selection order equals a brute-force sort (-alpha, position);
alpha, ||alpha v|| and the distances equal a direct float64 computation (1e-12); the balls'
members, K_out and K_in equal an exact rational computation (fractions) of every D_k. Through
the Python API (geoattn.explain, check off): every head of every sample at several N against
`metrics --n all`. Also: a near-tie made on purpose (a non-selected token given the same y as
r_max's token) is listed, decided exactly and agrees with the core; the text decode for
stories260K's tokenizer reproduces the text the binary tokenised (--text); the context block
(the document before the query) and the JSON's "context": the capture's tokens at the last 60
positions and the query, decoded by the vocabulary, [bracketed] exactly where I_N is, the query
<<marked>> once, alpha equal to the capture's; --color never/always/auto (a pty, NO_COLOR); the
figure is a PNG, its labels the selected tokens' and the query's text, legible and inside the
axes; the JSON; --model/--data leaves nothing behind; bad input (head or window out of range, a
missing file, N too large) gives one stderr line, exit 2, nothing on stdout and nothing written;
docs/explain.md's CLI block runs as written.

    tests/test_explain.py [--source-dir DIR] [--bin-dir DIR] [--keep]
"""
import glob
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from fractions import Fraction

from script_test_util import (check, finish, package_env, parse_args, preamble,  # beside this file
                              remove_scratch, run, run_doc_block)

DATA = "data/openwebtext/openwebtext-60docs.jsonl"
MODEL = "models/stories260K"
PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
CONTEXT = 60  # the tokens before the query that the context block shows (docs/explain.md)
ANSI = re.compile("\x1b\\[[0-9;]*m")
TEXT = "Once upon a time, there was a little dog named Max. He liked to play in the park."
# (layer, head, window, query, N): first and last layers, GQA pairs, both queries, N from 1 to n.
CASES = [(0, 0, 0, 63, 1), (2, 5, 1, 63, 4), (1, 3, 0, 63, 5), (4, 7, 2, 40, 8), (3, 2, 2, 63, 16),
         (1, 6, 1, 40, 41), (4, 1, 0, 63, 64), (0, 4, 2, 63, 3)]
_NP = {"F32": "<f4", "I64": "<i8", "F64": "<f8"}


def read_safetensors(path):
    """(metadata, {name: array}) with numpy, written here independently of geoattn.capture_io."""
    import numpy as np
    raw = open(path, "rb").read()
    n = int.from_bytes(raw[:8], "little")
    header = json.loads(raw[8:8 + n])
    out = {}
    for name, t in header.items():
        if name != "__metadata__":
            b, e = t["data_offsets"]
            out[name] = np.frombuffer(raw[8 + n + b:8 + n + e], _NP[t["dtype"]]).reshape(t["shape"]).copy()
    return header.get("__metadata__", {}), out


def write_safetensors(path, metadata, arrays):
    header, blobs, off = {"__metadata__": metadata}, [], 0
    for name, a in arrays.items():
        blob = a.tobytes()
        dtype = {"float32": "F32", "int64": "I64"}[str(a.dtype)]
        header[name] = {"dtype": dtype, "shape": list(a.shape), "data_offsets": [off, off + len(blob)]}
        blobs.append(blob)
        off += len(blob)
    text = json.dumps(header).encode()
    with open(path, "wb") as f:
        f.write(len(text).to_bytes(8, "little") + text + b"".join(blobs))


def one_sample(meta, arrays, w, q, path):
    """A capture of window w and query position q alone, written here."""
    qi = list(arrays["queries"]).index(q)
    m = dict(meta)
    m["doc_ids"] = json.dumps([json.loads(meta["doc_ids"])[w]])
    write_safetensors(path, m, {"alpha": arrays["alpha"][w:w + 1, :, :, qi:qi + 1].copy(),
                                "values": arrays["values"][w:w + 1].copy(), "tokens": arrays["tokens"][w:w + 1].copy(),
                                "queries": arrays["queries"][qi:qi + 1].copy()})


def metrics(geoattn, src, capture, grid, out):
    """(n_grid, {"P_rmax", "R_rmin": [L, H, G]}) of geoattn metrics on a capture."""
    p, _ = run([geoattn, "metrics", "--capture", capture, "--n", grid, "--controls", "0", "--bootstrap", "0",
                "--quiet", "--out", out], src)
    if p.returncode:
        raise SystemExit(f"geoattn metrics failed: {p.stderr[-500:]}")
    _, arr = read_safetensors(out[:-5] + ".curves.safetensors")
    return json.load(open(out))["n_grid"], {k: arr["heads." + k] for k in ("P_rmax", "R_rmin")}


def explain_cli(src, *argv):
    return run([sys.executable, "-m", "geoattn.explain", *argv], src, env=package_env(src))


def exact_balls(alpha, values, N):
    """Brute force: the top N by (-alpha, position), and in exact rationals every D_k, the balls'
    members, K_out and K_in (SPEC §2)."""
    n = len(alpha)
    order = sorted(range(n), key=lambda i: (-float(alpha[i]), i))
    sel, rest = order[:N], order[N:]
    y = [[Fraction(float(alpha[i])) * Fraction(float(x)) for x in values[i]] for i in range(n)]
    s = [sum(y[k][c] for k in sel) for c in range(len(y[0]))]
    D = [sum((s[c] - y[i][c]) ** 2 for c in range(len(s))) for i in range(n)]
    rmax2 = max(D[i] for i in sel)
    rmin2 = min(D[j] for j in rest) if rest else None
    in_rmax = {j for j in rest if D[j] <= rmax2}
    in_rmin_sel = {i for i in sel if rmin2 is None or D[i] <= rmin2}
    in_rmin_rest = {j for j in rest if D[j] <= rmin2}
    return order, in_rmax, in_rmin_sel, in_rmin_rest


def check_case(geoattn, src, tmp, meta, arrays, case):
    import numpy as np
    L, H, w, q, N = case
    tag = f"L{L}H{H} window {w} query {q} N {N}"
    js = os.path.join(tmp, f"e{L}{H}{w}{q}{N}.json")
    p, dt = explain_cli(src, "--capture", os.path.join(tmp, "c.safetensors"), "--head", f"{L}.{H}", "--window",
                        str(w), "--query", str(q), "--n", str(N), "--json", js)
    if not check(p.returncode == 0 and os.path.exists(js), f"{tag}: runs ({dt:.1f}s)"):
        print("  stderr:", p.stderr[-1500:])
        return
    out = json.load(open(js))
    one = os.path.join(tmp, "one.safetensors")
    one_sample(meta, arrays, w, q, one)
    grid, core = metrics(geoattn, src, one, str(N), os.path.join(tmp, "one.json"))
    g = grid.index(N)
    check(out["P_rmax"] == core["P_rmax"][L, H, g] and out["R_rmin"] == core["R_rmin"][L, H, g],
          f"{tag}: P {out['P_rmax']} R {out['R_rmin']} equal geoattn metrics on the one-sample capture "
          f"({core['P_rmax'][L, H, g]}, {core['R_rmin'][L, H, g]})")
    check(out["check"]["status"] == "agrees" and "agrees with the exact core" in p.stdout,
          f"{tag}: the command says it agrees with the exact core")
    KV = arrays["values"].shape[2]
    kv = H // (arrays["alpha"].shape[2] // KV)
    qi = list(arrays["queries"]).index(q)
    alpha = arrays["alpha"][w, L, H, qi, :q + 1]
    values = arrays["values"][w, L, kv, :q + 1]
    order, in_rmax, in_rmin_sel, in_rmin_rest = exact_balls(alpha, values, N)
    check([r["position"] for r in out["selected"]] == order[:N] and out["kv_head"] == kv,
          f"{tag}: the selection order is the brute-force sort by (-alpha, position); KV head {kv}")
    y = alpha.astype(np.float64)[:, None] * values.astype(np.float64)
    s = y[order[:N]].sum(axis=0)
    dist = {i: float(np.sqrt(sum((float(s[c]) - float(y[i, c])) ** 2 for c in range(y.shape[1]))))
            for i in range(q + 1)}
    rows = out["selected"] + out["inside_r_max"] + out["inside_r_min"]
    bad = [r["position"] for r in rows if abs(r["distance"] - dist[r["position"]]) > 1e-12 * max(dist[r["position"]], 1e-300)
           or r["alpha"] != float(alpha[r["position"]])
           or abs(r["y_norm"] - float(np.sqrt((y[r["position"]] ** 2).sum()))) > 1e-12 * r["y_norm"] + 1e-300]
    check(not bad and len(out["tokens"]["distance"]) == q + 1
          and all(abs(d - dist[i]) <= 1e-12 * max(dist[i], 1e-300) for i, d in zip(out["tokens"]["position"], out["tokens"]["distance"])),
          f"{tag}: alpha, ||alpha v|| and every distance equal a direct float64 computation ({bad})")
    got_rmax = {r["position"] for r in out["inside_r_max"]}
    got_rmin = {r["position"] for r in out["inside_r_min"]}
    got_sel = {r["position"] for r in out["selected"] if r["in_r_min_ball"]}
    check(got_rmax == in_rmax and got_rmin == in_rmin_rest and got_sel == in_rmin_sel
          and out["K_out"] == len(in_rmax) and out["K_in"] == len(in_rmin_sel)
          and out["P_rmax"] == N / (N + len(in_rmax)) and out["R_rmin"] == (len(in_rmin_sel) / N if N <= q else 1.0),
          f"{tag}: the balls' members, K_out {out['K_out']} and K_in {out['K_in']} equal exact rational arithmetic")


def check_api_all_heads(geoattn, src, tmp, meta, arrays):
    """geoattn.explain (check off) for every head of every sample at several N against metrics."""
    code = f"""
import json, sys
sys.path.insert(0, {os.path.join(src, 'python')!r})
import geoattn
out = {{}}
for w in range(3):
    for q in (40, 63):
        for l in range(5):
            for h in range(8):
                for N in (2, 3, 6, 12, 33):
                    e = geoattn.explain({os.path.join(tmp, 'c.safetensors')!r}, head=(l, h), window=w, query=q, n=N, check=False)
                    out[f"{{w}} {{q}} {{l}} {{h}} {{N}}"] = [e["P_rmax"], e["R_rmin"]]
print(json.dumps(out))
"""
    p, dt = run([sys.executable, "-c", code], src)
    if not check(p.returncode == 0, f"geoattn.explain on every head of 6 samples at 5 N ({dt:.1f}s)"):
        print("  stderr:", p.stderr[-1500:])
        return
    got = json.loads(p.stdout)
    bad, total = [], 0
    for w in range(3):
        for q in (40, 63):
            one = os.path.join(tmp, "one.safetensors")
            one_sample(meta, arrays, w, q, one)
            grid, core = metrics(geoattn, src, one, "2,3,6,12,33", os.path.join(tmp, "one.json"))
            for key, (P, R) in got.items():
                kw, kq, l, h, N = map(int, key.split())
                if (kw, kq) != (w, q):
                    continue
                total += 1
                g = grid.index(N)
                if P != core["P_rmax"][l, h, g] or R != core["R_rmin"][l, h, g]:
                    bad.append(key)
    check(total == 1200 and not bad, f"the API's P and R equal metrics on every one of {total} (sample, N) ({bad[:5]})")


def check_near_tie(geoattn, src, tmp, meta, arrays):
    """A non-selected token j given y_j = y_i of r_max's token i (alpha_i / 2^k, v_i 2^k: exact):
    a tie float64 cannot tell from a near one; it is listed, decided exactly (j inside), and the
    result agrees with the core."""
    import numpy as np
    L, H, w, q, N = 2, 5, 0, 63, 4
    kv = H // 2
    m, a = dict(meta), {k: v.copy() for k, v in arrays.items()}
    qi = list(a["queries"]).index(q)
    alpha = a["alpha"][w, L, H, qi, :q + 1]
    values = a["values"][w, L, kv, :q + 1]
    order, _, _, _ = exact_balls(alpha, values, N)
    y = alpha.astype(np.float64)[:, None] * values.astype(np.float64)
    s = y[order[:N]].sum(axis=0)
    i = max(order[:N], key=lambda k: ((s - y[k]) ** 2).sum())
    j = order[-1]
    scale = np.float32(2.0)
    while alpha[i] / scale >= min(alpha[order[N - 1]], 0.005):
        scale *= 2
    a["alpha"][w, L, H, qi, j] = alpha[i] / scale  # the row still sums to 1 within the capture's tolerance
    a["values"][w, L, kv, j] = values[i] * scale
    write_safetensors(os.path.join(tmp, "tie_all.safetensors"), m, a)
    js = os.path.join(tmp, "tie.json")
    p, _ = explain_cli(src, "--capture", os.path.join(tmp, "tie_all.safetensors"), "--head", f"{L}.{H}", "--window",
                       str(w), "--n", str(N), "--json", js)
    out = json.load(open(js)) if p.returncode == 0 else {}
    ties = [t for t in out.get("near_ties", []) if t["position"] == j]
    check(p.returncode == 0 and ties and all(t["inside"] for t in ties)
          and j in {r["position"] for r in out["inside_r_max"]} and out["check"]["status"] == "agrees"
          and "decided in exact arithmetic" in p.stdout,
          f"a made tie (position {j} = r_max's token {i}): listed as a near-tie, inside, agrees with the core "
          f"({ties}, {out.get('check')}, {p.stderr[-300:]})")


def check_text(geoattn, src, tmp):
    cap = os.path.join(tmp, "text.safetensors")
    p, _ = run([geoattn, "capture", "--model", MODEL, "--text", TEXT, "--quiet", "--out", cap], src)
    js = os.path.join(tmp, "text.json")
    _, arr = read_safetensors(cap)
    n = arr["tokens"].shape[1]
    p, _ = explain_cli(src, "--capture", cap, "--head", "0.0", "--window", "0", "--n", str(n), "--model", MODEL,
                       "--json", js, "--no-check")
    if not check(p.returncode == 0, f"explain on the tokens of --text (n = {n})"):
        print("  stderr:", p.stderr[-800:])
        return
    out = json.load(open(js))
    by_pos = sorted(out["selected"], key=lambda r: r["position"])
    text = "".join(r["text"] for r in by_pos[1:])
    check(by_pos[0]["text"] == "<s>" and text == " " + TEXT
          and [r["token"] for r in by_pos] == [int(t) for t in arr["tokens"][0]]
          and "tokenizer.model" in out["tokenizer"],
          f"stories260K's pieces, in position order, give back the text the binary tokenised: {text!r}")
    p2, _ = explain_cli(src, "--capture", cap, "--head", "0.0", "--window", "0", "--n", "3", "--no-check")
    out2 = p2.stdout
    check(p2.returncode == 0 and "token ids" in out2, "without --model: token ids, said so")


def document_lines(stdout):
    """The context block's document lines (margin "  | " removed) and its heading, from the
    command's stdout."""
    lines = stdout.split("\n")
    at = next(i for i, line in enumerate(lines) if line.startswith("the document before the query"))
    body = []
    for line in lines[at + 1:]:
        if not line.startswith("  | "):
            break
        body.append(line[4:])
    return lines[at], body


def expected_document(out, arrays, w, q, vocab):
    """The document as the block should print it, built here from the capture's tokens: each
    piece (↵ for a line break; " <id>" without a vocabulary), a leading space outside the marks,
    [piece] where I_N is, <<piece>> at the query."""
    chosen = {r["position"] for r in out["selected"]}
    text = []
    for pos in range(max(0, q - CONTEXT), q + 1):
        tok = int(arrays["tokens"][w, pos])
        piece = vocab.text(tok).replace("\n", "↵") if vocab else f" {tok}"
        core = piece.lstrip(" ") or piece
        lead = piece[:len(piece) - len(core)]
        core = f"<<{core}>>" if pos == q else core
        text.append(lead + (f"[{core}]" if pos in chosen else core))
    return "".join(text)


def run_tty(cmd, cwd, env):
    """(exit code, stdout) of cmd with its stdout a terminal (a pty)."""
    import pty
    master, slave = pty.openpty()
    p = subprocess.Popen(cmd, cwd=cwd, env=env, stdout=slave, stderr=subprocess.DEVNULL)
    os.close(slave)
    chunks = []
    while True:
        try:
            b = os.read(master, 65536)
        except OSError:  # EIO: the command has closed the terminal
            break
        if not b:
            break
        chunks.append(b)
    os.close(master)
    return p.wait(timeout=120), b"".join(chunks).decode("utf-8", "replace")


def check_context(src, tmp, arrays):
    """The context block and the JSON's "context" against the capture's tokens and alpha."""
    sys.path.insert(0, os.path.join(src, "python"))
    from geoattn.tools.explain.text import load_vocabulary
    vocab = load_vocabulary(os.path.join(src, MODEL))
    cap = os.path.join(tmp, "c.safetensors")
    # the last: position 1, before the block, is in I_N
    for L, H, w, q, N, model in ((2, 5, 1, 63, 4, True), (4, 7, 2, 40, 8, True), (1, 3, 0, 63, 5, False),
                                 (3, 2, 0, 63, 5, True)):
        tag = f"context L{L}H{H} window {w} query {q} N {N}" + ("" if model else " (no --model)")
        js = os.path.join(tmp, f"ctx{L}{H}{w}{q}.json")
        argv = ["--capture", cap, "--head", f"{L}.{H}", "--window", str(w), "--query", str(q), "--n", str(N),
                "--no-check", "--json", js] + (["--model", MODEL] if model else [])
        p, _ = explain_cli(src, *argv, "--color", "never")
        if not check(p.returncode == 0, f"{tag}: runs"):
            print("  stderr:", p.stderr[-1500:])
            continue
        out = json.load(open(js))
        qi = list(arrays["queries"]).index(q)
        ctx = out["context"]
        positions = list(range(max(0, q - CONTEXT), q + 1))
        check([r["position"] for r in ctx] == positions
              and [r["token"] for r in ctx] == [int(arrays["tokens"][w, i]) for i in positions]
              and [r["text"] for r in ctx] == [vocab.text(int(arrays["tokens"][w, i])) if model else None
                                               for i in positions],
              f"{tag}: JSON context: positions {positions[0]}..{q}, the capture's tokens there, "
              f"{'decoded by the vocabulary' if model else 'text null'}")
        alpha = arrays["alpha"][w, L, H, qi]
        rows = {r["position"]: r["alpha"] for r in out["selected"] + out["inside_r_max"] + out["inside_r_min"]}
        check(all(r["alpha"] == float(alpha[r["position"]]) for r in ctx)
              and all(r["alpha"] == rows[r["position"]] for r in ctx if r["position"] in rows),
              f"{tag}: JSON context: every alpha equals the capture's and the explanation's rows "
              f"({sum(r['position'] in rows for r in ctx)} shared)")
        chosen = {r["position"] for r in out["selected"]}
        check({r["position"] for r in ctx if r["selected"]} == chosen & set(positions),
              f"{tag}: JSON context: selected exactly at I_N's positions in view "
              f"({sorted(chosen & set(positions))}, {len(chosen - set(positions))} of I_N before)")
        head, body = document_lines(p.stdout)
        shown = "".join(body)
        want = expected_document(out, arrays, w, q, vocab if model else None)
        bracketed = re.findall(r"\[([^\[\]]*)\]", shown)
        in_view = [r for r in ctx if r["selected"]]
        pieces = [((r["text"].replace("\n", "↵").lstrip(" ") or r["text"]) if model else str(r["token"]))
                  for r in in_view]
        pieces = [f"<<{t}>>" if r["position"] == q else t for t, r in zip(pieces, in_view)]
        check(shown == want and bracketed == pieces and shown.count("<<") == 1 and shown.count(">>") == 1
              and all(len(line) <= 92 or "[" not in line for line in body),
              f"{tag}: the printed document is the capture's tokens, [{len(bracketed)}] bracketed = I_N in view, "
              f"the query marked once: {head} / ...{shown[-70:]!r}")
        hidden = len(chosen - set(positions))
        check(("not shown" in head) == (positions[0] > 0)
              and (positions[0] == 0 or f"{hidden or 'none'} of I_N there" in head),
              f"{tag}: the heading says what is not shown ({head!r})")
        check("\x1b" not in p.stdout, f"{tag}: --color never: no ANSI escape")
        p2, _ = explain_cli(src, *argv, "--color", "always")
        plain = ANSI.sub("", p2.stdout).split("\n")
        extra = [line for line in plain if line not in p.stdout.split("\n")]
        top = out["selected"][0]
        piece = (top["text"].lstrip(" ") or top["text"]) if model else str(top["token"])
        strong = "\x1b[48;5;196;38;5;16m" + (f"<<{piece}>>" if top["position"] == q else piece)
        check(p2.returncode == 0 and "\x1b[48;5;" in p2.stdout and len(extra) == 1
              and extra[0].startswith("    background, alpha above:")
              and (strong in p2.stdout or top["position"] not in positions),
              f"{tag}: --color always: 256-colour backgrounds, the rank-1 token the strongest shade, "
              f"the same text without them plus the shades' key")
    p3, _ = explain_cli(src, "--capture", cap, "--head", "2.5", "--window", "1", "--n", "4", "--no-check")
    env = package_env(src)
    cmd = [sys.executable, "-m", "geoattn.explain", "--capture", cap, "--head", "2.5", "--window", "1", "--n", "4",
           "--no-check"]
    rc_tty, tty = run_tty(cmd, src, {k: v for k, v in env.items() if k != "NO_COLOR"})
    rc_no, no = run_tty(cmd, src, {**env, "NO_COLOR": "1"})
    check(p3.returncode == 0 and "\x1b" not in p3.stdout and rc_tty == 0 and "\x1b[48;5;" in tty
          and rc_no == 0 and "\x1b" not in no and "<<" in no,
          "--color auto (the default): none on a pipe, colours on a terminal, none on a terminal with NO_COLOR set")


def check_figure_labels(src, tmp):
    """The figure's labels, from the figure draw() makes (plt.close intercepted): the query's and
    the selected tokens' text, fontsize >= 7, inside the axes, none over another."""
    js = os.path.join(tmp, "fig.json")
    p, _ = explain_cli(src, "--capture", os.path.join(tmp, "c.safetensors"), "--head", "2.5", "--window", "1",
                       "--n", "6", "--model", MODEL, "--no-check", "--json", js)
    code = f"""
import json, sys
sys.path.insert(0, {os.path.join(src, 'python')!r})
from geoattn.tools.explain import figure as explain_figure
from geoattn.figures.common import import_plotting
plt = import_plotting()["plt"]
figs = []
plt.close = lambda fig=None: figs.append(fig)
out = json.load(open({js!r}))
explain_figure.draw(out, {os.path.join(tmp, 'labels.png')!r})
fig = [f for f in figs if hasattr(f, "axes")][-1]
ax = fig.axes[0]
r = fig.canvas.get_renderer()
box = ax.get_window_extent(r)
labels = []
for t in ax.texts:
    e = t.get_window_extent(r)
    inside = e.x0 >= box.x0 - 1 and e.x1 <= box.x1 + 1 and e.y0 >= box.y0 - 1 and e.y1 <= box.y1 + 1
    labels.append([t.get_text(), float(t.get_fontsize()), bool(inside), [float(v) for v in (e.x0, e.y0, e.x1, e.y1)]])
print(json.dumps(labels))
"""
    out = json.load(open(js)) if p.returncode == 0 else None
    p2, _ = run([sys.executable, "-c", code], src)
    if not check(out is not None and p2.returncode == 0, "the figure's labels: drawn"):
        print("  stderr:", p.stderr[-800:], p2.stderr[-1500:])
        return
    labels = json.loads(p2.stdout)

    def short(text):
        t = text.replace("\n", "↵").strip() or "␣"
        return t if len(t) <= 12 else t[:11] + "…"
    q = out["query"]
    want = {"q: " + short(out["context"][-1]["text"])} | {short(r["text"]) for r in out["selected"] if r["position"] != q}
    got = [t for t, _, _, _ in labels]
    boxes = [b for _, _, _, b in labels]
    overlap = [(a, b) for i, a in enumerate(boxes) for b in boxes[i + 1:]
               if a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]]
    check(set(got) <= want and short(out["selected"][0]["text"]) in got and any(t.startswith("q: ") for t in got)
          and all(size >= 7 for _, size, _, _ in labels) and all(inside for _, _, inside, _ in labels) and not overlap,
          f"the figure labels {len(got)} points with their text ({got}; of {sorted(want)}), fontsize >= 7, "
          f"inside the axes, none over another")


def check_outputs(src, tmp):
    fig, js = os.path.join(tmp, "outs", "f.png"), os.path.join(tmp, "outs", "e.json")
    os.makedirs(os.path.dirname(fig))
    p, _ = explain_cli(src, "--capture", os.path.join(tmp, "c.safetensors"), "--head", "3.1", "--window", "1",
                       "--n", "6", "--model", MODEL, "--figure", fig, "--json", js)
    head = open(fig, "rb").read(8) if os.path.exists(fig) else b""
    check(p.returncode == 0 and head == PNG_SIGNATURE and os.path.getsize(fig) > 10_000,
          f"--figure writes a PNG > 10 kB ({os.path.getsize(fig) if head else 0} B)")
    out = json.load(open(js)) if os.path.exists(js) else {}
    keys = {"schema", "selected", "r_max", "r_min", "K_out", "K_in", "P_rmax", "R_rmin", "inside_r_max",
            "inside_r_min", "near_ties", "tokens", "check", "tokenizer", "document"}
    check(out.get("schema") == "geoattn.explain/1" and keys <= set(out) and out["N"] == 6
          and out["document"] == "openwebtext-60docs.jsonl:2" and len(out["selected"]) == 6,
          f"--json: geoattn.explain/1 with its keys ({sorted(keys - set(out))} missing)")
    check(sorted(os.listdir(os.path.dirname(fig))) == ["e.json", "f.png"], "no temporary file beside the outputs")
    before = set(glob.glob(os.path.join(tempfile.gettempdir(), "geoattn-explain.*")))
    p, _ = explain_cli(src, "--model", MODEL, "--data", DATA, "--ctx", "64", "--window", "2", "--head", "4.7",
                       "--n", "8", "--query", "40")
    after = set(glob.glob(os.path.join(tempfile.gettempdir(), "geoattn-explain.*")))
    check(p.returncode == 0 and "agrees with the exact core" in p.stdout and "query 40" in p.stdout and after == before,
          f"--model --data: captures window 2 itself, agrees, leaves no temporary folder ({p.stderr[-300:]})")


def check_bad_input(src, tmp):
    cap = os.path.join(tmp, "c.safetensors")
    cases = {
        "head out of range": (["--capture", cap, "--head", "2.8", "--window", "0"], "--head"),
        "layer out of range": (["--capture", cap, "--head", "5.0", "--window", "0"], "--head"),
        "window out of range": (["--capture", cap, "--head", "1.1", "--window", "3"], "--window"),
        "missing file": (["--capture", os.path.join(tmp, "nope.safetensors"), "--head", "1.1", "--window", "0"], "nope.safetensors"),
        "not a capture": (["--capture", os.path.join(tmp, "one.json"), "--head", "1.1", "--window", "0"], "one.json"),
        "N too large": (["--capture", cap, "--head", "1.1", "--window", "0", "--n", "65"], "--n"),
        "query not captured": (["--capture", cap, "--head", "1.1", "--window", "0", "--query", "7"], "--query"),
        "unknown --color": (["--capture", cap, "--head", "1.1", "--window", "0", "--color", "blue"], "--color"),
        "window out of range (--data)": (["--model", MODEL, "--data", DATA, "--ctx", "64", "--window", "500",
                                          "--head", "1.1"], "--window"),
    }
    for k, (what, (argv, name)) in enumerate(cases.items()):
        folder = os.path.join(tmp, f"bad{k}")
        os.makedirs(folder)
        p, _ = explain_cli(src, *argv, "--figure", os.path.join(folder, "f.png"), "--json", os.path.join(folder, "e.json"))
        lines = p.stderr.strip().splitlines()
        check(p.returncode == 2 and len(lines) == 1 and lines[0].startswith("geoattn-explain: error: ")
              and name in lines[0] and not p.stdout and not os.listdir(folder),
              f"{what}: exit 2, one stderr line naming {name}, no output ({p.returncode}: {lines})")
    for what, target in (("--json a folder", tmp), ("--json in a missing folder", os.path.join(tmp, "no", "e.json"))):
        p, _ = explain_cli(src, "--capture", cap, "--head", "1.1", "--window", "0", "--json", target)
        lines = p.stderr.strip().splitlines()
        check(p.returncode == 2 and len(lines) == 1 and "--json" in lines[0] and not p.stdout
              and not os.path.exists(os.path.join(tmp, "no")),
              f"{what}: exit 2, one stderr line naming --json ({p.returncode}: {lines})")


def check_doc_block(src, bin_dir):
    tmp, p = run_doc_block(src, bin_dir, "explain.md", "test: explain-cli", timeout=300)
    made = all(os.path.exists(os.path.join(tmp, "out", "explain", f)) for f in ("L2H5.json", "L2H5.png"))
    if not check(p.returncode == 0 and made and p.stdout.count("agrees with the exact core") == 2,
                 "docs/explain.md's CLI block runs as written"):
        print("  stdout:", p.stdout[-2000:], "\n  stderr:", p.stderr[-2000:])
    remove_scratch(tmp, False)


def main():
    args, src, bin_dir, geoattn = parse_args(__file__)
    t0 = time.time()
    code = preamble(t0, geoattn)  # numpy and matplotlib (rerun under an interpreter that has them), geoattn built
    if code is not None:
        return code
    tmp = tempfile.mkdtemp(prefix="geoattn-explain-test-")
    try:
        cap = os.path.join(tmp, "c.safetensors")
        p, dt = run([geoattn, "capture", "--model", MODEL, "--data", DATA, "--ctx", "64", "--max-windows", "3",
                     "--queries", "40,-1", "--quiet", "--out", cap], src)
        if not check(p.returncode == 0, f"capture: stories260K, 3 windows of 64 tokens, queries 40 and 63 ({dt:.1f}s)"):
            print("  stderr:", p.stderr[-1500:])
            return finish(t0)
        meta, arrays = read_safetensors(cap)
        for case in CASES:
            check_case(geoattn, src, tmp, meta, arrays, case)
        check_api_all_heads(geoattn, src, tmp, meta, arrays)
        check_near_tie(geoattn, src, tmp, meta, arrays)
        check_text(geoattn, src, tmp)
        check_context(src, tmp, arrays)
        check_figure_labels(src, tmp)
        check_outputs(src, tmp)
        check_bad_input(src, tmp)
        check_doc_block(src, bin_dir)
    finally:
        remove_scratch(tmp, args.keep)
    return finish(t0)


if __name__ == "__main__":
    sys.exit(main())
