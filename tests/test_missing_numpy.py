#!/usr/bin/env python3
"""MissingNumpy (ctest): every documented `python3 -m geoattn.X` route that needs numpy stops in one
line naming it and the interpreter, exit non-zero, where the interpreter lacks it (a pyenv python3
first on PATH), never with an import traceback. The interpreter without numpy is this one with
`-S` (no site-packages).

    tests/test_missing_numpy.py [--source-dir DIR]
"""
import os
import subprocess
import sys
import tempfile

SOURCE = os.path.abspath(sys.argv[sys.argv.index("--source-dir") + 1]) if "--source-dir" in sys.argv else \
    os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def main():
    failed = 0
    with tempfile.TemporaryDirectory() as tmp:
        doc = os.path.join(tmp, "m.json")
        with open(doc, "w") as f:
            f.write("{}\n")
        routes = {
            "compare": [doc, doc],
            "verdicts": [doc],
            "explain": ["--capture", os.path.join(tmp, "c.safetensors"), "--head", "0", "--window", "0"],
        }
        env = dict(os.environ, PYTHONPATH=os.path.join(SOURCE, "python"))
        for module, args in routes.items():
            r = subprocess.run([sys.executable, "-S", "-m", f"geoattn.{module}", *args], env=env, cwd=tmp,
                               capture_output=True, text=True)
            lines = r.stderr.strip().splitlines()
            ok = (r.returncode != 0 and len(lines) == 1 and "numpy is missing in" in lines[0]
                  and sys.executable in lines[0] and "Traceback" not in r.stderr)
            print(f"{'ok  ' if ok else 'FAIL'}  python3 -m geoattn.{module} without numpy: exit {r.returncode}, "
                  f"{lines[-1] if lines else '(no stderr)'}")
            failed += not ok
    print("FAILED" if failed else "passed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
