"""geoattn.tables, kept for `from geoattn.tables import ...` (docs/tables.md): the per-head tables
now live in geoattn.tools.tables (their library; the flags geoattn-summary takes for them in
geoattn.tools.tables.cli)."""
from .tools.tables import *  # noqa: F401,F403
