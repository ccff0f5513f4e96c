"""The claims docs/findings.md makes of the committed gemma3 run (docs/findings/gemma3/): every part of
common.py, under its title."""
import common

TITLE = "Gemma-3-270M"


def claims(run):
    return common.claims(run, TITLE)
