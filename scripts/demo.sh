#!/usr/bin/env bash
# The main job on the embedded default: stories260K (a real trained LLaMA with GQA, shipped
# in models/) over the shipped TinyStories and OpenWebText text. Installs what is missing, builds geoattn,
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
# Every head of every layer, over the shipped TinyStories and OpenWebText text.
"$GEOATTN" measure --model models/stories260K \
  --data data/tinystories/tinystories-sample.txt data/openwebtext/openwebtext-first100.txt \
  --window stream --ctx 256 --max-windows 64 --out out/measure.json
python3 scripts/summary.py out/measure.json
