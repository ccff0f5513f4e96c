"""The checks of the Python API's arguments, before any work: each failure is a ValueError whose
message starts with the argument's name. The C++ core checks again (geoattn::Error, also a
ValueError); these exist so that the name is the caller's."""
import numbers

FLOAT_DTYPES = ("float16", "bfloat16", "float32", "float64")
# How far a row's mass may be from 1, and the mass after its query from 0: rows rounded to
# bf16 (a bf16 model's, widened or not) are off by up to 2^-9 of their mass; a row that is no
# distribution (scores, logits, a transposed tensor) is off by far more.
ROW_TOLERANCE = 2e-2


def tensor(x, name):
    """x as a torch tensor (numpy arrays without a copy), a floating dtype of FLOAT_DTYPES."""
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
    return x.detach()  # read, never differentiated


def rank(x, name, dims):
    if x.dim() != len(dims):
        raise ValueError(f"{name}: expected {len(dims)} dims [{', '.join(dims)}], got shape {list(x.shape)}")


def finite(x, name):
    """No NaN, no inf: their float64 sum is finite exactly then (no float16/32 tensor can reach
    float64's overflow), and that is one pass without a mask the size of x."""
    import torch

    if not bool(torch.isfinite(x.sum(dtype=torch.float64))):
        raise ValueError(f"{name}: holds NaN or infinite values")


def integer(value, name, low):
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < low:
        raise ValueError(f"{name}: {value!r}, expected an integer >= {low}")
    return int(value)


def choice(value, name, options):
    if value not in options:
        raise ValueError(f"{name}: {value!r}, expected one of {', '.join(map(repr, options))}")
    return value


def query_positions(queries, Q, T, name="queries"):
    """The Q query positions of alpha's rows: "last" (T - 1), "all" (0..T-1), a list, or None
    (all when Q == T, the last when Q == 1)."""
    if queries is None:
        if Q == T:
            queries = "all"
        elif Q == 1:
            queries = "last"
        else:
            raise ValueError(f"{name}: alpha has {Q} query rows of {T} positions: give their positions")
    if isinstance(queries, str):
        positions = {"last": [T - 1], "all": list(range(T))}.get(queries)
        if positions is None:
            raise ValueError(f"{name}: {queries!r}, expected 'last', 'all' or a list of positions")
    else:
        try:
            positions = [int(q) for q in queries]
        except (TypeError, ValueError):
            raise ValueError(f"{name}: expected 'last', 'all' or a list of integer positions") from None
    if len(positions) != Q:
        raise ValueError(f"{name}: {len(positions)} positions for alpha's {Q} query rows")
    if any(not 0 <= q < T for q in positions) or any(a >= b for a, b in zip(positions, positions[1:])):
        raise ValueError(f"{name}: positions must increase strictly within 0..{T - 1}, got {positions[:8]}...")
    return positions


def attention_rows(alpha, positions, name="alpha"):
    """Each row alpha[..., i, :] is a distribution over keys 0..positions[i]: non-negative, sum
    1 within ROW_TOLERANCE, nothing after its query. One window at a time (no copy of
    the whole tensor)."""
    import torch

    T = alpha.shape[-1]
    tol = ROW_TOLERANCE
    q = torch.tensor(positions, device=alpha.device)
    after = torch.arange(T, device=alpha.device)[None, :] > q[:, None]  # [Q, T]
    for w in range(alpha.shape[0]):
        a = alpha[w].to(torch.float64)                                  # [L, H, Q, T]
        if bool((a < 0).any()):
            raise ValueError(f"{name}: window {w} has negative weights")
        late = float(a.masked_fill(~after, 0).sum(-1).max())
        if late > tol:
            raise ValueError(f"{name}: window {w} has weight {late:.3g} after a query's position (rows must be causal)")
        worst = float((a.sum(-1) - 1).abs().max())
        if worst > tol:
            raise ValueError(f"{name}: window {w} has a row whose sum is off 1 by {worst:.3g} (tolerance {tol:g})")
