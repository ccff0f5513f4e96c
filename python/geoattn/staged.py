"""Result files written whole or not at all (the commands' --out, --json, --figure): each staged in
a temporary file beside its path, readable as the process's umask makes files, moved into place
together by commit(), removed by discard() when the command fails.

    with Staged(".prefix.") as staged:     # an exception in the block discards every file
        write(staged.path(out, ".json"))
    written = staged.commit()
"""
from __future__ import annotations

import os
import tempfile


def output_problem(path: str) -> str | None:
    """Why `path` cannot take a command's output, or None: a folder is there, or no folder to hold
    it. The commands check each output this way before any work, and name the flag."""
    full = os.path.abspath(path)
    if os.path.isdir(full):
        return "is a folder, not a file"
    if not os.path.isdir(os.path.dirname(full)):
        return "its folder does not exist"
    return None


def result_files(path: str | None) -> list[str]:
    """A result JSON and its companions, the files a reader of it reads: X.json,
    X.state.safetensors, X.curves.safetensors (none for None)."""
    if not path:
        return []
    base = path[:-5] if path.endswith(".json") else path
    return [path, base + ".state.safetensors", base + ".curves.safetensors"]


def output_clash(outputs, inputs) -> str | None:
    """Why the outputs [(flag, path or None)] cannot be written, or None: one of them is a file the
    command reads (`inputs`, paths or None; compared by their real paths, a link or another spelling
    included), or two of them are one path (one would replace the other). The same promise as the
    C++ programs' (util/input_files.h), checked before any work, naming the flag and the file."""
    read = {os.path.realpath(p) for p in inputs if p}
    if log := os.environ.get("GEOATTN_TEST_INPUTS_LOG"):  # the tests' matrix of inputs, as the C++ programs write it
        with open(log, "a", encoding="utf-8") as f:
            f.writelines(os.path.abspath(p) + "\n" for p in inputs if p)
    seen: dict[str, str] = {}
    for flag, path in outputs:
        if not path:
            continue
        real = os.path.realpath(path)
        if real in read:
            return f"{flag} {path}: a file this command reads (its output would replace it)"
        if real in seen:
            return f"{flag} {path}: also the path of {seen[real]} (one output would replace the other)"
        seen[real] = flag
    return None


class Staged:
    """The temporary files of one command's outputs, and the paths they become."""

    def __init__(self, prefix: str) -> None:
        self.prefix = prefix
        self.files: list[tuple[str, str]] = []  # (temporary file, final path)

    def path(self, final: str, suffix: str) -> str:
        """An empty temporary file in final's folder, to be written now and moved to final by commit()."""
        fd, tmp = tempfile.mkstemp(prefix=self.prefix, suffix=suffix, dir=os.path.dirname(os.path.abspath(final)))
        os.close(fd)
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(tmp, 0o666 & ~umask)
        self.files.append((tmp, final))
        return tmp

    def __enter__(self) -> "Staged":
        return self

    def __exit__(self, exc_type, exc, tb) -> None:
        if exc_type is not None:
            self.discard()

    def discard(self) -> None:
        """Every temporary file removed: nothing of the command's outputs is left."""
        for tmp, _ in self.files:
            if os.path.exists(tmp):
                os.remove(tmp)

    def commit(self) -> list:
        """Every temporary file moved into place; the final paths, in the order staged."""
        for tmp, final in self.files:
            os.replace(tmp, final)
        return [final for _, final in self.files]
