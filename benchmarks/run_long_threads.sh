#!/usr/bin/env bash
# Long threads (issue 15; docs/checkpoints.md, "Long threads"): builds and runs
#   W7h/W7c  long_resume: a thread continued by the app that ran it (hot: CPU per turn at
#            turn 10 and at the last turn, less a copy of the state made as the turn makes
#            it, and callgrind instructions of the same windows)
#            and by a new app (cold: loading the head state vs one nlohmann parse of it)
#   W5 modes durable_modes time: W5 in sync and async mode and the raw insert, interleaved,
#            also with a node that computes 25 and 50 µs (what async can overlap)
#   W4/W5    durable_modes count under callgrind, this tree against --baseline REV
#
#   benchmarks/run_long_threads.sh [--baseline REV] [--hot-turns 5000] [--cold 10,1000,10000]
#                                  [--repetitions 15]
#
# Raw results go to $STATEGRAPH_BUILD_DIR/bench-results/long_threads (default build/...).
# CXX (default g++) builds the baseline's driver; JOBS (default 1) the rest.
set -euo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build_top=${STATEGRAPH_BUILD_DIR:-$repo/build}
build=$build_top/bench-long-threads
results=$build_top/bench-results/long_threads
cxx=${CXX:-g++}
jobs=${JOBS:-1}
baseline="" hot_turns=5000 cold=10,1000,10000 repetitions=15
while [[ $# -gt 0 ]]; do
  case $1 in
    --baseline) baseline=$2; shift 2 ;;
    --hot-turns) hot_turns=$2; shift 2 ;;
    --cold) cold=$2; shift 2 ;;
    --repetitions) repetitions=$2; shift 2 ;;
    *) echo "run_long_threads.sh: unknown argument: $1" >&2; exit 2 ;;
  esac
done
mkdir -p "$results"

cmake -S "$repo" -B "$build" -DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_COMPILER="$cxx" \
  -DCMAKE_CXX_FLAGS_RELEASE=-DNDEBUG -DSTATEGRAPH_BUILD_BENCHMARKS=ON -DSTATEGRAPH_BUILD_TESTS=OFF \
  -DSTATEGRAPH_BUILD_EXAMPLES=OFF >/dev/null
cmake --build "$build" -j "$jobs" --target stategraph_long_resume stategraph_durable_modes
bin=$build/benchmarks/durable

instructions() {  # out-file -> total instructions of a callgrind profile
  awk '/^(summary|totals):/ {print $2; exit}' "$1"
}

echo "== W7h/W7c: CPU time"
"$bin/stategraph_long_resume" --hot-turns "$hot_turns" --cold "$cold" --out "$results/long_resume.jsonl"

echo "== W7h: callgrind, a dump per turn of each window and per copy (summed per window)"
rm -f "$results"/hot.callgrind*
valgrind --tool=callgrind --collect-atstart=no --callgrind-out-file="$results/hot.callgrind" \
  "$bin/stategraph_long_resume" --hot-turns "$hot_turns" --cold '' >/dev/null 2>"$results/hot.valgrind.log"
for f in "$results"/hot.callgrind.*; do
  # -a: a profile holds binary bytes past its header, and grep would print no line for it.
  echo "$(grep -a -m1 '^desc: Trigger' "$f" | sed 's/.*Client Request: //') $(instructions "$f")"
done | awk '{n[$1 " " $2] += $3; c[$1 " " $2]++} END {for (k in n) print k, n[k], c[k]}' | sort |
  tee "$results/hot-instructions.txt"

echo "== W5: sync, async, raw insert; then with a node that computes 25 and 50 µs"
{
  "$bin/stategraph_durable_modes" time "$repetitions"
  "$bin/stategraph_durable_modes" time "$repetitions" 25
  "$bin/stategraph_durable_modes" time "$repetitions" 50
} | tee "$results/w5-modes.jsonl"

echo "== W4/W5: callgrind instructions per superstep"
count() {  # binary workload n -> instructions
  local out; out=$(mktemp)
  valgrind --tool=callgrind --callgrind-out-file="$out" "$1" count "$2" "$3" >/dev/null 2>&1
  instructions "$out"; rm -f "$out"
}
sides=("tree:$bin/stategraph_durable_modes")
if [[ -n $baseline ]]; then
  rev=$(git -C "$repo" rev-parse --short "$baseline")
  src=$build/src-$rev
  rm -rf "$src" && mkdir -p "$src" && git -C "$repo" archive "$rev" include | tar -x -C "$src"
  # The driver of this tree against the baseline's headers (it needs nothing newer in `count`).
  "$cxx" -std=c++20 -O2 -g -gdwarf-4 -DNDEBUG -I"$src/include" "$repo/benchmarks/durable/modes.cpp" \
    -o "$build/modes-$rev" -lsqlite3 -lpthread
  sides+=("$rev:$build/modes-$rev")
fi
declare -A n=([W4]=4 [W5]=3) unit=([W4]=1000 [W5]=200)
{
  for side in "${sides[@]}"; do
    for w in W4 W5; do
      one=$(count "${side#*:}" "$w" "${n[$w]}")
      two=$(count "${side#*:}" "$w" $((2 * n[$w])))
      echo "{\"kind\": \"instructions\", \"library\": \"${side%%:*}\", \"workload\": \"$w\", \"per_superstep\": $(awk -v a="$one" -v b="$two" -v k="${n[$w]}" -v u="${unit[$w]}" 'BEGIN {printf "%.1f", (b - a) / (k * u)}')}"
    done
  done
} | tee "$results/w4-w5-instructions.jsonl"
echo "load: $(cut -d' ' -f1-3 /proc/loadavg); nproc $(nproc); $("$cxx" --version | head -n1)" | tee "$results/machine.txt"
echo "== summary: the issue's goals"
python3 - "$results" <<'EOF' | tee "$results/summary.txt"
import json, pathlib, sys
d = pathlib.Path(sys.argv[1])
rows = [json.loads(l) for l in (d / "long_resume.jsonl").read_text().splitlines() if l.strip()]
for store in ("memory", "sqlite"):
    hot = sorted((r for r in rows if r["kind"] == "hot" and r["store"] == store), key=lambda r: r["turn"])
    if len(hot) >= 2:
        a, b = hot[0], hot[-1]
        print(f"hot {store}: library CPU per turn {a['library_us']:.1f} us (window ending at turn {a['turn']}), "
              f"{b['library_us']:.1f} us (turn {b['turn']}): {b['library_us'] / a['library_us']:.2f}x (goal <= 1.2x); "
              f"value bytes per turn {a['value_bytes_per_turn']:.0f} and {b['value_bytes_per_turn']:.0f}")
counts = {}
if (d / "hot-instructions.txt").exists():
    for line in (d / "hot-instructions.txt").read_text().splitlines():
        part = line.split()
        if len(part) == 4:  # kind, label, instructions, dumps (one per turn or copy)
            counts[(part[0], part[1])] = (int(part[2]), int(part[3]))
for (kind, label), (n, k) in sorted(counts.items()):
    if kind == "turns" and ("copies", label) in counts:
        per = (n - counts[("copies", label)][0]) / k
        print(f"hot {label}: callgrind, a turn minus one copy of its state: {per:,.0f} instructions")
for r in rows:
    if r["kind"] == "cold":
        print(f"cold {r['store']}, {r['turns']} turns ({r['state_bytes']} bytes): load {r['load_us']:.1f} us / "
              f"parse {r['parse_us']:.1f} us = {r['ratio']:.2f} (goal <= 1.3)")
EOF
echo "== raw results in $results"
