"""geoattn metrics against a strong peer: what a competent engineer writes in PyTorch
from SPEC §2, on one capture, both as whole processes and as their cores alone.

    geoattn bench metrics --write-capture /tmp/c.safetensors       # 128 heads, T = 1024, d = 128
    python python/benchmarks/vs_torch_peer.py --capture /tmp/c.safetensors --geoattn build/bin/geoattn

The peer, in float64 and vectorised over heads and N (no loop over N): a stable argsort of
alpha (ties: lower position first), prefix sums s(N) of the sorted y_i = alpha_i v_i, then per
block of 64 values of N one batched product (baddbmm) for E_k(N) = ||y_k||^2 - 2 <s(N), y_k>
(D_k - ||s(N)||^2, which orders the tokens as D_k does), r_max and r_min by amax / amin over the
selected and the rest, and the counts K_out, K_in (closed balls). It reads the capture with a
dozen lines of its own (no geoattn). geoattn runs with --controls 0 --bootstrap 0 --envelopes off,
the peer's work; --float32 runs the peer's products in float32 instead (its near-ties then go astray).

`--peer-only` is what the whole-process timing runs: the peer alone, its result saved with
numpy, in a fresh interpreter.
"""
import argparse
import json
import os
import struct
import subprocess
import sys
import tempfile
import time

import numpy as np


def read_capture(path):
    """alpha [W, L, H, Q, T], values [W, L, KV, T, d] (float32) and the query positions."""
    import torch

    with open(path, "rb") as f:
        n = struct.unpack("<Q", f.read(8))[0]
        header = json.loads(f.read(n))
        data = f.read()
    dtypes = {"F32": torch.float32, "I64": torch.int64}

    def tensor(name):
        e = header[name]
        b, end = e["data_offsets"]
        return torch.frombuffer(bytearray(data[b:end]), dtype=dtypes[e["dtype"]]).reshape(e["shape"])

    return tensor("alpha"), tensor("values"), tensor("queries").tolist()


def peer(alpha, values, queries, dtype, block=64):
    """Per-head means over windows and queries of P(r_max, N) and R(r_min, N), N = 1..T (NaN
    where no sample reaches N): [L, H, T] each, float64."""
    import torch

    W, L, H, Q, T = alpha.shape
    KV = values.shape[2]
    p_sum = torch.zeros(L, H, T, dtype=torch.float64)
    r_sum, count = torch.zeros_like(p_sum), torch.zeros_like(p_sum)
    for w in range(W):
        for l in range(L):
            v = values[w, l].to(torch.float64).repeat_interleave(H // KV, 0)      # [H, T, d]
            for qi, q in enumerate(queries):
                n = q + 1
                a = alpha[w, l, :, qi, :n].to(torch.float64)                     # [H, n]
                order = torch.sort(a, dim=1, descending=True, stable=True).indices
                y = (a[..., None] * v[:, :n]).gather(1, order[..., None].expand(-1, -1, v.shape[2]))  # sorted
                g = (y * y).sum(-1)                                               # [H, n]
                s = y.cumsum(1)                                                   # s(N) for N = 1..n
                yc = y.to(dtype)
                k = torch.arange(n)
                for N0 in range(0, n, block):
                    N = torch.arange(N0, min(n, N0 + block)) + 1                  # [B]
                    S = s[:, N0:N0 + len(N)].to(dtype)
                    # E = g - 2 S Y^T in one product into g's broadcast
                    E = torch.baddbmm(g[:, None, :].to(dtype), S, yc.transpose(1, 2), alpha=-2).to(torch.float64)
                    inside = k[None, :] < N[:, None]                              # [B, n]: sorted position < N
                    E_in, E_out = E.masked_fill(~inside, -torch.inf), E.masked_fill(inside, torch.inf)
                    r_max = E_in.amax(-1, keepdim=True)
                    r_min = E_out.amin(-1, keepdim=True)
                    k_out = (E_out <= r_max).sum(-1)                          # the selected are +inf there
                    k_in = (E_in <= r_min).sum(-1) - (n - N)                  # the rest are -inf there
                    Nf = N.to(torch.float64)
                    p_sum[l, :, N - 1] += Nf / (Nf + k_out)
                    r_sum[l, :, N - 1] += torch.where(N == n, 1.0, k_in / Nf)
                    count[l, :, N - 1] += 1
    return (p_sum / count).numpy(), (r_sum / count).numpy()


def wall(cmd):
    t = time.perf_counter()
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
    return time.perf_counter() - t


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--capture", required=True)
    ap.add_argument("--geoattn", help="the geoattn binary (the whole-process timing and the reference result)")
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--float32", action="store_true", help="the peer's products in float32")
    ap.add_argument("--peer-only", metavar="OUT.npz", help=argparse.SUPPRESS)
    a = ap.parse_args(argv)
    import torch

    torch.set_num_threads(os.cpu_count() or 1)
    dtype = torch.float32 if a.float32 else torch.float64
    if a.peer_only:
        P, R = peer(*read_capture(a.capture), dtype)
        np.savez(a.peer_only, P=P, R=R)
        return
    alpha, values, queries = read_capture(a.capture)
    W, L, H, Q, T = alpha.shape
    print(f"capture {a.capture}: {W} windows x {L} layers x {H} heads x {Q} queries, T = {T}, d = {values.shape[-1]}")
    t_core, (P, R) = min((timed(lambda: peer(alpha, values, queries, dtype)) for _ in range(a.repeats)),
                         key=lambda run: run[0])
    print(f"  peer core ({'float32' if a.float32 else 'float64'} products)  {t_core:8.3f} s (best of {a.repeats})")
    if not a.geoattn:
        return
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "m.json")
        cmd = [a.geoattn, "metrics", "--capture", a.capture, "--n", "all", "--controls", "0", "--bootstrap", "0",
               "--envelopes", "off", "--out", out]
        t_geo = min(wall(cmd) for _ in range(a.repeats))
        peer_cmd = [sys.executable, os.path.abspath(__file__), "--capture", a.capture, "--peer-only",
                    os.path.join(tmp, "p.npz")] + (["--float32"] if a.float32 else [])
        t_peer = min(wall(peer_cmd) for _ in range(a.repeats))
        doc = json.load(open(out))
        core = sum(doc["timing"]["stages"].get(k, 0) for k in ("gram", "orderings_top_n"))
        sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
        import geoattn

        heads = geoattn.load(out).heads
    print(f"  whole process: geoattn metrics {t_geo:.3f} s, the peer {t_peer:.3f} s: geoattn {t_peer / t_geo:.2f}x faster")
    print(f"  core alone:    geoattn {core:.3f} s (Gram + orderings), the peer {t_core:.3f} s: {t_core / core:.2f}x")
    for name, mine in (("P_rmax", P), ("R_rmin", R)):
        differ = ~np.isclose(mine, heads[name], rtol=0, atol=0, equal_nan=True)
        print(f"  {name}: {int(differ.sum())} of {differ.size} (layer, head, N) values differ from geoattn's")


def timed(f):
    t = time.perf_counter()
    out = f()
    return time.perf_counter() - t, out


if __name__ == "__main__":
    main()
