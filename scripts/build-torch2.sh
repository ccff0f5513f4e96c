#!/usr/bin/env bash
# Builds geoattn against LibTorch 2.x from a PyPI torch wheel (CUDA build), in build-torch2/.
#   scripts/build-torch2.sh [--venv DIR] [--test] [extra cmake args]
#     --venv DIR   virtualenv holding torch (or TORCH2_VENV; default .venv-hf5, git-ignored),
#                  with TORCH2_SPEC (default torch==2.14.1, CUDA 13.0) and
#                  scripts/requirements-hf5.txt (transformers 5.x, pytest, scikit-build-core).
#   The Python module geoattn._core is built too (GEOATTN_PYTHON), against that venv's torch;
#   ctest runs its pytest suite (python/tests).
#     --test       run the suite with ctest afterwards (on CPU: no GPU is needed): every test
#                  that links LibTorch or runs the binary, the Python package's pytest too
#   BUILD_DIR overrides build-torch2. The Debian packages are those of scripts/test.sh
#   (scripts/setup.sh); Debian's LibTorch 1.13 is installed but not used here.
set -euo pipefail
cd "$(dirname "$0")/.."
die() { echo "build-torch2: $*" >&2; exit 1; }

venv=${TORCH2_VENV:-.venv-hf5}
spec=${TORCH2_SPEC:-torch==2.14.1}
reqs=scripts/requirements-hf5.txt
run_tests=0
cmake_args=()
while [ $# -gt 0 ]; do
  case $1 in
    --venv) [ $# -ge 2 ] || die "--venv needs a folder"; venv=$2; shift 2 ;;
    --venv=*) venv=${1#--venv=}; shift ;;
    --test) run_tests=1; shift ;;
    *) cmake_args+=("$1"); shift ;;
  esac
done
BUILD_DIR=${BUILD_DIR:-build-torch2}

source scripts/setup.sh
geoattn_install_packages

# The virtualenv with torch: made on first use from the system Python, and topped up when
# its requirements change (the same torch, transformers 5.x for the Python package's tests).
if [ ! -x "$venv/bin/python" ]; then
  echo "build-torch2: creating $venv" >&2
  /usr/bin/python3 -m venv "$venv" || die "cannot create a virtualenv in $venv (apt install python3-venv?)"
fi
venv=$(cd "$venv" && pwd)  # absolute: CMake's FindPython ignores a relative Python3_EXECUTABLE
stamp=$venv/.geoattn-torch2
if [ "$(cat "$stamp" 2>/dev/null)" != "$spec $(cat "$reqs")" ]; then
  echo "build-torch2: installing $spec and $reqs into $venv" >&2
  "$venv/bin/pip" install -q --disable-pip-version-check "$spec" -r "$reqs" || die "pip install $spec -r $reqs into $venv failed"
  echo "$spec $(cat "$reqs")" >"$stamp"
fi
read -r torch_version torch_cuda prefix < <("$venv/bin/python" -c \
  'import torch; print(torch.__version__, torch.version.cuda, torch.utils.cmake_prefix_path)' 2>/dev/null) \
  || die "$venv/bin/python cannot import torch"
case $torch_version in 2.*) ;; *) die "$venv holds torch $torch_version, not 2.x" ;; esac
echo "build-torch2: torch $torch_version (CUDA $torch_cuda) from $prefix" >&2

# A CUDA wheel's TorchConfig looks for the CUDA toolkit: nvcc must be there even though
# geoattn has no kernels of its own. 9.0 (Hopper) only: no GPU here to detect an arch from.
if [ "$torch_cuda" != None ]; then
  command -v nvcc >/dev/null || PATH=/usr/local/cuda/bin:$PATH
  command -v nvcc >/dev/null || die "torch $torch_version is a CUDA $torch_cuda build but nvcc is not on PATH"
fi
export TORCH_CUDA_ARCH_LIST=${TORCH_CUDA_ARCH_LIST:-9.0}

# The torch folder itself too: TorchConfig's find_library calls for torch and c10 would
# otherwise find Debian's LibTorch 1.13 in /usr/lib first and link both.
torch_root=${prefix%/share/cmake}
# The pure tests (no LibTorch, no binary) are those of the Debian build: not built again here.
geoattn_configure "$BUILD_DIR" "-DCMAKE_PREFIX_PATH=$prefix;$torch_root" -DGEOATTN_PYTHON=ON -DGEOATTN_PURE_TESTS=OFF \
  "-DPython3_EXECUTABLE=$venv/bin/python" ${cmake_args[@]+"${cmake_args[@]}"}
cmake --build "$BUILD_DIR" -j"$(nproc)"

# The binary must link LibTorch's CUDA library (from the wheel), and never the driver stub
# libcuda.so of the toolkit's lib64/stubs: a binary that needs it cannot start on a CPU-only
# machine, and on a GPU machine it would shadow the real driver.
bin=$BUILD_DIR/bin/geoattn
dynamic=$(readelf -d "$bin") || die "readelf cannot read $bin"
libs=$(ldd "$bin") || die "ldd cannot read $bin"
if [ "$torch_cuda" != None ]; then
  grep -q 'NEEDED.*\[libtorch_cuda\.so\]' <<<"$dynamic" || die "$bin does not link libtorch_cuda.so"
  grep -q "libtorch_cuda.so => $torch_root/lib/libtorch_cuda.so" <<<"$libs" \
    || die "$bin does not resolve libtorch_cuda.so from $torch_root/lib"
fi
! grep -qE 'NEEDED.*\[lib(torch|c10)[a-z_]*\.so\.' <<<"$dynamic" || die "$bin links Debian's LibTorch 1.13 too"
! grep -q 'NEEDED.*\[libcuda\.so' <<<"$dynamic" || die "$bin links the CUDA driver libcuda.so"
! grep -E 'R(UN)?PATH' <<<"$dynamic" | grep -q stubs || die "$bin has a stubs/ folder in its RPATH"
! grep -q '/stubs/' <<<"$libs" || die "$bin resolves a library from a stubs/ folder"
echo "build-torch2: $bin links $(awk '/libtorch_cuda.so/ {print $3}' <<<"$libs")" >&2

if [ "$run_tests" = 1 ]; then
  # Less the tests labelled `scripts` (Python plotting and Slurm around the binary: the same
  # scripts as in the Debian suite, whose C++ the CLI tests run here too).
  ctest --test-dir "$BUILD_DIR" --output-on-failure -j"$(nproc)" -LE scripts
fi
