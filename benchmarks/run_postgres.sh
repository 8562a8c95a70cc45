#!/usr/bin/env bash
# W5 on sg::postgres_store against a raw libpq INSERT of the same bytes, with
# synchronous_commit on and off, on a throwaway cluster (scripts/pg-cluster.sh; a Unix
# socket, the server's defaults but for the cluster script's own settings).
#
#   benchmarks/run_postgres.sh [--repetitions 9] [--results DIR]
#
# Results go to $STATEGRAPH_BUILD_DIR/bench-results/postgres (default build/...).
set -euo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build_top=${STATEGRAPH_BUILD_DIR:-$repo/build}
build=${BUILD_DIR:-$build_top/bench-postgres}
results=$build_top/bench-results/postgres
jobs=${JOBS:-1}
repetitions=9
while [[ $# -gt 0 ]]; do
  case $1 in
    --repetitions) repetitions=$2; shift 2 ;;
    --results) results=$2; shift 2 ;;
    *) echo "run_postgres.sh: unknown argument: $1" >&2; exit 2 ;;
  esac
done
mkdir -p "$results"

cmake -S "$repo" -B "$build" -DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_FLAGS_RELEASE=-DNDEBUG \
  -DSTATEGRAPH_BUILD_BENCHMARKS=ON -DSTATEGRAPH_BUILD_TESTS=OFF -DSTATEGRAPH_BUILD_EXAMPLES=OFF >/dev/null
cmake --build "$build" -j "$jobs" --target stategraph_postgres_w5

# The socket path must stay short: the cluster lives under /tmp, named after this build.
cluster=/tmp/sg-bench-pg-$(printf '%s' "$build" | md5sum | cut -c1-10)
trap '"$repo/scripts/pg-cluster.sh" stop "$cluster"' EXIT
conninfo=$("$repo/scripts/pg-cluster.sh" start "$cluster")
"$build/benchmarks/durable/stategraph_postgres_w5" "$conninfo" "$repetitions" | tee "$results/w5_postgres.json"
