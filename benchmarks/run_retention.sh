#!/usr/bin/env bash
# Builds and runs the retention measurement (durable/retention.cpp): one long thread on a
# SQLite file, its bytes on disk after the turns, after store.prune(thread,
# sg::keep_latest{N}) and after store.vacuum().
#
#   benchmarks/run_retention.sh [--compiler g++] [--turns 2000] [--keep 100] [--message 200]
#                               [--draft 2000] [--results DIR] [--dry-run]
#
# Raw results go to --results DIR, default $STATEGRAPH_BUILD_DIR/bench-results/retention,
# never into the repository. Environment: STATEGRAPH_BUILD_DIR (default <repo>/build),
# BUILD_DIR for the build (default $STATEGRAPH_BUILD_DIR/bench-retention), JOBS (default 1:
# the machine is shared). The SQLite file goes to the system temp directory (TMPDIR; it must
# be a local disk).
set -euo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build_top=${STATEGRAPH_BUILD_DIR:-$repo/build}
build_root=${BUILD_DIR:-$build_top/bench-retention}
results=$build_top/bench-results/retention
jobs=${JOBS:-1}
compiler=g++
args=()
dry=0
while [[ $# -gt 0 ]]; do
  case $1 in
    --compiler) compiler=$2; shift 2 ;;
    --turns|--keep|--message|--draft) args+=("$1" "$2"); shift 2 ;;
    --results) results=$2; shift 2 ;;
    --dry-run) dry=1; shift ;;
    *) echo "run_retention.sh: unknown argument: $1" >&2; exit 2 ;;
  esac
done

run() {  # prints each step; runs it unless --dry-run
  echo "+ $*" >&2
  [[ $dry == 1 ]] || "$@"
}

tag=$(basename "$compiler" | sed 's/[^A-Za-z0-9]//g')
[[ $tag == g ]] && tag=gcc
build=$build_root/$tag
run mkdir -p "$results"
run cmake -S "$repo" -B "$build" -DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_COMPILER="$compiler" \
  -DCMAKE_CXX_FLAGS_RELEASE=-DNDEBUG -DSTATEGRAPH_BUILD_BENCHMARKS=ON \
  -DSTATEGRAPH_BUILD_TESTS=OFF -DSTATEGRAPH_BUILD_EXAMPLES=OFF
run cmake --build "$build" -j "$jobs" --target stategraph_bench_retention

out=$results/$tag-retention.json
if [[ $dry == 1 ]]; then
  echo "+ $build/benchmarks/durable/stategraph_bench_retention --check ${args[*]:-} > $out" >&2
else
  "$build/benchmarks/durable/stategraph_bench_retention" --check "${args[@]}" | tee "$out"
fi
