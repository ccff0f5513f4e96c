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
# The summary and the figures need numpy and matplotlib: the python3 first on PATH where it has
# them, else Debian's, for which geoattn_install_packages installed them (a pyenv or venv python3
# without them may come first on PATH).
PY=python3
"$PY" -c 'import numpy, matplotlib' 2>/dev/null || PY=/usr/bin/python3
echo "demo.sh: the summary and the figures with $PY"

"$GEOATTN" inspect --model models/stories260K
DATA="data/tinystories/tinystories-sample.txt data/openwebtext/openwebtext-first100.txt"
RUN="--model models/stories260K --data $DATA --window stream --ctx 256 --max-windows 64"
# The shipped text files are single documents, so the bootstrap resamples windows.
# Every head of every layer: top-N P/R/F over N, rho0, the s(N) diagnostics, the fits.
# Two passes over the same windows: the first's fits give the second's predicted envelopes (SPEC §5).
"$GEOATTN" measure $RUN --bootstrap-unit window --out out/fits.json
"$GEOATTN" measure $RUN --bootstrap-unit window --predict-from out/fits.json --out out/measure.json
# Theorems 1-2 / Corollary 1 per sample, beside the measurements; and from parameters alone.
"$GEOATTN" bounds $RUN --out out/bounds.json
"$GEOATTN" bounds --params configs/bounds-llama2-7b.json --out out/bounds-llama2-7b-params.json
# Retriever / Mixer / Reset by their signatures, or Unlabelled, for every head.
"$GEOATTN" taxonomy --from out/measure.json --config configs/taxonomy.json --out out/taxonomy.json
"$PY" scripts/summary.py out/measure.json out/taxonomy.json
# Attention sinks and reference frames, head by head and layer by layer (every query), on
# documents that start with BOS.
"$GEOATTN" sinks --model models/stories260K --data data/openwebtext/openwebtext-60docs.jsonl --ctx 128 \
  --residual --out out/sinks.json
# The paper's figures and the sinks figures (PNG and PDF) from the JSON alone.
"$PY" scripts/plot_figures.py --measure out/measure.json --bounds out/bounds.json \
  --taxonomy out/taxonomy.json --sinks out/sinks.json --out out/figures
