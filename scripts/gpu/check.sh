#!/usr/bin/env bash
# What is owed on a GPU, as one command that fits one 10-minute call of the GPU machine
# (../shared/gpu/README.md: CMake, ninja, Python with a CUDA torch; no -dev packages, no registry):
#   1. build geoattn from this working tree against that Python's torch (cmake/torch.cmake's
#      python route; every other dependency from vendor/, as there, even where this machine has
#      it): the targets the steps below run, no others (the CLI, make-tiny-checkpoint, the Python
#      module, and the test programs whose sources hold a CudaMatchesCpu case);
#   2. the tests that need CUDA (every *CudaMatchesCpu* case, the package's CUDA test);
#   3. the envelopes alone at the 7B shape (`geoattn bench envelopes`: one window's samples on the
#      GPU's tensor path, the default chunk and a large one, beside the CPU's plain formulas);
#   4. the smallest 7B-shape bench: a random LLaMA-2-7B-shaped checkpoint (bf16), `geoattn
#      measure` bare (--controls 0 --bootstrap 0), full (the defaults) and full with --envelopes
#      off on a few windows of T = 1024: windows/s, the metrics' and the envelopes' share of the
#      forward, peak GPU memory (nvidia-smi, sampled);
#   5. geoattn intervene --each on the last layer's heads of that checkpoint, one forward per head
#      against the layer's heads batched in one forward (--per-forward 1 and 16).
# A summary and the logs go to $OUT (or ./gpu-check): summary.txt, build.log, tests.log, bench.log
# (the envelopes', the model bench's and intervene's), the result JSONs, and crash.log (the first crashed
# test's stack, where one did).
# The working tree is about 73 MiB; a remote machine that takes 64 MiB at most gets it without the
# committed result arrays and references this script never reads: scripts/gpu/aside.sh.
#
#   scripts/gpu/check.sh                 on the GPU machine (device tool: run it with timeout_s 540)
#   PYTHON=.venv/bin/python scripts/gpu/check.sh
#                                        anywhere else: without a CUDA device it builds and runs
#                                        the same steps on the CPU, the bench on a tiny shape,
#                                        and says what it skipped
# Environment: PYTHON (default python3), JOBS (default nproc), WINDOWS (default 8), LAYERS (of
# the 7B shape, default all 32: make-tiny-checkpoint writes its 13.5 GB, each tensor from a
# stream of its own on every core; from one stream 8 layers took 67 s there),
# BUILD_DIR (default build-gpu), DEADLINE_S (default 540: the bench is cut short before it).
set -uo pipefail
cd "$(dirname "$0")/../.."
SECONDS=0
PYTHON=${PYTHON:-python3}
JOBS=${JOBS:-$(nproc)}
WINDOWS=${WINDOWS:-8}
LAYERS=${LAYERS:-32}
BUILD_DIR=${BUILD_DIR:-build-gpu}
DEADLINE_S=${DEADLINE_S:-540}
OUT=${OUT:-$PWD/gpu-check}
mkdir -p "$OUT"
summary=$OUT/summary.txt
: >"$summary"
say() { echo "$*" | tee -a "$summary" >&2; }
die() { say "check.sh: error: $*"; exit 1; }

read -r torch_version torch_cuda cuda_ok gpu < <("$PYTHON" -c '
import torch
ok = torch.cuda.is_available()
print(torch.__version__, torch.version.cuda, int(ok), torch.cuda.get_device_name(0).replace(" ", "_") if ok else "none")' 2>/dev/null) ||
  die "$PYTHON cannot import torch (set PYTHON to a Python with torch)"
mode=cpu
[ "$cuda_ok" = 1 ] && mode=cuda
say "check.sh: $(date -u +%FT%TZ), commit $(git rev-parse --short HEAD 2>/dev/null || echo '?'), torch $torch_version (CUDA $torch_cuda), device $gpu, mode $mode, $JOBS jobs"

# 1. The build: only what that machine has.
t=$SECONDS
cuda_tests=$(grep -l 'CudaMatchesCpu' tests/test_*.cpp | xargs -n1 basename | sed 's/\.cpp$//')
# shellcheck disable=SC2086
if ! { cmake -S . -B "$BUILD_DIR" -G Ninja -DCMAKE_BUILD_TYPE=Release "-DGEOATTN_TORCH_PYTHON=$(command -v "$PYTHON")" \
         -DGEOATTN_PYTHON=ON "-DPython3_EXECUTABLE=$(command -v "$PYTHON")" -DGEOATTN_PURE_TESTS=OFF -DGEOATTN_VENDORED=ON &&
       cmake --build "$BUILD_DIR" -j"$JOBS" --target geoattn geoattn-torch make-tiny-checkpoint geoattn_python $cuda_tests; } \
     >"$OUT/build.log" 2>&1; then
  tail -20 "$OUT/build.log" >&2
  die "the build failed after $((SECONDS - t)) s (build.log)"
fi
say "build: $((SECONDS - t)) s, with the test programs $(echo $cuda_tests | tr ' ' ','); $(grep -E '^-- geoattn: ' "$OUT/build.log" | sed 's/^-- geoattn: //' | paste -sd ';' -)"

# 2. The CUDA tests (they skip, saying so, without a device).
t=$SECONDS
ctest --test-dir "$BUILD_DIR" -R 'CudaMatchesCpu' --output-on-failure -j4 >"$OUT/tests.log" 2>&1
ctest_rc=$?
if "$PYTHON" -c 'import pytest' 2>/dev/null; then
  GEOATTN_NATIVE=$(ls "$BUILD_DIR"/python/geoattn/_native*.so) GEOATTN_BIN=$BUILD_DIR/bin/geoattn PYTHONPATH=python \
    "$PYTHON" -m pytest -q -p no:cacheprovider python/tests/test_metrics.py -k cuda -rs >>"$OUT/tests.log" 2>&1
  pytest_rc=$?
else
  echo "skipped: $PYTHON has no pytest" >>"$OUT/tests.log"
  pytest_rc=-
fi
# A crashed test program writes its signal and stack to stderr (tests/crash_trace.cpp); the first
# one again, alone, under a debugger where the machine has one, for crash.log.
crashed=$(grep -m1 -E 'Test +#[0-9]+: .*\*\*\*Exception' "$OUT/tests.log" | sed -E 's/.*Test +#[0-9]+: ([^ ]+) .*/\1/')
debugger=$(command -v gdb || command -v cuda-gdb)
if [ -n "$crashed" ]; then
  cmdline=$(grep -A1 -F "Test: $crashed" "$BUILD_DIR/Testing/Temporary/LastTest.log" | sed -n 's/^Command: //p' | head -1)
  eval "set -- $cmdline"
  if [ -n "$debugger" ]; then
    timeout 120 "$debugger" -batch -ex run -ex bt --args "$@" >"$OUT/crash.log" 2>&1
  else
    timeout 120 "$@" >"$OUT/crash.log" 2>&1
  fi
  say "crash: $crashed again${debugger:+ under $(basename "$debugger")}: crash.log"
fi
ran=$(grep -cE 'Test +#[0-9]+: .* Passed +[0-9.]+ sec' "$OUT/tests.log")
skipped=$(grep -cE 'Test +#[0-9]+: .*\*\*\*Skipped' "$OUT/tests.log")
failed=$(grep -cE 'Test +#[0-9]+: .*\*\*\*(Failed|Exception|Timeout)' "$OUT/tests.log")
say "CUDA tests: $ran passed, $failed failed, $skipped skipped (ctest rc $ctest_rc); package CUDA test: $(tail -1 "$OUT/tests.log") (pytest rc $pytest_rc); $((SECONDS - t)) s"

G=$BUILD_DIR/bin/geoattn
# 3. The envelopes alone (geoattn bench envelopes): one window's samples of the 7B shape (32 heads
#    x LAYERS at T = 1024, d = 128) on the tensor path on the GPU, with the default chunk and a
#    large one, beside the plain formulas on this machine's cores; on the CPU a 4-layer shape. (Its
#    log goes into bench.log: the device tool brings back 8 files at most.)
t=$SECONDS
: >"$OUT/bench.log"
envelope_layers=$LAYERS envelope_device=cuda
[ "$mode" = cuda ] || envelope_layers=4 envelope_device=cpu
for memory in 256 8192; do
  if log=$("$G" bench envelopes --device "$envelope_device" --layers "$envelope_layers" --metrics-memory "$memory" 2>&1); then
    say "envelopes ($envelope_layers layers, --metrics-memory $memory): $(grep -E 'tensor path on|plain formulas on|largest difference' \
      <<<"$log" | sed 's/^ *//' | paste -sd ';' -)"
  else
    say "envelopes ($envelope_layers layers, --metrics-memory $memory): failed (bench.log)"
  fi
  echo "$log" >>"$OUT/bench.log"
done
say "envelopes: $((SECONDS - t)) s"

# 4. The bench: llama2-7b shape on CUDA; on the CPU the same steps on a tiny shape.
bench=bench-7b
if [ "$mode" = cuda ]; then
  shape="--family llama --layers $LAYERS --hidden 4096 --heads 32 --ffn 11008 --vocab 32000"
  model=$bench/llama2-7b-$LAYERS run="--device cuda --dtype bf16 --batch 4 --ctx 1024"
else
  say "bench: no CUDA device: the same steps on a tiny LLaMA shape on the CPU (the 7B figures are owed to a GPU)"
  shape="--family llama --layers 2 --hidden 64 --heads 4 --ffn 128 --vocab 32000"
  model=$bench/tiny-llama run="--device cpu --ctx 256"
fi
mkdir -p "$bench"
t=$SECONDS
# shellcheck disable=SC2086
[ -f "$model/config.json" ] || "$BUILD_DIR/bin/make-tiny-checkpoint" $shape --max-positions 4096 --dtype BF16 --shards 4 \
  --std 0.02 --tokenizer tests/fixtures/tokenizers/llama2.tokenizer.model --out "$model" >>"$OUT/bench.log" 2>&1 ||
  die "make-tiny-checkpoint failed (bench.log)"
say "bench: checkpoint $model written in $((SECONDS - t)) s"
sampler=
if [ "$mode" = cuda ] && command -v nvidia-smi >/dev/null; then
  nvidia-smi --query-gpu=memory.used --format=csv,noheader,nounits -lms 100 >"$bench/memory.csv" 2>/dev/null &
  sampler=$!
fi
for config in bare full noenv; do
  left=$((DEADLINE_S - SECONDS))
  if [ "$left" -lt 90 ]; then
    say "bench $config: skipped, $left s left before the deadline"
    continue
  fi
  extra=""
  [ "$config" = bare ] && extra="--controls 0 --bootstrap 0"
  [ "$config" = noenv ] && extra="--envelopes off"
  t=$SECONDS
  # shellcheck disable=SC2086
  if timeout $((left - 30)) "$G" measure --model "$model" --data data/openwebtext/openwebtext-first100.txt --window stream \
       --max-windows "$WINDOWS" $run $extra --quiet --out "$bench/$config.json" >>"$OUT/bench.log" 2>&1; then
    cp "$bench/$config.json" "$OUT/"  # the JSON only: the device tool brings back 8 files at most
    say "bench $config: $("$PYTHON" - "$OUT/$config.json" <<'PY'
import json, sys
t = json.load(open(sys.argv[1]))["timing"]
f, m = t["seconds_forward_and_capture"], t["seconds_metrics"]
e = t.get("stages", {}).get("envelopes", 0.0)
print(f"{t['windows_per_second']:.2f} windows/s, forward+capture {f:.2f} s, metrics {m:.2f} s "
      f"({100 * m / f:.0f}% of the forward), envelopes {e:.2f} s ({100 * e / f:.0f}% of the forward), "
      f"peak RSS {t['peak_rss_bytes'] / 2**30:.2f} GiB")
PY
) ($((SECONDS - t)) s)"
  else
    say "bench $config: failed or cut at the deadline after $((SECONDS - t)) s (bench.log)"
  fi
done
if [ -n "$sampler" ]; then
  kill "$sampler" 2>/dev/null
  say "bench: peak GPU memory $(sort -n "$bench/memory.csv" | tail -1) MiB (nvidia-smi, every 100 ms, both runs)"
fi
# 5. geoattn intervene --each on the last layer's heads of the same checkpoint: one forward per
#    head (--per-forward 1) against the heads of the layer batched in one forward (--per-forward
#    16), two windows; the intervened forwards' seconds and their largest loss difference.
if [ "$mode" = cuda ]; then heads=32 iv_run="--device cuda --dtype bf16 --ctx 512"; else heads=4 iv_run="--device cpu --ctx 128"; fi
last=$(( $("$PYTHON" -c 'import json,sys; print(json.load(open(sys.argv[1]))["num_hidden_layers"])' "$model/config.json") - 1 ))
list=$(seq -s, -f "$last.%g" 0 $((heads - 1)))
for per in 1 16; do
  left=$((DEADLINE_S - SECONDS))
  if [ "$left" -lt 60 ]; then say "intervene --per-forward $per: skipped, $left s left before the deadline"; continue; fi
  t=$SECONDS
  # shellcheck disable=SC2086
  timeout $((left - 20)) "$G" intervene --model "$model" --data data/openwebtext/openwebtext-first100.txt --window stream \
    --max-windows 2 $iv_run --heads "$list" --each --intervention zero --bootstrap 0 --per-forward $per --quiet \
    --out "$bench/intervene-$per.json" >>"$OUT/bench.log" 2>&1 ||
    { say "intervene --per-forward $per: failed or cut after $((SECONDS - t)) s (bench.log)"; continue; }
  say "intervene --per-forward $per: $("$PYTHON" - "$bench/intervene-$per.json" "$bench/intervene-1.json" <<'PY'
import json, sys
r, one = (json.load(open(p)) for p in sys.argv[1:3])
t = r["timing"]
d = max(abs(a["loss_diff"] - b["loss_diff"]) for a, b in zip(r["interventions"], one["interventions"]))
print(f"{len(r['interventions'])} heads alone, intervened forwards {sum(t['seconds_intervened_forwards']):.2f} s, "
      f"plain {t['seconds_plain_forwards']:.2f} s, total {t['seconds_total']:.1f} s, widest batch "
      f"{t['interventions_per_forward']}; largest loss_diff difference from --per-forward 1: {d:.2e}")
PY
) ($((SECONDS - t)) s)"
done
say "check.sh: done in $SECONDS s"
