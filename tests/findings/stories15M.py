"""The numbers docs/findings.md quotes of the committed stories15M run (docs/findings/stories15M/): every part
of common.py."""
import common


def facts(run):
    return common.facts(run, without=())
