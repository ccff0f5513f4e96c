#!/usr/bin/env bash
# The 7B benchmark on a GPU machine (../shared/gpu/README.md), in steps that each fit one
# 10-minute command there: random checkpoints of the real LLaMA-2-7B, Mistral-7B and Gemma-7B
# shapes (written to disk, one per call), then `geoattn measure` on CUDA in bf16 at T = 1024,
# one configuration per call: windows/s, and the metrics' time against the forward.
#
#   scripts/gpu/bench_7b.sh BUILD_DIR make    MODEL              # ~14 GiB on disk, a few minutes
#   scripts/gpu/bench_7b.sh BUILD_DIR measure MODEL [bare|full]  [WINDOWS]   (default full, 32)
#   scripts/gpu/bench_7b.sh BUILD_DIR report                     # one line per measured run
#
# MODEL: llama2-7b, mistral-7b or gemma-7b; BUILD_DIR a CUDA build (e.g. build-gpu). bare:
# --controls 0 --bootstrap 0 (the metric core alone); full: the default flags. Results go to
# bench-7b/<model>-<config>.json (their "timing" holds the figures). Each step is idempotent.
set -euo pipefail
die() { echo "bench_7b.sh: error: $*" >&2; exit 1; }
build=${1:?usage: bench_7b.sh BUILD_DIR make|measure|report ...}
step=${2:?usage: bench_7b.sh BUILD_DIR make|measure|report ...}
G="$build/bin/geoattn"
[ -x "$G" ] || die "$G is missing"
mkdir -p bench-7b
declare -A shapes=(
  [llama2-7b]="--family llama --layers 32 --hidden 4096 --heads 32 --ffn 11008 --vocab 32000"
  [mistral-7b]="--family mistral --layers 32 --hidden 4096 --heads 32 --kv-heads 8 --ffn 14336 --vocab 32000 --window 4096"
  [gemma-7b]="--family gemma --layers 28 --hidden 3072 --heads 16 --head-dim 256 --ffn 24576 --vocab 32000"
)
model() { [ -n "${shapes[${1:-}]+x}" ] || die "unknown model '${1:-}' (llama2-7b, mistral-7b, gemma-7b)"; echo "$1"; }

case $step in
make)
  name=$(model "${3:-}")
  dir=bench-7b/$name
  # shellcheck disable=SC2086
  [ -f "$dir/config.json" ] || "$build/bin/make-tiny-checkpoint" ${shapes[$name]} --max-positions 4096 --dtype BF16 \
    --shards 4 --std 0.02 --tokenizer tests/fixtures/tokenizers/llama2.tokenizer.model --out "$dir"
  "$G" inspect --model "$dir" --ctx 1024 | grep memory
  ;;
measure)
  name=$(model "${3:-}")
  config=${4:-full}
  windows=${5:-32}
  case $config in bare) extra="--controls 0 --bootstrap 0" ;; full) extra="" ;; *) die "config '$config': bare or full" ;; esac
  [ -f "bench-7b/$name/config.json" ] || die "bench-7b/$name is missing: run the make step first"
  # shellcheck disable=SC2086
  "$G" measure --model "bench-7b/$name" --data data/openwebtext/openwebtext-first100.txt --window stream --ctx 1024 \
    --max-windows "$windows" --device cuda --dtype bf16 --batch 4 $extra --quiet --out "bench-7b/$name-$config.json"
  ;&
report)
  python3 - bench-7b/*-*.json <<'PY'
import json, os, sys
for path in sys.argv[1:]:
    t = json.load(open(path))["timing"]
    f, m = t["seconds_forward_and_capture"], t["seconds_metrics"]
    print(f"{os.path.basename(path)[:-5]:20s} {t['windows_per_second']:.2f} windows/s, forward+capture {f:.1f} s, "
          f"metrics {m:.1f} s ({100 * m / f:.0f}% of the forward), peak RSS {t['peak_rss_bytes'] / 2**30:.1f} GiB")
PY
  ;;
*) die "unknown step '$step' (make, measure or report)" ;;
esac
