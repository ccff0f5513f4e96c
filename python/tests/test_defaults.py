"""Python's defaults are the CLI's: each setting's default is defined once, in the C++ settings
structs the flags take theirs from (pipeline::MetricSpec, metrics::SinkSettings), and
geoattn._native.defaults() hands them over. A signature that drifts from them fails here."""
import inspect

import geoattn
from geoattn._loader import native


def defaults_of(function):
    return {name: p.default for name, p in inspect.signature(function).parameters.items()
            if p.default is not inspect.Parameter.empty}


def test_metrics_defaults_are_the_clis():
    ours = defaults_of(geoattn.metrics)
    for name, value in native().defaults()["metrics"].items():
        assert ours[name] == value, f"geoattn.metrics({name}={ours[name]!r}), the CLI's default is {value!r}"


def test_sinks_defaults_are_the_clis():
    ours = defaults_of(geoattn.sinks)
    for name, value in native().defaults()["sinks"].items():
        got = list(ours[name]) if isinstance(ours[name], tuple) else ours[name]
        assert got == value, f"geoattn.sinks({name}={ours[name]!r}), the CLI's default is {value!r}"
