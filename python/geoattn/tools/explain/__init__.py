"""geoattn-explain as a library (docs/explain.md): one head's top-N selection token by token. The
explanation of one sample as a dict (explanation: explain, what geoattn.explain is), the selection
in exact arithmetic where float64 cannot decide (sample, numpy), token text from a model folder's
tokenizer (text), the printed table (lib) and the figure (figure, matplotlib); the command line is
cli (parse_args, use_color, main). Importing it needs neither numpy nor matplotlib.

    from geoattn.tools.explain import explain, table
"""
from .explanation import SCHEMA, ExplainError, explain
from .lib import DECADES, LISTED, MARGIN, SHADES, WIDTH, context_block, shade, table
from .text import TokenizerError, Vocabulary, load_vocabulary, printable

__all__ = ["SCHEMA", "ExplainError", "explain", "table", "context_block", "shade", "LISTED", "WIDTH", "MARGIN",
           "SHADES", "DECADES", "TokenizerError", "Vocabulary", "load_vocabulary", "printable"]
