"""The verdicts of a measure run's curves against its predicted envelopes (SPEC §5: above, below,
within, cannot decide, from intervals with the multiplicity controlled) as a library (lib); the
command line is cli (`python3 -m geoattn.verdicts`). numpy only.

    from geoattn.tools.verdicts import envelope_verdicts   # or geoattn.verdicts, as before
    v = envelope_verdicts("out/m.json")
"""
from .lib import CURVES, FEW_UNITS, WORDS, envelope_verdicts, head_band

__all__ = ["WORDS", "CURVES", "FEW_UNITS", "head_band", "envelope_verdicts"]
