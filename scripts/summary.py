#!/usr/bin/env python3
"""Prints the per-layer summary of a geoattn run: geoattn.summary (python/geoattn/tools/summary/).

    scripts/summary.py out/measure.json [out/taxonomy.json]
    scripts/summary.py --help
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python"))
from geoattn.summary import main  # noqa: E402

if __name__ == "__main__":
    sys.exit(main())
