"""The header of a safetensors file, standard library only: the one reader and writer of its
layout that geoattn.results, geoattn.unit_sums and geoattn.capture_io share (8 bytes of
little-endian length, that many bytes of JSON, then the tensors' bytes at their data offsets).
A file that is not one is a ReadError naming it."""
from __future__ import annotations

import json
import os
import tempfile
from typing import IO, Sequence

from .errors import ReadError, os_problem

# A header past this size is not one geoattn writes (its captures' and sidecars' are kilobytes).
MAX_HEADER = 1 << 24


def _header(f: IO[bytes], path: str | os.PathLike) -> tuple[dict, int]:
    """(header, data_start) read from the open file f, at its start (read_header's)."""
    head = f.read(8)
    n = int.from_bytes(head, "little")
    if len(head) < 8 or not 0 < n < MAX_HEADER:
        raise ReadError(path, f"not a safetensors file (a header of {n} bytes)")
    try:
        header = json.loads(f.read(n))
    except (ValueError, RecursionError) as e:  # not UTF-8, not JSON (a ValueError each), too deep
        why = "nested too deeply" if isinstance(e, RecursionError) else e
        raise ReadError(path, f"not a safetensors file (its header is not JSON: {why})") from None
    if not isinstance(header, dict):
        raise ReadError(path, "not a safetensors file (its header is not a JSON object)")
    return header, 8 + n


def read_header(path: str | os.PathLike) -> tuple[dict, int]:
    """(header, data_start): the JSON header of the safetensors file at path, and the file
    offset its data offsets count from; a ReadError (a ValueError) naming the file when it
    cannot be read or does not start with a header."""
    try:
        with open(path, "rb") as f:
            return _header(f, path)
    except OSError as e:
        raise ReadError(path, os_problem(e, "a safetensors file")) from None


def read_whole(path: str | os.PathLike) -> tuple[dict, bytes]:
    """(header, data): read_header's header and the tensors' bytes after it, the file read once;
    the tensors' data offsets index data (a ReadError as read_header's)."""
    try:
        with open(path, "rb") as f:
            header, _ = _header(f, path)
            return header, f.read()
    except OSError as e:
        raise ReadError(path, os_problem(e, "a safetensors file")) from None


def tensors(header: dict) -> list[tuple[str, str, list, int, int]]:
    """(name, dtype, shape, begin, end) of each tensor of a header, in its order; begin and end
    count from the data start."""
    return [(name, t["dtype"], t["shape"], *t["data_offsets"]) for name, t in header.items() if name != "__metadata__"]


def write_file(path: str | os.PathLike, metadata: dict, blobs: Sequence[tuple[str, str, Sequence[int], bytes]]) -> None:
    """Writes a safetensors file of `blobs` ((name, dtype, shape, bytes) each, in order) with the
    __metadata__ `metadata` (its values as text): whole or not at all (a temporary file in the
    path's folder, then renamed)."""
    path = os.fspath(path)
    header: dict[str, dict] = {"__metadata__": {k: str(v) for k, v in metadata.items()}}
    offset = 0
    for name, dtype, shape, blob in blobs:
        header[name] = {"dtype": dtype, "shape": list(shape), "data_offsets": [offset, offset + len(blob)]}
        offset += len(blob)
    text = json.dumps(header, separators=(",", ":")).encode()
    text += b" " * (-len(text) % 8)
    fd, tmp = tempfile.mkstemp(prefix=".geoattn.", suffix=".safetensors", dir=os.path.dirname(os.path.abspath(path)))
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(len(text).to_bytes(8, "little") + text)
            for _, _, _, data in blobs:
                f.write(data)
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.remove(tmp)
        raise
