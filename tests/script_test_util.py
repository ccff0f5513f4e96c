"""What the Python script tests share: their arguments, ok/FAIL lines and running a command."""
import argparse
import os
import subprocess
import time

failures = []


def check(cond, what):
    print(("ok    " if cond else "FAIL  ") + what, flush=True)
    if not cond:
        failures.append(what)
    return cond


def run(cmd, cwd, timeout=300):
    t = time.time()
    try:
        p = subprocess.run(cmd, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           text=True, timeout=timeout)
    except (OSError, subprocess.TimeoutExpired) as e:
        p = subprocess.CompletedProcess(cmd, -1, "", f"{type(e).__name__}: {e}")
    return p, time.time() - t


def must(cmd, cwd, what):
    p, dt = run(cmd, cwd)
    if not check(p.returncode == 0, f"{what} ({dt:.1f}s)"):
        print("  command:", " ".join(cmd), "\n  stdout:", p.stdout[-2000:],
              "\n  stderr:", p.stderr[-2000:])
        raise SystemExit(1)
    return p


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
