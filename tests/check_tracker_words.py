#!/usr/bin/env python3
"""No file of the repository cites the project's tracker: a reader has only the repository, so
a comment, docstring, string or test datum says what the code does and why, never "issue N",
"stop #N" or the tracker's word for a work period (see WORDS below). One line `path:line: text`
per hit; exit 1 if any.

    tests/check_tracker_words.py SOURCE_DIR

The files are those git tracks under SOURCE_DIR (or, outside a git work tree, every file below it
but .git and build folders), less vendor/ and data/ (third-party code and data), docs/SPEC.md and
docs/DESIGN.md (copies of the project's contract, kept as they are), binary files and files over
2 MB. pytest's fixture scope of the same name (the exact text in ALLOWED) is its API, not a
citation.
"""
import os
import re
import sys

from repo_files import repo_files

# The period word is spelled in two pieces so that this file does not match itself.
PERIOD = "sess" + "ion"
WORDS = re.compile(r"\b(?:issue|stop)s?\s*#?\d+|\b" + PERIOD + r"s?\b", re.I)
ALLOWED = ('scope="' + PERIOD + '"',)
SKIPPED_DIRS = ("vendor/", "data/")
SKIPPED_FILES = ("docs/SPEC.md", "docs/DESIGN.md")
MAX_BYTES = 2 * 1024 * 1024


def files_to_check(root):
    return [f for f in repo_files(root) if not f.startswith(SKIPPED_DIRS) and f not in SKIPPED_FILES]


def read_text(path):
    """The file's text, or None for a link, a missing, large or binary file."""
    if os.path.islink(path) or not os.path.isfile(path) or os.path.getsize(path) > MAX_BYTES:
        return None
    with open(path, "rb") as f:
        data = f.read()
    if b"\0" in data[:8192]:
        return None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return None


def hits(text):
    for n, line in enumerate(text.splitlines(), 1):
        checked = line
        for allowed in ALLOWED:
            checked = checked.replace(allowed, "")
        if WORDS.search(checked):
            yield n, line.strip()


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else "."
    checked = 0
    bad = []
    for f in files_to_check(root):
        text = read_text(os.path.join(root, f))
        if text is None:
            continue
        checked += 1
        bad += [(f, n, line) for n, line in hits(text)]
    for f, n, line in bad:
        print(f"{f}:{n}: {line[:200]}")
    print(f"check_tracker_words: {checked} files, {len(bad)} lines citing the tracker")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
