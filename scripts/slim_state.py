#!/usr/bin/env python3
"""Writes the slim sums file of a measure run's state sidecar: its per-document sums alone,
summed to layers (geoattn.unit_sums.write_slim), a tenth of the state's size. Beside a copy of the
result JSON and its arrays file, under the state's name, it lets geoattn compare run against a
result shipped to others (docs/findings/*/ are shipped so); merge and resume refuse it by name.

    scripts/slim_state.py out/m.state.safetensors shipped/m.state.safetensors
"""
import argparse
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python"))
from geoattn.staged import output_clash  # noqa: E402
from geoattn.unit_sums import StateError, write_slim  # noqa: E402


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("state", help="the run's state sidecar (X.state.safetensors)")
    ap.add_argument("out", help="the slim file to write (whole or not at all)")
    args = ap.parse_args(argv)
    if why := output_clash([("out", args.out)], [args.state]):
        print(f"slim_state: error: {why}", file=sys.stderr)
        return 2
    try:
        write_slim(args.state, args.out)
    except (OSError, StateError, ValueError) as e:
        print(f"slim_state: error: {e}", file=sys.stderr)
        return 2
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
