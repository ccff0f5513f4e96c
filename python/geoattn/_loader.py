"""The compiled module geoattn._native, loaded on first use: after torch, whose LibTorch it was
built against (one LibTorch in the process), from the installed package or, in a build tree,
from the file GEOATTN_NATIVE names (ctest sets it; GEOATTN_CORE, its old name, too)."""
import importlib.util
import os
import sys

_module = None


def native():
    """The module geoattn._native; ImportError saying how to build it when it is missing."""
    global _module
    if _module is None:
        import torch  # noqa: F401  (loads the LibTorch _native links against)

        path = os.environ.get("GEOATTN_NATIVE") or os.environ.get("GEOATTN_CORE")
        if path:
            spec = importlib.util.spec_from_file_location("geoattn._native", path)
            if spec is None or not os.path.isfile(path):
                raise ImportError(f"GEOATTN_NATIVE={path}: no such module file")
            module = importlib.util.module_from_spec(spec)
            spec.loader.exec_module(module)
            sys.modules["geoattn._native"] = module
            _module = module
        else:
            try:
                from . import _build_info
            except ImportError as e:
                raise ImportError(
                    "geoattn's compiled module is not built: pip install ./python "
                    f"(in the environment whose torch it must use), or set GEOATTN_NATIVE ({e})") from e
            if _build_info.TORCH_VERSION != torch.__version__:
                raise ImportError(
                    f"geoattn was built against torch {_build_info.TORCH_VERSION}, and this environment has torch "
                    f"{torch.__version__}: reinstall geoattn here (pip install --force-reinstall ./python)")
            from . import _native as module
            _module = module
    return _module
