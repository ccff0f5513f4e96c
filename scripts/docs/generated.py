"""What the generated pages of docs/ share: GitHub's anchor of a heading, writing a page whole
(a temporary file renamed into place), and the check that a committed page is the generated one."""
import difflib
import os
import re
import tempfile

DIFF_LINES = 40  # enough of the diff to show what changed, short enough for a test log


def anchor(heading):
    """GitHub's anchor of a heading: lower case, punctuation but - and _ dropped, spaces to -."""
    return re.sub(r"[^\w\- ]", "", heading.lower()).replace(" ", "-")


def write_whole(path, text):
    """The page at path, written whole or not at all."""
    fd, tmp = tempfile.mkstemp(prefix=".", suffix=".tmp", dir=os.path.dirname(os.path.abspath(path)))
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
        os.replace(tmp, path)
    except BaseException:
        os.unlink(tmp)
        raise


def check(tool, expected, path, source, regenerate):
    """0 when the page at path is `expected`; else 1, after one line naming the page, what it was
    made from (`source`) and the command that regenerates it, and the start of the diff."""
    try:
        with open(path, encoding="utf-8") as f:
            actual = f.read()
    except FileNotFoundError:
        actual = None
    if actual == expected:
        print(f"{tool}: {path} matches {source}")
        return 0
    state = "is missing" if actual is None else f"differs from {source}"
    print(f"{tool}: {path} {state}; regenerate it: {regenerate}")
    if actual is not None:
        diff = list(difflib.unified_diff(actual.splitlines(), expected.splitlines(), path, "generated", lineterm=""))
        print("\n".join(diff[:DIFF_LINES]))
        if len(diff) > DIFF_LINES:
            print(f"... ({len(diff) - DIFF_LINES} more diff lines)")
    return 1
