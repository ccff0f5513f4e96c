"""Which settings two measure runs must share before geoattn-compare sets their means side by
side, and which may differ (docs/compare.md): a difference between runs that measured
different things would be the setting's, not the models' or the documents'.

    from geoattn.tools.compare.settings import refusal, allowed_differences
    why = refusal(doc_a, doc_b)            # None, or the line naming the setting
    notes = allowed_differences(doc_a, doc_b)   # {"settings.dtype": ["fp32", "bf16"], ...}
"""
from __future__ import annotations

from typing import Any

from ...vocabulary import MEASURE_SCHEMA_FILE

__all__ = ["MUST_MATCH", "MAY_DIFFER", "setting", "refusal", "allowed_differences"]


def _settings_rules() -> tuple[list[tuple[str, str]], list[tuple[str, str]]]:
    """(must match, may differ) of every key of a result's "settings": each key's own rule in the
    measure schema (its "x-compare", docs/schema/geoattn.measure-2.schema.json), the one place a
    setting says how two runs compared may differ in it (ctest TypedSettings walks the table of
    settings and finds each recorded entry's rule there)."""
    from ...schema import load_schema

    schema, _ = load_schema(MEASURE_SCHEMA_FILE)
    must: list[tuple[str, str]] = []
    may: list[tuple[str, str]] = []

    def walk(node: dict, path: str) -> None:
        while "$ref" in node and "properties" not in node and "x-compare" not in node:
            node = schema["$defs"][node["$ref"].rsplit("/", 1)[1]]
        rule = node.get("x-compare")
        if rule:
            (must if "must_match" in rule else may).append((path, rule.get("must_match") or rule["may_differ"]))
            return
        for key, sub in node.get("properties", {}).items():
            walk(sub, f"{path}.{key}")

    walk(schema["$defs"]["settings"], "settings")
    return must, may


_MUST, _MAY = _settings_rules()
# (path in the result JSON, why it must match): each changes what P, R, F or rho0 measure.
MUST_MATCH = tuple(_MUST) + (
    ("data.mode", "doc windows open a document, stream windows cut their concatenation"),
    ("data.offset", "where a document's window starts"),
)
# Settings that may differ, and why a difference in them is not the setting's (docs/compare.md).
MAY_DIFFER = (("model", "what is compared"),) + tuple(_MAY) + (
    ("data.files, shard, max_windows, seed", "which documents: paired on the shared ones, else unpaired"),
)


def setting(doc: dict, path: str) -> Any:
    """The value at a dotted path of a result JSON (None where missing)."""
    value: Any = doc
    for key in path.split("."):
        if not isinstance(value, dict):
            return None
        value = value.get(key)
    return value


def refusal(a: dict, b: dict) -> str | None:
    """The line saying which setting of MUST_MATCH differs between the runs a and b, or why the
    runs cannot be compared at all (a partial run, hashed offsets from different seeds, no N in
    common); None when they can be."""
    for name, doc in (("A", a), ("B", b)):
        if setting(doc, "data.complete") is False:
            return f"run {name} is partial (data.complete false): finish or merge it first"
    for path, why in MUST_MATCH:
        va, vb = setting(a, path), setting(b, path)
        if va != vb:
            return f"{path} differs ({va!r} vs {vb!r}): {why}"
    if setting(a, "data.offset") == "hashed" and setting(a, "data.seed") != setting(b, "data.seed"):
        return (f"data.seed differs ({setting(a, 'data.seed')!r} vs {setting(b, 'data.seed')!r}) with hashed "
                "offsets: the windows start at different places")
    if not set(a.get("n_grid", [])) & set(b.get("n_grid", [])):
        return "settings.n: the runs' N grids share no value"
    return None


def allowed_differences(a: dict, b: dict) -> dict:
    """{path: [a's, b's]} of the settings that differ and may (the model's path, the dtype, the N
    grid as given, the controls, the bootstrap level), for the output to say."""
    paths = ("model.path", "settings.dtype", "settings.n", "settings.controls.random_permutations",
             "settings.bootstrap.level")
    return {p: [setting(a, p), setting(b, p)] for p in paths if setting(a, p) != setting(b, p)}
