"""What the Python script tests share: ok/FAIL lines and running a command."""
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
