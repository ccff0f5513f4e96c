"""The checks of the Python API's arguments, before any work: each failure is a ValueError whose
message, one line, starts with the argument's name. The C++ core checks again (geoattn::Error,
also a ValueError); these exist so that the name is the caller's."""
import json
import math
import numbers
import operator
import os

FLOAT_DTYPES = ("float16", "bfloat16", "float32", "float64")
# The C++ types the integers end in (pybind11 refuses anything wider with a TypeError).
INT64_MAX, UINT64_MAX = 2**63 - 1, 2**64 - 1
# The tensors' values (finite, attention rows) are checked by the C++ core, as a capture file's
# are: geoattn._native.check_capture (model/capture_tensor_checks.h).


def short(value, limit=60):
    """repr(value) on one line, at most `limit` characters (a tensor's repr is neither)."""
    text = " ".join(repr(value).split())
    return text if len(text) <= limit else text[:limit - 3] + "..."


def tensor(x, name):
    """x as a torch tensor (numpy arrays without a copy), a floating dtype of FLOAT_DTYPES, dense,
    on the CPU or a CUDA device."""
    import torch

    if not isinstance(x, torch.Tensor):
        try:
            import numpy as np
        except ImportError:  # pragma: no cover
            np = None
        if np is None or not isinstance(x, np.ndarray):
            raise ValueError(f"{name}: expected a torch tensor or a numpy array, got {type(x).__name__}")
        if x.dtype.byteorder == ">":
            raise ValueError(f"{name}: big-endian arrays are not supported (use .astype('<f4'))")
        try:
            x = torch.from_numpy(x)
        except (TypeError, ValueError) as e:  # negative strides, object arrays
            raise ValueError(f"{name}: {e}") from None
    dtype = str(x.dtype).replace("torch.", "")
    if dtype not in FLOAT_DTYPES:
        raise ValueError(f"{name}: dtype {dtype}, expected one of {', '.join(FLOAT_DTYPES)}")
    if x.layout != torch.strided or x.device.type not in ("cpu", "cuda"):
        raise ValueError(f"{name}: a {x.layout} tensor on {x.device}, expected a dense CPU or CUDA tensor")
    return x.detach()  # read, never differentiated


def rank(x, name, dims):
    """x has the dims named, none of them empty."""
    if x.dim() != len(dims):
        raise ValueError(f"{name}: expected {len(dims)} dims [{', '.join(dims)}], got shape {list(x.shape)}")
    empty = [d for d, size in zip(dims, x.shape) if size == 0]
    if empty:
        raise ValueError(f"{name}: shape {list(x.shape)} has no {empty[0]}, expected every dim >= 1")


def integer(value, name, low, high=INT64_MAX):
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or not low <= value <= high:
        raise ValueError(f"{name}: {short(value)}, expected an integer in {low}..{high}")
    return int(value)


def integers(values, name, what="a list of integers"):
    """A list of ints from any iterable of integers (lists, numpy arrays, torch tensors)."""
    try:
        if isinstance(values, (str, bytes)):
            raise TypeError
        items = list(values)
        if any(isinstance(v, bool) for v in items):
            raise TypeError
        return [operator.index(v) for v in items]  # 1.5 is no position: no int() truncation
    except TypeError:
        raise ValueError(f"{name}: {short(values)}, expected {what}") from None


def positive(value, name):
    """A finite number > 0."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real) or not 0 < value < math.inf:
        raise ValueError(f"{name}: {short(value)}, expected a number > 0")
    return float(value)


def between(value, name, low, high):
    """A number strictly between low and high."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real) or not low < value < high:
        raise ValueError(f"{name}: {short(value)}, expected a number above {low:g} and below {high:g}")
    return float(value)


def fraction(value, name):
    """A number in [0, 1)."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real) or not 0 <= value < 1:
        raise ValueError(f"{name}: {short(value)}, expected a number in [0, 1)")
    return float(value)


def string(value, name):
    if not isinstance(value, str):
        raise ValueError(f"{name}: {short(value)}, expected a string")
    return value


def named(name, error):
    """A ValueError of the C++ core (which names a file or a setting) as one starting with name."""
    text = str(error)
    return ValueError(text if text.startswith(f"{name}: ") else f"{name}: {text}")


def choice(value, name, options):
    if not isinstance(value, str) or value not in options:
        raise ValueError(f"{name}: {short(value)}, expected one of {', '.join(map(repr, options))}")
    return value


def json_text(value, name):
    """value as JSON text (dicts, lists, strings, finite numbers)."""
    try:
        return json.dumps(value, allow_nan=False)
    except (TypeError, ValueError, RecursionError) as e:
        raise ValueError(f"{name}: not JSON ({type(e).__name__}: {short(str(e))})") from None


def json_object(value, name, what):
    """A dict as JSON text (None: "", the built-in one)."""
    if value is None:
        return ""
    if not isinstance(value, dict):
        raise ValueError(f"{name}: {type(value).__name__}, expected a dict ({what})")
    return json_text(value, name)


def path(value, name):
    """A file path (str or os.PathLike) as a str: not empty, not a folder."""
    if not isinstance(value, (str, os.PathLike)):
        raise ValueError(f"{name}: {short(value)}, expected a file path (str or os.PathLike)")
    value = os.fsdecode(value)
    if not value or "\0" in value:
        raise ValueError(f"{name}: {short(value)}, expected a file path (not empty, no NUL)")
    if os.path.isdir(value):
        raise ValueError(f"{name}: {value} is a folder, expected a file")
    return value


def float_dtype(value, name):
    """A torch dtype of FLOAT_DTYPES."""
    import torch

    if not isinstance(value, torch.dtype) or str(value).replace("torch.", "") not in FLOAT_DTYPES:
        raise ValueError(f"{name}: {short(value)}, expected one of torch.{', torch.'.join(FLOAT_DTYPES)}")
    return value


def token_ids(ids, name):
    """ids as an int64 tensor: any integer dtype but bool."""
    import torch

    try:
        ids = torch.as_tensor(ids)
    except (TypeError, ValueError, RuntimeError, OverflowError):  # strings, ragged lists, ints past int64
        raise ValueError(f"{name}: {short(ids)}, expected integer token ids") from None
    if ids.numel() == 0:
        raise ValueError(f"{name}: empty, expected integer token ids")
    if ids.is_floating_point() or ids.is_complex() or ids.dtype == torch.bool:
        raise ValueError(f"{name}: dtype {str(ids.dtype).replace('torch.', '')}, expected integer token ids")
    return ids.long()


def query_positions(queries, Q, T, name="queries"):
    """The query positions of alpha's rows: "last" (T - 1), "all" (0..T-1), a list, or None
    (all when Q == T, the last when Q == 1). Q: the rows there are (None: as many as given)."""
    if queries is None and Q is not None:
        if Q == T:
            queries = "all"
        elif Q == 1:
            queries = "last"
        else:
            raise ValueError(f"{name}: alpha has {Q} query rows of {T} positions: give their positions")
    if isinstance(queries, str):
        positions = {"last": [T - 1], "all": list(range(T))}.get(queries)
        if positions is None:
            raise ValueError(f"{name}: {short(queries)}, expected 'last', 'all' or a list of positions")
    else:
        positions = integers(queries, name, "'last', 'all' or a list of integer positions")
    if Q is not None and len(positions) != Q:
        raise ValueError(f"{name}: {len(positions)} positions for alpha's {Q} query rows")
    if not positions or any(not 0 <= q < T for q in positions) or any(a >= b for a, b in zip(positions, positions[1:])):
        raise ValueError(f"{name}: {short(positions)}, expected positions increasing strictly within 0..{T - 1}")
    return positions


