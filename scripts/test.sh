#!/usr/bin/env bash
# The test command: install what is missing, build, run the whole suite with ctest.
#   scripts/test.sh              Release build in build/ (BUILD_DIR overrides; extra args go to cmake)
#   scripts/test.sh --sanitize   the same suite built with AddressSanitizer + UBSan in build-asan/
#                                (-DGEOATTN_SANITIZE=ON, -O1 with line tables, as ASan advises),
#                                less the tests labelled `release-only` (the scripts around the
#                                binary, the docs checks, the flag matrix: tests/CMakeLists.txt);
#                                .ci/run runs both
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/setup.sh
geoattn_install_packages
geoattn_fetch_real_model
cmake_args=()
ctest_args=()
if [ "${1:-}" = "--sanitize" ]; then
  shift
  BUILD_DIR=${BUILD_DIR:-build-asan}
  cmake_args=(-DGEOATTN_SANITIZE=ON -DCMAKE_BUILD_TYPE=RelWithDebInfo "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O1 -g1 -DNDEBUG")
  ctest_args=(-LE release-only)
fi
BUILD_DIR=${BUILD_DIR:-build}
geoattn_configure "$BUILD_DIR" "${cmake_args[@]}" "$@"
cmake --build "$BUILD_DIR" -j"$(nproc)"
ctest --test-dir "$BUILD_DIR" --output-on-failure -j"$(nproc)" ${ctest_args[@]+"${ctest_args[@]}"}
