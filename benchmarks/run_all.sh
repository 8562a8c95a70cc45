#!/usr/bin/env bash
# Every benchmark in one command: installs what they need, runs them in the order their
# reports depend on, and regenerates every section of docs/performance.md and
# docs/img/compile_time.png.
#
#   benchmarks/run_all.sh [--quick] [--only PARTS] [--skip PARTS] [--headers REV]
#                         [--no-install] [--dry-run]
#
# PARTS is a comma-separated list of: runtime, peers, durable, compile-time.
#   runtime       benchmarks/run_runtime.sh           W1–W3, W3f against hand-written C++
#   peers         benchmarks/peers/run_peers.sh       oneTBB flow_graph, LangGraph.js (W1–W5)
#   durable       benchmarks/run_durable.sh           W4–W7, checkpointed runs
#   compile-time  benchmarks/compile_time/measure.sh  generated graphs, the PNG
# The peers report reads the run-time results and the durable report reads LangGraph.js's
# W4/W5, so that is the order they run in.
#
# --quick       fewer repetitions and sizes: a smoke run of the whole chain, not figures to
#               publish (the docs then say how many repetitions they rest on)
# --headers REV measure include/ as committed at REV (run-time, durable and compile time)
# --no-install  skip scripts/install-deps.sh and npm
# --dry-run     check the scripts and print what would run; installs and runs nothing
#
# Raw results go to $STATEGRAPH_BUILD_DIR/bench-results/<part> (default <repo>/build), never
# into the repository; each report reads them from there.
# Environment: JOBS (parallel builds, default 1: the machine is usually shared). BUILD_ROOT
# puts every part's build under one directory (BUILD_ROOT/<part>); otherwise each script
# uses its own default build directory under $STATEGRAPH_BUILD_DIR.
set -euo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
all_parts="runtime peers durable compile-time"
only=""
skip=""
quick=0
headers=""
install=1
dry=0
while [[ $# -gt 0 ]]; do
  case $1 in
    --only) only=${2//,/ }; shift 2 ;;
    --skip) skip=${2//,/ }; shift 2 ;;
    --quick) quick=1; shift ;;
    --headers) headers=$2; shift 2 ;;
    --no-install) install=0; shift ;;
    --dry-run) dry=1; shift ;;
    -h|--help) sed -n '2,27p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "run_all.sh: unknown argument: $1" >&2; exit 2 ;;
  esac
done

for p in $only $skip; do
  [[ " $all_parts " == *" $p "* ]] || { echo "run_all.sh: unknown part '$p' (parts: $all_parts)" >&2; exit 2; }
done
wanted() {
  [[ " $skip " != *" $1 "* ]] && { [[ -z $only ]] || [[ " $only " == *" $1 "* ]]; }
}

run() {  # prints each command; runs it unless --dry-run
  echo "+ $*"
  [[ $dry == 1 ]] || "$@"
}

build_dir_for() {  # part -> the BUILD_DIR its script should use ("" = the script's default)
  [[ -n ${BUILD_ROOT:-} ]] && echo "$BUILD_ROOT/$1" || echo ""
}
with_build_dir() {  # part command... : runs the command with that part's BUILD_DIR only
  local part=$1 dir
  shift
  dir=$(build_dir_for "$part")
  if [[ -n $dir ]]; then
    run env BUILD_DIR="$dir" "$@"
  else
    run env -u BUILD_DIR "$@"
  fi
}

# ---- the scripts exist and parse ----------------------------------------------------------
runtime_sh=$repo/benchmarks/run_runtime.sh
peers_sh=$repo/benchmarks/peers/run_peers.sh
durable_sh=$repo/benchmarks/run_durable.sh
compile_sh=$repo/benchmarks/compile_time/measure.sh
for s in "$runtime_sh" "$peers_sh" "$durable_sh" "$compile_sh"; do
  [[ -f $s ]] || { echo "run_all.sh: $s is missing" >&2; exit 1; }
  bash -n "$s" || { echo "run_all.sh: $s does not parse" >&2; exit 1; }
done

# ---- install ------------------------------------------------------------------------------
js_wanted=0
wanted peers && js_wanted=1
if [[ $install == 1 ]]; then
  echo "== install: Debian packages (compilers, Boost, SQLite, Google Benchmark, oneTBB, valgrind, gnuplot)"
  run "$repo/scripts/install-deps.sh" --bench
  if [[ $js_wanted == 1 ]]; then
    # LangGraph.js needs Node.js 20 or later (better-sqlite3 12). Debian 12's own nodejs is
    # 18, so it is installed from apt only when the configured repositories offer 20+.
    node_major=$(node --version 2>/dev/null | sed -E 's/^v([0-9]+).*/\1/' || true)
    if [[ -z $node_major || $node_major -lt 20 ]]; then
      candidate=$(apt-cache policy nodejs 2>/dev/null | awk '/Candidate:/ {print $2}' | sed -E 's/^([0-9]+:)?([0-9]+).*/\2/')
      if [[ -n $candidate && $candidate =~ ^[0-9]+$ && $candidate -ge 20 ]]; then
        sudo=""
        [[ $(id -u) -eq 0 ]] || sudo=sudo
        run $sudo apt-get install -y -qq --no-install-recommends nodejs
      else
        echo "run_all.sh: the LangGraph.js peer needs Node.js 20 or later and apt offers none;" >&2
        echo "  add a Node.js 20 repository (e.g. NodeSource) and rerun, or pass --skip peers" >&2
        exit 1
      fi
    fi
    # The pinned packages (package-lock.json); better-sqlite3 builds its native part here.
    if [[ ! -d $repo/benchmarks/peers/langgraphjs/node_modules ]]; then
      echo "== install: LangGraph.js packages (npm ci; better-sqlite3 compiles for a few minutes)"
      run npm --prefix "$repo/benchmarks/peers/langgraphjs" ci --no-audit --no-fund
    fi
  fi
fi

# ---- options per part ---------------------------------------------------------------------
runtime_args=()
durable_args=()
compile_args=()
peers_args=()
if [[ $quick == 1 ]]; then
  runtime_args+=(--compilers g++ --repetitions 3)
  durable_args+=(--repetitions 3 --turns 100)
  compile_args+=(--sizes 10,50 --reps 1 --no-trace --compilers g++)
fi
if [[ -n $headers ]]; then
  runtime_args+=(--headers "$headers")
  durable_args+=(--headers "$headers")
  compile_args+=(--snapshot "$headers")
fi
[[ $dry == 1 ]] && durable_args+=(--dry-run)

# ---- run ----------------------------------------------------------------------------------
started=$(date -u +%s)
ran=()
if wanted runtime; then
  echo "== run time W1–W3, W3f (docs: runtime section)"
  with_build_dir runtime "$runtime_sh" "${runtime_args[@]}"
  ran+=(runtime)
fi
if wanted peers; then
  echo "== peers: oneTBB flow_graph and LangGraph.js (docs: peers section)"
  with_build_dir peers "$peers_sh" "${peers_args[@]}"
  ran+=(peers)
fi
if wanted durable; then
  echo "== checkpointed runs W4–W7 (docs: durable section)"
  if [[ $dry == 1 ]]; then
    # run_durable.sh has a dry run of its own: let it list its steps.
    dry=0 with_build_dir durable "$durable_sh" "${durable_args[@]}"
  else
    with_build_dir durable "$durable_sh" "${durable_args[@]}"
  fi
  ran+=(durable)
fi
if wanted compile-time; then
  echo "== compile time (docs: compile-time section, docs/img/compile_time.png)"
  with_build_dir compile_time "$compile_sh" "${compile_args[@]}"
  ran+=(compile-time)
fi

if [[ $dry == 1 ]]; then
  echo "run_all.sh: dry run, nothing was installed or measured (parts: ${ran[*]:-none})"
else
  echo "run_all.sh: ${ran[*]:-nothing} done in $(( ($(date -u +%s) - started) / 60 )) min; see docs/performance.md"
fi
