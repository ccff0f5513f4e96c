"""The numbers docs/findings.md quotes of the committed smollm2 run (docs/findings/smollm2/)."""
import common


def facts(run):
    out = {}
    for part in (common.setup, common.top_n_vs_random, common.envelopes, common.taxonomy, common.fits, common.sink_corr):
        out.update(part(run))
    return out
