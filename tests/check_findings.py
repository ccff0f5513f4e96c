#!/usr/bin/env python3
"""docs/findings.md says what its committed runs give, claim by claim.

Each reading of a committed run sits between `<!-- reading: NAME -->` and `<!-- /reading -->`;
its run's files are in docs/findings/NAME/ (measure.json with its arrays file, taxonomy.json,
verdicts.json: geoattn.verdicts' record of the same result). tests/findings/NAME.py computes
from them the reading's claims (`claims(run)`, records of tests/findings/common.py: the
statement, its numbers, and where it judges the paper the verdict word its rule derives), and
the check, per reading:
  - renders the records (common.render) and fails where the page's text differs: every
    sentence, number and verdict word of a reading is a record's;
  - fails where docs/findings/NAME/claims.json (the records, for a reader with the files in hand)
    differs from them;
  - re-derives every (head, N) word of verdicts.json from its numbers and the result's predicted
    envelopes (common.cell_words).
The `across` block is rendered from every run (common.across). Outside the blocks the page
writes no verdict word in bold. --write rewrites the blocks and the claims files from the runs.

    tests/check_findings.py SOURCE_DIR [--write]
Standard library only (python/geoattn/results.py reads the runs).
"""
import importlib.util
import json
import os
import re
import sys

READING = re.compile(r"(<!-- reading: ([A-Za-z0-9_]+) -->)(.*?)(<!-- /reading -->)", re.S)
VERDICT = re.compile(r"\*\*(agrees|disagrees|cannot decide)\*\*", re.I)
ACROSS = "across"


def load_module(source, name):
    path = os.path.join(source, "tests", "findings", f"{name}.py")
    sys.path.insert(0, os.path.dirname(path))
    spec = importlib.util.spec_from_file_location(f"findings_{name}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def load_run(source, name):
    sys.path.insert(0, os.path.join(source, "python"))
    from geoattn.results import load_measure

    folder = os.path.join(source, "docs", "findings", name)
    run = {"name": name, "measure": load_measure(os.path.join(folder, "measure.json"))}
    for key in ("taxonomy", "verdicts"):
        with open(os.path.join(folder, f"{key}.json")) as f:
            run[key] = json.load(f)
    return run


def main(argv):
    args = [a for a in argv[1:] if a != "--write"]
    write = "--write" in argv[1:]
    if len(args) != 1 or args[0] in ("-h", "--help"):
        print(__doc__)
        return 0 if args and args[0] in ("-h", "--help") else 2
    source = args[0]
    page_path = os.path.join(source, "docs", "findings.md")
    with open(page_path) as f:
        page = f.read()
    blocks = READING.findall(page)
    if not blocks:
        print("FAIL: docs/findings.md has no <!-- reading: NAME --> block")
        return 1
    common = load_module(source, "common")
    runs, rendered, records = [], {}, {}
    for _, name, _, _ in blocks:
        if name == ACROSS:
            continue
        run = load_run(source, name)
        runs.append((name, run))
        try:
            records[name] = load_module(source, name).claims(run)
        except AssertionError as e:
            print(f"FAIL: {name}: verdicts.json's words do not follow from its numbers ({e})")
            return 1
        rendered[name] = common.render(records[name])
    across = common.across(runs)
    rendered[ACROSS] = "\n" + common.textwrap.fill(across["statement"], 100, break_on_hyphens=False) + "\n"
    records[ACROSS] = [across]
    failed = 0
    if write:
        page = READING.sub(lambda m: m.group(1) + rendered[m.group(2)] + m.group(4), page)
        with open(page_path, "w") as f:
            f.write(page)
        for name, _ in runs:
            with open(os.path.join(source, "docs", "findings", name, "claims.json"), "w") as f:
                json.dump(records[name], f, indent=1)
                f.write("\n")
        print(f"findings: wrote {len(blocks)} readings and {len(runs)} claims files")
        return 0
    for _, name, text, _ in blocks:
        if text != rendered[name]:
            print(f"FAIL: {name}: the reading is not what its claims render (tests/check_findings.py {source} --write "
                  f"rewrites it from the runs); it says\n{text}\nthe claims render\n{rendered[name]}")
            failed += 1
        if name != ACROSS:
            path = os.path.join(source, "docs", "findings", name, "claims.json")
            with open(path) as f:
                if json.load(f) != records[name]:
                    print(f"FAIL: {name}: {path} differs from the claims its run gives")
                    failed += 1
            print(f"{name}: {len(records[name])} claims, "
                  f"{sum(r['verdict'] is not None for r in records[name])} verdicts derived")
    outside = VERDICT.findall(READING.sub("", page))
    if outside:
        print(f"FAIL: docs/findings.md says {', '.join(outside)} in bold outside the readings (no rule derives it)")
        failed += 1
    print(f"findings: {failed} readings differ from their runs" if failed else "findings: every reading is its runs' claims")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
