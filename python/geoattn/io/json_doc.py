"""The one reader of a JSON document: read_json_value parses a file, read_json also checks that
it is an object with the expected "schema"; a ReadError naming the file and, in words, what is
wrong otherwise (no such file, is a directory, permission denied, not UTF-8, invalid JSON at a
line and column, not a JSON object, no "schema" key, another schema)."""
from __future__ import annotations

import json
import os
from typing import Any, Union

from .errors import ReadError, os_problem

# What read_json accepts: a name without a version ("geoattn.measure": any "geoattn.measure/N"),
# one exact schema string ("geoattn.bounds/1") or a tuple of them.
Schema = Union[str, tuple[str, ...]]


def read_json_value(path: str | os.PathLike) -> Any:
    """The JSON value in the file at path (UTF-8), whatever it is; a ReadError naming the file
    when it cannot be read or parsed."""
    try:
        with open(path, encoding="utf-8") as f:
            return json.load(f)
    except OSError as e:
        raise ReadError(path, os_problem(e, "a JSON file")) from None
    except UnicodeDecodeError:
        raise ReadError(path, "not UTF-8 text") from None
    except json.JSONDecodeError as e:
        raise ReadError(path, f"invalid JSON: {e.msg} at line {e.lineno} column {e.colno}") from None
    except RecursionError:
        raise ReadError(path, "invalid JSON: nested too deeply") from None


def schema_matches(got: Any, schema: Schema) -> bool:
    """Whether the "schema" value `got` is one `schema` accepts (read_json's rule)."""
    if not isinstance(got, str):
        return False
    if isinstance(schema, tuple):
        return got in schema
    return got == schema if "/" in schema else got.startswith(schema + "/")


def expected_schema(schema: Schema) -> str:
    """`schema` in words: "geoattn.measure/N", "geoattn.bounds/1", or the strings of a tuple
    joined by "or", each quoted."""
    if isinstance(schema, tuple):
        return " or ".join(f'"{s}"' for s in schema)
    return f'"{schema}"' if "/" in schema else f'"{schema}/N"'


def read_json(path: str | os.PathLike, schema: Schema) -> dict[str, Any]:
    """The JSON object at path whose "schema" is one `schema` accepts: a name without a version
    ("geoattn.taxonomy": any "geoattn.taxonomy/N"), an exact string ("geoattn.bounds/1") or a
    tuple of exact strings; a ReadError naming the file otherwise."""
    doc = read_json_value(path)
    expected = expected_schema(schema)
    if not isinstance(doc, dict):
        raise ReadError(path, f"not a JSON object (expected schema {expected})")
    got = doc.get("schema")
    if got is None:
        raise ReadError(path, f'no "schema" key (expected {expected})')
    if not schema_matches(got, schema):
        raise ReadError(path, f"schema is {json.dumps(got)[:80]}, expected {expected}")
    return doc
