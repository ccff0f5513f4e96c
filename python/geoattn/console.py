"""What every console script of the package does alike: stop quietly when the reader of its
stdout stops first (`geoattn-summary ... | head`), as cat does, instead of a BrokenPipeError
traceback."""
from __future__ import annotations

import functools
import os
import sys
from types import ModuleType
from typing import Callable

SIGPIPE_EXIT = 141  # 128 + SIGPIPE: the shell's code for a writer whose reader went away


def stops_quietly(main: Callable[..., int]) -> Callable[..., int]:
    """main, returning SIGPIPE_EXIT with nothing on stderr when its stdout's reader has gone."""
    @functools.wraps(main)
    def run(*args, **kwargs) -> int:
        try:
            code = main(*args, **kwargs)
            sys.stdout.flush()
            return code
        except BrokenPipeError:
            # stdout pointed at /dev/null: the interpreter's flush at exit would raise again
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
            return SIGPIPE_EXIT
    return run


def missing_module(prog: str, error: ModuleNotFoundError) -> str:
    """The one line a console script run as `python3 -m geoattn.X` stops with where this
    interpreter lacks a module it needs (numpy on a pyenv python3 first on PATH), in place of the
    import's traceback."""
    return (f"{prog}: error: {error.name} is missing in {sys.executable}: install it there "
            f"(pip install {error.name}) or run an interpreter that has it (Debian: /usr/bin/python3)")


def numpy_for(route: str) -> ModuleType:
    """numpy, for a module that needs it at import. Where the process runs `python3 -m ROUTE`
    (`route`: the module a user runs, e.g. geoattn.compare, whose code may live in another module
    that it imports) on an interpreter without numpy, the process stops with missing_module's one
    line and exit code 2 instead of the import's traceback; imported any other way (a library, a
    command that reports a missing numpy itself), the ModuleNotFoundError is raised."""
    try:
        import numpy
    except ModuleNotFoundError as missing:
        spec = getattr(sys.modules.get("__main__"), "__spec__", None)
        if getattr(spec, "name", None) != route:
            raise
        print(missing_module(route, missing), file=sys.stderr)
        sys.exit(2)
    return numpy
