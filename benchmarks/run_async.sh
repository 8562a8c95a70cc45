#!/usr/bin/env bash
# W8 and the async overhead (benchmarks/async/w8.cpp): builds stategraph_bench_async and
#   - runs W8 (10,000 concurrent runs of a 3-node chain, each node awaiting a 10 ms timer,
#     one thread) --repetitions times, with the process's CPU time next to its wall time;
#   - counts with callgrind the instructions per W1 run: invoke, async_invoke with the plain
#     nodes, async_invoke with the nodes as coroutines that return at once (N and 2N runs,
#     the difference divided by N, so start-up cancels out).
# Raw results go to --results DIR (default $STATEGRAPH_BUILD_DIR/bench-results/async), never
# into the repository; the figures in docs/performance.md ("Async runs") are copied from there.
#
#   benchmarks/run_async.sh [--repetitions 5] [--results DIR]
set -euo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build_top=${STATEGRAPH_BUILD_DIR:-$repo/build}
build=${BUILD_DIR:-$build_top/bench-async}
results=$build_top/bench-results/async
repetitions=5
while [[ $# -gt 0 ]]; do
  case $1 in
    --repetitions) repetitions=$2; shift 2 ;;
    --results) results=$2; shift 2 ;;
    *) echo "unknown option $1" >&2; exit 2 ;;
  esac
done
mkdir -p "$results"

cmake -S "$repo" -B "$build" -DCMAKE_BUILD_TYPE=Release -DSTATEGRAPH_BUILD_BENCHMARKS=ON >/dev/null
cmake --build "$build" --target stategraph_bench_async -j "${JOBS:-1}"
bin=$(find "$build" -name stategraph_bench_async -type f -perm -u+x | head -1)

{
  date -u '+date: %Y-%m-%d %H:%M UTC'
  echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs)"
  echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
  echo "commit: $(git -C "$repo" rev-parse --short HEAD)"
} > "$results/machine.txt"

: > "$results/w8.txt"
for ((r = 1; r <= repetitions; ++r)); do
  /usr/bin/time -f 'cpu_s=%U+%S max_rss_kb=%M' "$bin" w8 10000 10 >> "$results/w8.txt" 2>&1
done
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)" >> "$results/machine.txt"

: > "$results/w1_instructions.txt"
for side in sync async coro; do
  declare -A ir=()
  for n in 200 400; do
    ir[$n]=$(valgrind --tool=callgrind --callgrind-out-file=/dev/null "$bin" w1 "$side" "$n" 2>&1 |
             sed -n 's/.*Collected : \([0-9]*\).*/\1/p')
  done
  echo "w1 $side instructions_per_run=$(( (ir[400] - ir[200]) / 200 ))" >> "$results/w1_instructions.txt"
done
cat "$results/machine.txt" "$results/w8.txt" "$results/w1_instructions.txt"
