"""The numbers docs/findings.md quotes of the committed stories15M run (docs/findings/stories15M/)."""
import common


def facts(run):
    out = {}
    for part in (common.setup, common.top_n_vs_random, common.envelopes, common.taxonomy, common.fits, common.sink_corr):
        out.update(part(run))
    # Where the Mixers are the majority: quoted for SmolLM2, where they are.
    for key in ("mixer_majority_layers", "mixer_majority_from"):
        del out[key]
    return out
