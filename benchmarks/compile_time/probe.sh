#!/usr/bin/env bash
# Compiles the probe units of probe.py (parse / rules / calls / hand / full, see there) and prints
# CPU seconds (user + sys) and peak memory of each, as CSV on stdout.
#
#   benchmarks/compile_time/probe.sh [--graphs chain_50,chain_200,...] [--compilers "g++ clang++"]
#       [--include DIR] [--kinds parse,rules,calls,hand,full,named]
#
# --include compiles against another copy of the headers (an experiment outside the tree).
# Prints to stdout only (redirect it into the build folder to keep it). Environment:
# STATEGRAPH_BUILD_DIR and BUILD_DIR as for measure.sh. The machine is shared: read CPU
# time, not wall.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/../.." && pwd)
build_top=${STATEGRAPH_BUILD_DIR:-$repo/build}
build=${BUILD_DIR:-$build_top/bench-compile-time}
graphs=chain_50,chain_200,dag_50,dag_200
compilers="g++ clang++"
include=$repo/include
kinds=parse,rules,calls,hand,full
while [[ $# -gt 0 ]]; do
  case $1 in
    --graphs) graphs=$2; shift 2 ;;
    --compilers) compilers=$2; shift 2 ;;
    --include) include=$2; shift 2 ;;
    --kinds) kinds=$2; shift 2 ;;
    *) echo "probe.sh: unknown argument: $1" >&2; exit 2 ;;
  esac
done

sizes=$(tr ',' '\n' <<<"$graphs" | sed 's/.*_//' | sort -nu | paste -sd,)
shapes=$(tr ',' '\n' <<<"$graphs" | sed 's/_.*//' | sort -u | paste -sd,)
mkdir -p "$build/gen" "$build/probes" "$build/obj"
python3 "$here/generate.py" "$build/gen" --sizes "$sizes" --shapes "$shapes"
python3 "$here/probe.py" "$build/gen" "$build/probes" --graphs "$graphs"

echo "compiler,graph,kind,cpu_s,max_rss_mib,exit"
for g in ${graphs//,/ }; do
  for kind in ${kinds//,/ }; do
    for cxx in $compilers; do
      tf=$(mktemp)
      status=0
      /usr/bin/time -f '%U %S %M' -o "$tf" "$cxx" -O2 -std=c++20 -I"$include" -c "$build/probes/$g.$kind.cpp" \
        -o "$build/obj/probe.o" >"$build/obj/probe.log" 2>&1 || status=$?
      read -r user sys rss < <(tail -1 "$tf")
      rm -f "$tf"
      echo "$cxx,$g,$kind,$(python3 -c "print(f'{$user + $sys:.2f}')"),$((rss / 1024)),$status"
    done
  done
done
