#!/usr/bin/env bash
# One row of the table "What it needs" in docs/building.md: `pip install ./python` (build isolation on)
# into a venv that has a torch wheel, with the CUDA toolkit of this machine visible or hidden,
# then the installed CLI and package checked against each other.
#   scripts/torch-matrix.sh VENV toolkit|none
# VENV: a virtualenv with torch, numpy, pytest and transformers (the package's tests); `none`
# hides /usr/local/cuda* and nvcc in a mount namespace of its own (root), as on a workstation
# without a toolkit. Prints one line: torch, its CUDA, the toolkit, and what passed.
# CMAKE_CXX_COMPILER_LAUNCHER=ccache in the environment makes the second cell of a torch cheap.
set -euo pipefail
cd "$(dirname "$0")/.."
die() { echo "torch-matrix: $*" >&2; exit 1; }
venv=$(cd "${1:?usage: torch-matrix.sh VENV toolkit|none}" && pwd)
toolkit=${2:?usage: torch-matrix.sh VENV toolkit|none}
repo=$PWD

cell() {
  local toolkit_seen
  toolkit_seen=$(command -v nvcc >/dev/null && nvcc --version | sed -n 's/.*release \([0-9.]*\).*/\1/p' || echo none)
  read -r torch cuda < <("$venv/bin/python" -c 'import torch; print(torch.__version__, torch.version.cuda)')
  echo "torch-matrix: torch $torch (CUDA $cuda), toolkit seen: $toolkit_seen" >&2
  # The package and the CLI, in one pip command, build isolation on.
  "$venv/bin/pip" install -q --disable-pip-version-check --force-reinstall --no-deps ./python >/tmp/torch-matrix-pip.log 2>&1 ||
    { tail -30 /tmp/torch-matrix-pip.log >&2; die "pip install ./python failed (torch $torch, toolkit $toolkit_seen)"; }
  local pkg torch_root
  pkg=$("$venv/bin/python" -c 'import geoattn, os; print(os.path.dirname(geoattn.__file__))')
  torch_root=$("$venv/bin/python" -c 'import torch, os; print(os.path.dirname(torch.__file__))')
  scripts/check-links.sh "$pkg/bin/geoattn" "$torch_root"
  # The CLI from the venv's PATH, outside the source tree.
  local tmp
  tmp=$(mktemp -d)
  (cd "$tmp" && "$venv/bin/geoattn" --version &&
     "$venv/bin/geoattn" measure --quiet --model "$repo/models/stories260K" --data "$repo/data/tinystories/tinystories-sample.txt" \
       --ctx 64 --max-windows 4 --bootstrap 100 --out m.json) >&2 || die "the installed geoattn failed"
  # The installed package against the installed CLI (exact equality tests), outside the source tree.
  (cd "$tmp" && GEOATTN_BIN="$venv/bin/geoattn" "$venv/bin/python" -m pytest -q -p no:cacheprovider \
     "$repo/python/tests/test_metrics.py" "$repo/python/tests/test_sinks.py") >"$tmp/pytest.log" 2>&1 ||
    { tail -20 "$tmp/pytest.log" >&2; die "the installed package's tests failed"; }
  echo "torch $torch | CUDA $cuda | toolkit $toolkit_seen | CLI: links the wheel, measure ok | package: $(tail -1 "$tmp/pytest.log")"
  rm -rf "$tmp"
}

case $toolkit in
toolkit)
  [ -x /usr/local/cuda/bin/nvcc ] || die "no toolkit in /usr/local/cuda"
  PATH=/usr/local/cuda/bin:$PATH CUDA_HOME=/usr/local/cuda cell
  ;;
none)
  [ "$(id -u)" = 0 ] || die "hiding the toolkit needs root (a mount namespace)"
  if [ "${TORCH_MATRIX_INNER:-}" != 1 ]; then
    exec unshare -m env TORCH_MATRIX_INNER=1 "$0" "$@"
  fi
  for dir in /usr/local/cuda*; do
    [ -d "$dir" ] && [ ! -L "$dir" ] && mount -t tmpfs tmpfs "$dir"
  done
  # What the toolkit put beside it: nvcc's wrappers in /usr/local/bin, its runtime in
  # /usr/local/lib, its headers in /usr/local/include. Each folder is shadowed by a tmpfs that
  # links back everything else.
  for dir in /usr/local/bin /usr/local/lib /usr/local/include; do
    keep=/run/torch-matrix$dir
    mkdir -p "$keep"
    mount --bind "$dir" "$keep"
    mount -t tmpfs tmpfs "$dir"
    for entry in "$keep"/*; do
      name=$(basename "$entry")
      case $name in cuda* | libcuda* | libcudadevrt* | nvcc | nvlink | ptxas | fatbinary | bin2c | cudafe++ | __nvcc*) continue ;; esac
      [ "$dir" = /usr/local/include ] && [ "$name" != python3.11 ] && continue
      ln -s "$entry" "$dir/$name"
    done
  done
  PATH=$(tr ':' '\n' <<<"$PATH" | grep -v cuda | paste -sd: -)
  unset CUDA_HOME CUDA_PATH
  ! command -v nvcc >/dev/null || die "nvcc is still on PATH"
  cell
  ;;
*) die "toolkit|none, not '$toolkit'" ;;
esac
