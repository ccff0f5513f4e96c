"""The numbers docs/findings.md quotes of the committed gemma3 run (docs/findings/gemma3/): every part
of common.py (less where the Mixers are the majority, which its reading does not quote)."""
import common


def facts(run):
    return common.facts(run, without=common.MIXER_MAJORITY)
