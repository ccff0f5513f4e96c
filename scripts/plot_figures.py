#!/usr/bin/env python3
"""Draws the paper's figures from geoattn JSON files: the command line of geoattn.figures
(python/geoattn/figures/; `scripts/plot_figures.py --help`). Its names are re-exported here."""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python"))
from geoattn.figures import *  # noqa: E402,F401,F403
from geoattn.figures import main  # noqa: E402
from geoattn.figures.common import np  # noqa: E402,F401  (numpy once import_plotting has run)

if __name__ == "__main__":
    sys.exit(main())
