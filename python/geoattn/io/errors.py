"""The one error of geoattn.io: a file that cannot be read as what it should be."""
from __future__ import annotations

import os


class ReadError(ValueError):
    """A file that cannot be read (missing, a folder, not UTF-8, not JSON, not the schema, not a
    safetensors file): a ValueError whose text is one line, "PATH: problem". `path` and `problem`
    are its two parts."""

    def __init__(self, path: str | os.PathLike, problem: str) -> None:
        self.path = os.fsdecode(path)
        self.problem = " ".join(problem.splitlines())
        super().__init__(f"{self.path}: {self.problem}")

    def __reduce__(self) -> tuple:
        return type(self), (self.path, self.problem)


def os_problem(e: OSError, what: str) -> str:
    """An OSError of opening or reading a file, in words: "no such file", "is a directory, not
    `what`", "permission denied", else the system's own."""
    if isinstance(e, FileNotFoundError):
        return "no such file"
    if isinstance(e, IsADirectoryError):
        return f"is a directory, not {what}"
    if isinstance(e, PermissionError):
        return "permission denied"
    return e.strerror or str(e)
