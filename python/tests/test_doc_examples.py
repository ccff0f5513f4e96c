"""The Python examples a new user copies run as written: the block marked `python-example` in
the README and in docs/getting-started.md, on the shipped stories15M (a Hugging Face folder),
in a folder that holds the repository's files, with upstream transformers and its LLaMA
tokenizer (sentencepiece)."""
import os
import subprocess
import sys

import pytest

from conftest import REPO, in_ci

PAGES = ["README.md", os.path.join("docs", "getting-started.md")]


def example(page):
    text = open(os.path.join(REPO, page), encoding="utf-8").read()
    assert "<!-- python-example" in text, f"{page}: no python-example marker"
    return text.split("<!-- python-example", 1)[1].split("```python\n", 1)[1].split("```", 1)[0]


def needs(module):
    try:
        __import__(module)
    except ImportError:
        if in_ci():
            pytest.fail(f"{module} is missing in CI (scripts/requirements-bare.txt installs it)")
        pytest.skip(f"{module} is not installed: the example reads the LLaMA tokenizer through it")


@pytest.mark.parametrize("page", PAGES)
def test_the_python_example_runs_as_written(page, tmp_path):
    pytest.importorskip("transformers")
    needs("sentencepiece")
    for name in os.listdir(REPO):
        if name not in ("out", ".git") and not name.startswith("build"):
            os.symlink(os.path.join(REPO, name), tmp_path / name)
    done = subprocess.run([sys.executable, "-c", example(page)], cwd=tmp_path, capture_output=True, text=True,
                          timeout=600)
    assert done.returncode == 0, f"{page}'s example: {done.stderr[-3000:]}"
    # It prints the labels of stories15M's 36 heads and the per-head curves' shape [L, H, N].
    last = done.stdout.strip().splitlines()[-1]
    assert "'heads': 36" in last and "(6, 6, " in last, last
