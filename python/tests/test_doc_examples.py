"""The Python examples a new user copies run as written: the block marked `python-example` in
the README and in docs/getting-started.md, on the shipped stories15M (a Hugging Face folder),
in a folder that holds the repository's files, with upstream transformers and its LLaMA
tokenizer (sentencepiece)."""
import os
import subprocess
import sys

import pytest

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


@pytest.mark.parametrize("page", PAGES)
def test_the_python_example_runs_as_written(page, tmp_path):
    needs("transformers")
    needs("sentencepiece")
    workspace(REPO, str(tmp_path))
    done = subprocess.run([sys.executable, "-c", block_after(os.path.join(REPO, page), "python-example", "python")],
                          cwd=tmp_path, capture_output=True, text=True,
                          timeout=600)
    assert done.returncode == 0, f"{page}'s example: {done.stderr[-3000:]}"
    # It prints the labels of stories15M's 36 heads and the per-head curves' shape [L, H, N].
    last = done.stdout.strip().splitlines()[-1]
    assert "'heads': 36" in last and "(6, 6, " in last, last
