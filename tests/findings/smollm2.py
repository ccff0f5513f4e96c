"""The numbers docs/findings.md quotes of the committed smollm2 run (docs/findings/smollm2/): every part
of common.py (its Mixer majority layers included)."""
import common


def facts(run):
    return common.facts(run, without=())
