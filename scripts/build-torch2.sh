#!/usr/bin/env bash
# Builds geoattn against LibTorch 2.x from a PyPI torch wheel (CUDA build), in build-torch2/.
#   scripts/build-torch2.sh [--venv DIR] [--test] [extra cmake args]
#     --venv DIR   virtualenv holding torch (or TORCH2_VENV; default .venv-hf5, git-ignored),
#                  with TORCH2_SPEC (default torch==2.14.1, CUDA 13.0) and
#                  scripts/requirements-hf5.txt (transformers 5.x, pytest, scikit-build-core).
#   No CUDA toolkit is needed: geoattn compiles no CUDA code, and a CUDA wheel's libraries serve
#   at run time. The Python module geoattn._native is built too (GEOATTN_PYTHON), against that venv's torch;
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

# That torch's LibTorch as it is (cmake/torch.cmake, the python route): no CUDA toolkit is asked
# for, even for a CUDA wheel. The pure tests (no LibTorch, no binary) are those of the Debian
# build: not built again here.
geoattn_configure "$BUILD_DIR" "-DGEOATTN_TORCH_PYTHON=$venv/bin/python" -DGEOATTN_PYTHON=ON -DGEOATTN_PURE_TESTS=OFF \
  "-DPython3_EXECUTABLE=$venv/bin/python" ${cmake_args[@]+"${cmake_args[@]}"}
cmake --build "$BUILD_DIR" -j"$(nproc)"

scripts/check-links.sh "$BUILD_DIR/bin/geoattn" "${prefix%/share/cmake}"

if [ "$run_tests" = 1 ]; then
  # Less the tests labelled `release-only` (the scripts around the binary, the docs checks and the
  # flag matrix: what the Debian suite has shown and this build cannot change; tests/CMakeLists.txt).
  ctest --test-dir "$BUILD_DIR" --output-on-failure -j"$(nproc)" -LE release-only
fi
