#!/usr/bin/env bash
# Builds everything and runs every test: the command the README gives and CI runs.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
build=${STATEGRAPH_BUILD_DIR:-build}
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=${CMAKE_BUILD_TYPE:-Release} >/dev/null
cmake --build "$build" -j2
ctest --test-dir "$build" -j2 --output-on-failure
