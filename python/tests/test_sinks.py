"""geoattn.sinks against `geoattn sinks --capture` on a real all-query capture."""
import geoattn
import pytest
import torch

from conftest import DOCS, model_dir, read_json, run, without_run_info
from test_metrics import same


@pytest.fixture(scope="module")
def all_queries(geoattn_bin, tmp_path_factory):
    """stories260K (the embedded default) on 3 documents, every query of T = 64."""
    path = tmp_path_factory.mktemp("sinks") / "capture.safetensors"
    run(geoattn_bin, "capture", "--model", model_dir("stories260K"), "--data", DOCS, "--ctx", 64, "--max-windows", 3,
        "--queries", "all", "--quiet", "--out", path)
    return path


@pytest.mark.parametrize("convention", ["geoattn", "authors"])
def test_sinks_equal_the_cli(geoattn_bin, all_queries, tmp_path, convention):
    out = tmp_path / "s.json"
    run(geoattn_bin, "sinks", "--capture", all_queries, "--convention", convention, "--out", out, "--quiet")
    c = geoattn.read_capture(all_queries)
    mine = geoattn.sinks(c["alpha"], c["values"], tokens=c["tokens"], convention=convention)
    assert mine.doc["settings"]["convention"] == convention
    same(without_run_info(mine.doc), without_run_info(read_json(out)))
    arrays = mine.arrays()
    assert arrays["mass0"].shape == (5, 8)  # stories260K: 5 layers x 8 heads
    mine.save(tmp_path / "py.json")
    same(without_run_info(read_json(tmp_path / "py.json")), without_run_info(read_json(out)))
    loaded = geoattn.load(tmp_path / "py.json")
    assert isinstance(loaded, geoattn.Sinks)
    same(loaded.doc, read_json(tmp_path / "py.json"))


def test_sinks_with_a_residual_stream(all_queries):
    c = geoattn.read_capture(all_queries)
    W, L, _, T, _ = c["alpha"].shape
    resid = torch.randn(W, L, T, 32, generator=torch.Generator().manual_seed(0))
    doc = geoattn.sinks(c["alpha"], c["values"], residual=resid).doc
    assert doc["settings"]["residual"] is True
    assert doc["layers"][0]["reference"]["magnitude_ratio"] is not None
    with pytest.raises(Exception, match="convention: 'paper' is not one of geoattn or authors"):
        geoattn.sinks(c["alpha"], c["values"], convention="paper")
