#!/usr/bin/env python3
"""The commands a new user copies run as written: the first-run block of docs/getting-started.md
and the command-line block of the README's "Run it on a Hugging Face model", each run by bash in
a folder of its own that holds the repository's files (so `out/` is written there, not into the
source tree), with the built geoattn first on PATH. Each must exit 0 and leave the results it
promises.

    test_getting_started.py --source-dir SRC --bin-dir BIN
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile

from script_test_util import block_after, check, failures, parse_args, python_first_on_path, workspace


def run_block(src, bin_dir, block, what):
    tmp = workspace(src, tempfile.mkdtemp(prefix="geoattn-first-run-"))
    env = python_first_on_path(dict(os.environ, PATH=bin_dir + os.pathsep + os.environ.get("PATH", "")),
                               os.path.join(tmp, ".python"))
    p = subprocess.run(["bash", "-euo", "pipefail", "-c", block], cwd=tmp, env=env, capture_output=True,
                       text=True, timeout=600)
    if not check(p.returncode == 0, f"{what} runs as written"):
        print("  stdout:", p.stdout[-2000:], "\n  stderr:", p.stderr[-3000:])
    return tmp, p


def main():
    _, src, bin_dir, _ = parse_args(__file__)
    block = block_after(os.path.join(src, "docs", "getting-started.md"), "first-run", "sh")
    tmp, p = run_block(src, bin_dir, block, "docs/getting-started.md's first run")
    if p.returncode == 0:
        result = json.load(open(os.path.join(tmp, "out", "first.json")))
        check(result["schema"] == "geoattn.measure/2" and result["data"]["windows"] == 16,
              "it measured 16 windows of stories260K")
        taxonomy = json.load(open(os.path.join(tmp, "out", "first-taxonomy.json")))
        check(sum(taxonomy["totals"][k] for k in ("Retriever", "Mixer", "Reset", "Unlabelled")) == 40,
              "the taxonomy labels all 40 heads")
        check("all " in p.stdout, "the summary table is printed")
        check(os.path.exists(os.path.join(tmp, "out", "first-figures", "fig5_pr_vs_n.png")), "the figures are drawn")
    shutil.rmtree(tmp, ignore_errors=True)

    block = block_after(os.path.join(src, "README.md"), "hf-cli-example", "sh")
    tmp, p = run_block(src, bin_dir, block, "the README's command-line example on a Hugging Face folder")
    if p.returncode == 0:
        for name in sorted(os.listdir(os.path.join(tmp, "out"))):
            if name.endswith(".json") and not name.endswith(".bin.json"):
                schema = json.load(open(os.path.join(tmp, "out", name))).get("schema", "")
                check(schema.startswith("geoattn."), f"out/{name} is a geoattn result ({schema})")
    shutil.rmtree(tmp, ignore_errors=True)
    if failures:
        sys.exit(1)


if __name__ == "__main__":
    main()
