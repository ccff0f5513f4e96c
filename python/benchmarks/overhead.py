"""What Python adds to the metric run: geoattn.metrics on a capture against the same run inside
the C++ (the result's timing.seconds_total) and against the whole `geoattn metrics` process.

    geoattn bench metrics --heads 32 --layers 4 --write-capture /tmp/c.safetensors   # 128 heads
    python python/benchmarks/overhead.py --capture /tmp/c.safetensors --geoattn build/bin/geoattn

Best of --repeats each; the CLI's flags and geoattn.metrics' arguments are the same run
(--n all, controls 16, bootstrap 2000: the CLI's defaults). Then geoattn.taxonomy and
geoattn.fits of that result in memory (from its structs), and the taxonomy through its JSON text.
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import geoattn  # noqa: E402


def best(repeats, f):
    """The fastest of `repeats` calls of f, in seconds."""
    times = []
    for _ in range(repeats):
        t = time.perf_counter()
        f()
        times.append(time.perf_counter() - t)
    return min(times)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--capture", required=True)
    ap.add_argument("--geoattn", help="the geoattn binary (to time the whole CLI process too)")
    ap.add_argument("--n", default="all")
    ap.add_argument("--repeats", type=int, default=3)
    a = ap.parse_args(argv)

    c = geoattn.read_capture(a.capture)
    kw = dict(queries=c["queries"], docs=c["docs"], n=a.n, controls=16, bootstrap=2000)
    runs = []  # (the call, the C++ run inside it, the result arrays handed to numpy)
    for _ in range(a.repeats):
        t = time.perf_counter()
        r = geoattn.metrics(c["alpha"], c["values"], **kw)
        t_call = time.perf_counter() - t
        t = time.perf_counter()
        heads = r.heads  # the per-head arrays, as a user reads them
        t_heads = time.perf_counter() - t
        runs.append((t_call, r.timing["seconds_total"], t_heads))
    W, L, H, Q, T = c["alpha"].shape
    call, inside, arrays = min(runs)
    print(f"{a.capture}: {L * H} heads, T = {T}, d = {c['values'].shape[-1]}, --n {a.n} "
          f"({len(heads['P_rmax'][0, 0])} values)")
    print(f"  geoattn.metrics        {call:7.3f} s   the C++ run inside it {inside:.3f} s: Python's checks and "
          f"conversions {call - inside:.3f} s ({100 * (call - inside) / call:.1f}%)")
    print(f"  result.heads           {arrays:7.3f} s   the per-head arrays built (C++, the tables the CLI writes) "
          f"and handed to numpy")
    # The taxonomy and the fits of the result in memory (its structs, no JSON), against the same
    # from its JSON text (dump the result, parse it: the route a JSON-only binding takes).
    r = geoattn.metrics(c["alpha"], c["values"], **kw)
    typed = best(a.repeats, lambda: geoattn.taxonomy(r))
    fits = best(a.repeats, lambda: geoattn.fits(r))
    via_json = best(a.repeats, lambda: json.loads(geoattn._loader.native().taxonomy(r.to_json(), "")))
    print(f"  geoattn.taxonomy(r)    {typed:7.3f} s   from the result's structs (no JSON); through its JSON text "
          f"{via_json:.3f} s")
    print(f"  geoattn.fits(r)        {fits:7.3f} s   from the result's structs (no JSON)")
    if a.geoattn:
        times = []
        with tempfile.TemporaryDirectory() as d:
            for _ in range(a.repeats):
                t = time.perf_counter()
                subprocess.run([a.geoattn, "metrics", "--capture", a.capture, "--n", a.n, "--out",
                                os.path.join(d, "m.json")], check=True, capture_output=True)
                times.append(time.perf_counter() - t)
        print(f"  geoattn metrics (CLI)  {min(times):7.3f} s   the whole process (reads the file, writes 3)")


if __name__ == "__main__":
    main()
