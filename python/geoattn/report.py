"""geoattn.report, kept for `python3 -m geoattn.report` and `from geoattn.report import ...`:
geoattn-report now lives in geoattn.tools.report (its library; its command line in
geoattn.tools.report.cli)."""
import sys

from .tools.report import *  # noqa: F401,F403
from .tools.report.cli import PROG, fail, main, parse_args, read_verdicts  # noqa: F401

if __name__ == "__main__":
    sys.exit(main())
