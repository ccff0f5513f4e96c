"""geoattn-compare as a library (docs/compare.md): two measure runs compared, B - A per N with
bootstrap bands over documents, marked family-wise (lib), the settings two runs must share
(settings) and the figure (figure, matplotlib); the command line is cli (parse_args, compare,
main).

    from geoattn.tools.compare import comparison, table, marked
    from geoattn.tools.compare.cli import compare      # compare(argv), as geoattn.compare has it
"""
from .lib import (CURVES, FAMILY_WISE, SCALARS, SCHEMA, CompareError, comparison, groups_to_compare, label_counts,
                  label_lines, load_run, load_taxonomy, marked, parse_grid, rule_difference, table)
from .settings import MAY_DIFFER, MUST_MATCH, allowed_differences, refusal, setting

__all__ = ["CURVES", "FAMILY_WISE", "SCALARS", "SCHEMA", "CompareError", "comparison", "marked", "parse_grid",
           "table", "label_counts", "label_lines", "rule_difference", "load_run", "load_taxonomy",
           "groups_to_compare", "MUST_MATCH", "MAY_DIFFER", "setting", "refusal", "allowed_differences"]
