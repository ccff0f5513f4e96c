"""geoattn from Python: the exact metric core, sinks statistics, fits and taxonomy of the
geoattn CLI (the same C++, built against the PyTorch installed here), captures of any decoder
transformers runs, and the result files and figures.

    import geoattn
    alpha, values = geoattn.hf.capture(model, input_ids)      # [W, L, H, Q, T], [W, L, KV, T, d]
    result = geoattn.metrics(alpha, values, n="all")
    result.heads["P_rmax"]                                    # numpy [L, H, N]
    geoattn.taxonomy(result)["totals"]
    geoattn.intervene("models/stories15M", "shard.jsonl", heads="4.5", intervention="sink-recent:16")

The result readers (geoattn.results), the schema checker (geoattn.schema) and the figures
(geoattn.figures) import without the compiled module, so they run on any Python with numpy and
matplotlib; the metric functions need it (pip install ./python).
"""
from .api import Measure, Sinks, fits, load, metrics, read_capture, sinks, taxonomy  # noqa: F401  (torch on first call)
from . import hf  # noqa: F401,E402  (transformers and torch on first call)
from .tools.explain.explanation import explain  # noqa: F401,E402  (numpy on first call; the command: python -m geoattn.explain)
from .intervention import Intervened, intervene  # noqa: F401,E402  (runs the geoattn binary)

__all__ = ["metrics", "sinks", "taxonomy", "fits", "load", "read_capture", "explain", "intervene", "Measure", "Sinks",
           "Intervened", "hf"]
