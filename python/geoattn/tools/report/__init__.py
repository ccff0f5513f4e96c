"""geoattn-report as a library: one self-contained HTML page per run, its sections (lib) and the
HTML pieces they are drawn with (html); the command line is cli (parse_args, main). Importing it
needs neither numpy nor matplotlib (the figures import them when drawn).

    from geoattn.tools.report import build_page, write_whole
"""
from .lib import (RUN_PARTS, SUMMARY_NOTE, answer_section, build_page, draw, envelope_verdicts, figure_captions,
                  run_section, sinks_section, taxonomy_section, theory_section, verdicts_of, write_whole)

__all__ = ["SUMMARY_NOTE", "RUN_PARTS", "figure_captions", "draw", "run_section", "verdicts_of", "answer_section",
           "theory_section", "envelope_verdicts", "taxonomy_section", "sinks_section", "build_page", "write_whole"]
