"""The `geoattn` command of the pip-installed package: the C++ binary that the wheel carries in
geoattn/bin (linked against this environment's torch), run in place of this process."""
import os
import sys
import sysconfig


def binary() -> str:
    """Path of the geoattn executable installed with the package."""
    return os.path.join(os.path.dirname(os.path.abspath(__file__)), "bin", "geoattn")


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
