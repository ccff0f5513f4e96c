"""The `geoattn` command of the pip-installed package: the C++ binary that the wheel carries in
geoattn/bin (linked against this environment's torch), run in place of this process."""
from __future__ import annotations

import os
import shutil
import sys
import sysconfig


def binary() -> str:
    """Path of the geoattn executable installed with the package."""
    return os.path.join(os.path.dirname(os.path.abspath(__file__)), "bin", "geoattn")


def find_binary(given: str | None = None) -> str | None:
    """The geoattn executable a Python function runs: `given`, else $GEOATTN_BIN (a build's, as the
    tests set it), the package's (geoattn/bin), this checkout's build (build/bin), or PATH's; None
    where there is none. `given` must be an executable (ValueError otherwise)."""
    if given:
        if not os.access(given, os.X_OK):
            raise ValueError(f"geoattn: {given}: not an executable")
        return given
    package = os.path.dirname(os.path.realpath(__file__))
    for path in (os.environ.get("GEOATTN_BIN", ""), binary(),
                 os.path.join(os.path.dirname(os.path.dirname(package)), "build", "bin", "geoattn")):
        if path and os.access(path, os.X_OK):
            return path
    return shutil.which("geoattn")


def main() -> None:
    """Runs the installed geoattn executable with this command's arguments (exits when there is
    none). The environment's scripts folder goes first on its PATH: `geoattn report ...` runs this
    package's geoattn-report, from a venv that is not activated too."""
    path = binary()
    if not os.access(path, os.X_OK):
        sys.exit(f"geoattn: {path}: no geoattn executable in the package (reinstall it: pip install ./python)")
    scripts = sysconfig.get_path("scripts")
    if scripts:
        os.environ["PATH"] = scripts + os.pathsep + os.environ.get("PATH", "")
    os.execv(path, [path, *sys.argv[1:]])


if __name__ == "__main__":
    main()
