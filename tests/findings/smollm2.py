"""The claims docs/findings.md makes of the committed smollm2 run (docs/findings/smollm2/): every part of
common.py, under its title."""
import common

TITLE = "SmolLM2-135M"


def claims(run):
    return common.claims(run, TITLE)
