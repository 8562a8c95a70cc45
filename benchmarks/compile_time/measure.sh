#!/usr/bin/env bash
# Measures what a graph costs to compile: wall seconds, CPU seconds and peak memory of
# `<compiler> -O2 -std=c++20 -c` on the generated graphs (chain, layered dag and loop through
# a chain of 10, 50, 100, 200, 400 and 1,000 nodes), the time until the error for one
# violation of each rule SG001..SG011, and where the time goes for the largest graphs (clang
# -ftime-trace, g++ -ftime-report; both with the constexpr cap raised, so that a graph over
# the cap is still traced). Then draws docs/img/compile_time.png and rewrites the
# compile-time section of docs/performance.md (between its marker comments) from what it
# measured; --no-docs leaves docs/ (the picture too) untouched.
#
#   benchmarks/compile_time/measure.sh [--sizes 10,50,100,200,400,1000] [--shapes chain,dag,loop]
#       [--reps 3] [--violation-reps N] [--jobs 1] [--compilers "g++ clang++"] [--snapshot REV]
#       [--include DIR --headers TEXT] [--results DIR] [--no-trace] [--no-docs]
#
# --snapshot REV measures the headers of a committed revision (git archive of include/)
# instead of the working tree, so that edits in progress do not change the figures.
# --include DIR measures a copy of the headers elsewhere; --headers says what it holds (for
# the report), e.g. "5abcb3a with schedule.hpp, rules.hpp of 1234567".
# --violation-reps 0 skips the violations.
#
# Raw results (graphs.csv, violations.csv, summary.csv, the plot's .dat files, traces,
# machine.txt) go to --results DIR, default $STATEGRAPH_BUILD_DIR/bench-results/compile_time,
# never into the repository. Environment: STATEGRAPH_BUILD_DIR (default <repo>/build),
# BUILD_DIR for generated sources and objects (default $STATEGRAPH_BUILD_DIR/bench-compile-time).
# The machine is shared: each point is measured --reps times, interleaved, and the median is
# reported. --jobs 2 runs the compilers of one point side by side (halves the time; each then
# competes with the other).
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/../.." && pwd)
build_top=${STATEGRAPH_BUILD_DIR:-$repo/build}
build=${BUILD_DIR:-$build_top/bench-compile-time}
results=$build_top/bench-results/compile_time
sizes=10,50,100,200,400,1000
shapes=chain,dag,loop
reps=3
violation_reps=""
jobs=1
compilers="g++ clang++"
snapshot=""
include_dir=""
headers_text=""
trace=1
docs=1
while [[ $# -gt 0 ]]; do
  case $1 in
    --sizes) sizes=$2; shift 2 ;;
    --shapes) shapes=$2; shift 2 ;;
    --results) results=$2; shift 2 ;;
    --reps) reps=$2; shift 2 ;;
    --violation-reps) violation_reps=$2; shift 2 ;;
    --jobs) jobs=$2; shift 2 ;;
    --compilers) compilers=$2; shift 2 ;;
    --snapshot) snapshot=$2; shift 2 ;;
    --include) include_dir=$(cd "$2" && pwd); shift 2 ;;
    --headers) headers_text=$2; shift 2 ;;
    --no-trace) trace=0; shift ;;
    --no-docs) docs=0; shift ;;
    *) echo "measure.sh: unknown argument: $1" >&2; exit 2 ;;
  esac
done

violation_reps=${violation_reps:-$reps}
for tool in /usr/bin/time python3 gnuplot; do
  command -v "$tool" >/dev/null || { echo "measure.sh: $tool is missing (scripts/install-deps.sh --bench)" >&2; exit 1; }
done

gen=$build/gen
objs=$build/obj
mkdir -p "$results" "$gen" "$objs"
results=$(cd "$results" && pwd)

include=$repo/include
headers="working tree of $(git -C "$repo" rev-parse --short HEAD)"
if [[ -n $snapshot ]]; then
  rev=$(git -C "$repo" rev-parse --short "$snapshot")
  include=$build/include-$rev/include
  rm -rf "$build/include-$rev"
  mkdir -p "$build/include-$rev"
  git -C "$repo" archive "$rev" include | tar -x -C "$build/include-$rev"
  headers="commit $rev"
elif [[ -n $include_dir ]]; then
  [[ -n $headers_text ]] || { echo "measure.sh: --include needs --headers (what the copy holds)" >&2; exit 2; }
  include=$include_dir
  headers=$headers_text
elif [[ -n $(git -C "$repo" status --porcelain -- include) ]]; then
  headers="$headers, with uncommitted changes in include/"
fi

python3 "$here/generate.py" "$gen" --sizes "$sizes" --shapes "$shapes"

# ---- the machine ----------------------------------------------------------------------------
{
  echo "date: $(date -u '+%Y-%m-%d %H:%M UTC')"
  echo "machine: $(nproc) cores ($(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//'))," \
       "$(awk '/MemTotal/ {printf "%.0f GiB", $2 / 1048576}' /proc/meminfo) memory, shared with other work"
  for cxx in $compilers; do echo "$cxx: $($cxx --version | head -1)"; done
  echo "Boost: $(dpkg-query -W -f='${Version}' libboost1.81-dev 2>/dev/null || echo unknown)"
  echo "headers: $headers"
  echo "flags: -O2 -std=c++20 -c"
  echo "repetitions: $reps per graph, $violation_reps per violation (interleaved), median reported;" \
       "$jobs compile(s) at a time"
  echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
} > "$results/machine.txt"

tag_of() {  # g++ -> gcc, clang++ -> clang
  local t
  t=$(basename "$1" | sed 's/[^A-Za-z0-9]//g')
  [[ $t == g ]] && t=gcc
  echo "$t"
}

# Both compilers cap constant evaluation (g++: -fconstexpr-ops-limit, 2^25 operations; clang:
# -fconstexpr-steps, 2^20 steps). A graph that hits the cap does not compile; it is then
# measured once more with the cap raised, to show what the analysis would cost without it.
raised_limit() {
  case $(tag_of "$1") in
    gcc) echo "-fconstexpr-ops-limit=4294967296" ;;
    clang) echo "-fconstexpr-steps=4294967295" ;;
    *) echo "" ;;
  esac
}

# time_compile CXX SRC OBJ LOG [EXTRA_FLAG] -> "wall user sys maxrss_kb exit"
time_compile() {
  local cxx=$1 src=$2 obj=$3 log=$4 extra=${5:-} tf status=0
  tf=$(mktemp)
  # shellcheck disable=SC2086  # $extra is one flag or nothing
  /usr/bin/time -f '%e %U %S %M' -o "$tf" "$cxx" -O2 -std=c++20 $extra -I"$include" -c "$src" -o "$obj" \
    >"$log" 2>&1 || status=$?
  # /usr/bin/time puts "Command exited with non-zero status N" before its figures on failure.
  echo "$(tail -1 "$tf") $status"
  rm -f "$tf"
}

# why_failed LOG -> constexpr-limit | error
why_failed() {
  if grep -Eq "constexpr.* (operation count exceeds limit|evaluation hit maximum step limit)" "$1"; then
    echo constexpr-limit
  else
    echo error
  fi
}

# ---- graphs ---------------------------------------------------------------------------------
# measure_graph CXX FILE SHAPE NODES REP: prints CSV rows, progress on stderr.
measure_graph() {
  local cxx=$1 file=$2 shape=$3 nodes=$4 rep=$5 tag stem wall user sys rss status outcome
  tag=$(tag_of "$cxx")
  stem=$objs/${file%.cpp}.$tag
  read -r wall user sys rss status < <(time_compile "$cxx" "$gen/$file" "$stem.o" "$stem.log")
  outcome=ok
  if [[ $status != 0 ]]; then outcome=$(why_failed "$stem.log"); fi
  echo "$tag,$shape,$nodes,default,$rep,$wall,$user,$sys,$rss,$outcome"
  echo "  $cxx $file rep $rep: ${wall}s wall, ${user}s user, $((rss / 1024)) MiB, $outcome" >&2
  if [[ $outcome == error ]]; then
    echo "measure.sh: $cxx failed on $file (see $stem.log)" >&2
    grep -m5 error "$stem.log" | cut -c1-300 >&2
    return 1
  fi
  # Over the cap: measured once (first repetition) with the cap raised.
  if [[ $outcome == constexpr-limit && $rep == 1 ]]; then
    read -r wall user sys rss status < <(time_compile "$cxx" "$gen/$file" "$stem.o" "$stem.raised.log" \
      "$(raised_limit "$cxx")")
    outcome=ok
    if [[ $status != 0 ]]; then outcome=$(why_failed "$stem.raised.log"); fi
    echo "$tag,$shape,$nodes,raised,$rep,$wall,$user,$sys,$rss,$outcome"
    echo "  $cxx $file rep $rep, constexpr cap raised: ${wall}s wall, ${user}s user, $((rss / 1024)) MiB, $outcome" >&2
  fi
  if [[ $rep == 1 && $outcome == ok ]]; then  # the graph must also run right, once (untimed)
    "$cxx" "$stem.o" -o "$stem.exe"
    "$stem.exe" || { echo "measure.sh: $file built by $cxx ended in the wrong state" >&2; return 1; }
  fi
}

# measure_violation CXX FILE RULE NAME REP: prints a CSV row, progress on stderr.
measure_violation() {
  local cxx=$1 file=$2 rule=$3 name=$4 rep=$5 tag log wall user rss status id_line name_line found
  tag=$(tag_of "$cxx")
  log=$objs/$(basename "${file%.cpp}").$tag.log
  read -r wall user _ rss status < <(time_compile "$cxx" "$gen/$file" /dev/null "$log")
  id_line=$(grep -n -m1 "$rule" "$log" | cut -d: -f1 || true)
  name_line=$(grep -n -m1 -w "$name" "$log" | cut -d: -f1 || true)
  found=no
  [[ -n $id_line ]] && found=yes
  echo "$tag,$rule,$rep,$wall,$user,$rss,$status,$found,${id_line:-},${name_line:-},$(wc -l <"$log")"
  echo "  $cxx $rule rep $rep: ${wall}s to the error, exit $status, $rule on line ${id_line:-none}" >&2
  if [[ $status == 0 ]]; then
    echo "measure.sh: $cxx accepted $file, which breaks $rule" >&2
    return 1
  fi
}

# in_parallel CSV FUNCTION ARGS...: runs FUNCTION once per compiler (its first argument),
# all at once with --jobs 2 or more, one after another otherwise, and appends what they
# print to CSV in compiler order.
in_parallel() {
  local csv=$1 fn=$2 cxx i=0 pids=() outs=() failed=0
  shift 2
  for cxx in $compilers; do
    outs+=("$build/row.$i")
    if ((jobs > 1)); then
      "$fn" "$cxx" "$@" >"$build/row.$i" &
      pids+=($!)
    else
      "$fn" "$cxx" "$@" >"$build/row.$i" || failed=1
    fi
    i=$((i + 1))
  done
  for pid in "${pids[@]}"; do wait "$pid" || failed=1; done
  cat "${outs[@]}" >>"$csv"
  rm -f "${outs[@]}"
  return $failed
}

graphs_csv=$results/graphs.csv
echo "compiler,shape,nodes,limit,rep,wall_s,user_s,sys_s,max_rss_kb,status" >"$graphs_csv"
mapfile -t graph_rows < <(awk -F, 'NR > 1 && $4 == "" {print $1 "," $2 "," $3}' "$gen/manifest.csv")
for rep in $(seq 1 "$reps"); do
  for row in "${graph_rows[@]}"; do
    IFS=, read -r file shape nodes <<<"$row"
    in_parallel "$graphs_csv" measure_graph "$file" "$shape" "$nodes" "$rep"
  done
done

# ---- violations: time until the error -------------------------------------------------------
violations_csv=$results/violations.csv
echo "compiler,rule,rep,wall_s,user_s,max_rss_kb,exit,id_found,id_line,name_line,output_lines" >"$violations_csv"
mapfile -t rule_rows < <(awk -F, 'NR > 1 && $4 != "" {print $1 "," $4 "," $5}' "$gen/manifest.csv")
for rep in $(seq 1 "$violation_reps"); do
  for row in "${rule_rows[@]}"; do
    IFS=, read -r file rule name <<<"$row"
    in_parallel "$violations_csv" measure_violation "$file" "$rule" "$name" "$rep"
  done
done

echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)" >> "$results/machine.txt"

# ---- where the time goes, for the largest graphs ---------------------------------------------
largest=$(tr ',' '\n' <<<"$sizes" | sort -n | tail -1)
if [[ $trace == 1 ]]; then
  for shape in ${shapes//,/ }; do
    src=$gen/${shape}_$largest.cpp
    if [[ " $compilers " == *" clang++ "* ]]; then
      clang++ -O2 -std=c++20 "$(raised_limit clang++)" -I"$include" -ftime-trace -ftime-trace-granularity=500 -c "$src" \
        -o "$objs/${shape}_$largest.trace.o"
      python3 "$here/trace_top.py" "$objs/${shape}_$largest.trace.json" > "$results/trace-clang-${shape}_$largest.txt"
    fi
    if [[ " $compilers " == *" g++ "* ]]; then
      g++ -O2 -std=c++20 "$(raised_limit g++)" -I"$include" -ftime-report -c "$src" -o "$objs/${shape}_$largest.report.o" \
        2> "$results/time-report-gcc-${shape}_$largest.txt"
    fi
  done
fi

# ---- summary, picture and docs --------------------------------------------------------------
python3 "$here/report.py" summary "$results"
if [[ $docs == 1 ]]; then
  gnuplot -e "summary='$results/summary.csv'; out='$repo/docs/img/compile_time.png'" "$here/plot.gp"
  python3 "$here/report.py" docs "$results" "$repo/docs/performance.md"
  echo "measure.sh: results in $results, picture in docs/img/compile_time.png"
else
  echo "measure.sh: results in $results (--no-docs: docs/ untouched)"
fi
