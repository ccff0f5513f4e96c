#!/usr/bin/env bash
# The issue-7 benchmark on a GPU machine (../shared/gpu/README.md): random checkpoints of the
# real LLaMA-2-7B, Mistral-7B and Gemma-7B shapes, then `geoattn measure` on CUDA in bf16 at
# T = 1024: windows/s, and the share of time in capture + metrics against the forward.
#   scripts/gpu/bench_7b.sh BUILD_DIR [WINDOWS]      (BUILD_DIR: a CUDA build, e.g. build-gpu)
# Writes bench-7b/<family>.json (the measure JSONs, whose "timing" holds the figures) and prints
# one line per model. Needs ~14 GiB of disk per model.
set -euo pipefail
build=${1:?usage: bench_7b.sh BUILD_DIR [WINDOWS]}
windows=${2:-64}
G="$build/bin/geoattn"
mk="$build/bin/make-tiny-checkpoint"
tok=tests/fixtures/tokenizers/llama2.tokenizer.model
mkdir -p bench-7b
declare -A shapes=(
  [llama2-7b]="--family llama --layers 32 --hidden 4096 --heads 32 --ffn 11008 --vocab 32000"
  [mistral-7b]="--family mistral --layers 32 --hidden 4096 --heads 32 --kv-heads 8 --ffn 14336 --vocab 32000 --window 4096"
  [gemma-7b]="--family gemma --layers 28 --hidden 3072 --heads 16 --head-dim 256 --ffn 24576 --vocab 32000"
)
for name in llama2-7b mistral-7b gemma-7b; do
  dir=bench-7b/$name
  # shellcheck disable=SC2086
  [ -f "$dir/config.json" ] || "$mk" ${shapes[$name]} --max-positions 4096 --dtype BF16 --shards 4 --std 0.02 \
    --tokenizer "$tok" --out "$dir"
  "$G" inspect --model "$dir" --ctx 1024 | grep memory
  for extra in "--controls 0 --bootstrap 0" ""; do
    # shellcheck disable=SC2086
    "$G" measure --model "$dir" --data data/openwebtext/openwebtext-first100.txt --window stream --ctx 1024 \
      --max-windows "$windows" --device cuda --dtype bf16 --batch 4 $extra --quiet --out "bench-7b/$name.json"
    python3 - "bench-7b/$name.json" "$name" "$extra" <<'PY'
import json, sys
t = json.load(open(sys.argv[1]))["timing"]
f, m = t["seconds_forward_and_capture"], t["seconds_metrics"]
print(f"{sys.argv[2]:12s} [{sys.argv[3] or 'defaults'}] {t['windows_per_second']:.2f} windows/s, "
      f"forward+capture {f:.1f} s, metrics {m:.1f} s ({100 * m / f:.0f}% of the forward)")
PY
  done
done
