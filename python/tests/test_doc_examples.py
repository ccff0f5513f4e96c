"""The Python examples a new user copies run as written: the block marked `python-example` in
the README and in docs/getting-started.md, on the shipped stories15M (a Hugging Face folder),
in a folder that holds the repository's files, with upstream transformers and its LLaMA
tokenizer (sentencepiece)."""
import json
import os
import subprocess
import sys

import pytest

import geoattn
from conftest import REPO, in_ci

sys.path.insert(0, os.path.join(REPO, "tests"))
from script_test_util import block_after, workspace  # noqa: E402  (the script tests' own)

PAGES = ["README.md", os.path.join("docs", "getting-started.md")]


def needs(module):
    try:
        __import__(module)
    except ImportError:
        if in_ci():
            pytest.fail(f"{module} is missing in CI (pip install './python[hf,figures]' installs it)")
        pytest.skip(f"{module} is not installed: the example reads the LLaMA tokenizer through it")


# Appended to the example: its numbers, for the comparison with the command line's window.
DUMP = """
import json, numpy
numpy.save("example_alpha.npy", alpha.numpy()); numpy.save("example_values.npy", values.numpy())
json.dump({"totals": geoattn.taxonomy(result)["totals"], "ids": ids[0].tolist()}, open("example.json", "w"))
"""


@pytest.mark.parametrize("page", PAGES)
def test_the_python_example_runs_as_written(page, tmp_path, geoattn_bin):
    needs("transformers")
    needs("sentencepiece")
    workspace(REPO, str(tmp_path))
    code = block_after(os.path.join(REPO, page), "python-example", "python")
    done = subprocess.run([sys.executable, "-c", code + DUMP], cwd=tmp_path, capture_output=True, text=True,
                          timeout=600)
    assert done.returncode == 0, f"{page}'s example: {done.stderr[-3000:]}"
    # It prints the labels of stories15M's 36 heads and the per-head curves' shape [L, H, N].
    last = done.stdout.strip().splitlines()[-1]
    assert "'heads': 36" in last and "(6, 6, " in last, last
    # The same window as the command line's (BOS first, SPEC §7), and the same numbers, in two
    # exact links: the example's forward equals the command line's (its tokens bit for bit, its
    # attention rows and value states to float rounding), and the metrics of the command line's
    # own capture, computed the example's way, equal `geoattn measure`'s of the same file at
    # T = 256 at every head and N, and give its labels. The example's own P and R are not held to
    # the bit: the top-N set is a step function of alpha, and a 1e-7 rounding difference between
    # two forwards (LibTorch's BLAS, torch's, their thread counts) can reorder two near-equal
    # weights of one row.
    import numpy as np
    from geoattn.results import load_measure

    out = tmp_path / "cli.json"
    subprocess.run([geoattn_bin, "capture", "--quiet", "--model", "models/stories15M", "--data",
                    "data/openwebtext/openwebtext-first100.txt", "--ctx", "256", "--max-windows", "1", "--out",
                    str(tmp_path / "cli.safetensors")], cwd=tmp_path, check=True)
    subprocess.run([geoattn_bin, "measure", "--quiet", "--model", "models/stories15M", "--data",
                    "data/openwebtext/openwebtext-first100.txt", "--ctx", "256", "--max-windows", "1", "--out",
                    str(out)], cwd=tmp_path, check=True)
    subprocess.run([geoattn_bin, "taxonomy", "--quiet", "--from", str(out), "--out", str(tmp_path / "cli-tax.json")],
                   cwd=tmp_path, check=True)
    example = json.load(open(tmp_path / "example.json"))
    capture = geoattn.read_capture(str(tmp_path / "cli.safetensors"))
    assert list(np.asarray(capture["tokens"]).reshape(-1)) == example["ids"], "the example's window is not the CLI's"
    # Float rounding through six float32 layers of two forwards whose products are of other shapes
    # (transformers' whole rows, the command line's blocks of queries), on one torch: below 1e-5 in a
    # row's weights in most runs, 9.9e-5 in some (on the development VM and on the CI machine alike:
    # the reduction order the kernels take for those shapes and threads); the families' bound
    # against upstream is 1e-4 (docs/families.md). Twice that here; an edit of the window or the
    # weights moves the rows by 1e-2 and more.
    for key, name, tol in (("alpha", "example_alpha.npy", 2e-4), ("values", "example_values.npy", 1e-4)):
        mine, theirs = np.load(tmp_path / name), capture[key].numpy()
        assert mine.shape == theirs.shape, (key, mine.shape, theirs.shape)
        assert np.abs(mine - theirs).max() <= tol, f"{key}: the example's forward differs from the command line's"
    result = geoattn.metrics(capture["alpha"], capture["values"])
    cli = load_measure(str(out))
    for key in ("P_rmax", "R_rmin"):
        mine = result.heads[key]
        theirs = np.full(mine.shape, np.nan)
        for h in cli["heads"]:
            theirs[h["layer"], h["head"]] = [np.nan if x is None else x for x in h[key]]
        assert np.array_equal(mine, theirs, equal_nan=True), f"{key}: the example's metrics differ from measure's"
    totals = json.load(open(tmp_path / "cli-tax.json"))["totals"]
    assert geoattn.taxonomy(result)["totals"] == totals, (geoattn.taxonomy(result)["totals"], totals)
    assert sum(example["totals"].values()) == sum(totals.values()), (example["totals"], totals)


# The TransformerLens example of docs/python.md, and its cache against geoattn.hf.capture of the
# same model: the two routes give the same alpha and values.
CHECK_AGAINST_CAPTURE = """
plain = AutoModelForCausalLM.from_pretrained("models/stories15M", torch_dtype=torch.float32)  # the bridge wraps hf
a2, v2 = geoattn.hf.capture(plain, ids)
print("diff", float((alpha - a2).abs().max()), float((values - v2).abs().max()))
"""


def test_the_transformer_lens_example_runs_as_written(tmp_path):
    for module in ("transformers", "sentencepiece", "transformer_lens"):
        needs(module)
    workspace(REPO, str(tmp_path))
    with open(os.path.join(REPO, "python", "examples", "transformer_lens_cache.py"), encoding="utf-8") as f:
        code = f.read()
    done = subprocess.run([sys.executable, "-c", code + CHECK_AGAINST_CAPTURE], cwd=tmp_path, capture_output=True,
                          text=True, timeout=600)
    assert done.returncode == 0, f"the TransformerLens example: {done.stderr[-3000:]}"
    lines = done.stdout.strip().splitlines()
    # P_rmax per head [L, H, N] of stories15M's 6 x 6 heads at N = 1..16, and P(r_max, 1) = 1 (SPEC §2).
    assert lines[-2].startswith("(6, 6, 16) [1.0, "), lines[-2]
    a, v = (float(x) for x in lines[-1].split()[1:])
    assert a < 1e-5 and v < 1e-4, f"TransformerLens' cache and geoattn.hf.capture differ: alpha {a}, values {v}"
