"""geoattn.io, the package's readers of files: every way a JSON document or a safetensors header
cannot be read is one ReadError (a ValueError) whose text, one line, is "PATH: problem"; the
schema rules read_json accepts. Standard library only: no torch, numpy or compiled module."""
import json
import os
import pickle

import pytest

from geoattn.io import ReadError, read_header, read_json, read_json_value, read_whole, write_file

MEASURE = ("geoattn.measure/2", "geoattn.measure/1")


def write(folder, name, data):
    path = os.path.join(folder, name)
    with open(path, "wb") as f:
        f.write(data if isinstance(data, bytes) else data.encode())
    return path


@pytest.mark.parametrize("name,data,schema,says", [
    ("nope.json", None, "geoattn.measure", "no such file"),
    ("broken.json", "{", "geoattn.measure", "invalid JSON: Expecting property name enclosed in double quotes at line 1 column 2"),
    ("deep.json", "[" * 100000 + "]" * 100000, "geoattn.measure", "invalid JSON: nested too deeply"),
    ("latin1.json", b'{"schema": "\xe9"}', "geoattn.measure", "not UTF-8 text"),
    ("list.json", "[1]", MEASURE, 'not a JSON object (expected schema "geoattn.measure/2" or "geoattn.measure/1")'),
    ("bare.json", "{}", "geoattn.taxonomy", 'no "schema" key (expected "geoattn.taxonomy/N")'),
    ("sinks.json", '{"schema": "geoattn.sinks/1"}', "geoattn.bounds/1", 'schema is "geoattn.sinks/1", expected "geoattn.bounds/1"'),
    ("prefix.json", '{"schema": "geoattn.measurement/1"}', "geoattn.measure", 'schema is "geoattn.measurement/1"'),
    ("number.json", '{"schema": 2}', MEASURE, "schema is 2, expected"),
])
def test_a_file_that_cannot_be_read_is_one_line_naming_it(tmp_path, name, data, schema, says):
    path = os.path.join(tmp_path, name) if data is None else write(tmp_path, name, data)
    with pytest.raises(ReadError) as raised:
        read_json(path, schema)
    e = raised.value
    assert isinstance(e, ValueError)
    assert str(e) == f"{path}: {e.problem}" and e.path == path
    assert "\n" not in str(e) and says in e.problem, str(e)


def test_a_folder_and_an_unreadable_file(tmp_path):
    with pytest.raises(ReadError, match="is a directory, not a JSON file$"):
        read_json_value(tmp_path)
    with pytest.raises(ReadError, match="is a directory, not a safetensors file$"):
        read_header(tmp_path)
    path = write(tmp_path, "locked.json", "{}")
    os.chmod(path, 0)
    try:
        if os.access(path, os.R_OK):  # root reads it anyway
            pytest.skip("this user reads a file of mode 0")
        with pytest.raises(ReadError, match="permission denied$"):
            read_json(path, "geoattn.measure")
    finally:
        os.chmod(path, 0o600)


@pytest.mark.parametrize("schema,got,accepted", [
    ("geoattn.measure", "geoattn.measure/2", True),
    ("geoattn.measure", "geoattn.measure/17", True),
    ("geoattn.measure", "geoattn.measure", False),
    ("geoattn.bounds/1", "geoattn.bounds/1", True),
    ("geoattn.bounds/1", "geoattn.bounds/2", False),
    (MEASURE, "geoattn.measure/1", True),
    (MEASURE, "geoattn.measure/3", False),
])
def test_the_schema_rule(tmp_path, schema, got, accepted):
    path = write(tmp_path, "doc.json", json.dumps({"schema": got, "x": 1}))
    if accepted:
        assert read_json(path, schema) == {"schema": got, "x": 1}
    else:
        with pytest.raises(ReadError, match="expected"):
            read_json(path, schema)


def test_a_read_error_is_one_line_and_pickles():
    e = ReadError(b"/a/b.json", "two\nlines")
    assert str(e) == "/a/b.json: two lines" and (e.path, e.problem) == ("/a/b.json", "two lines")
    back = pickle.loads(pickle.dumps(e))
    assert type(back) is ReadError and str(back) == str(e)


def test_safetensors_header(tmp_path):
    path = os.path.join(tmp_path, "x.safetensors")
    write_file(path, {"format": "test"}, [("a", "F64", [2], bytes(16)), ("b", "U8", [3], b"abc")])
    header, start = read_header(path)
    assert header["__metadata__"] == {"format": "test"} and start % 8 == 0
    assert read_whole(path)[1] == bytes(16) + b"abc"
    for name, data, says in [("short.safetensors", b"\x01", "not a safetensors file (a header of 1 bytes)"),
                             ("huge.safetensors", (1 << 40).to_bytes(8, "little"), "not a safetensors file"),
                             ("text.safetensors", (3).to_bytes(8, "little") + b"abc", "its header is not JSON"),
                             ("list.safetensors", (2).to_bytes(8, "little") + b"[]", "its header is not a JSON object")]:
        bad = write(tmp_path, name, data)
        for reader in (read_header, read_whole):
            with pytest.raises(ReadError) as raised:
                reader(bad)
            assert str(raised.value).startswith(f"{bad}: ") and says in str(raised.value), str(raised.value)
    with pytest.raises(ReadError, match="no such file$"):
        read_whole(os.path.join(tmp_path, "nope.safetensors"))
