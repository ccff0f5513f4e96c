"""The numbers docs/findings.md quotes of the committed gemma3 run (docs/findings/gemma3/)."""
import common


def facts(run):
    out = {}
    for part in (common.setup, common.top_n_vs_random, common.envelopes, common.taxonomy, common.fits, common.sink_corr):
        out.update(part(run))
    # Where the Mixers are the majority: quoted for SmolLM2, where they are.
    for key in ("mixer_majority_layers", "mixer_majority_from"):
        del out[key]
    return out
