#!/usr/bin/env bash
# Builds and runs the checkpointed workloads W4–W7 (durable/), with W3 without a store, the
# hand-written agent loop and the raw SQLite insert of the same bytes in the same runs, and
# regenerates the durable section of docs/performance.md from what it measured.
#
#   benchmarks/run_durable.sh [--compilers "g++"] [--repetitions 10] [--turns 500]
#                             [--headers REV] [--results DIR] [--no-callgrind] [--no-docs]
#                             [--dry-run]
#
# --headers REV measures the library as committed at REV (see run_runtime.sh).
# --dry-run prints the steps without building or running anything.
#
# Raw results go to --results DIR, default $STATEGRAPH_BUILD_DIR/bench-results/durable, never
# into the repository; the report reads LangGraph.js's W4/W5 from the peers' results beside
# it (bench-results/peers). Environment: STATEGRAPH_BUILD_DIR (default <repo>/build),
# BUILD_DIR for the builds (default $STATEGRAPH_BUILD_DIR/bench-durable), JOBS (default 1:
# the machine is shared). SQLite files go to the system temp directory (TMPDIR; it must be a
# local disk).
set -euo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build_top=${STATEGRAPH_BUILD_DIR:-$repo/build}
build_root=${BUILD_DIR:-$build_top/bench-durable}
results=$build_top/bench-results/durable
jobs=${JOBS:-1}
compilers="g++"
repetitions=10
turns=500
headers=""
callgrind=1
write_docs=1
dry=0
while [[ $# -gt 0 ]]; do
  case $1 in
    --compilers) compilers=$2; shift 2 ;;
    --repetitions) repetitions=$2; shift 2 ;;
    --turns) turns=$2; shift 2 ;;
    --headers) headers=$2; shift 2 ;;
    --results) results=$2; shift 2 ;;
    --no-callgrind) callgrind=0; shift ;;
    --no-docs) write_docs=0; shift ;;
    --dry-run) dry=1; shift ;;
    *) echo "run_durable.sh: unknown argument: $1" >&2; exit 2 ;;
  esac
done

run() {  # prints each step; runs it unless --dry-run
  echo "+ $*" >&2
  [[ $dry == 1 ]] || "$@"
}

if [[ $dry == 0 ]]; then
  mkdir -p "$results"
  results=$(cd "$results" && pwd)
fi
peers_results=$(dirname "$results")/peers

# Invocations per callgrind run (N and 2N are run, the difference divided by N): a few
# million instructions each, so valgrind's start-up is small and the runs stay short.
declare -A callgrind_n=([W3/no_store]=20 [W4/memory_store]=4 [W5/sqlite_store]=3 [W5/raw_sqlite]=3
                        [W6/no_store]=200 [W6/memory_store]=40 [W6/sqlite_store]=10 [W6/hand]=200)
# The unit of each figure, per invocation: supersteps for W3–W5, invocations for W6.
declare -A units=([W3]=1000 [W4]=1000 [W5]=200 [W6]=1)
sides="W3/no_store W4/memory_store W5/sqlite_store W5/raw_sqlite W6/no_store W6/memory_store W6/sqlite_store W6/hand"

src=$repo
variant=tree
if [[ -n $headers ]]; then
  rev=$(git -C "$repo" rev-parse --short "$headers")
  src=$build_root/src-$rev
  variant=$rev
  if [[ $dry == 0 ]]; then
    rm -rf "$src" && mkdir -p "$src"
    git -C "$repo" archive "$rev" | tar -x -C "$src"
    rm -rf "$src/benchmarks" && cp -r "$repo/benchmarks" "$src/benchmarks"
  fi
fi

instructions_of() {  # binary workload side invocations [profile-file] -> total instructions
  local out log total
  out=${5:-$(mktemp)} log=$(mktemp)
  if ! valgrind --tool=callgrind --callgrind-out-file="$out" "$1" run "$2" "$3" "$4" >"$log" 2>&1; then
    echo "callgrind failed on $*:" >&2
    tail -n 20 "$log" >&2
    exit 1
  fi
  total=$(awk '/^(summary|totals):/ {print $2; exit}' "$out")
  [[ -n ${5:-} ]] || rm -f "$out"
  rm -f "$log"
  [[ $total =~ ^[0-9]+$ ]] || { echo "callgrind wrote no instruction total for $*" >&2; exit 1; }
  echo "$total"
}

for cxx in $compilers; do
  tag=$(basename "$cxx" | sed 's/[^A-Za-z0-9]//g')   # g++ -> g, clang++ -> clang
  [[ $tag == g ]] && tag=gcc
  build=$build_root/$tag-$variant
  bin=$build/benchmarks/durable
  echo "== $cxx: configure and build in $build"
  run cmake -S "$src" -B "$build" -DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_COMPILER="$cxx" \
    -DCMAKE_CXX_FLAGS_RELEASE=-DNDEBUG -DSTATEGRAPH_BUILD_BENCHMARKS=ON \
    -DSTATEGRAPH_BUILD_TESTS=OFF -DSTATEGRAPH_BUILD_EXAMPLES=OFF
  run cmake --build "$build" -j "$jobs" --target stategraph_bench_durable stategraph_count_durable stategraph_long_thread

  echo "== $cxx: every side ends in the state its workload defines"
  run "$bin/stategraph_count_durable" check

  echo "== $cxx: bytes each checkpoint hands the store"
  if [[ $dry == 1 ]]; then echo "+ $bin/stategraph_count_durable bytes > $results/$tag-bytes.jsonl" >&2
  else "$bin/stategraph_count_durable" bytes | tee "$results/$tag-bytes.jsonl"; fi

  echo "== $cxx: time (Google Benchmark, $repetitions repetitions, randomly interleaved)"
  load_before=$(cut -d' ' -f1-3 /proc/loadavg)
  run "$bin/stategraph_bench_durable" --benchmark_repetitions="$repetitions" \
    --benchmark_enable_random_interleaving=true --benchmark_min_time=0.2 \
    --benchmark_display_aggregates_only=true \
    --benchmark_out="$results/$tag-timing.json" --benchmark_out_format=json
  load_after=$(cut -d' ' -f1-3 /proc/loadavg)

  echo "== $cxx: heap allocations"
  if [[ $dry == 1 ]]; then echo "+ $bin/stategraph_count_durable allocs > $results/$tag-allocs.jsonl" >&2
  else "$bin/stategraph_count_durable" allocs | tee "$results/$tag-allocs.jsonl"; fi

  if [[ $callgrind == 1 ]]; then
    echo "== $cxx: callgrind instructions"
    if [[ $dry == 1 ]]; then
      echo "+ valgrind --tool=callgrind $bin/stategraph_count_durable run W SIDE N|2N for: $sides" >&2
    else
      {
        echo "{\"load_before\": \"$load_before\", \"load_after\": \"$load_after\", \"instructions\": ["
        first=1
        for ws in $sides; do
          w=${ws%/*} side=${ws#*/} n=${callgrind_n[$ws]}
          one=$(instructions_of "$bin/stategraph_count_durable" "$w" "$side" "$n")
          profile=""
          [[ $ws == W4/memory_store || $ws == W5/sqlite_store ]] && profile=$build/$w.callgrind
          two=$(instructions_of "$bin/stategraph_count_durable" "$w" "$side" $((2 * n)) $profile)
          if [[ -n $profile ]]; then
            # Where the instructions go: self cost per function (never counted twice), which
            # report.py sums into categories.
            callgrind_annotate --auto=no --threshold=99.5 "$profile" >"$results/$tag-$w-profile.txt"
            rm -f "$profile"
          fi
          per=$(awk -v a="$one" -v b="$two" -v n="$n" -v s="${units[$w]}" 'BEGIN {printf "%.2f", (b - a) / (n * s)}')
          echo "   $w $side: $per instructions per unit" >&2
          [[ $first == 1 ]] || echo ","
          first=0
          echo "{\"workload\": \"$w\", \"side\": \"$side\", \"invocations\": $n, \"ir_n\": $one, \"ir_2n\": $two, \"per_unit\": $per}"
        done
        echo "]}"
      } >"$results/$tag-instructions.json"
    fi
  else
    [[ $dry == 1 ]] || echo "{\"load_before\": \"$load_before\", \"load_after\": \"$load_after\", \"instructions\": []}" \
      >"$results/$tag-instructions.json"
  fi

  echo "== $cxx: W7 long thread, $turns turns"
  run "$bin/stategraph_long_thread" --turns "$turns" --check --out "$results/$tag-w7.json"
done

if [[ $dry == 0 ]]; then
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
    echo "temp directory: $(df -P "${TMPDIR:-/tmp}" | awk 'NR == 2 {print $1 " mounted on " $6}')"
    for cxx in $compilers; do echo "compiler: $("$cxx" --version | head -n1)"; done
    for pkg in libsqlite3-dev nlohmann-json3-dev libbenchmark-dev libboost1.81-dev valgrind; do
      echo "package: $pkg $(dpkg-query -W -f='${Version}' "$pkg" 2>/dev/null || echo 'not installed')"
    done
  } >"$results/machine.txt"
  cat "$results/machine.txt"
fi

if [[ $write_docs == 1 ]]; then
  run python3 "$repo/benchmarks/durable/report.py" "$results" "$repo/docs/performance.md" \
    "$peers_results" $compilers
  [[ $dry == 1 ]] || echo "== docs/performance.md updated"
fi
echo "== raw results in $results"
