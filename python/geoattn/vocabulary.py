"""The names geoattn's results use, once for every reader: a taxonomy's label classes (SPEC §6)
in their order, the envelope leaves a result counts (SPEC §5: how many N leave each bound), and
the schema file of a result.
Standard library only.
"""
from __future__ import annotations

__all__ = ["CLASSES", "LEAVES", "MEASURE_SCHEMA_FILE", "classes_of"]

MEASURE_SCHEMA_FILE = "geoattn.measure-2.schema.json"  # the schema of a result as geoattn writes it

CLASSES = ("Retriever", "Mixer", "Reset", "Unlabelled")  # a taxonomy's, in its order
# The envelopes a mean can leave (SPEC §5): (column, curve, envelope key, above it?).
LEAVES = (("P>up", "P_rmax", "P_up", True), ("P<lo", "P_rmax", "P_lo", False),
          ("R>up", "R_rmin", "R_up", True), ("R<lo", "R_rmin", "R_lo", False),
          ("P>up0", "P_rmax", "P_up0", True), ("R>up0", "R_rmin", "R_up0", True))


def classes_of(tax: dict) -> list[str]:
    """The label classes of a taxonomy in order: those its totals count (four in a current
    taxonomy, three in an older one), then any other label of its heads."""
    found = [k for k in (tax.get("totals") or {}) if k != "heads"]
    found += [h["label"] for h in tax.get("heads", []) if h.get("label") not in found]
    order = [c for c in CLASSES if c in found]
    return order + sorted(set(found) - set(order))
