"""The compiled module geoattn._core, loaded on first use: after torch, whose LibTorch it was
built against (one LibTorch in the process), from the installed package or, in a build tree,
from the file GEOATTN_CORE names (ctest sets it)."""
import importlib.util
import os
import sys

_core = None


def core():
    """The module geoattn._core; ImportError saying how to build it when it is missing."""
    global _core
    if _core is None:
        import torch  # noqa: F401  (loads the LibTorch _core links against)

        path = os.environ.get("GEOATTN_CORE")
        if path:
            spec = importlib.util.spec_from_file_location("geoattn._core", path)
            if spec is None or not os.path.isfile(path):
                raise ImportError(f"GEOATTN_CORE={path}: no such module file")
            module = importlib.util.module_from_spec(spec)
            spec.loader.exec_module(module)
            sys.modules["geoattn._core"] = module
            _core = module
        else:
            try:
                from . import _build_info
            except ImportError as e:
                raise ImportError(
                    "geoattn's compiled module is not built: pip install ./python "
                    f"(in the environment whose torch it must use), or set GEOATTN_CORE ({e})") from e
            if _build_info.TORCH_VERSION != torch.__version__:
                raise ImportError(
                    f"geoattn was built against torch {_build_info.TORCH_VERSION}, and this environment has torch "
                    f"{torch.__version__}: reinstall geoattn here (pip install --force-reinstall ./python)")
            from . import _core as module
            _core = module
    return _core
