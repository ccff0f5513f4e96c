#!/usr/bin/env python3
"""Fails on an #include that reaches up the data flow (src/CMakeLists.txt says why):

    util <- arch <- io <- model            (model: LibTorch)
    util <- analysis                       (pure math)
    io, analysis <- metrics <- report      (metrics' core files: LibTorch)
    model, metrics, report <- pipeline     (LibTorch) <- tools

Each folder of include/geoattn/ and src/ may include only the folders its row below names;
LibTorch only in model/ and in the metric core's files (the geoattn_metrics_core library
of src/CMakeLists.txt). Run: check_layers.py SOURCE_DIR. Prints every violation, exit 1 if any.
"""
import os
import re
import sys

ALLOWED = {
    "util": {"util"},
    "arch": {"arch", "util"},
    "io": {"io", "arch", "util"},
    "analysis": {"analysis", "util"},
    "model": {"model", "io", "arch", "util"},
    "metrics": {"metrics", "analysis", "io", "arch", "util"},
    "report": {"report", "metrics", "analysis", "io", "arch", "util"},
    "pipeline": {"pipeline", "report", "metrics", "model", "analysis", "io", "arch", "util"},
}
TORCH = re.compile(r'#include\s*[<"](torch/|ATen/|c10/)')
GEOATTN = re.compile(r'#include\s*"geoattn/([a-z_]+)/')


def torch_files(src):
    """The metric core's sources (CMake's geoattn_metrics_core) and their private headers."""
    text = open(os.path.join(src, "src", "CMakeLists.txt")).read()
    block = re.search(r"geoattn_library\(metrics_core(.*?)\)", text, re.S).group(1)
    files = {f.strip() for f in block.split() if f.strip()}
    files.add("metrics/core.h")
    for f in list(files):  # their public headers
        files.add("include/geoattn/" + f.replace(".cpp", ".h"))
    return {"src/" + f if not f.startswith("include/") else f for f in files}


def main(src):
    torch_ok = torch_files(src)
    problems = []
    for top in ("include/geoattn", "src"):
        for folder in sorted(ALLOWED):
            root = os.path.join(src, top, folder)
            for dirpath, _, names in os.walk(root):
                for name in sorted(names):
                    if not name.endswith((".h", ".cpp")):
                        continue
                    path = os.path.join(dirpath, name)
                    rel = os.path.relpath(path, src)
                    for n, line in enumerate(open(path, encoding="utf-8"), 1):
                        m = GEOATTN.search(line)
                        if m and m.group(1) not in ALLOWED[folder]:
                            problems.append(f"{rel}:{n}: {folder}/ includes {m.group(1)}/ ({line.strip()})")
                        if TORCH.search(line) and folder not in ("model", "pipeline") and rel not in torch_ok:
                            problems.append(f"{rel}:{n}: LibTorch in {folder}/ ({line.strip()})")
    for p in problems:
        print(p)
    print(f"check_layers: {len(problems)} forbidden includes")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
