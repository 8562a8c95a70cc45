#!/usr/bin/env bash
# sg::thread_pool{2} against sg::sequential (issue 17 item 4): W2, and a fan-out of eight
# nodes that each compute for 20 µs, interleaved round after round in one process.
# Wall-clock figures: run it on a quiet machine. Raw results go to the build folder.
#
#   benchmarks/run_pool.sh [rounds]        (default 31)
set -euo pipefail
cd "$(dirname "$0")/.."
build=${STATEGRAPH_BENCH_BUILD_DIR:-build-bench}
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release -DSTATEGRAPH_BUILD_BENCHMARKS=ON >/dev/null
cmake --build "$build" -j2 --target stategraph_bench_pool >/dev/null
out=$build/benchmarks/pool
mkdir -p "$out"
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
"$build/benchmarks/stategraph_bench_pool" "${1:-31}" "$out/raw.csv" | tee "$out/table.md"
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "raw results: $out/raw.csv"
