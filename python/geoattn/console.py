"""What every console script of the package does alike: stop quietly when the reader of its
stdout stops first (`geoattn-summary ... | head`), as cat does, instead of a BrokenPipeError
traceback."""
from __future__ import annotations

import functools
import os
import sys
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
