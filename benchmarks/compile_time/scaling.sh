#!/usr/bin/env bash
# How compile time grows with the graph, and A/B comparisons of two copies of the headers:
# compiles the generated graphs of each size with `<compiler> -O2 -std=c++20 -c`, repeated and
# interleaved (every header copy, then the next repetition), and records CPU seconds (user +
# system) and peak memory of each compile, and once per graph and header copy the memory g++'s
# front end allocates (the GGC total of `g++ -fsyntax-only -ftime-report`), which is the same
# on every run: on a shared machine it shows what a change did when the times are noisy.
# Prints the least CPU time per point, and the cost of each node added since the size before.
#
#   benchmarks/compile_time/scaling.sh [--shapes dag] [--sizes 10,50,100,150,200,250,300]
#       [--reps 2] [--compilers g++] [--headers DIR[,DIR2]] [--out FILE]
#
# --headers: directories holding stategraph/ (default: this tree's include/). Two of them make
# an A/B comparison; a committed revision's headers can be had with
#   mkdir -p /tmp/h && git archive REV include | tar -x -C /tmp/h --strip-components=1
# --shapes takes chain, dag and loop (see generate.py). The raw rows go to --out, default
# $STATEGRAPH_BUILD_DIR/bench-results/compile_time/scaling.csv, never into the repository.
# Environment: STATEGRAPH_BUILD_DIR and BUILD_DIR as for measure.sh (generated sources go to
# $BUILD_DIR/scaling).
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/../.." && pwd)
build_top=${STATEGRAPH_BUILD_DIR:-$repo/build}
build=${BUILD_DIR:-$build_top/bench-compile-time}
shapes=dag
sizes=10,50,100,150,200,250,300
reps=2
compilers=g++
headers=$repo/include
out=$build_top/bench-results/compile_time/scaling.csv
while [[ $# -gt 0 ]]; do
  case $1 in
    --shapes) shapes=$2; shift 2 ;;
    --sizes) sizes=$2; shift 2 ;;
    --reps) reps=$2; shift 2 ;;
    --compilers) compilers=$2; shift 2 ;;
    --headers) headers=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    *) echo "scaling.sh: unknown argument: $1" >&2; exit 2 ;;
  esac
done
for tool in /usr/bin/time python3; do
  command -v "$tool" >/dev/null || { echo "scaling.sh: $tool is missing (scripts/install-deps.sh --bench)" >&2; exit 1; }
done
for h in ${headers//,/ }; do
  [[ -f $h/stategraph/stategraph.hpp ]] || { echo "scaling.sh: no stategraph/stategraph.hpp under $h" >&2; exit 2; }
done

gen=$build/scaling
mkdir -p "$gen" "$(dirname "$out")"
python3 "$here/generate.py" "$gen" --sizes "$sizes" --shapes "$shapes" >/dev/null

echo "headers,compiler,shape,nodes,rep,cpu_s,max_rss_mib,ggc_mb" >"$out"
ggc() {  # the front end's allocations: deterministic
  g++ -std=c++20 -I"$1" -fsyntax-only "$2" -ftime-report 2>&1 | awk '/TOTAL/ {sub(/M$/, "", $NF); print $NF}'
}
declare -A ggc_of
for shape in ${shapes//,/ }; do
  for n in ${sizes//,/ }; do
    for h in ${headers//,/ }; do ggc_of[$h,$shape,$n]=$(ggc "$h" "$gen/${shape}_$n.cpp"); done
  done
done
for rep in $(seq "$reps"); do
  for shape in ${shapes//,/ }; do
    for n in ${sizes//,/ }; do
      for cxx in $compilers; do
        for h in ${headers//,/ }; do
          tf=$(mktemp)
          /usr/bin/time -f '%U %S %M' -o "$tf" "$cxx" -O2 -std=c++20 -I"$h" -c "$gen/${shape}_$n.cpp" -o /dev/null
          read -r user sys rss <"$tf"
          rm -f "$tf"
          cpu=$(python3 -c "print(f'{$user + $sys:.2f}')")
          echo "$h,$cxx,$shape,$n,$rep,$cpu,$((rss / 1024)),${ggc_of[$h,$shape,$n]}" >>"$out"
          echo "  $cxx $shape $n rep $rep ($h): $cpu s, $((rss / 1024)) MiB" >&2
        done
      done
    done
  done
done

python3 - "$out" <<'PY'
import collections, csv, statistics, sys
rows = list(csv.DictReader(open(sys.argv[1])))
points = collections.defaultdict(list)
for r in rows:
    points[(r["headers"], r["compiler"], r["shape"], int(r["nodes"]))].append(r)
print("headers,compiler,shape,nodes,least_cpu_s,median_cpu_s,peak_mib,ggc_mb,ms_per_added_node")
last = {}
for key in sorted(points):
    h, cxx, shape, n = key
    cpu = [float(r["cpu_s"]) for r in points[key]]
    least = min(cpu)
    before = last.get((h, cxx, shape))
    per_node = f"{(least - before[1]) / (n - before[0]) * 1000:.1f}" if before else ""
    last[(h, cxx, shape)] = (n, least)
    peak = max(int(r["max_rss_mib"]) for r in points[key])
    print(f"{h},{cxx},{shape},{n},{least:.2f},{statistics.median(cpu):.2f},{peak},{points[key][0]['ggc_mb']},{per_node}")
PY
