#!/usr/bin/env bash
# The main job on the embedded default: stories260K (a real trained LLaMA with GQA, shipped
# in models/) over the shipped TinyStories text. Installs what is missing, builds geoattn,
# writes everything under out/.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/setup.sh
geoattn_install_packages
BUILD_DIR=${BUILD_DIR:-build}
geoattn_configure "$BUILD_DIR" >/dev/null
cmake --build "$BUILD_DIR" -j"$(nproc)" --target geoattn geoattn_spm
GEOATTN="$BUILD_DIR/bin/geoattn"
mkdir -p out

"$GEOATTN" inspect --model models/stories260K
"$GEOATTN" capture --model models/stories260K --data data/tinystories/tinystories-sample.txt \
  --window stream --ctx 256 --max-windows 8 --queries last --out out/capture.safetensors
python3 - <<'PY'
import json, struct
with open("out/capture.safetensors", "rb") as f:
    n = struct.unpack("<Q", f.read(8))[0]
    header = json.loads(f.read(n))
for name in ("alpha", "values", "tokens", "queries"):
    print(f"  {name:8s} {header[name]['dtype']} {header[name]['shape']}")
PY
