#!/usr/bin/env bash
# W5 on sg::postgres_store against a raw libpq INSERT of the same bytes, with
# synchronous_commit on and off, on a throwaway cluster (scripts/pg-cluster.sh; a Unix
# socket, the server's defaults but for the cluster script's own settings); and the
# LangGraph.js peer, W5 on its Postgres checkpointer (peers/langgraphjs/bench_postgres.mjs),
# against the same server. The two programs alternate, one repetition each at a time, so a
# machine whose load changes during the run weighs on both sides alike.
#
#   benchmarks/run_postgres.sh [--repetitions 5] [--results DIR] [--no-peer]
#
# Results go to $STATEGRAPH_BUILD_DIR/bench-results/postgres (default build/...):
# w5_postgres_raw.jsonl (a line per program, side and repetition) and w5_postgres.json
# (medians over the repetitions and the ratios). The peer's npm packages are installed
# with `npm ci` from the committed package-lock.json when missing.
set -euo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build_top=${STATEGRAPH_BUILD_DIR:-$repo/build}
build=${BUILD_DIR:-$build_top/bench-postgres}
results=$build_top/bench-results/postgres
jobs=${JOBS:-1}
repetitions=5
peer=1
while [[ $# -gt 0 ]]; do
  case $1 in
    --repetitions) repetitions=$2; shift 2 ;;
    --results) results=$2; shift 2 ;;
    --no-peer) peer=0; shift ;;
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
peer_dir=$repo/benchmarks/peers/langgraphjs
if ((peer)) && [[ ! -d $peer_dir/node_modules/@langchain/langgraph-checkpoint-postgres ]]; then
  echo "== install: LangGraph.js packages (npm ci)" >&2
  npm --prefix "$peer_dir" ci --no-audit --no-fund >&2
fi
raw=$results/w5_postgres_raw.jsonl
: >"$raw"
for ((r = 0; r < repetitions; ++r)); do
  echo "== repetition $((r + 1)) of $repetitions (load average: $(cut -d' ' -f1-3 /proc/loadavg))" >&2
  cpp() { "$build/benchmarks/durable/stategraph_postgres_w5" "$conninfo" 1 "$r"; }
  js() { (cd "$peer_dir" && node bench_postgres.mjs "$conninfo" 1); }
  # Alternate which program goes first.
  if ((peer == 0)); then
    cpp
  elif ((r % 2 == 0)); then
    cpp; js
  else
    js; cpp
  fi | awk -v r="$r" -v load="$(cut -d' ' -f1 /proc/loadavg)" '{ sub(/}$/, ", \"repetition\": " r ", \"load\": " load "}"); print }' >>"$raw"
done
python3 - "$raw" "$repetitions" >"$results/w5_postgres.json" <<'PY'
import json, statistics, sys
lines = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
def med(side, sync):
    v = [l["wall_us_per_step"] for l in lines if l["side"] == side and l["synchronous_commit"] == sync]
    return (statistics.median(v), min(v), max(v)) if v else None
out = []
for sync in (True, False):
    store, raw, peer = med("postgres_store", sync), med("raw_insert", sync), med("langgraphjs", sync)
    for name, m in (("postgres_store", store), ("raw_insert", raw), ("langgraphjs", peer)):
        if m is None:
            continue
        row = {"kind": "w5_postgres_summary", "side": name, "synchronous_commit": sync,
               "wall_us_per_step_median": round(m[0], 1), "min": round(m[1], 1), "max": round(m[2], 1),
               "over_raw_insert": round(m[0] / raw[0], 3)}
        if name == "langgraphjs":
            row["over_postgres_store"] = round(m[0] / store[0], 2)
        row["repetitions"] = int(sys.argv[2])
        out.append(row)
for row in out:
    print(json.dumps(row))
PY
cat "$results/w5_postgres.json"
