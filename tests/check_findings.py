#!/usr/bin/env python3
"""docs/findings.md quotes only what its committed runs give.

Each reading of a committed run sits between `<!-- reading: NAME -->` and `<!-- /reading -->`;
its run's result files are in docs/findings/NAME/ (measure.json with its arrays file,
taxonomy.json), and tests/findings/NAME.py computes from them, with `facts(run)`, every number
the reading may quote, each as the text the page writes ({key: "0.67", ...}). The check, per
reading:
  - every fact's text appears in the reading (a fact the page dropped fails: rerun, rewrite);
  - every number the reading writes is one of its facts' texts (or a number in one: a fact
    "2, 3" allows 2 and 3), except references to the paper and the contract (Fig. 5, §5,
    sect. 4.2, Theorems 1-2, Assumption 1, eq. 9, Corollary 1).
  - every verdict word the reading writes in bold (**agrees**, **disagrees**, **cannot decide**,
    any case) is the value of one of its facts named verdict_*, as many times as such facts give
    it: a verdict follows from a rule over the files (tests/findings/common.py), never from
    the prose.
So a quote the data does not give, or that drifted from a rerun, fails ctest.

    tests/check_findings.py SOURCE_DIR
Standard library only (python/geoattn/results.py reads the runs).
"""
import importlib.util
import json
import os
import re
import sys

READING = re.compile(r"<!-- reading: ([A-Za-z0-9_]+) -->(.*?)<!-- /reading -->", re.S)
# A number as the page writes it: 0.67, 1,831, 12%, 2^-4 (its parts), -0.03.
NUMBER = re.compile(r"(?<![\w.^])-?\d[\d,]*(?:\.\d+)?%?(?![\w])")
# What precedes a number that names a part of the paper or the contract, not a measurement.
# A verdict word as a reading writes it: in bold.
VERDICT = re.compile(r"\*\*(agrees|disagrees|cannot decide)\*\*", re.I)
REFERENCE = re.compile(r"(Figs?\.|§|sect\.|Theorems?|Assumptions?|Corollary|eq\.|Table|[A-Za-z]+-)\s*(\d+-)?$")


def numbers(text):
    """The numbers of a reading's text, less references and what sits in code spans or links."""
    text = re.sub(r"`[^`]*`", " ", text)
    text = re.sub(r"\]\([^)]*\)", "]", text)
    text = re.sub(r"!\[[^\]]*\]", " ", text)
    out = []
    for m in NUMBER.finditer(text):
        if REFERENCE.search(text[max(0, m.start() - 12):m.start()]):
            continue
        out.append(m.group(0).rstrip(","))
    return out


def load_run(source, name):
    sys.path.insert(0, os.path.join(source, "python"))
    from geoattn.results import load_measure

    folder = os.path.join(source, "docs", "findings", name)
    run = {"measure": load_measure(os.path.join(folder, "measure.json"))}
    taxonomy = os.path.join(folder, "taxonomy.json")
    if os.path.exists(taxonomy):
        with open(taxonomy) as f:
            run["taxonomy"] = json.load(f)
    return run


def facts_of(source, name, run):
    path = os.path.join(source, "tests", "findings", f"{name}.py")
    spec = importlib.util.spec_from_file_location(f"findings_{name}", path)
    module = importlib.util.module_from_spec(spec)
    sys.path.insert(0, os.path.dirname(path))
    spec.loader.exec_module(module)
    return module.facts(run)


def main(argv):
    if len(argv) != 2 or argv[1] in ("-h", "--help"):
        print(__doc__)
        return 0 if len(argv) == 2 else 2
    source = argv[1]
    with open(os.path.join(source, "docs", "findings.md")) as f:
        page = f.read()
    readings = READING.findall(page)
    failed = 0
    if not readings:
        print("FAIL: docs/findings.md has no <!-- reading: NAME --> block")
        return 1
    for name, text in readings:
        run = load_run(source, name)
        facts = facts_of(source, name, run)
        allowed = set(facts.values()) | {n for value in facts.values() for n in numbers(value)}
        for key, value in facts.items():
            if not re.search(r"(?<![\w.])" + re.escape(value) + r"(?![\w])", re.sub(r"`[^`]*`", " ", text)):
                print(f"FAIL: {name}: the fact {key} = {value} is not in the reading")
                failed += 1
        for number in numbers(text):
            if number not in allowed:
                print(f"FAIL: {name}: the reading quotes {number}, which no fact of tests/findings/{name}.py gives")
                failed += 1
        given = [v for k, v in facts.items() if k.startswith("verdict_")]
        for word in VERDICT.findall(text):
            if word.lower() in given:
                given.remove(word.lower())
            else:
                print(f"FAIL: {name}: the reading says **{word}**, which no verdict_* fact of tests/findings/{name}.py gives")
                failed += 1
        print(f"{name}: {len(facts)} facts, {len(numbers(text))} numbers quoted")
    print(f"findings: {failed} quotes the runs do not give" if failed else "findings: every quote is the runs'")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
