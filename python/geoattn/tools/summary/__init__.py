"""geoattn-summary as a library: the per-layer summary of a geoattn run as the command prints it,
and its pieces (lib); the command line is cli (parser, main), whose table flags print the
per-head table of geoattn.tools.tables instead (docs/tables.md).

    from geoattn.tools.summary import per_layer
    per_layer("out/measure.json", "out/taxonomy.json")
"""
from .lib import (SMALL_N, count, fail, fmt, leaving, load, outside, per_layer, print_labels, share,
                  theory_lines)

__all__ = ["SMALL_N", "fail", "load", "outside", "leaving", "fmt", "share", "count", "print_labels", "per_layer",
           "theory_lines"]
