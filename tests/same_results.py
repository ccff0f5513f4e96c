#!/usr/bin/env python3
"""Two builds of geoattn give the same results: every file of the demo's runs and of the real
models' runs, byte for byte, timing aside.

    same_results.py BEFORE_BIN AFTER_BIN [--work DIR]

BEFORE_BIN and AFTER_BIN are two builds' bin/ folders (each with geoattn and geoattn-torch). Each
command below runs once with each, in a folder of its own; then every file written is compared:
JSON after dropping the run's "timing" (seconds and rates move from run to run), safetensors files
(captures, arrays, state sidecars) as their tensors' bytes and their header, the run description
in a state's metadata without its "timing" too. A change that should not change a number (a move, a
rename, a refactor) is checked with it before it lands. Prints each file's verdict; exit 1 on a
difference.
"""
import argparse
import json
import os
import shutil
import struct
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
TEXT = "data/tinystories/tinystories-sample.txt data/openwebtext/openwebtext-first100.txt"
SMALL = f"--model models/stories260K --data {TEXT} --window stream --ctx 256 --max-windows 64"
JSONL = "data/openwebtext/openwebtext-60docs.jsonl"
# The demo's runs (scripts/demo.sh), then the real models' other paths: stories15M, a shard in
# JSONL, a capture and `metrics` on it, shards merged, sinks in both conventions, the envelopes'
# kappa scan, the windowed-layer convention, inspect.
COMMANDS = [
    ("inspect.json", "geoattn inspect --model models/stories260K --json"),
    ("measure.json", f"geoattn measure {SMALL} --bootstrap-unit window --out {{out}}"),
    ("bounds.json", f"geoattn bounds {SMALL} --out {{out}}"),
    ("bounds-params.json", "geoattn bounds --params configs/bounds-llama2-7b.json --out {out}"),
    ("taxonomy.json", "geoattn taxonomy --from {dir}/measure.json --config configs/taxonomy.json --out {out}"),
    ("sinks.json", f"geoattn sinks --model models/stories260K --data {JSONL} --ctx 128 --residual --out {{out}}"),
    ("sinks-authors.json", f"geoattn sinks --model models/stories260K --data {JSONL} --ctx 64 --max-windows 20 "
                           "--convention authors --out {out}"),
    ("measure15M.json", f"geoattn measure --model models/stories15M --data {JSONL} --ctx 128 --max-windows 12 "
                        "--kappa-scan auto --bootstrap 200 --out {out}"),
    ("shard0.json", f"geoattn measure --model models/stories260K --data {JSONL} --ctx 64 --max-windows 40 "
                    "--shard 0/2 --bootstrap 100 --out {out}"),
    ("shard1.json", f"geoattn measure --model models/stories260K --data {JSONL} --ctx 64 --max-windows 40 "
                    "--shard 1/2 --bootstrap 100 --out {out}"),
    ("merged.json", "geoattn merge {dir}/shard0.json {dir}/shard1.json --out {out}"),
    ("capture.safetensors", f"geoattn capture --model models/stories260K --data {JSONL} --ctx 64 --max-windows 8 "
                            "--queries all --out {out}"),
    ("metrics.json", "geoattn metrics --capture {dir}/capture.safetensors --n all --distance cosine "
                     "--window-tokens causal --out {out}"),
    ("taxonomy-metrics.json", "geoattn taxonomy --from {dir}/metrics.json --out {out}"),
]


def run_all(bin_dir, work):
    """Every command with the geoattn of `bin_dir`, its files in `work` (stdout and stderr in run.log)."""
    os.makedirs(work, exist_ok=True)
    with open(os.path.join(work, "run.log"), "w") as log:
        for name, command in COMMANDS:
            out = os.path.join(work, name)
            line = os.path.join(bin_dir, command.format(out=out, dir=work))
            if "{out}" in command:
                subprocess.run(line, shell=True, cwd=ROOT, check=True, stdout=log, stderr=log)
            else:  # it prints its result
                with open(out, "w") as f:
                    subprocess.run(line, shell=True, cwd=ROOT, check=True, stdout=f, stderr=log)


def without_timing(value):
    if isinstance(value, dict):
        return {k: without_timing(v) for k, v in value.items() if k != "timing"}
    if isinstance(value, list):
        return [without_timing(v) for v in value]
    return value


def canonical(path):
    """A file's contents to compare: JSON without "timing"; a safetensors file as its tensors' bytes
    and header, with the JSON of its metadata (a state's run_info) without "timing"; else bytes."""
    with open(path, "rb") as f:
        data = f.read()
    if path.endswith(".json"):
        return json.dumps(without_timing(json.loads(data)), sort_keys=True).encode()
    if path.endswith(".safetensors"):
        size = struct.unpack("<Q", data[:8])[0]
        header = json.loads(data[8:8 + size])
        for key, value in header.get("__metadata__", {}).items():
            try:
                header["__metadata__"][key] = without_timing(json.loads(value))
            except ValueError:
                pass  # plain text
        return json.dumps(header, sort_keys=True).encode() + data[8 + size:]
    return data


def same(a, b):
    return canonical(a) == canonical(b)


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("before")
    p.add_argument("after")
    p.add_argument("--work", help="keep the outputs here (default: a temporary folder); the before/ runs a "
                                  "complete earlier call left there are reused")
    a = p.parse_args()
    work = a.work or tempfile.mkdtemp(prefix="geoattn-same-")
    # Both builds run in the same folder (results record the paths they read), moved aside after.
    before, after, run = (os.path.join(work, name) for name in ("before", "after", "run"))
    for bin_dir, kept in ((a.before, before), (a.after, after)):
        if kept == before and a.work and os.path.exists(os.path.join(before, COMMANDS[-1][0])):
            continue  # kept from an earlier call
        shutil.rmtree(kept, ignore_errors=True)
        run_all(os.path.abspath(bin_dir), run)
        os.rename(run, kept)
    names = sorted((set(os.listdir(before)) | set(os.listdir(after))) - {"run.log"})
    bad = 0
    for name in names:
        pa, pb = os.path.join(before, name), os.path.join(after, name)
        ok = os.path.exists(pa) and os.path.exists(pb) and same(pa, pb)
        bad += not ok
        print(f"{'same' if ok else 'DIFFERENT'}  {name}")
    print(f"{len(names) - bad} of {len(names)} files the same, timing aside")
    if not a.work:
        shutil.rmtree(work)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
