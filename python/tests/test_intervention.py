"""geoattn.intervene from Python: the command's own run (the same JSON as `geoattn intervene`
with the same flags), mean ablation's means beside the result and read back, shards that merge
into the single run, and a bad argument refused by its keyword with nothing written. stories260K
on OpenWebText documents (the package's geoattn binary of this build, GEOATTN_BIN)."""
import os

import numpy as np
import pytest

from conftest import DOCS, model_dir, read_json, run

import geoattn  # noqa: E402

MODEL = model_dir("stories260K")
RUN = dict(ctx=64, max_windows=8, bootstrap=200, quiet=True)


def _flags(**kw):
    return ["--model", MODEL, "--data", DOCS, "--ctx", 64, "--max-windows", 8, "--bootstrap", 200, "--quiet",
            *[x for k, v in kw.items() for item in (v if isinstance(v, list) else [v])
              for x in ("--" + k.replace("_", "-"), item)]]


def _numbers(doc):
    return {k: v for k, v in doc.items() if k != "timing"}


def test_intervene_is_the_command(geoattn_bin, tmp_path):
    run(geoattn_bin, "intervene", *_flags(heads="2.1,3.0", intervention=["top-n:4", "random:3"], random_sets=1),
        "--out", tmp_path / "cli.json")
    r = geoattn.intervene(MODEL, DOCS, heads="2.1,3.0", intervention=["top-n:4", "random:3"], random_sets=1,
                          geoattn=geoattn_bin, out=tmp_path / "py.json", **RUN)
    assert _numbers(r.doc) == _numbers(read_json(tmp_path / "cli.json"))
    assert [x["name"] for x in r.readings] == ["top-n:4 on 2.1,3.0", "top-n:4 on random set 1 (2 heads)",
                                               "random:3 on 2.1,3.0", "random:3 on random set 1 (2 heads)"]
    assert r.readings[0]["loss_diff"] == pytest.approx(r.readings[0]["loss"] - r.doc["loss_plain"], abs=1e-12)
    assert set(r.lines()) == {"top-n on 2.1,3.0", "top-n on random set 1 (2 heads)", "random on 2.1,3.0",
                              "random on random set 1 (2 heads)"}
    # Without out=, the result is read back from a temporary folder that is then removed.
    again = geoattn.intervene(MODEL, DOCS, heads="2.1,3.0", intervention=["top-n:4", "random:3"], random_sets=1,
                              geoattn=geoattn_bin, **RUN)
    assert _numbers(again.doc) == _numbers(r.doc) and not os.path.exists(again.path)


def test_mean_ablation_means_and_shards(geoattn_bin, tmp_path):
    first = geoattn.intervene(MODEL, DOCS, heads="1.0,4.3", intervention="mean", geoattn=geoattn_bin,
                              out=tmp_path / "first.json", **RUN)
    # The means of the first pass: [layers, heads, head_dim], each head's output averaged over
    # every position of the 8 windows; the file beside the result holds them.
    assert first.means.shape == (5, 8, 8) and first.means.dtype == np.float32
    assert first.doc["settings"]["means"] == {"over": "every position of the run's windows", "positions": 8 * 64}
    means = tmp_path / "first.means.safetensors"
    read = geoattn.intervene(MODEL, DOCS, heads="1.0,4.3", intervention="mean", means_from=means,
                             geoattn=geoattn_bin, out=tmp_path / "read.json", **RUN)
    assert read.readings == first.readings and read.means is None
    # Shards on those means merge into the run that read them, bit for bit.
    for i in range(2):
        geoattn.intervene(MODEL, DOCS, heads="1.0,4.3", intervention="mean", means_from=means, shard=f"{i}/2",
                          geoattn=geoattn_bin, out=tmp_path / f"s{i}.json", **RUN)
    run(geoattn_bin, "merge", tmp_path / "s0.json", tmp_path / "s1.json", "--out", tmp_path / "m.json")
    merged = read_json(tmp_path / "m.json")
    assert merged["interventions"] == read.readings and merged["intervals"] == read.doc["intervals"]


def test_a_bad_argument_names_its_keyword(geoattn_bin, tmp_path):
    cases = [(dict(heads="9.1"), "heads: 9.1 is not a head of the model's 5 layers x 8 heads"),
             (dict(heads="2.1", intervention="mean", shard="1/2"), "shard: 1/2: mean ablation would average"),
             (dict(heads="2.1", intervention="top-n:65"), "intervention: top-n:65: 65 is above the window's 64 keys"),
             (dict(heads="2.1", means_from=tmp_path / "none.safetensors"),
              "means_from: not used without an intervention=mean"),
             (dict(heads="2.1", each="yes"), "each: True or False, not 'yes'")]
    for kw, says in cases:
        with pytest.raises(ValueError) as e:
            geoattn.intervene(MODEL, DOCS, geoattn=geoattn_bin, out=tmp_path / "x.json", **kw, **RUN)
        assert says in str(e.value) and "\n" not in str(e.value), str(e.value)
        assert not os.path.exists(tmp_path / "x.json")


def test_the_doc_example_runs_as_written(geoattn_bin, tmp_path):
    """docs/intervene.md's Python example, in a folder holding the repository's files, the geoattn
    of this build on PATH: one line per intervention, its interval about its reading."""
    import subprocess
    import sys

    from conftest import REPO

    sys.path.insert(0, os.path.join(REPO, "tests"))
    from script_test_util import block_after, workspace

    workspace(REPO, str(tmp_path))
    code = block_after(os.path.join(REPO, "docs", "intervene.md"), "python-intervene-example", "python")
    env = dict(os.environ, PATH=os.path.dirname(geoattn_bin) + os.pathsep + os.environ.get("PATH", ""))
    done = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True, env=env, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    rows = [line.split(" ", 3) for line in done.stdout.strip().splitlines()]
    assert [r[:3] for r in rows] == [["sink-recent:16", "on", "4.5"], ["random:16", "on", "4.5"]], done.stdout
    for row in rows:
        loss, rest = row[3].split(" ", 1)
        lo, hi = (float(x) for x in rest[rest.index("[") + 1:rest.index("]")].split(","))
        assert lo <= float(loss) <= hi and 0 < float(rest.rsplit(" ", 1)[1]) < 1, row


def test_every_keyword_is_a_flag_of_the_command(geoattn_bin):
    """The keywords are the command's flags by name (one definition: the command's): each one that
    becomes a flag is in `geoattn intervene --help`, and each flag of it is a keyword."""
    import inspect
    import re

    text = run(geoattn_bin, "intervene", "--help").stdout
    flags = set(re.findall(r"^\s+(?:-h,)?--([a-z][a-z0-9-]*)", text, re.M)) - {"help"}
    keywords = {k.replace("_", "-") for k in inspect.signature(geoattn.intervene).parameters} - {"geoattn"}
    assert keywords == flags, (sorted(keywords - flags), sorted(flags - keywords))
