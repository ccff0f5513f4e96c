#!/usr/bin/env python3
"""The documentation keeps the shape a newcomer can walk: the README a page of at most 250 lines
(a map: install, what geoattn measures, a first run, links), each page under docs/ at most 400
lines (one question each; SPEC.md and DESIGN.md, the contract and the suggested shape, are kept as
they are), and no count of tests quoted anywhere in them (a count is stale the day a test is
added; the suite itself says how many ran).

    check_docs_shape.py SOURCE_DIR
"""
import os
import re
import sys

README_MAX = 250
PAGE_MAX = 400
KEPT_AS_THEY_ARE = {"SPEC.md", "DESIGN.md"}
# "187 tests", "186 passed", "173 cases", "10 passed, 1 skipped": counts of the suite's tests.
TEST_COUNT = re.compile(r"\b\d[\d,]* (?:tests?|cases|passed|failed|skipped)\b")


def pages(src):
    yield "README.md", README_MAX
    yield "CHANGELOG.md", None
    docs = os.path.join(src, "docs")
    for root, _, files in os.walk(docs):
        for name in sorted(files):
            if name.endswith(".md") and not (root == docs and name in KEPT_AS_THEY_ARE):
                yield os.path.relpath(os.path.join(root, name), src), PAGE_MAX


def main(src):
    problems = []
    for rel, limit in pages(src):
        lines = open(os.path.join(src, rel), encoding="utf-8").read().splitlines()
        if limit is not None and len(lines) > limit:
            problems.append(f"{rel}: {len(lines)} lines, more than {limit}: move a section to a page of its own")
        for number, line in enumerate(lines, 1):
            for m in TEST_COUNT.finditer(line):
                problems.append(f"{rel}:{number}: quotes a count of tests ('{m.group(0)}'): say what they check instead")
    for p in problems:
        print(p)
    print(f"check_docs_shape: {len(problems)} problems")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(os.path.dirname(__file__)))))
