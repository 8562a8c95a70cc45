#!/usr/bin/env bash
# Measures the compile-fail diagnostics with the same checker CTest runs
# (cmake/CompileFail.cmake): for each case and compiler, how many lines the compiler prints
# for the violation, the line where the rule ID first appears, and the line by which every
# expected name has appeared. Prints the Markdown table that docs/rules.md carries.
#
#   tests/measure_rules.sh [output-dir]     (JOBS=2 by default)
#
# Boost and range-v3 are expected on the compilers' default paths; otherwise set
# INCLUDE_DIRS="dir1|dir2" (the project's include/ is always added).
#
# The compilers' outputs are kept in output-dir (default: a new temporary directory), one
# file per case and compiler, for quoting in the docs.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
out_dir=${1:-$(mktemp -d)}
jobs=${JOBS:-2}
mkdir -p "$out_dir"

gxx=$(command -v g++-12 || command -v g++ || true)
clangxx=$(command -v clang++-14 || command -v clang++ || true)

run_one() {  # case-file compiler-id compiler out-dir root
  local case=$1 id=$2 compiler=$3 dir=$4 top=$5 name
  name=$(basename "$case" .cpp)
  cmake -DCOMPILER="$compiler" -DCOMPILER_ID="$id" -DSOURCE="$case" -DINCLUDE_DIRS="$top/include${INCLUDE_DIRS:+|$INCLUDE_DIRS}" \
    -DOUTPUT_FILE="$dir/$name.$id.txt" -P "$top/cmake/CompileFail.cmake" >"$dir/$name.$id.check" 2>&1 || true
}
export -f run_one

# Every case of every feature (tests/<feature>/fail/), in order of rule and case name.
cases() {
  for f in "$root"/tests/*/fail/sg[0-9][0-9][0-9]_*.cpp; do printf '%s\t%s\n' "$(basename "$f")" "$f"; done |
    sort | cut -f2
}
mapfile -t all_cases < <(cases)
export INCLUDE_DIRS

{
  for case in "${all_cases[@]}"; do
    [[ -n $gxx ]] && printf '%s\0gcc\0%s\0' "$case" "$gxx"
    [[ -n $clangxx ]] && printf '%s\0clang\0%s\0' "$case" "$clangxx"
  done
} | xargs -0 -n 3 -P "$jobs" bash -c 'run_one "$0" "$1" "$2" "'"$out_dir"'" "'"$root"'"'

# "rule check passed: NAME ID lines=N [regex]@k [regex]@k ..." -> "N | first k | max k"
cell() {
  local check=$1 line
  if [[ ! -f $check ]]; then
    echo "— | — | —"
    return
  fi
  line=$(grep -m1 '^rule check passed: ' "$check" || true)
  if [[ -z $line ]]; then
    echo "FAILED | — | —"
    return
  fi
  local lines first max
  lines=$(sed -E 's/.* lines=([0-9]+).*/\1/' <<<"$line")
  first=$(grep -oE '\]@[0-9]+' <<<"$line" | head -1 | tr -d ']@')
  max=$(grep -oE '\]@[0-9]+' <<<"$line" | tr -d ']@' | sort -n | tail -1)
  echo "$lines | $first | $max"
}

echo "| case | GCC 12 lines | GCC: ID at line | GCC: all names by line | Clang 14 lines | Clang: ID at line | Clang: all names by line |"
echo "| --- | --- | --- | --- | --- | --- | --- |"
for case in "${all_cases[@]}"; do
  name=$(basename "$case" .cpp)
  note=""
  grep -q '^// KNOWN-ISSUE: ' "$case" && note=" (known issue)"
  echo "| \`$name\`$note | $(cell "$out_dir/$name.gcc.check") | $(cell "$out_dir/$name.clang.check") |"
done
echo
echo "outputs: $out_dir" >&2
