#!/usr/bin/env bash
# W8 and the async overhead (benchmarks/async/w8.cpp), with W8's LangGraph.js peer
# (benchmarks/peers/langgraphjs/w8.mjs) in the same run:
#   - W8: 10,000 concurrent runs of a 3-node chain, each node awaiting a 10 ms timer, on one
#     thread: stategraph's async_invoke ("w8") and the same chain on Asio alone ("w8asio",
#     the floor), interleaved, --repetitions times each; wall time, the process's CPU time,
#     RSS per waiting run;
#   - W8 on LangGraph.js (10,000 concurrent invokes of a StateGraph whose three nodes each
#     await a 10 ms setTimeout promise), --js-repetitions times (each takes minutes);
#   - with callgrind, the instructions per node step of W8 (runs of 2,000 and 1,000, the
#     difference divided by 3,000 steps, so start-up cancels out), stategraph and the floor;
#   - with callgrind, the instructions per W1 run: invoke, async_invoke with the plain nodes,
#     async_invoke with the nodes as coroutines that return at once (N and 2N runs).
# Then prints the medians and the ratios (LangGraph.js ÷ stategraph).
# Raw results go to --results DIR (default $STATEGRAPH_BUILD_DIR/bench-results/async), never
# into the repository; the figures in docs/performance.md ("Async runs") are copied from there.
# LangGraph.js's packages are installed (npm ci --ignore-scripts: W8 needs no native module)
# from the committed package-lock.json into $STATEGRAPH_BUILD_DIR/bench-peers/langgraphjs-w8.
#
#   benchmarks/run_async.sh [--repetitions 5] [--js-repetitions 1] [--js-runs 10000] [--no-js]
#                           [--no-callgrind] [--results DIR]
set -euo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build_top=${STATEGRAPH_BUILD_DIR:-$repo/build}
build=${BUILD_DIR:-$build_top/bench-async}
results=$build_top/bench-results/async
repetitions=5
js_repetitions=1
js_runs=10000
js=1
callgrind=1
while [[ $# -gt 0 ]]; do
  case $1 in
    --repetitions) repetitions=$2; shift 2 ;;
    --js-repetitions) js_repetitions=$2; shift 2 ;;
    --js-runs) js_runs=$2; shift 2 ;;
    --no-js) js=0; shift ;;
    --no-callgrind) callgrind=0; shift ;;
    --results) results=$2; shift 2 ;;
    *) echo "unknown option $1" >&2; exit 2 ;;
  esac
done
mkdir -p "$results"

cmake -S "$repo" -B "$build" -DCMAKE_BUILD_TYPE=Release -DSTATEGRAPH_BUILD_BENCHMARKS=ON >/dev/null
cmake --build "$build" --target stategraph_bench_async -j "${JOBS:-1}"
bin=$(find "$build" -name stategraph_bench_async -type f -perm -u+x | head -1)

js_dir=$build_top/bench-peers/langgraphjs-w8
if [[ $js == 1 ]]; then
  peer=$repo/benchmarks/peers/langgraphjs
  mkdir -p "$js_dir"
  if [[ ! -d $js_dir/node_modules ]] || ! cmp -s "$peer/package-lock.json" "$js_dir/package-lock.json"; then
    cp "$peer/package.json" "$peer/package-lock.json" "$js_dir/"
    (cd "$js_dir" && npm ci --ignore-scripts --no-audit --no-fund >/dev/null)
  fi
  cp "$peer/w8.mjs" "$js_dir/"
fi

{
  date -u '+date: %Y-%m-%d %H:%M UTC'
  echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs)"
  echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
  echo "commit: $(git -C "$repo" rev-parse --short HEAD)"
  echo "compiler: $(c++ --version | head -1)"
  if [[ $js == 1 ]]; then
    echo "Node.js: $(node --version); $(cd "$js_dir" && node -e '
      const lock = require("./package-lock.json").packages;
      const names = ["@langchain/langgraph", "@langchain/core"];
      console.log(names.map((n) => `${n} ${lock["node_modules/" + n].version}`).join(", "));')"
  fi
} > "$results/machine.txt"

: > "$results/w8.txt"
for ((r = 1; r <= repetitions; ++r)); do
  for side in w8 w8asio; do
    /usr/bin/time -f "$side max_rss_kb=%M" "$bin" "$side" 10000 10 >> "$results/w8.txt" 2>&1
  done
done
if [[ $js == 1 ]]; then
  for ((r = 1; r <= js_repetitions; ++r)); do
    (cd "$js_dir" && /usr/bin/time -f "w8js max_rss_kb=%M" node --expose-gc w8.mjs "$js_runs" 10) >> "$results/w8.txt" 2>&1
  done
fi
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)" >> "$results/machine.txt"

if [[ $callgrind == 1 ]]; then
  instructions() {
    valgrind --tool=callgrind --callgrind-out-file=/dev/null "$@" 2>&1 | sed -n 's/.*Collected : \([0-9]*\).*/\1/p'
  }
  : > "$results/w8_instructions.txt"
  for side in w8 w8asio; do
    small=$(instructions "$bin" "$side" 1000 10)
    large=$(instructions "$bin" "$side" 2000 10)
    echo "$side instructions_per_node_step=$(( (large - small) / 3000 ))" >> "$results/w8_instructions.txt"
  done
  : > "$results/w1_instructions.txt"
  for side in sync async coro; do
    small=$(instructions "$bin" w1 "$side" 200)
    large=$(instructions "$bin" w1 "$side" 400)
    echo "w1 $side instructions_per_run=$(( (large - small) / 200 ))" >> "$results/w1_instructions.txt"
  done
fi

python3 - "$results" > "$results/summary.txt" <<'EOF'
import re, statistics, sys, pathlib
results = pathlib.Path(sys.argv[1])
rows = {}
for line in (results / "w8.txt").read_text().splitlines():
    fields = dict(f.split("=", 1) for f in line.split()[1:] if "=" in f)
    side = line.split()[0]
    if "wall_ms" in fields:
        rows.setdefault(side, []).append(fields)
    elif "max_rss_kb" in fields and rows.get(side):
        rows[side][-1]["max_rss_kb"] = fields["max_rss_kb"]
names = {"w8": "stategraph async_invoke", "w8asio": "Asio alone (the floor)", "w8js": "LangGraph.js"}
median = {}
print("W8: 3-node chain, 10 ms timer per node, one thread; medians (min-max) over the runs")
for side in ("w8", "w8asio", "w8js"):
    if side not in rows:
        continue
    got = rows[side]
    wrong = [r for r in got if r["right"] != r["runs"]]
    def col(key):
        values = [float(r[key]) for r in got]
        return statistics.median(values), min(values), max(values)
    wall, cpu, per_run = col("wall_ms"), col("cpu_ms"), col("bytes_per_run")
    median[side] = (wall[0], cpu[0])
    print(f"  {names[side]:26} runs={got[0]['runs']:>6} ({len(got)}x)  wall {wall[0]:.1f} ms ({wall[1]:.1f}-{wall[2]:.1f}) "
          f"= {wall[0] / float(got[0]['ideal_ms']):.2f}x ideal  cpu {cpu[0]:.1f} ms ({cpu[1]:.1f}-{cpu[2]:.1f})  "
          f"rss per waiting run {per_run[0]:.0f} B" + ("  WRONG RESULTS" if wrong else ""))
if "w8" in median:
    for side in ("w8asio", "w8js"):
        if side in median:
            js_runs = float(rows[side][0]["runs"]); sg_runs = float(rows["w8"][0]["runs"])
            scale = sg_runs / js_runs  # per run, if the peer ran fewer runs
            print(f"  {names[side]} / stategraph: wall {median[side][0] / median['w8'][0]:.2f}x, "
                  f"cpu per run {median[side][1] * scale / median['w8'][1]:.2f}x")
for name in ("w8_instructions.txt", "w1_instructions.txt"):
    path = results / name
    if path.exists():
        print(path.read_text().rstrip())
EOF
cat "$results/machine.txt" "$results/summary.txt"
