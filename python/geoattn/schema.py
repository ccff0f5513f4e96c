"""Checks JSON documents against geoattn's JSON Schemas (docs/schema); standard library only.

    problem(doc, "geoattn.measure-2.schema.json")  # None or "heads[3].R_rmin: expected an array, got string"
    validate(doc, "geoattn.bounds-1.schema.json")  # raises SchemaError (str(e): that line)
    geoattn-schema SCHEMA.json DOC.json   # "ok", or the problem and exit code 1 (main; or python3 -m geoattn.schema)

The subset of JSON Schema 2020-12 that docs/schema uses: type, const, enum, minimum, maximum,
pattern, items, prefixItems, minItems, maxItems, properties, patternProperties,
additionalProperties, required, allOf, if/then/else, true/false and $ref ("#/$defs/x" or
"other.schema.json#/$defs/x"); another keyword is an error, never ignored. The first problem
(an object's missing keys, then its keys in order) is one line naming its JSON path.
"""
from __future__ import annotations

import json
import os
import re
import sys
from typing import Any, Sequence

__all__ = ["SCHEMA_DIR", "ANNOTATIONS", "QUICK", "KEYWORDS", "PY_TYPES", "JSON_TYPES",
           "SchemaError", "json_path", "load_schema", "has_type", "short", "validate", "problem",
           "main"]

# The schemas shipped inside an installed package (geoattn/schemas, python/CMakeLists.txt), else
# docs/schema of the checkout this package is in (python/geoattn/ -> docs/schema).
_HERE = os.path.dirname(os.path.abspath(__file__))
SCHEMA_DIR = next((d for d in (os.path.join(_HERE, "schemas"), os.path.join(_HERE, os.pardir, os.pardir, "docs", "schema"))
                   if os.path.isdir(d)), os.path.join(_HERE, os.pardir, os.pardir, "docs", "schema"))
# x-compare: geoattn's own annotation of a result's settings, whether two runs compared must share
# the setting (must_match) or may differ in it (may_differ), and why (geoattn.tools.compare.settings).
ANNOTATIONS = {"$schema", "$id", "$defs", "$comment", "title", "description", "examples", "default", "x-compare"}
QUICK = {"$ref", "type", "items", "prefixItems", "minItems", "maxItems"}  # see _Checker.quick
KEYWORDS = ANNOTATIONS | QUICK | {"const", "enum", "minimum", "maximum", "pattern", "properties",
                                  "patternProperties", "additionalProperties", "required", "allOf",
                                  "if", "then", "else"}
PY_TYPES: dict[str, set[type]] = {"object": {dict}, "array": {list}, "string": {str}, "boolean": {bool},
                                  "integer": {int}, "number": {int, float}, "null": {type(None)}}
JSON_TYPES = {dict: "object", list: "array", str: "string", bool: "boolean", int: "integer",
              float: "number", type(None): "null"}
_files: dict[str, dict] = {}  # path -> schema
_quick: dict[int, tuple] = {}  # id(schema) -> (schema, its quick test or None)


class SchemaError(Exception):
    """Where a document breaks its schema: str(e) is "<path>: <problem>"."""

    def __init__(self, keys: Sequence[str | int], problem: str):
        self.path, self.problem = json_path(keys), problem
        super().__init__(f"{self.path or 'top level'}: {problem}")


def json_path(keys: Sequence[str | int]) -> str:
    """("heads", 3, "R_rmin") -> heads[3].R_rmin; other keys quoted: tensors["heads.c"]."""
    return "".join(f"[{k}]" if isinstance(k, int) else f".{k}" if re.fullmatch(r"[A-Za-z_]\w*", k)
                   else f"[{json.dumps(k)}]" for k in keys).lstrip(".")


def load_schema(name: str, directory: str | None = None) -> tuple[dict, str]:
    """The schema file `name` (read once) and its folder; from docs/schema by default."""
    path = os.path.normpath(os.path.join(directory or SCHEMA_DIR, name))
    if path not in _files:
        with open(path, encoding="utf-8") as f:
            _files[path] = json.load(f)
    return _files[path], os.path.dirname(path)


def has_type(v: Any, want: str) -> bool:
    """Whether v has the JSON Schema type `want`: 1.0 is an integer, true is not a number."""
    return type(v) in PY_TYPES[want] or (want == "integer" and type(v) is float and v.is_integer())


def short(v: Any) -> str:
    """v as JSON text for a message, cut to 40 characters ("..." at the end)."""
    text = json.dumps(v)
    return text if len(text) <= 40 else text[:37] + "..."


class _Checker:
    def __init__(self, root, directory):
        self.root, self.directory = root, directory

    def resolve(self, ref):
        name, _, pointer = ref.partition("#")
        checker = _Checker(*load_schema(name, self.directory)) if name else self
        node = checker.root
        for part in pointer.split("/")[1:]:
            node = node[part.replace("~1", "/").replace("~0", "~")]
        return checker, node

    def quick(self, s):
        """A fast yes/no test of a schema of QUICK keywords (curves), else None; check names the problem."""
        if id(s) not in _quick:
            unknown = set(s) - KEYWORDS if isinstance(s, dict) else set()
            if unknown:
                raise ValueError(f"schema keyword(s) {sorted(unknown)} not supported by geoattn.schema")
            _quick[id(s)] = (s, None)  # None while building: a $ref cycle is not quick
            _quick[id(s)] = (s, self.build_quick(s))
        return _quick[id(s)][1]

    def build_quick(self, s):
        if s is True:
            return lambda v: True
        if not isinstance(s, dict) or set(s) - ANNOTATIONS - QUICK:
            return None
        tests = []
        if "$ref" in s:
            checker, target = self.resolve(s["$ref"])
            tests.append(checker.quick(target))
        if "type" in s:
            allowed = set().union(*(PY_TYPES[t] for t in ([s["type"]] if isinstance(s["type"], str) else s["type"])))
            tests.append(lambda v: type(v) in allowed)
            tests[-1].types = allowed
        if set(s) & {"items", "prefixItems", "minItems", "maxItems"}:
            lo, hi = s.get("minItems", 0), s.get("maxItems", float("inf"))
            prefix = [self.quick(p) for p in s.get("prefixItems", [])]
            item = self.quick(s.get("items", True))
            types = getattr(item, "types", None)

            def array(v):
                if type(v) is not list:
                    return True
                if not lo <= len(v) <= hi or not all(p(x) for p, x in zip(prefix, v)):
                    return False
                rest = v[len(prefix):] if prefix else v
                return all(type(x) in types for x in rest) if types else all(map(item, rest))
            tests += [array] if None not in prefix and item is not None else [None]
        if None in tests:
            return None
        return tests[0] if len(tests) == 1 else lambda v: all(test(v) for test in tests)

    def check(self, v, s, path):
        if s is True or (self.quick(s) or (lambda v: False))(v):
            return
        if s is False:
            raise SchemaError(path, "not allowed here")
        if "$ref" in s:
            checker, target = self.resolve(s["$ref"])
            checker.check(v, target, path)
        if "type" in s:
            types = s["type"] if isinstance(s["type"], list) else [s["type"]]
            if not any(has_type(v, t) for t in types):
                want = " or ".join(t if t == "null" else ("an " if t[0] in "aeiou" else "a ") + t for t in types)
                raise SchemaError(path, f"expected {want}, got {JSON_TYPES.get(type(v), type(v).__name__)}")
        if "const" in s and not (v == s["const"] and type(v) is type(s["const"])):
            raise SchemaError(path, f"expected {short(s['const'])}, got {short(v)}")
        if "enum" in s and not any(v == e and type(v) is type(e) for e in s["enum"]):
            raise SchemaError(path, f"expected one of {', '.join(map(short, s['enum']))}, got {short(v)}")
        if type(v) in (int, float) and not s.get("minimum", v) <= v <= s.get("maximum", v):
            bound = f">= {s['minimum']}" if v < s.get("minimum", v) else f"<= {s['maximum']}"
            raise SchemaError(path, f"expected a value {bound}, got {v}")
        if isinstance(v, str) and "pattern" in s and not re.search(s["pattern"], v):
            raise SchemaError(path, f"{short(v)} does not match {s['pattern']}")
        if isinstance(v, list):
            lo, hi = s.get("minItems", 0), s.get("maxItems", len(v))
            if not lo <= len(v) <= hi:
                want = f"at least {lo}" if len(v) < lo else f"at most {hi}"
                raise SchemaError(path, f"expected {want} item(s), got {len(v)}")
            prefix = s.get("prefixItems", [])
            for i, item in enumerate(v):
                self.check(item, prefix[i] if i < len(prefix) else s.get("items", True), path + (i,))
        if isinstance(v, dict):
            self.check_object(v, s, path)
        for sub in s.get("allOf", ()):
            self.check(v, sub, path)
        if "if" in s:
            self.check(v, s.get("then", True) if self.holds(v, s["if"]) else s.get("else", True), path)

    def holds(self, v, s):
        try:
            self.check(v, s, ())
        except SchemaError:
            return False
        return True

    def check_object(self, v, s, path):
        for key in s.get("required", ()):
            if key not in v:
                raise SchemaError(path + (key,), "required key missing")
        props, patterns = s.get("properties", {}), s.get("patternProperties", {})
        for key, item in v.items():
            subs = [props[key]] if key in props else []
            subs += [sub for pattern, sub in patterns.items() if re.search(pattern, key)]
            if not subs and s.get("additionalProperties", True) is False:
                raise SchemaError(path + (key,), "unknown key (not in the schema)")
            for sub in subs or [s.get("additionalProperties", True)]:
                self.check(item, sub, path + (key,))


def validate(doc: Any, schema_name: str, directory: str | None = None) -> None:
    """Raises SchemaError at the first problem of `doc` against the schema file `schema_name`
    (a name in docs/schema, or in `directory`)."""
    checker = _Checker(*load_schema(schema_name, directory))
    checker.check(doc, checker.root, ())


def problem(doc: Any, schema_name: str, directory: str | None = None) -> str | None:
    """The first problem as one line "<path>: <problem>", or None when `doc` is valid."""
    try:
        validate(doc, schema_name, directory)
    except SchemaError as e:
        return str(e)
    return None


def main(argv: Sequence[str] | None = None) -> None:
    """The command line (argv: its arguments, sys.argv[1:] by default): SCHEMA.json DOC.json;
    prints "ok", or exits with "DOC.json: <problem>" (exit code 1)."""
    argv = sys.argv[1:] if argv is None else argv
    if len(argv) != 2:
        sys.exit("usage: geoattn-schema SCHEMA.json DOC.json")
    with open(argv[1], encoding="utf-8") as f:
        why = problem(json.load(f), os.path.abspath(argv[0]))
    sys.exit(f"{argv[1]}: {why}" if why else print("ok"))


if __name__ == "__main__":
    main()
