#!/usr/bin/env bash
# What recording the graph's description costs a thread's first invoke (issue 20;
# benchmarks/durable/first_write.cpp): the same first invoke with the description recorded
# and without, side by side in one run —
#   instructions  callgrind, N and 2N first invokes (the difference over N), each side
#   bytes         the text handed to the store, SQLite WAL bytes per first invoke, file bytes
#                 per thread
#   time          CPU per first invoke, the sides interleaved, medians
#
#   benchmarks/run_first_write.sh [--repetitions 11] [--threads 200] [--no-callgrind]
#
# Raw results go to $STATEGRAPH_BUILD_DIR/bench-results/first_write (default build/...),
# never into the repository. CXX (default g++) builds the driver.
set -euo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build_top=${STATEGRAPH_BUILD_DIR:-$repo/build}
results=$build_top/bench-results/first_write
cxx=${CXX:-g++}
repetitions=11 threads=200 callgrind=1
while [[ $# -gt 0 ]]; do
  case $1 in
    --repetitions) repetitions=$2; shift 2 ;;
    --threads) threads=$2; shift 2 ;;
    --no-callgrind) callgrind=0; shift ;;
    *) echo "run_first_write.sh: unknown argument: $1" >&2; exit 2 ;;
  esac
done
mkdir -p "$results"
bin=$results/first_write
# As the benchmarks' CMake targets build (stategraph_bench_options).
"$cxx" -std=c++20 -O2 -g -gdwarf-4 -DNDEBUG -I"$repo/include" "$repo/benchmarks/durable/first_write.cpp" \
  -o "$bin" -lsqlite3 -lpthread
echo "load: $(cut -d' ' -f1-3 /proc/loadavg); nproc $(nproc); $("$cxx" --version | head -n1); $(git -C "$repo" rev-parse --short HEAD)" \
  | tee "$results/machine.txt"

echo "== bytes"
"$bin" bytes "$threads" | tee "$results/bytes.tsv"

if [[ $callgrind == 1 ]]; then
  echo "== instructions per first invoke (callgrind, N and 2N)"
  instructions() {  # out-file -> total instructions of a callgrind profile
    awk '/^(summary|totals):/ {print $2; exit}' "$1"
  }
  count() {  # workload side n -> instructions
    local out; out=$(mktemp)
    valgrind --tool=callgrind --callgrind-out-file="$out" "$bin" count "$1" "$2" "$3" >/dev/null 2>&1
    instructions "$out"; rm -f "$out"
  }
  declare -A n=([w6-memory]=10 [w6-sqlite]=4 [w6-short-memory]=40 [w6-short-sqlite]=20 [w1-memory]=20 [w1-sqlite]=10)
  {
    printf 'workload\twith\twithout\tdifference\tratio\n'
    for w in w6-memory w6-sqlite w6-short-memory w6-short-sqlite w1-memory w1-sqlite; do
      k=${n[$w]}
      with=$(( ($(count "$w" with $((2 * k))) - $(count "$w" with "$k")) / k ))
      without=$(( ($(count "$w" without $((2 * k))) - $(count "$w" without "$k")) / k ))
      printf '%s\t%d\t%d\t%d\t%s\n' "$w" "$with" "$without" $((with - without)) \
        "$(awk -v a="$with" -v b="$without" 'BEGIN {printf "%.3f", a / b}')"
    done
  } | tee "$results/instructions.tsv"
fi

echo "== CPU time per first invoke (medians of $repetitions interleaved repetitions)"
"$bin" time "$repetitions" | tee "$results/time.tsv"
echo "== raw results in $results"
