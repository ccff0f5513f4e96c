#!/usr/bin/env python3
"""Reference sink numbers from the papers' authors' own released code, for checking geoattn.

    sinks_authors.py --model models/smollm2-135m --name smollm2 --windows 4 --T 64 \\
        --docs data/openwebtext/openwebtext-60docs.jsonl --out OUT/smollm2-T64.json \\
        [--mirrors /work/.mirror]

It runs a Hugging Face model (float32, eager attention, CPU) on W windows, each [BOS id] + the
first T-1 ids of a document tokenised without special tokens (the first W documents that have
at least T-1 tokens; BOS is config.json's bos_token_id), converts attentions, hidden states and
v_proj outputs to float64, and feeds them to the authors' unchanged functions:
  sail-sg/Attention-Sink               eval_sink_open_source.py: compute_attention_sink (eps 0.3)
  GuoTianYu2000/Active-Dormant-Attention LLM/src/entropy.py: row/column dormant entropies
  ValeRuscio/What-are-you-sinking-      Notebooks/reference_point.ipynb (reference tokens) and
                                        Notebooks/laplacian.ipynb (attention graph, Laplacian)
That code is NEVER copied into this project: it is read at run time with `git show HEAD:<file>`
from the fetched mirrors (--mirrors DIR holds <owner>+<name>/repo), the needed functions are
taken out of the file or notebook with `ast`, compiled and called; the commit is recorded.
Writes --out (JSON with provenance, see geoattn's tests) and, next to it,
<out stem>.inputs.safetensors: ids [W,T], attentions [W,L,H,T,T] (float32 as produced),
hidden_states [W,L,T,D] (residual entering layer l), values [W,L,KV,T,d] (float32).
For T > 50 the notebook's graph path calls scipy's eigsh(which="SM") from a random start
vector, so its fiedler_value / spectral_gap (and the quirk counts built on them) change from run
to run; "quirks" records how many cells moved over REPEATS calls. fiedler_exact/gap_exact do not.
Needs numpy, torch, transformers, safetensors, scipy, networkx.
"""
import argparse, ast, datetime, json, os, shlex, subprocess, sys, tempfile, traceback
import networkx as nx, numpy as np, scipy, scipy.sparse as sp, scipy.sparse.linalg as spla
import torch, transformers
from authors_code import load_authors
from safetensors.torch import save_file

EPS, TAUS, REF_THRESHOLD, REPEATS = 0.3, [0.01, 0.05, 0.1, 0.2], 0.1, 5
SOURCES = {  # key: (owner/name, file, class in notebook or None, functions)
    "sink": ("sail-sg/Attention-Sink", "eval_sink_open_source.py", None, ["compute_attention_sink"]),
    "dormant": ("GuoTianYu2000/Active-Dormant-Attention", "LLM/src/entropy.py", None,
                ["row_headwise_average_normalized_entropy", "column_headwise_maximum_normalized_entropy"]),
    "reference": ("ValeRuscio/What-are-you-sinking-", "Notebooks/reference_point.ipynb",
                  "ReferencePointAnalysis", ["identify_reference_tokens", "extract_value_vectors",
                  "decompose_value_transformations", "sanitize_metrics", "safe_mean"]),
    "laplacian": ("ValeRuscio/What-are-you-sinking-", "Notebooks/laplacian.ipynb",
                  "OptimizedAttentionLaplacianAnalysis", ["compute_laplacian_eigenvalues"]),
}


def make_windows(tok, docs, W, T, bos):
    wins, doc_lines = [], []
    with open(docs) as f:
        for line_no, line in enumerate(f, 1):
            if line.strip() and len(wins) < W:
                ids = tok(json.loads(line)["text"], add_special_tokens=False)["input_ids"]
                if len(ids) >= T - 1:
                    wins.append([bos] + list(ids[:T - 1]))
                    doc_lines.append(line_no)
    if len(wins) < W:
        sys.exit(f"only {len(wins)} documents have {T - 1} tokens")
    return wins, doc_lines


def forward(model, wins):
    """attentions [W,L,H,T,T], hidden [W,L,T,D] (entering layer l), values [W,L,KV,T,d], float32."""
    layers, cfg = model.model.layers, model.config
    kv, d = cfg.num_key_value_heads, getattr(cfg, "head_dim", None) or cfg.hidden_size // cfg.num_attention_heads
    vals = {}
    hooks = [lay.self_attn.v_proj.register_forward_hook(lambda m, i, o, l=l: vals.__setitem__(l, o.detach()))
             for l, lay in enumerate(layers)]
    A, Hs, V = [], [], []
    with torch.no_grad():
        for ids in wins:
            out = model(input_ids=torch.tensor([ids]), output_attentions=True, output_hidden_states=True)
            A.append(torch.stack([a[0] for a in out.attentions]))
            Hs.append(torch.stack([out.hidden_states[l][0] for l in range(len(layers))]))
            V.append(torch.stack([vals[l][0].view(len(ids), kv, d).transpose(0, 1) for l in range(len(layers))]))
    for h in hooks:
        h.remove()
    return torch.stack(A), torch.stack(Hs), torch.stack(V)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--mirrors", default="/work/.mirror")
    ap.add_argument("--model", required=True)
    ap.add_argument("--name", required=True)
    ap.add_argument("--docs", required=True)
    ap.add_argument("--windows", type=int, default=4)
    ap.add_argument("--T", type=int, default=64)
    ap.add_argument("--out", required=True)
    a = ap.parse_args()
    fn, prov = {}, {}
    for key, (repo, path, cls, names) in SOURCES.items():
        f, prov[key] = load_authors(a.mirrors, repo, path, cls, names,
                                    {"np": np, "torch": torch, "nx": nx, "sp": sp, "spla": spla, "traceback": traceback})
        fn.update(f)
    # their methods, bound to a stub `self` with the settings their main() uses
    ref = type("AuthorsStub", (), {n: fn[n] for n in SOURCES["reference"][3] + SOURCES["laplacian"][3]})()
    ref.reference_threshold, ref.debug = REF_THRESHOLD, False

    tok = transformers.AutoTokenizer.from_pretrained(a.model)
    model = transformers.AutoModelForCausalLM.from_pretrained(
        a.model, dtype=torch.float32, attn_implementation="eager").eval()
    bos = model.config.bos_token_id
    wins, doc_lines = make_windows(tok, a.docs, a.windows, a.T, bos)
    A32, H32, V32 = forward(model, wins)
    stem = os.path.splitext(a.out)[0]
    save_file({"ids": torch.tensor(wins), "attentions": A32.contiguous(), "hidden_states": H32.contiguous(),
               "values": V32.contiguous()}, stem + ".inputs.safetensors")
    A, Hd, Vd = A32.double().numpy(), H32.double(), V32.double().numpy()
    W, L, H, T, _ = A.shape
    KV, P = Vd.shape[2], min(T, 64)
    avg = A.mean(axis=2)                                              # [W,L,T,T] head mean

    # 1. Sink^eps (sail-sg): their function reads a .npy of [samples, layers, heads, T, T]
    with tempfile.TemporaryDirectory() as tmp:
        def sink(x):
            np.save(os.path.join(tmp, "s.npy"), np.ascontiguousarray(x))
            return [float(v) for v in fn["compute_attention_sink"](os.path.join(tmp, "s.npy"), EPS)[:P]]
        summary = sink(A)
        sink_l = [sink(A[:, l:l + 1]) for l in range(L)]
        sink_lh = [[sink(A[:, l:l + 1, h:h + 1]) for h in range(H)] for l in range(L)]

    # 2. Dormant scores (Guo et al.): per window and layer on [H,T,T]; mean over windows
    row = np.zeros((L, H)); col = np.zeros((L, H))
    for w in range(W):
        for l in range(L):
            t = torch.from_numpy(A[w, l])
            row[l] += fn["row_headwise_average_normalized_entropy"](t).numpy() / W
            col[l] += fn["column_headwise_maximum_normalized_entropy"](t).numpy() / W

    # 3. Reference points (Ruscio et al., as analyze_text / analyze_samples do)
    cut = {"fallback": 0, "cap": 0, "gap": float("inf")}   # R chosen by rank, not by threshold
    def reference(att, values):
        c = np.sort(att.mean(axis=0))[::-1]                          # their column means, descending
        n, cap = int((c > REF_THRESHOLD).sum()), max(1, int(0.3 * T))
        k = max(1, int(0.1 * T)) if n == 0 else cap if n > cap else 0
        if k:
            cut["fallback" if n == 0 else "cap"] += 1
            cut["gap"] = min(cut["gap"], float(c[k - 1] - c[k]))
        R = ref.identify_reference_tokens(att)
        assert not k or len(R) == k, "rank-cut bookkeeping disagrees with their function"
        m = ref.sanitize_metrics(ref.decompose_value_transformations(values, att, R))
        return R, ref.safe_mean(m["relative_magnitude"]), ref.safe_mean(m["directional_influence"])
    ref_l = [[] for _ in range(L)]; ref_lh = [[[] for _ in range(H)] for _ in range(L)]
    for w in range(W):
        hs = tuple(Hd[w, l][None] for l in range(L))                 # [1,T,D] per layer, as HF gives
        for l in range(L):
            a_ = np.nan_to_num(avg[w, l], nan=0.0, posinf=1.0, neginf=0.0)
            ref_l[l].append(reference(a_, ref.extract_value_vectors(hs, l)))
            for h in range(H):
                ref_lh[l][h].append(reference(A[w, l, h], Vd[w, l, h // (H // KV)]))
    summ = lambda rs: {"size": float(np.mean([len(r[0]) for r in rs])), "relative_magnitude":
                       float(np.mean([r[1] for r in rs])), "directional_influence": float(np.mean([r[2] for r in rs]))}

    # 4. Attention graph (laplacian.ipynb) on the head mean, all windows, plus quirk sizes
    stats = ["density", "gini", "star", "degree_centralization", "fiedler_value", "spectral_gap"]
    keys = ["connection_density", "gini_coefficient", "star_likeness", "degree_centralization",
            "fiedler_value", "spectral_gap"]
    q = {"early_return": 0, "errors": [], "fiedler_mismatch": 0, "fiedler_max_abs_diff": 0.0,
         "gap_mismatch": 0, "gap_max_abs_diff": 0.0, "edge_list_fewer_nodes": 0 if T > 50 else None,
         "repeat_calls": REPEATS, "unstable_cells": 0, "unstable_max_spread": 0.0}
    graph, own_loop, own_diff, own_empty = [[] for _ in range(L)], [], 0.0, 0
    for l in range(L):
        for tau in TAUS:
            cells, gated = [], []
            for w in range(W):
                x = avg[w, l]
                res = ref.compute_laplacian_eigenvalues(x, threshold=tau, verbose=False)
                adj = (x > tau).astype(float)
                dens = float(adj.sum() / adj.size)
                if "error" in res:
                    q["errors"].append({"window": w, "layer": l, "tau": tau, "error": res["error"]})
                    q["early_return"] += res["error"] == "Too few connections after thresholding"
                row_ = [res.get(k, dens if k == "connection_density" else 0.0) for k in keys]
                adj_sym = (adj + adj.T) / 2
                ev = np.linalg.eigvalsh(np.diag(adj_sym.sum(1)) - adj_sym)
                exact = [0.0, 0.0] if adj.sum() < 2 else [float(ev[1]), float(ev[2] - ev[1])]
                for i, name in ((0, "fiedler"), (1, "gap")):
                    diff = abs(row_[4 + i] - exact[i])
                    q[name + "_mismatch"] += diff > 1e-9
                    q[name + "_max_abs_diff"] = max(q[name + "_max_abs_diff"], diff)
                # T > 50: their eigsh(which="SM") starts from a random vector; the first call is
                # the one recorded, the repeats only measure how much a rerun would move it
                again = [ref.compute_laplacian_eigenvalues(x, threshold=tau, verbose=False) for _ in range(REPEATS - 1)]
                spread = max([abs(r[k] - res[k]) for r in again for k in ("fiedler_value", "spectral_gap")] + [0.0])
                q["unstable_cells"] += spread > 1e-9
                q["unstable_max_spread"] = max(q["unstable_max_spread"], spread)
                if T > 50:
                    r_, c_ = np.where(adj > 0)
                    q["edge_list_fewer_nodes"] += len(set(r_.tolist()) | set(c_.tolist())) < T
                cells.append(row_ + exact)
                gated.append(0.05 <= dens <= 0.95 or l % 4 == 0)     # their loop's condition
            m = np.mean(cells, axis=0)
            g = dict(zip(stats + ["fiedler_exact", "gap_exact"], map(float, m)), tau=tau)
            g["effective"] = bool(0.05 <= g["density"] <= 0.95)
            graph[l].append(g)
            sub = [c for c, k in zip(cells, gated) if k]              # their loop: density always,
            mine = {"layer": l, "tau": tau, "windows": len(sub), "density": g["density"]}  # rest gated
            for i, s in enumerate(stats[1:], 1):
                mine[s] = float(np.mean([c[i] for c in sub])) if sub else None
                if sub:
                    own_diff = max(own_diff, abs(mine[s] - g[s]))
            own_empty += not sub
            own_loop.append(mine)
    q.update(own_loop_means=own_loop, own_loop_max_abs_diff=own_diff, own_loop_cells_without_stats=own_empty)

    # 5. Margins: how far every thresholded quantity is from its threshold
    imp = (A / np.arange(T, 0, -1)[None, None, None, None, :]).sum(axis=-2)   # [W,L,H,T]
    margins = {"graph_tau": float(min(np.abs(avg - t).min() for t in TAUS)),
               "sink_eps": float(np.abs(imp - EPS).min()),
               "reference_layer": float(np.abs(avg.mean(axis=-2) - REF_THRESHOLD).min()),
               "reference_head": float(np.abs(A.mean(axis=-2) - REF_THRESHOLD).min()),
               "reference_rank_cut": cut["gap"] if cut["fallback"] + cut["cap"] else None,
               "dormant": "continuous scores; no threshold"}
    near = lambda x, t: int((np.abs(x - t) < 1e-6).sum())
    margins["within_1e-6"] = {"graph_tau": sum(near(avg, t) for t in TAUS), "sink_eps": near(imp, EPS),
                              "reference_layer": near(avg.mean(axis=-2), REF_THRESHOLD),
                              "reference_head": near(A.mean(axis=-2), REF_THRESHOLD)}
    q.update(reference_fallback=cut["fallback"], reference_cap=cut["cap"])

    vers = {m.__name__: m.__version__ for m in (torch, transformers, np, scipy, nx)}
    vers["python"] = sys.version.split()[0]
    out = {"provenance": {"sources": prov, "versions": vers, "date": datetime.date.today().isoformat(),
                          "command": " ".join(shlex.quote(x) for x in [sys.executable] + sys.argv),
                          "cwd": os.getcwd(),
                          "dtype": "model float32; authors' functions fed float64"},
           "model": {"name": a.name, "dir": os.path.basename(os.path.normpath(a.model))},
           "T": T, "windows": W, "bos_id": bos, "doc_lines": doc_lines, "eps": EPS, "taus": TAUS,
           "profile_positions": P, "tokens": wins, "summary": {"sink_rate": summary},
           "layers": [{"layer": l, "sink_rate": sink_l[l],
                       "reference": dict(summ(ref_l[l]), positions_per_window=[r[0] for r in ref_l[l]]),
                       "graph": graph[l],
                       "heads": [{"head": h, "sink_rate": sink_lh[l][h], "row_score": float(row[l, h]),
                                  "col_score": float(col[l, h]), "reference": summ(ref_lh[l][h])}
                                 for h in range(H)]} for l in range(L)],
           "quirks": q, "margins": margins}
    with open(a.out, "w") as f:
        json.dump(out, f, indent=1)


if __name__ == "__main__":
    main()
