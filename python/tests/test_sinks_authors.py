"""geoattn.sinks(convention="authors") equals the authors' released code.

tests/fixtures/sinks-authors/ holds what that code computed, run unchanged outside the repository
(scripts/reference/sinks_authors.py loads it from the fetched repositories; provenance in each
file) on transformers' eager forward of SmolLM2-135M and Gemma-3-270M over shipped OpenWebText
documents. Here the same forward feeds geoattn: every count is identical (Sink^eps as counts of
windows, the reference sets' sizes, which taus are effective) and every real value within 1e-6.
The Fiedler value and gap are compared with the exact spectrum of the notebook's Laplacian, which
geoattn computes in both conventions (SPEC §9: the notebook's eigsh errs on disconnected graphs;
the fixtures record by how much).
"""
import json
import os

import pytest
import torch

import geoattn
from conftest import REPO, real_model

transformers = pytest.importorskip("transformers")

FIXTURES = os.path.join(REPO, "tests", "fixtures", "sinks-authors")
CASES = ("smollm2-T64", "smollm2-T40", "gemma3-T64")
TOLERANCE = 1e-6  # the bound on real values; the authors' Sink^eps is a float32 percentage


def forward(model_dir, ids):
    """alpha [W, L, H, T, T], values [W, L, KV, T, d] and the residual stream entering each layer
    [W, L, T, D], one window at a time (as the reference ran them)."""
    model = transformers.AutoModelForCausalLM.from_pretrained(model_dir, dtype=torch.float32).eval()
    L = model.config.num_hidden_layers
    alpha, values, resid = [], [], []
    for w in range(ids.shape[0]):
        a, v = geoattn.hf.capture(model, ids[w:w + 1], queries="all")
        with torch.no_grad():
            hidden = model(ids[w:w + 1], output_hidden_states=True).hidden_states
        alpha.append(a), values.append(v), resid.append(torch.stack([h[0] for h in hidden[:L]])[None])
    return torch.cat(alpha), torch.cat(values), torch.cat(resid).float()


def windows_of(percent, windows):
    """A Sink^eps percentage as its count of windows (the authors' is rounded to float32)."""
    count = percent * windows / 100
    assert abs(count - round(count)) < 1e-4, percent
    return round(count)


@pytest.mark.parametrize("case", CASES)
def test_authors_convention_equals_the_released_code(case):
    with open(os.path.join(FIXTURES, case + ".json"), encoding="utf-8") as f:
        ref = json.load(f)
    model_dir = real_model(ref["model"]["dir"], f"scripts/get-model.sh {ref['model']['name']}")
    # Float noise between machines cannot flip a count: every threshold is far from the numbers.
    assert ref["margins"]["graph_tau"] > 1e-8 and ref["margins"]["sink_eps"] > 1e-6
    ids = torch.tensor(ref["tokens"], dtype=torch.int64)
    alpha, values, resid = forward(model_dir, ids)
    W, L, H = alpha.shape[:3]
    doc = geoattn.sinks(alpha, values, residual=resid, tokens=ids, convention="authors", eps=ref["eps"],
                        taus=ref["taus"], profile_positions=ref["profile_positions"]).doc
    assert doc["settings"]["convention"] == "authors" and doc["windows"] == W == ref["windows"]
    near = pytest.approx

    summary = [windows_of(p, W * L * H) for p in ref["summary"]["sink_rate"]]
    assert [windows_of(p, W * L * H) for p in doc["summary"]["sink_rate"]] == summary
    compared = 0
    for mine, theirs in zip(doc["layers"], ref["layers"], strict=True):
        l = theirs["layer"]
        assert mine["layer"] == l
        assert [windows_of(p, W * H) for p in mine["sink_rate"]] == [windows_of(p, W * H) for p in theirs["sink_rate"]]
        for key in ("size", "relative_magnitude", "directional_influence"):
            assert mine["reference"][key] == near(theirs["reference"][key], abs=TOLERANCE), (l, key)
        for g, t in zip(mine["graph"], theirs["graph"], strict=True):
            assert g["tau"] == t["tau"] and g["effective"] == t["effective"], (l, t["tau"])
            pairs = {"density": "density", "gini": "gini", "star": "star",
                     "degree_centralization": "degree_centralization", "fiedler": "fiedler_exact", "gap": "gap_exact"}
            for key, theirs_key in pairs.items():
                assert g[key] == near(t[theirs_key], abs=TOLERANCE), (l, t["tau"], key)
        for hm, ht in zip(mine["heads"], theirs["heads"], strict=True):
            h = ht["head"]
            assert [windows_of(p, W) for p in hm["sink_rate"]] == [windows_of(p, W) for p in ht["sink_rate"]]
            assert hm["dormant"]["row_score"] == near(ht["row_score"], abs=TOLERANCE), (l, h)
            assert hm["dormant"]["col_score"] == near(ht["col_score"], abs=TOLERANCE), (l, h)
            for key in ("size", "relative_magnitude", "directional_influence"):
                assert hm["reference"][key] == near(ht["reference"][key], abs=TOLERANCE), (l, h, key)
            compared += 1
    assert compared == L * H


def test_the_fixtures_say_where_their_numbers_come_from():
    for case in CASES:
        with open(os.path.join(FIXTURES, case + ".json"), encoding="utf-8") as f:
            prov = json.load(f)["provenance"]
        for source in prov["sources"].values():
            assert source["repository"].startswith("https://github.com/") and len(source["commit"]) == 40
            assert source["file"] and source["functions"]
