#!/usr/bin/env bash
# Builds and runs the run-time benchmarks W1–W3 and W3f (library and hand-written baseline
# side by side), counts heap allocations and callgrind instructions per superstep, and
# regenerates the run-time section of docs/performance.md from what it measured.
#
#   benchmarks/run_runtime.sh [--compilers "g++ clang++"] [--repetitions 10]
#                             [--headers REV] [--results DIR] [--no-timing] [--no-docs]
#
# --headers REV measures the library as committed at REV (a clean export of that commit with
# this working tree's benchmarks/ laid over it) instead of the working tree — for figures
# that name the exact library version while others are still editing include/.
#
# --no-timing skips Google Benchmark (the check, allocation and instruction counts still
# run); the docs then need timings of an earlier run in the same results folder.
#
# Raw results (Google Benchmark JSON, allocation and instruction counts, machine.txt) go to
# --results DIR, default $STATEGRAPH_BUILD_DIR/bench-results/runtime, never into the
# repository. Environment: STATEGRAPH_BUILD_DIR (default <repo>/build), BUILD_DIR for the
# builds (default $STATEGRAPH_BUILD_DIR/bench-runtime), JOBS (default 1: the machine is
# shared).
set -euo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build_top=${STATEGRAPH_BUILD_DIR:-$repo/build}
build_root=${BUILD_DIR:-$build_top/bench-runtime}
results=$build_top/bench-results/runtime
jobs=${JOBS:-1}
compilers="g++ clang++"
repetitions=10
headers=""
timing=1
write_docs=1
while [[ $# -gt 0 ]]; do
  case $1 in
    --compilers) compilers=$2; shift 2 ;;
    --repetitions) repetitions=$2; shift 2 ;;
    --headers) headers=$2; shift 2 ;;
    --results) results=$2; shift 2 ;;
    --no-timing) timing=0; shift ;;
    --no-docs) write_docs=0; shift ;;
    *) echo "unknown argument: $1" >&2; exit 2 ;;
  esac
done

mkdir -p "$results"
results=$(cd "$results" && pwd)

# Invocations per callgrind run: N and 2N are run and the difference is divided by N, so the
# start-up cost cancels. Chosen so that N invocations are 20,000 supersteps of W1, W3, W3f.
declare -A callgrind_n=([W1]=2000 [W2]=2000 [W3]=20 [W3f]=20)
# The unit of each workload's figure, per invocation: supersteps for W1/W3/W3f, invocations
# for W2.
declare -A units=([W1]=10 [W2]=1 [W3]=1000 [W3f]=1000)

src=$repo
variant=tree
if [[ -n $headers ]]; then
  rev=$(git -C "$repo" rev-parse --short "$headers")
  src=$build_root/src-$rev
  variant=$rev
  rm -rf "$src" && mkdir -p "$src"
  git -C "$repo" archive "$rev" | tar -x -C "$src"
  rm -rf "$src/benchmarks" && cp -r "$repo/benchmarks" "$src/benchmarks"
fi

instructions_of() {  # binary workload side invocations -> total instructions executed
  local out log total
  out=$(mktemp) log=$(mktemp)
  if ! valgrind --tool=callgrind --callgrind-out-file="$out" "$1" run "$2" "$3" "$4" >"$log" 2>&1; then
    echo "callgrind failed on $*:" >&2
    tail -n 20 "$log" >&2
    exit 1
  fi
  total=$(awk '/^(summary|totals):/ {print $2; exit}' "$out")
  rm -f "$out" "$log"
  [[ $total =~ ^[0-9]+$ ]] || { echo "callgrind wrote no instruction total for $*" >&2; exit 1; }
  echo "$total"
}

for cxx in $compilers; do
  tag=$(basename "$cxx" | sed 's/[^A-Za-z0-9]//g')   # g++ -> g, clang++ -> clang
  [[ $tag == g ]] && tag=gcc
  build=$build_root/$tag-$variant
  echo "== $cxx: configure and build in $build"
  cmake -S "$src" -B "$build" -DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_COMPILER="$cxx" \
    -DCMAKE_CXX_FLAGS_RELEASE=-DNDEBUG -DSTATEGRAPH_BUILD_BENCHMARKS=ON \
    -DSTATEGRAPH_BUILD_TESTS=OFF -DSTATEGRAPH_BUILD_EXAMPLES=OFF >/dev/null
  cmake --build "$build" -j "$jobs" --target stategraph_bench_runtime stategraph_count_runtime stategraph_runtime_paths
  bin=$build/benchmarks

  echo "== $cxx: both sides end in the state each workload defines"
  "$bin/stategraph_count_runtime" check
  echo "== $cxx: invoke's short cuts agree with the general superstep"
  "$bin/stategraph_runtime_paths"

  load_before=$(cut -d' ' -f1-3 /proc/loadavg)
  if [[ $timing == 1 ]]; then
    echo "== $cxx: time (Google Benchmark, $repetitions repetitions, randomly interleaved)"
    "$bin/stategraph_bench_runtime" --benchmark_repetitions="$repetitions" \
      --benchmark_enable_random_interleaving=true --benchmark_min_time=0.2 \
      --benchmark_display_aggregates_only=true \
      --benchmark_out="$results/$tag-timing.json" --benchmark_out_format=json
  fi
  load_after=$(cut -d' ' -f1-3 /proc/loadavg)

  echo "== $cxx: heap allocations"
  "$bin/stategraph_count_runtime" allocs | tee "$results/$tag-allocs.jsonl"

  echo "== $cxx: callgrind instructions"
  {
    echo "{\"load_before\": \"$load_before\", \"load_after\": \"$load_after\", \"instructions\": ["
    first=1
    for w in W1 W2 W3 W3f; do
      n=${callgrind_n[$w]}
      for side in library hand; do
        one=$(instructions_of "$bin/stategraph_count_runtime" "$w" "$side" "$n")
        two=$(instructions_of "$bin/stategraph_count_runtime" "$w" "$side" $((2 * n)))
        per=$(awk -v a="$one" -v b="$two" -v n="$n" -v s="${units[$w]}" 'BEGIN {printf "%.2f", (b - a) / (n * s)}')
        echo "   $w $side: $per instructions per unit" >&2
        [[ $first == 1 ]] || echo ","
        first=0
        echo "{\"workload\": \"$w\", \"side\": \"$side\", \"invocations\": $n, \"ir_n\": $one, \"ir_2n\": $two, \"per_unit\": $per}"
      done
    done
    echo "]}"
  } >"$results/$tag-instructions.json"
done

# The machine and the versions the figures belong to.
{
  echo "date: $(date -u +%Y-%m-%dT%H:%MZ)"
  if [[ -n $headers ]]; then
    echo "library: include/ as committed at $variant"
  else
    echo "library: include/ of the working tree at $(git -C "$repo" rev-parse --short HEAD)$([[ -z $(git -C "$repo" status --porcelain -- include) ]] || echo ', with uncommitted changes')"
  fi
  echo "nproc: $(nproc)"
  echo "cpu: $(awk -F': ' '/model name/ {print $2; exit}' /proc/cpuinfo)"
  echo "kernel: $(uname -r)"
  for cxx in $compilers; do echo "compiler: $("$cxx" --version | head -n1)"; done
  for pkg in libbenchmark-dev libboost1.81-dev librange-v3-dev valgrind; do
    echo "package: $pkg $(dpkg-query -W -f='${Version}' "$pkg" 2>/dev/null || echo 'not installed')"
  done
} >"$results/machine.txt"
cat "$results/machine.txt"

for cxx in $compilers; do
  tag=$(basename "$cxx" | sed 's/[^A-Za-z0-9]//g')
  [[ $tag == g ]] && tag=gcc
  if [[ $write_docs == 1 && ! -f $results/$tag-timing.json ]]; then
    echo "== no timings of $cxx in $results (--no-timing): docs/performance.md left as it is"
    write_docs=0
  fi
done
if [[ $write_docs == 1 ]]; then
  python3 "$repo/benchmarks/runtime/report.py" "$results" "$repo/docs/performance.md" $compilers
  echo "== docs/performance.md updated"
fi
echo "== raw results in $results"

