"""geoattn.summary, kept for `python3 -m geoattn.summary`, scripts/summary.py and `from
geoattn.summary import ...`: geoattn-summary now lives in geoattn.tools.summary (its library; its
command line in geoattn.tools.summary.cli)."""
import sys

from .tools.summary import *  # noqa: F401,F403
from .tools.summary.cli import USAGE, main, parser  # noqa: F401

if __name__ == "__main__":
    sys.exit(main())
