#!/usr/bin/env python3
"""Fails on an #include that reaches up the data flow, on LibTorch in a layer without it, or on a
folder that is not one layer.

    check_layers.py SOURCE_DIR LAYERS_JSON

LAYERS_JSON is the build's layers.json, written by geoattn_layer() in src/CMakeLists.txt, the one
definition of the layering: per library its folder, whether it sees LibTorch, the layers it uses
and its files. A file may include the folders of its own library and of every library below it
(the transitive closure of `uses`), and LibTorch only when its library has it. A folder is a
layer: src/<folder>/ and include/geoattn/<folder>/ (and their sub-folders: metrics/core/, ...)
hold one library's files, and a library's sources lie in its own folder. A header
include/geoattn/<folder>/<path>.h belongs to the library whose sources hold src/<folder>/<path>.cpp,
else to the library of that folder named after it.
Prints every violation; exit 1 if any.
"""
import json
import os
import re
import sys

TORCH = re.compile(r'#include\s*[<"](torch/|ATen/|c10/)')
GEOATTN = re.compile(r'#include\s*"geoattn/([a-z_]+)/')


def closure(layers):
    """library name -> the folders it may include."""
    by_name = {lib["name"]: lib for lib in layers}
    out = {}

    def folders(name):
        if name not in out:
            lib = by_name[name]
            out[name] = {lib["folder"]}.union(*(folders(u) for u in lib["uses"]))
        return out[name]

    for name in by_name:
        folders(name)
    return out


def owner(rel, layers):
    """The library a file belongs to, or None."""
    for lib in layers:
        if rel in lib["sources"]:
            return lib
    parts = rel.split("/")
    if parts[0] == "include":  # include/geoattn/<folder>/[<sub-folders>/]<name>.h
        folder, stem = parts[2], os.path.splitext(parts[-1])[0]
        source = "/".join(["src", *parts[2:-1], stem + ".cpp"])
        for lib in layers:
            if source in lib["sources"]:
                return lib
        return next((lib for lib in layers if lib["name"] == folder), None)
    return None


def main(src, layers_json):
    layers = json.load(open(layers_json))
    allowed = closure(layers)
    folders = {lib["folder"] for lib in layers}
    problems = []
    seen = {}
    for lib in layers:
        if lib["folder"] in seen:
            problems.append(f"src/{lib['folder']}/: the folder of both {seen[lib['folder']]} and {lib['name']} "
                            "(a folder is a layer)")
        seen[lib["folder"]] = lib["name"]
        for rel in lib["sources"]:
            if not rel.startswith(f"src/{lib['folder']}/"):
                problems.append(f"{rel}: in {lib['name']}, outside its folder src/{lib['folder']}/")
    for top in ("include/geoattn", "src"):
        for folder in sorted(folders):
            for dirpath, _, names in os.walk(os.path.join(src, top, folder)):
                for name in sorted(names):
                    if not name.endswith((".h", ".cpp")):
                        continue
                    rel = os.path.relpath(os.path.join(dirpath, name), src)
                    if "/spm_shim/" in rel:
                        continue  # the sentencepiece shim: a shared object of its own, no geoattn includes
                    lib = owner(rel, layers)
                    if lib is None:
                        problems.append(f"{rel}: in no library of layers.json (list it in src/CMakeLists.txt)")
                        continue
                    for n, line in enumerate(open(os.path.join(src, rel), encoding="utf-8"), 1):
                        m = GEOATTN.search(line)
                        if m and m.group(1) not in allowed[lib["name"]]:
                            problems.append(f"{rel}:{n}: {lib['name']} includes {m.group(1)}/ ({line.strip()})")
                        if TORCH.search(line) and not lib["torch"]:
                            problems.append(f"{rel}:{n}: LibTorch in {lib['name']} ({line.strip()})")
    for p in problems:
        print(p)
    print(f"check_layers: {len(layers)} layers, {len(problems)} problems")
    return 1 if problems else 0


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit("usage: check_layers.py SOURCE_DIR LAYERS_JSON")
    sys.exit(main(sys.argv[1], sys.argv[2]))
