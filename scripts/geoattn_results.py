"""geoattn's result readers: geoattn.results (python/geoattn/results.py), re-exported here.

    from geoattn_results import load_measure, read_arrays, load_sinks
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python"))
from geoattn.results import *  # noqa: E402,F401,F403
from geoattn.results import _entry, _tensors  # noqa: E402,F401
