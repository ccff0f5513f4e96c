"""geoattn.verdicts, kept for `python3 -m geoattn.verdicts` and `from geoattn.verdicts import ...`:
the verdicts against the predicted envelopes now live in geoattn.tools.verdicts (their library;
their command line in geoattn.tools.verdicts.cli)."""
import sys

from .tools.verdicts import *  # noqa: F401,F403
from .tools.verdicts.cli import main, parse_args  # noqa: F401

if __name__ == "__main__":
    sys.exit(main())
