"""geoattn.compare, kept for `python3 -m geoattn.compare` and `from geoattn.compare import ...`:
geoattn-compare now lives in geoattn.tools.compare (its library; its command line in
geoattn.tools.compare.cli, docs/compare.md)."""
import sys

from .tools.compare import *  # noqa: F401,F403
from .tools.compare.cli import PROG, compare, main, parse_args  # noqa: F401

if __name__ == "__main__":
    sys.exit(main())
