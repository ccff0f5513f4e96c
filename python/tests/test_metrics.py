"""geoattn.metrics, taxonomy and fits against the CLI on a real capture: the same numbers bit
for bit, from numpy, torch CPU and CUDA inputs alike."""
import json
import math
import os

import numpy as np
import pytest
import torch

import geoattn
from geoattn.io.safetensors import read_header, read_whole
from conftest import read_json, run, without_run_info


@pytest.fixture(scope="module")
def cli_result(geoattn_bin, stories15m_capture, tmp_path_factory):
    """`geoattn metrics` and `geoattn taxonomy` on the stories15M capture."""
    out = tmp_path_factory.mktemp("cli") / "m.json"
    run(geoattn_bin, "metrics", "--capture", stories15m_capture, "--n", "all", "--bootstrap", 50, "--controls", 4,
        "--seed", 7, "--threads", 2, "--out", out)
    tax = out.parent / "t.json"
    run(geoattn_bin, "taxonomy", "--from", out, "--out", tax, "--quiet")
    return out, tax


@pytest.fixture(scope="module")
def capture(stories15m_capture):
    return geoattn.read_capture(stories15m_capture)


def py_metrics(c, alpha=None, values=None, **kw):
    return geoattn.metrics(c["alpha"] if alpha is None else alpha, c["values"] if values is None else values,
                           queries=c["queries"], docs=c["docs"], n="all", bootstrap=50, controls=4, seed=7, **kw)


@pytest.fixture(scope="module")
def py_result(capture):
    return py_metrics(capture)


def same(a, b, where=""):
    """Equal JSON values, NaN-free (null is null): floats compared exactly."""
    assert type(a) is type(b) or (a is None) == (b is None), where
    if isinstance(a, dict):
        assert a.keys() == b.keys(), where
        for k in a:
            same(a[k], b[k], f"{where}.{k}")
    elif isinstance(a, list):
        assert len(a) == len(b), where
        for i, (x, y) in enumerate(zip(a, b)):
            same(x, y, f"{where}[{i}]")
    else:
        assert a == b, f"{where}: {a!r} != {b!r}"


def test_metrics_equal_the_cli_bit_for_bit(cli_result, py_result):
    cli = geoattn.load(cli_result[0])  # its arrays file read back inline (so: no "arrays", schema /1)
    cli_doc = without_run_info(cli.doc)
    cli_doc.pop("arrays", None)
    cli_doc["schema"] = "geoattn.measure/1"
    same(without_run_info(py_result.doc), cli_doc)
    assert py_result.doc["heads"][0]["fits"], "the fits are part of the comparison"
    assert py_result.doc["global"]["envelopes"]["R_lo"], "so are the envelopes of the samples (auto: on, CPU)"
    # the per-head arrays, as numpy, are the arrays file's
    arrays = geoattn.results.read_arrays(str(cli_result[0]).replace(".json", ".curves.safetensors"))
    heads = py_result.heads
    assert heads["P_rmax"].shape == (6, 6, 128)  # stories15M: 6 layers x 6 heads, N = 1..128
    for name, value in arrays.items():
        group, key = name.split(".", 1)
        mine = (heads if group == "heads" else py_result.layers)[key]
        assert np.array_equal(mine, value, equal_nan=True), name


def test_envelopes_are_a_setting(capture, py_result):
    """SPEC §5's bounds of the measured samples, on by default for CPU tensors; off
    leaves them out and changes nothing else; kappa moves them and is recorded."""
    off = py_metrics(capture, envelopes="off")
    assert "envelopes" not in off.doc["settings"] and "envelopes" not in off.doc["global"]
    assert "envelopes.R_lo" not in off.heads and "envelopes.R_lo" in py_result.heads
    assert np.array_equal(off.heads["P_rmax"], py_result.heads["P_rmax"], equal_nan=True)
    loose = py_metrics(capture, kappa=4.0)
    assert loose.doc["settings"]["envelopes"] == {"kappa": 4.0}
    # A larger kappa tightens the tails: the lower bound of recall rises (or stays) at every N.
    lo4, lo1 = loose.doc["global"]["envelopes"]["R_lo"], py_result.doc["global"]["envelopes"]["R_lo"]
    assert all(a >= b for a, b in zip(lo4, lo1) if a is not None and b is not None)
    assert lo4 != lo1


def test_ci_is_a_setting(capture, py_result):
    """ci: the intervals' coverage. The SPEC's 95 is not recorded (as every earlier result); 80 is,
    with its percentiles; the point estimates do not move, and from the same replicates each 80%
    interval lies within the 95% one."""
    assert "ci" not in py_result.doc["settings"]["bootstrap"]
    assert py_result.doc["bootstrap"]["percentiles"] == [2.5, 97.5]
    r80 = py_metrics(capture, ci=80)
    assert r80.doc["settings"]["bootstrap"]["ci"] == 80 and r80.doc["bootstrap"]["percentiles"] == [10, 90]
    assert r80.doc["global"]["P_rmax"] == py_result.doc["global"]["P_rmax"]
    pairs = [(a, b) for a, b in zip(r80.doc["global"]["P_rmax_ci"], py_result.doc["global"]["P_rmax_ci"])
             if None not in a + b]
    assert pairs and all(b[0] <= a[0] <= a[1] <= b[1] for a, b in pairs)
    assert any(a != b for a, b in pairs)


def test_kappa_scan_is_a_setting(capture, py_result):
    """The scan is opt-in: off by default (no ranges); auto gives every group's kappa range at
    the 17-kappa grid; a list of kappas is recorded and used."""
    assert "kappa_scan" not in py_result.doc["settings"] and "kappa_range" not in py_result.doc["global"]
    scan = py_metrics(capture, kappa_scan="auto")
    kappas = scan.doc["settings"]["kappa_scan"]["kappas"]
    assert len(kappas) == 17 and kappas[0] == 2 ** -4 and kappas[-1] == 2 ** 4
    for group in [scan.doc["global"]] + scan.doc["layers"] + scan.doc["heads"]:
        k = group["kappa_range"]
        assert (k["lo"] is None) == (k["hi"] is None) and (k["lo"] is None or k["lo"] <= k["hi"])
        assert 0 <= k["with_range"] <= 1  # the bootstrap's share of replicates with a range
    some = py_metrics(capture, kappa_scan=[0.5, 2])
    assert some.doc["settings"]["kappa_scan"] == {"kappas": [0.5, 2.0]}
    assert all(k in (None, 0.5, 2.0) for h in some.doc["heads"] for k in (h["kappa_range"]["lo"], h["kappa_range"]["hi"]))
    off = py_metrics(capture, kappa_scan="off")
    assert "kappa_scan" not in off.doc["settings"] and "kappa_range" not in off.doc["global"]
    for bad in ("1,0.5", [0.5, -1], "x", 3):
        with pytest.raises(ValueError, match="kappa_scan"):
            py_metrics(capture, kappa_scan=bad)
    with pytest.raises(ValueError, match="kappa_scan"):
        py_metrics(capture, kappa_scan="1,2", envelopes="off")
    # The taxonomy's companion table, as geoattn taxonomy writes it from the JSON.
    tax = geoattn.taxonomy(scan)
    assert sum(r["heads"] for r in tax["kappa_by_layer"]) == len(tax["heads"]) == 36


def windowed(alpha, queries, windows):
    """alpha with each windowed layer's rows cut to the keys its window shows (q - w + 1 .. q) and
    renormalised: the rows a model with those windows would give."""
    a = alpha.clone()
    keys = torch.arange(a.shape[-1])
    for l, w in enumerate(windows):
        if w:
            for i, q in enumerate(int(q) for q in queries):
                a[:, l, :, i, keys < q - w + 1] = 0
            a[:, l] = a[:, l] / a[:, l].sum(-1, keepdim=True)
    return a


def test_windowed_layers_measure_the_keys_they_see(capture):
    """SPEC §1: with layer windows (here 16 keys on every other layer of stories15M, which has
    none: its rows cut to the windows, the convention is what is tested), a windowed layer's
    samples stop at N = 16; window_tokens="causal" keeps every key; both are recorded. The
    model's own rows, which weigh the keys a window hides, are refused with those windows."""
    L = capture["alpha"].shape[1]
    windows = [16 if l % 2 == 0 else 0 for l in range(L)]
    with pytest.raises(ValueError, match="layer_windows.*outside the layer's window of 16"):
        py_metrics(capture, layer_windows=windows, kappa_scan="off")
    alpha = windowed(capture["alpha"], capture["queries"], windows)
    visible = py_metrics(capture, alpha=alpha, layer_windows=windows, kappa_scan="off")
    causal = py_metrics(capture, alpha=alpha, layer_windows=windows, window_tokens="causal", kappa_scan="off")
    assert visible.doc["settings"]["layer_windows"] == windows and visible.doc["settings"]["window_tokens"] == "visible"
    assert causal.doc["settings"]["window_tokens"] == "causal"
    grid = visible.n_grid
    samples = visible.layers["samples_n"]  # [L, G]
    assert np.all(samples[0][grid > 16] == 0) and np.all(samples[1][grid > 16] > 0)
    assert np.all(np.isnan(visible.layers["R_rmin"][0][grid > 16]))
    assert np.all(causal.layers["samples_n"][0][grid > 16] > 0)
    for bad in ([16] * (L + 1), [-1] * L, "16"):
        with pytest.raises(ValueError, match="layer_windows"):
            py_metrics(capture, layer_windows=bad)
    with pytest.raises(ValueError, match="window_tokens"):
        py_metrics(capture, window_tokens="all")


def test_load_reads_the_cli_files(cli_result, py_result):
    loaded = geoattn.load(cli_result[0])
    assert isinstance(loaded, geoattn.Measure) and loaded.heads.keys() == py_result.heads.keys()
    for group in ("heads", "layers"):
        for key, value in getattr(py_result, group).items():
            assert np.array_equal(getattr(loaded, group)[key], value, equal_nan=True), f"{group}.{key}"
    assert np.array_equal(loaded.n_grid, py_result.n_grid)


def test_load_reads_an_inline_result(py_result, tmp_path):
    """geoattn.measure/1 (every array inline, what to_json() gives) reads back to the same arrays."""
    path = tmp_path / "inline.json"
    path.write_text(py_result.to_json())
    loaded = geoattn.load(path)
    for key in ("P_rmax", "R_rmin", "F_rmax", "P_rmax_random", "P_rmax_ci"):
        assert np.array_equal(loaded.heads[key], py_result.heads[key], equal_nan=True), key
    assert geoattn.taxonomy(str(path)) == geoattn.taxonomy(py_result)


def test_save_writes_the_cli_files(cli_result, py_result, tmp_path):
    out = tmp_path / "py.json"
    py_result.save(out)
    mine, cli = read_json(out), read_json(cli_result[0])
    assert mine.pop("arrays")["file"] == "py.curves.safetensors" and cli.pop("arrays")["file"] == "m.curves.safetensors"
    same(without_run_info(mine), without_run_info(cli))
    # The arrays file: the CLI's bytes, but for the run id in its header (each file names its own run).
    ours, theirs = tmp_path / "py.curves.safetensors", str(cli_result[0]).replace(".json", ".curves.safetensors")
    (h1, d1), (h2, d2) = read_whole(ours), read_whole(theirs)
    m1, m2 = h1.pop("__metadata__"), h2.pop("__metadata__")
    assert m1.pop("run_id") == mine["run_id"] and m2.pop("run_id") == cli["run_id"]
    assert m1 == m2 and h1 == h2 and d1 == d2
    assert read_header(tmp_path / "py.state.safetensors")[0]["__metadata__"]["run_id"] == mine["run_id"]


class _NoJson:
    """A result's native half that refuses to write its JSON: what geoattn.taxonomy and fits
    must not need of a result in memory."""

    def __init__(self, native):
        self._native = native

    def json(self):
        raise AssertionError("the result's JSON was written")

    def taxonomy(self, config):
        return self._native.taxonomy(config)

    def fits(self):
        return self._native.fits()


def test_taxonomy_and_fits_of_a_result_in_memory_need_no_json(py_result, tmp_path):
    """geoattn.taxonomy and fits of a Measure come from its structs: what they give from its JSON
    (its inline text, in a file), without writing or parsing that JSON."""
    path = tmp_path / "inline.json"
    path.write_text(py_result.to_json())
    config = {"retriever_cos_vL_min": 0.2, "reset_sink_ratio": 0.5, "reset_cos_vL_max": 0.6, "reset_n_max": 16}
    m = geoattn.Measure(native=_NoJson(py_result._native))
    same(geoattn.taxonomy(m), geoattn.taxonomy(str(path)))
    same(geoattn.taxonomy(m, config=config), geoattn.taxonomy(str(path), config=config))
    same(m.fits, geoattn.fits(str(path)))
    assert m._doc is None


def test_taxonomy_and_fits_equal_the_cli(cli_result, py_result):
    mine, cli = geoattn.taxonomy(py_result), read_json(cli_result[1])
    same(without_run_info(mine), without_run_info(cli))
    same(without_run_info(geoattn.taxonomy(str(cli_result[0]))), without_run_info(cli))
    fits = geoattn.fits(py_result)
    assert len(fits) == 36 and {"layer", "head"} <= fits[0].keys()
    same(fits, geoattn.fits(str(cli_result[0])))


def test_numpy_torch_and_float64_inputs_give_the_same_result(capture, py_result):
    a, v = capture["alpha"], capture["values"]
    for alpha, values in ((a.numpy(), v.numpy()), (a.double(), v.double()), (a.numpy(), v)):
        same(without_run_info(py_metrics(capture, alpha, values).doc), without_run_info(py_result.doc))


def close(a, b, tol, where=""):
    """same(), with floats within tol (ints and flags still equal)."""
    if isinstance(a, float) or isinstance(b, float):
        assert isinstance(a, (int, float)) and isinstance(b, (int, float)), where
        assert abs(a - b) <= tol, f"{where}: {a!r} != {b!r} (tol {tol})"
    elif isinstance(a, dict):
        assert a.keys() == b.keys(), where
        for k in a:
            close(a[k], b[k], tol, f"{where}.{k}")
    elif isinstance(a, list):
        assert len(a) == len(b), where
        for i, (x, y) in enumerate(zip(a, b)):
            close(x, y, tol, f"{where}[{i}]")
    else:
        same(a, b, where)


@pytest.mark.skipif(not torch.cuda.is_available(), reason="no CUDA device")
def test_cuda_inputs_give_the_same_result(capture, py_result):
    alpha, values = capture["alpha"].cuda(), capture["values"].cuda()
    # Without the envelopes every number is the CPU run's, bit for bit (the counts are exact).
    r = py_metrics(capture, alpha, values, envelopes="off")
    same(without_run_info(r.doc), without_run_info(py_metrics(capture, envelopes="off").doc))
    # With them (the default, on every device) the GPU's tensor path gives the CPU's within 1e-9.
    close(without_run_info(py_metrics(capture, alpha, values).doc), without_run_info(py_result.doc), 1e-9)


def test_bf16_inputs_are_read_as_given(capture):
    """bf16 rows and values widen to float64 exactly: the result equals the float32 run of the
    same bf16-rounded numbers."""
    a, v = capture["alpha"].bfloat16(), capture["values"].bfloat16()
    r16 = py_metrics(capture, a, v, )
    r32 = py_metrics(capture, a.float(), v.float())
    same(without_run_info(r16.doc), without_run_info(r32.doc))


def test_a_custom_kv_map_equals_the_gathered_values(capture):
    """kv_map gathers a KV head per head: 6 heads reading KV head 5 - h equal the values
    reordered that way."""
    a, v = capture["alpha"], capture["values"]
    kv_map = [5 - h for h in range(6)]
    r = geoattn.metrics(a, v, queries=capture["queries"], kv_map=kv_map, controls=0, n="1:8")
    expect = geoattn.metrics(a, v[:, :, kv_map], queries=capture["queries"], controls=0, n="1:8")
    same(without_run_info(r.doc), without_run_info(expect.doc))
