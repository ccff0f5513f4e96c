"""geoattn.explain's command, kept for `python3 -m geoattn.explain` and `from geoattn.explain import
...` (docs/explain.md): geoattn-explain now lives in geoattn.tools.explain (its library; its
command line in geoattn.tools.explain.cli). `geoattn.explain`, the package's function, is
geoattn.tools.explain.explain."""
import sys

from .tools.explain import *  # noqa: F401,F403
from .tools.explain.cli import PROG, main, parse_args, use_color  # noqa: F401

if __name__ == "__main__":
    sys.exit(main())
