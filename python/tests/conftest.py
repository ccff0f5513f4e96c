"""What the package's tests share: the repository, the geoattn binary of the same build
(GEOATTN_BIN, set by ctest beside GEOATTN_NATIVE), and captures made by that binary."""
import json
import os
import subprocess

import pytest

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
DOCS = os.path.join(REPO, "data", "openwebtext", "openwebtext-60docs.jsonl")


def model_dir(name):
    return os.path.join(REPO, "models", name)


def in_ci():
    """Whether this run is CI's (the CI variable, set by CI services and .ci/run)."""
    return os.environ.get("CI", "") not in ("", "0", "false")


def real_model(name, how):
    """models/<name>, a real model scripts/get-model.sh converts (`how`): the test skips where it
    is absent on a developer's machine and fails in CI, where its fetch must have worked."""
    path = model_dir(name)
    if not os.path.isfile(os.path.join(path, "config.json")):
        if in_ci():
            pytest.fail(f"{path} is absent in CI: {how} failed")
        pytest.skip(f"{path} is absent: {how} fetches and converts it")
    return path


@pytest.fixture(scope="session")
def geoattn_bin():
    path = os.environ.get("GEOATTN_BIN")
    if not path or not os.access(path, os.X_OK):
        pytest.skip("GEOATTN_BIN: no geoattn binary of this build (ctest sets it)")
    return path


def run(binary, *args):
    """Runs `geoattn args...`; its stderr in the failure."""
    done = subprocess.run([binary, *map(str, args)], capture_output=True, text=True)
    assert done.returncode == 0, f"geoattn {' '.join(map(str, args))}: {done.stderr}"
    return done


@pytest.fixture(scope="session")
def stories15m_capture(geoattn_bin, tmp_path_factory):
    """stories15M (a real trained LLaMA, head_dim 48) on 6 OpenWebText documents, the last 4
    queries of T = 128: the capture the equivalence tests read."""
    path = tmp_path_factory.mktemp("stories15m") / "capture.safetensors"
    run(geoattn_bin, "capture", "--model", model_dir("stories15M"), "--data", DOCS, "--ctx", 128, "--max-windows", 6,
        "--queries", "-4,-3,-2,-1", "--quiet", "--out", path)
    return path


def without_run_info(doc):
    """A result without what describes the run rather than its numbers (paths, times, and the run's
    identity, a digest of that description: docs/results.md)."""
    doc = dict(doc)
    for k in ("model", "data", "timing", "from", "run_id"):
        doc.pop(k, None)
    return doc


def read_json(path):
    with open(path) as f:
        return json.load(f)
