#!/usr/bin/env bash
# Moves the committed files that scripts/gpu/check.sh never reads (the findings' result arrays,
# the Gemma-3 references: about 16 MiB) out of the working tree and back, for a GPU machine that
# takes a working tree of 64 MiB at most (the tree is about 73 MiB).
#   scripts/gpu/aside.sh out     before the copy: to ../geoattn-aside
#   scripts/gpu/aside.sh back    after it (git status is clean again)
set -euo pipefail
shopt -s nullglob
cd "$(dirname "$0")/../.."
aside=../geoattn-aside
files=(docs/findings/*/measure.curves.safetensors tests/fixtures/gemma3/reference*.safetensors)
case "${1:-}" in
  out) for f in "${files[@]}"; do mkdir -p "$aside/$(dirname "$f")" && mv "$f" "$aside/$f"; done ;;
  back) (cd "$aside" && find . -type f) | while read -r f; do mv "$aside/$f" "$f"; done && rm -r "$aside" ;;
  *) echo "usage: scripts/gpu/aside.sh out|back" >&2; exit 2 ;;
esac
git ls-files -z | { xargs -0 stat -c %s 2>/dev/null || true; } | awk '{ s += $1 } END { printf "the working tree: %.1f MiB\n", s / 1048576 }'
