#!/usr/bin/env python3
"""Copy a Hugging Face checkpoint folder with its floating-point tensors cast to another dtype.

    scripts/cast_checkpoint.py SRC_DIR DST_DIR --dtype F16

Reads SRC_DIR/model.safetensors (numpy only: no torch, no safetensors package), writes
DST_DIR/model.safetensors with every F32 tensor cast to F16 (round to nearest even) and
keeps __metadata__; config.json gets "torch_dtype": "float16"; the other files are copied.
This is how models/stories15M was made from ../shared/models/stories15M (float32, 61 MB).
"""
import argparse
import json
import os
import shutil
import struct
import sys

import numpy as np

DTYPES = {"F32": np.float32, "F16": np.float16}
TORCH_NAMES = {"F32": "float32", "F16": "float16"}


def read_safetensors(path):
    with open(path, "rb") as f:
        (n,) = struct.unpack("<Q", f.read(8))
        header = json.loads(f.read(n))
        data = f.read()
    meta = header.pop("__metadata__", None)
    tensors = {}
    for name, info in header.items():
        lo, hi = info["data_offsets"]
        if info["dtype"] not in DTYPES:
            sys.exit(f"cast_checkpoint: {path}: tensor {name} has dtype {info['dtype']}, only F32/F16 are handled")
        tensors[name] = np.frombuffer(data[lo:hi], dtype=DTYPES[info["dtype"]]).reshape(info["shape"])
    return tensors, meta


def write_safetensors(path, tensors, meta):
    header, blobs, offset = {}, [], 0
    if meta:
        header["__metadata__"] = meta
    for name in sorted(tensors):
        x = np.ascontiguousarray(tensors[name])
        dtype = next(k for k, v in DTYPES.items() if v == x.dtype)
        b = x.tobytes()
        header[name] = {"dtype": dtype, "shape": list(x.shape), "data_offsets": [offset, offset + len(b)]}
        blobs.append(b)
        offset += len(b)
    h = json.dumps(header, separators=(",", ":")).encode()
    h += b" " * ((8 - len(h) % 8) % 8)
    tmp = path + ".tmp"
    with open(tmp, "wb") as f:
        f.write(struct.pack("<Q", len(h)))
        f.write(h)
        for b in blobs:
            f.write(b)
    os.replace(tmp, path)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("src")
    ap.add_argument("dst")
    ap.add_argument("--dtype", default="F16", choices=sorted(DTYPES))
    a = ap.parse_args()
    os.makedirs(a.dst, exist_ok=True)
    tensors, meta = read_safetensors(os.path.join(a.src, "model.safetensors"))
    cast = {k: v.astype(DTYPES[a.dtype]) for k, v in tensors.items()}
    for name, x in cast.items():
        if not np.all(np.isfinite(x)):
            sys.exit(f"cast_checkpoint: {name} overflows {a.dtype}")
    write_safetensors(os.path.join(a.dst, "model.safetensors"), cast, meta)
    for f in os.listdir(a.src):
        if f == "model.safetensors":
            continue
        if f == "config.json":
            cfg = json.load(open(os.path.join(a.src, f)))
            cfg["torch_dtype"] = TORCH_NAMES[a.dtype]
            with open(os.path.join(a.dst, f), "w") as out:
                json.dump(cfg, out, indent=2)
                out.write("\n")
        else:
            shutil.copy(os.path.join(a.src, f), os.path.join(a.dst, f))


if __name__ == "__main__":
    main()
