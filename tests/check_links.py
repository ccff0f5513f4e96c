#!/usr/bin/env python3
"""Every relative link and image of the Markdown a reader opens resolves to a file of the
repository: README.md, the pages under docs/ and the other *.md files git tracks (outside
fenced code). One line per broken link; exit 1 if any.

    tests/check_links.py SOURCE_DIR
"""
import os
import re
import subprocess
import sys

LINK = re.compile(r"!?\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")  # [text](target), ![alt](target)
IMG = re.compile(r"<img\s[^>]*src=\"([^\"]+)\"")
EXTERNAL = re.compile(r"^(?:[a-z][a-z0-9+.-]*:|#)")  # http:, mailto:, an anchor of the same page


def markdown_files(root):
    try:
        out = subprocess.run(["git", "-C", root, "ls-files", "*.md"], capture_output=True, text=True, check=True).stdout
        files = out.split()
    except (OSError, subprocess.CalledProcessError):  # not a checkout: every .md below root
        files = [os.path.relpath(os.path.join(d, f), root) for d, _, fs in os.walk(root) for f in fs if f.endswith(".md")]
    return sorted(f for f in files if not f.startswith(("vendor/", "third_party/")))


def broken_links(root, path):
    text = open(os.path.join(root, path), encoding="utf-8").read()
    text = re.sub(r"^```.*?^```", "", text, flags=re.S | re.M)  # fenced code is not a link
    for target in LINK.findall(text) + IMG.findall(text):
        if EXTERNAL.match(target):
            continue
        file = target.split("#", 1)[0]
        if not os.path.exists(os.path.normpath(os.path.join(root, os.path.dirname(path), file))):
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
