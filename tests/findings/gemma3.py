"""The numbers docs/findings.md quotes of the committed gemma3 run (docs/findings/gemma3/): every part
of common.py."""
import common


def facts(run):
    return common.facts(run, without=())
