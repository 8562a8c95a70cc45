#!/usr/bin/env bash
# The fleet's throughput (1, 2, 4 worker processes x concurrency 8; runs whose every node
# waits 5 ms) and its claim latency, on a throwaway cluster (scripts/pg-cluster.sh; a Unix
# socket; the cluster script's settings, synchronous_commit off).
#
#   benchmarks/run_fleet.sh [--repetitions 3]
#
# Results go to $STATEGRAPH_BUILD_DIR/bench-results/fleet (default build/...).
set -euo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build_top=${STATEGRAPH_BUILD_DIR:-$repo/build}
build=${BUILD_DIR:-$build_top/bench-postgres}
results=$build_top/bench-results/fleet
jobs=${JOBS:-1}
repetitions=3
while [[ $# -gt 0 ]]; do
  case $1 in
    --repetitions) repetitions=$2; shift 2 ;;
    *) echo "run_fleet.sh: unknown argument: $1" >&2; exit 2 ;;
  esac
done
mkdir -p "$results"

cmake -S "$repo" -B "$build" -DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_FLAGS_RELEASE=-DNDEBUG \
  -DSTATEGRAPH_BUILD_BENCHMARKS=ON -DSTATEGRAPH_BUILD_TESTS=OFF -DSTATEGRAPH_BUILD_EXAMPLES=OFF >/dev/null
cmake --build "$build" -j "$jobs" --target stategraph_fleet_bench

cluster=/tmp/sg-bench-fl-$(printf '%s' "$build" | md5sum | cut -c1-10)
trap '"$repo/scripts/pg-cluster.sh" stop "$cluster"' EXIT
conninfo=$("$repo/scripts/pg-cluster.sh" start "$cluster")
"$build/benchmarks/durable/stategraph_fleet_bench" "$conninfo" "$repetitions" | tee "$results/fleet.json"
