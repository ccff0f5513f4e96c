"""Checks JSON documents against geoattn's JSON Schemas (docs/schema): geoattn.schema
(python/geoattn/schema.py), re-exported here.

    scripts/geoattn_schema.py SCHEMA.json DOC.json   # "ok", or the problem and exit code 1
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python"))
from geoattn.schema import *  # noqa: E402,F401,F403
from geoattn.schema import _Checker, main  # noqa: E402,F401

if __name__ == "__main__":
    main()
