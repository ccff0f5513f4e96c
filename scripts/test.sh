#!/usr/bin/env bash
# The test command: install what is missing, build, run the whole suite with ctest.
#   scripts/test.sh            (BUILD_DIR=build by default; extra args go to cmake)
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/setup.sh
geoattn_install_packages
BUILD_DIR=${BUILD_DIR:-build}
geoattn_configure "$BUILD_DIR" "$@"
cmake --build "$BUILD_DIR" -j"$(nproc)"
ctest --test-dir "$BUILD_DIR" --output-on-failure -j"$(nproc)"
