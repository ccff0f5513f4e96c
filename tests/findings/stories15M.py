"""The numbers docs/findings.md quotes of the committed stories15M run (docs/findings/stories15M/): every part
of common.py (less where the Mixers are the majority, which its reading does not quote)."""
import common


def facts(run):
    return common.facts(run, without=common.MIXER_MAJORITY)
