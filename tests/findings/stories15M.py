"""The claims docs/findings.md makes of the committed stories15M run (docs/findings/stories15M/): every part of
common.py, under its title."""
import common

TITLE = "stories15M"


def claims(run):
    return common.claims(run, TITLE)
