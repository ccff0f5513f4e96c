"""Every bad argument is a ValueError whose message starts with the argument's name."""
import numpy as np
import pytest
import torch

import geoattn


def causal_rows(W=1, L=2, H=4, T=8, seed=0):
    """alpha [W, L, H, T, T]: softmax rows over keys 0..i."""
    g = torch.Generator().manual_seed(seed)
    scores = torch.randn(W, L, H, T, T, generator=g)
    mask = torch.triu(torch.ones(T, T, dtype=torch.bool), 1)
    return scores.masked_fill(mask, float("-inf")).softmax(-1)


ALPHA = causal_rows()
VALUES = torch.randn(1, 2, 2, 8, 4, generator=torch.Generator().manual_seed(1))


def nan_values():
    v = VALUES.clone()
    v[0, 1, 0, 3, 2] = float("nan")
    return v


def late_weight():
    a = ALPHA.clone()
    a[0, 0, 0, 2, 5] = 0.5
    return a


METRICS_CASES = [
    ("alpha", dict(alpha=[[1.0]])),
    ("alpha", dict(alpha=ALPHA.long())),
    ("alpha", dict(alpha=ALPHA[0])),
    ("values", dict(values=VALUES[:, :, :, :6])),
    ("values", dict(values=torch.randn(1, 2, 3, 8, 4))),  # 3 KV heads for 4 heads
    ("values", dict(values=nan_values())),
    ("alpha", dict(alpha=ALPHA * 1.1)),
    ("alpha", dict(alpha=late_weight())),
    ("alpha", dict(alpha=-ALPHA)),
    ("queries", dict(queries=[1, 2])),
    ("queries", dict(alpha=ALPHA[:, :, :, :3], queries=None)),
    ("queries", dict(queries="first")),
    ("n", dict(n="0:4")),
    ("n", dict(n="bogus")),
    ("n", dict(n=[1, 99])),
    ("distance", dict(distance="manhattan")),
    ("controls", dict(controls=-1)),
    ("bootstrap", dict(bootstrap=1.5)),
    ("decay_k", dict(decay_k=0)),
    ("bootstrap_level", dict(bootstrap_level="token")),
    ("kv_map", dict(kv_map=[0, 1])),
    ("kv_map", dict(kv_map=[0, 1, 2, 3])),
    ("docs", dict(docs=["a", "b"])),
    ("threads", dict(threads=-2)),
]


def raises_named(function, first, name, change):
    """function(alpha/attn, values, **rest) with `change` applied raises ValueError("<name>: ...")."""
    args = dict(zip((first, "values"), (ALPHA, VALUES)))
    args.update(change)
    with pytest.raises(ValueError, match=f"^{name}: "):
        function(args.pop(first), args.pop("values"), **args)


@pytest.mark.parametrize("name,change", METRICS_CASES, ids=[f"{n}-{i}" for i, (n, _) in enumerate(METRICS_CASES)])
def test_metrics_names_the_bad_argument(name, change):
    raises_named(geoattn.metrics, "alpha", name, change)


def test_good_inputs_run():
    r = geoattn.metrics(ALPHA, VALUES, n="all", controls=2)
    assert r.heads["P_rmax"].shape == (2, 4, 8)
    assert r.n_grid.tolist() == list(range(1, 9))
    np_r = geoattn.metrics(ALPHA.numpy(), VALUES.numpy(), n="all", controls=2)
    assert np.array_equal(np_r.heads["P_rmax"], r.heads["P_rmax"], equal_nan=True)


SINKS_CASES = [
    ("attn", dict(attn=ALPHA[:, :, :, :3])),
    ("values", dict(values=VALUES[:, :1])),
    ("taus", dict(taus=[1.5])),
    ("taus", dict(taus="x")),
    ("eps", dict(eps=2)),
    ("residual", dict(residual=torch.zeros(1, 2, 7, 4))),
    ("tokens", dict(tokens=torch.zeros(1, 5, dtype=torch.long))),
    ("profile_positions", dict(profile_positions=0)),
]


@pytest.mark.parametrize("name,change", SINKS_CASES, ids=[f"{n}-{i}" for i, (n, _) in enumerate(SINKS_CASES)])
def test_sinks_names_the_bad_argument(name, change):
    raises_named(geoattn.sinks, "attn", name, change)


def test_the_other_functions_name_their_bad_argument(tmp_path):
    with pytest.raises(ValueError, match="^result: "):
        geoattn.taxonomy(42)
    with pytest.raises(ValueError, match="^model: "):
        geoattn.hf.capture("gpt2", [1, 2, 3])
    with pytest.raises(ValueError, match="^input_ids: "):
        geoattn.hf.capture(torch.nn.Linear(2, 2), torch.zeros(2, 3))
    with pytest.raises(ValueError, match="^cache: "):
        geoattn.hf.from_cache({})
    missing = tmp_path / "nope.json"
    with pytest.raises(ValueError, match=f"^{missing}: "):
        geoattn.load(missing)
    with pytest.raises(ValueError, match="nope.json"):
        geoattn.taxonomy(str(missing))


def test_a_module_built_for_another_torch_is_refused(monkeypatch):
    """The installed package records the torch it linked (geoattn/_build_info.py) and refuses to
    load beside another, in one line that says to reinstall, rather than crash in the loader."""
    import os

    from geoattn import _native
    if os.environ.get("GEOATTN_CORE"):
        pytest.skip("GEOATTN_CORE: the module of a build tree, not an installed package")
    try:
        from geoattn import _build_info
    except ImportError:
        pytest.skip("no installed package (geoattn/_build_info.py)")
    assert _build_info.TORCH_VERSION == torch.__version__
    monkeypatch.setattr(_build_info, "TORCH_VERSION", "0.0.0")
    monkeypatch.setattr(_native, "_core", None)
    with pytest.raises(ImportError, match=r"^geoattn was built against torch 0\.0\.0, and this environment has torch "
                                          r".*: reinstall geoattn here \(pip install --force-reinstall \./python\)$"):
        _native.core()
