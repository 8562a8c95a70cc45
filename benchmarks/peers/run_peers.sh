#!/usr/bin/env bash
# Runs the peers of the run-time workloads: oneTBB flow_graph (W1, W2; its own CMake project
# in onetbb/) and LangGraph.js (W1-W5; node project in langgraphjs/), then rewrites the peers
# section of docs/performance.md (between its marker comments) from what they measured.
#
#   benchmarks/peers/run_peers.sh [--results DIR] [--no-tbb] [--no-js] [--no-docs]
#
# Raw results go to --results DIR, default $STATEGRAPH_BUILD_DIR/bench-results/peers, never
# into the repository; the report reads run_runtime.sh's results beside it
# (bench-results/runtime) for the stategraph rows. Environment: STATEGRAPH_BUILD_DIR
# (default <repo>/build), BUILD_DIR for the oneTBB build (default
# $STATEGRAPH_BUILD_DIR/bench-peers). LangGraph.js's packages are installed from the
# committed package-lock.json (npm ci) when missing; the SQLite driver better-sqlite3
# compiles its native part from source, which takes minutes.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/../.." && pwd)
build_top=${STATEGRAPH_BUILD_DIR:-$repo/build}
build=${BUILD_DIR:-$build_top/bench-peers}
results=$build_top/bench-results/peers
tbb=1
js=1
docs=1
while [[ $# -gt 0 ]]; do
  case $1 in
    --results) results=$2; shift 2 ;;
    --no-tbb) tbb=0; shift ;;
    --no-js) js=0; shift ;;
    --no-docs) docs=0; shift ;;
    *) echo "run_peers.sh: unknown argument: $1" >&2; exit 2 ;;
  esac
done

mkdir -p "$results"
results=$(cd "$results" && pwd)

version_of() { dpkg-query -W -f='${Version}' "$1" 2>/dev/null || echo "not installed"; }
{
  echo "date: $(date -u '+%Y-%m-%d %H:%M UTC')"
  echo "machine: $(nproc) cores ($(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//')), shared with other work"
  echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
} > "$results/machine.txt"

if [[ $tbb == 1 ]]; then
  echo "== oneTBB flow_graph: build in $build/onetbb"
  cmake -S "$here/onetbb" -B "$build/onetbb" -DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_FLAGS_RELEASE= >/dev/null
  cmake --build "$build/onetbb" -j "${JOBS:-1}" >/dev/null
  {
    echo "oneTBB: libtbb-dev $(version_of libtbb-dev), Google Benchmark: libbenchmark-dev $(version_of libbenchmark-dev)"
    echo "oneTBB compiler: $(c++ --version | head -1), -O2"
  } >> "$results/machine.txt"
  "$build/onetbb/onetbb_flow_graph" --benchmark_enable_random_interleaving=true \
    --benchmark_out="$results/onetbb.json" --benchmark_out_format=json \
    --benchmark_report_aggregates_only=true
fi

if [[ $js == 1 ]]; then
  echo "== LangGraph.js"
  cd "$here/langgraphjs"
  if [[ ! -d node_modules ]]; then
    npm ci --no-audit --no-fund
  fi
  {
    echo "Node.js: $(node --version), npm $(npm --version)"
    node -e '
      const lock = require("./package-lock.json").packages;
      const names = ["@langchain/langgraph", "@langchain/langgraph-checkpoint", "@langchain/langgraph-checkpoint-sqlite",
                     "@langchain/core", "better-sqlite3"];
      console.log("LangGraph.js packages: " + names.map((n) => `${n} ${lock["node_modules/" + n].version}`).join(", "));
      const db = new (require("better-sqlite3"))(":memory:");
      console.log("SQLite (bundled in better-sqlite3): " + db.prepare("select sqlite_version() v").get().v);'
  } >> "$results/machine.txt"
  node bench.mjs | tee "$results/langgraphjs.jsonl"
  cd - >/dev/null
fi

echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)" >> "$results/machine.txt"

if [[ $docs == 1 ]]; then
  python3 "$here/report.py" "$results" "$repo/docs/performance.md" "$(dirname "$results")/runtime"
fi
echo "run_peers.sh: results in $results"
