#!/usr/bin/env bash
# Checks what geoattn built against a torch wheel loads:
#   scripts/check-links.sh BIN TORCH_ROOT      (BIN: the geoattn program; TORCH_ROOT: the torch package's folder)
# geoattn links no LibTorch; geoattn-torch beside it:
# With a CUDA wheel it links LibTorch's CUDA library from that wheel (so --device cuda works
# through the wheel's own CUDA libraries), never Debian's LibTorch 1.13 beside it, and never the
# driver stub libcuda.so of a toolkit's lib64/stubs: a binary that needs it cannot start on a
# CPU-only machine, and on a GPU machine it would shadow the real driver.
set -euo pipefail
die() { echo "check-links: $*" >&2; exit 1; }
front=${1:?usage: check-links.sh BIN TORCH_ROOT}
torch_root=$(cd "${2:?usage: check-links.sh BIN TORCH_ROOT}" && pwd -P)
# geoattn itself runs metrics, merge and taxonomy without LibTorch; geoattn-torch beside it links it.
! ldd "$front" | grep -qE 'lib(torch|c10)' || die "$front links LibTorch (it must not: tools/geoattn/binaries.h)"
bin=$(dirname "$front")/geoattn-torch
dynamic=$(readelf -d "$bin") || die "readelf cannot read $bin"
libs=$(ldd "$bin") || die "ldd cannot read $bin"
# The resolved, canonical path of library $1.
resolved() { local path; path=$(awk -v lib="$1" '$1 == lib {print $3}' <<<"$libs"); [ -n "$path" ] && realpath "$path"; }
if [ -e "$torch_root/lib/libtorch_cuda.so" ]; then
  grep -q 'NEEDED.*\[libtorch_cuda\.so\]' <<<"$dynamic" || die "$bin does not link libtorch_cuda.so"
  [ "$(resolved libtorch_cuda.so)" = "$torch_root/lib/libtorch_cuda.so" ] ||
    die "$bin does not resolve libtorch_cuda.so from $torch_root/lib"
fi
[ "$(resolved libtorch_cpu.so)" = "$torch_root/lib/libtorch_cpu.so" ] ||
  die "$bin does not resolve libtorch_cpu.so from $torch_root/lib"
! grep -qE 'NEEDED.*\[lib(torch|c10)[a-z_]*\.so\.' <<<"$dynamic" || die "$bin links Debian's LibTorch 1.13 too"
! grep -q 'NEEDED.*\[libcuda\.so' <<<"$dynamic" || die "$bin links the CUDA driver libcuda.so"
! grep -E 'R(UN)?PATH' <<<"$dynamic" | grep -q stubs || die "$bin has a stubs/ folder in its RPATH"
! grep -q '/stubs/' <<<"$libs" || die "$bin resolves a library from a stubs/ folder"
! grep -q 'not found' <<<"$libs" || die "$bin: $(grep 'not found' <<<"$libs" | head -1 | xargs)"
echo "check-links: $bin links $torch_root/lib/libtorch_cpu.so$([ -e "$torch_root/lib/libtorch_cuda.so" ] && echo " and libtorch_cuda.so")" >&2
