#!/usr/bin/env python3
"""Every relative link and image of the Markdown a reader opens resolves to a file of the
repository: README.md, the pages under docs/ and the other *.md files git tracks (outside
fenced code); a link to a heading (page.md#anchor, #anchor) to a heading of that page, by
GitHub's anchors (scripts/docs/generated.py). One line per broken link; exit 1 if any.

    tests/check_links.py SOURCE_DIR
"""
import os
import re
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "scripts", "docs"))
from generated import anchor  # noqa: E402  (GitHub's anchor of a heading, as the generated pages write it)
from repo_files import repo_files  # noqa: E402  (this folder's)

LINK = re.compile(r"!?\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")  # [text](target), ![alt](target)
IMG = re.compile(r"<img\s[^>]*src=\"([^\"]+)\"")
EXTERNAL = re.compile(r"^[a-z][a-z0-9+.-]*:")  # http:, mailto:


def markdown_files(root):
    return [f for f in repo_files(root) if f.endswith(".md") and not f.startswith(("vendor/", "third_party/"))]


def without_code(text):
    return re.sub(r"^```.*?^```", "", text, flags=re.S | re.M)  # fenced code is not a link


def anchors(file):
    """The anchors GitHub gives the headings of a Markdown file: anchor(), and -1, -2, ... after
    a repeated one."""
    seen, out = {}, set()
    for line in without_code(open(file, encoding="utf-8").read()).splitlines():
        m = re.match(r"^#{1,6}\s+(.*?)\s*#*\s*$", line)
        if m:
            slug = anchor(m.group(1))
            out.add(slug + (f"-{seen[slug]}" if seen.get(slug) else ""))
            seen[slug] = seen.get(slug, 0) + 1
    return out


def broken_links(root, path):
    text = without_code(open(os.path.join(root, path), encoding="utf-8").read())
    for target in LINK.findall(text) + IMG.findall(text):
        if EXTERNAL.match(target):
            continue
        file, _, fragment = target.partition("#")
        resolved = os.path.normpath(os.path.join(root, os.path.dirname(path), file)) if file else os.path.join(root, path)
        if not os.path.exists(resolved):
            yield target
        elif fragment and resolved.endswith(".md") and fragment not in anchors(resolved):
            yield target


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else "."
    files = markdown_files(root)
    bad = [(f, t) for f in files for t in broken_links(root, f)]
    for f, t in bad:
        print(f"check_links: {f}: '{t}' does not resolve")
    print(f"check_links: {len(files)} Markdown files, {len(bad)} broken links")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
