"""The package's PEP 517 build backend: scikit-build-core, with one addition. LibTorch is taken
from the torch of the environment the package is installed into, never from a second torch that
pip's isolated build environment would download: geoattn._native and the geoattn binary link the
very libtorch*.so that `import torch` loads beside them.

pip isolates a build with the target environment's own interpreter and two variables
(PYTHONPATH, PYTHONNOUSERSITE); without them that interpreter sees its torch. Other front ends
(python -m build, uv) build in a separate environment: there, GEOATTN_TORCH_PYTHON names the
Python whose torch to use, or else the build asks for a torch of its own, and geoattn._native
refuses to load beside a different one (geoattn/_loader.py)."""
import os
import subprocess
import sys

from scikit_build_core import build as _skbuild
from scikit_build_core.build import *  # noqa: F401,F403  (the hooks not overridden here)

_ISOLATION = ("PYTHONPATH", "PYTHONNOUSERSITE")


def _imports_torch(python, env):
    done = subprocess.run([python, "-c", "import torch"], env=env, capture_output=True, text=True)
    return done.returncode == 0, (done.stderr.strip().splitlines() or [""])[-1]


def _target_torch():
    """(python, environment) whose torch this build links, or None: nothing outside the build
    environment has torch."""
    given = os.environ.get("GEOATTN_TORCH_PYTHON")
    outside = {k: v for k, v in os.environ.items() if k not in _ISOLATION}
    if given:
        ok, why = _imports_torch(given, outside)
        if not ok:
            raise RuntimeError(f"GEOATTN_TORCH_PYTHON={given} cannot import torch ({why})")
        return given, outside
    ok, _ = _imports_torch(sys.executable, outside)
    return (sys.executable, outside) if ok else None


def get_requires_for_build_wheel(config_settings=None):
    requires = list(_skbuild.get_requires_for_build_wheel(config_settings))
    if _target_torch() is None:
        requires.append("torch")  # nothing to link against outside: the build environment's
    return requires


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    target = _target_torch()
    settings = dict(config_settings or {})
    if target is None:
        settings["cmake.define.GEOATTN_TORCH_PYTHON"] = sys.executable
    else:
        python, outside = target
        settings["cmake.define.GEOATTN_TORCH_PYTHON"] = python
        os.environ.clear()
        os.environ.update(outside)  # CMake's query of that torch runs outside the isolation
    return _skbuild.build_wheel(wheel_directory, settings, metadata_directory)
