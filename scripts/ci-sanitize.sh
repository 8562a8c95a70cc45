#!/usr/bin/env bash
# Sanitizer builds for CI (issue 4: "the decoder is fuzzed under ASan and UBSan: no crash,
# no leak").
#
#   scripts/ci-sanitize.sh [asan|tsan|all]        (default: asan)
#
# asan  the checkpointed-run tests (tests/checkpoints), the crash test and the decoder fuzz
#       under -fsanitize=address,undefined with leak detection; with Clang also the
#       libFuzzer target of the decoder for SG_FUZZ_SECONDS (default 60).
# tsan  under -fsanitize=thread, the cases that start threads (a race needs a second thread):
#       those of the core features (stategraph_threaded_tests) and of checkpointed runs
#       (stategraph_checkpoint_threaded_tests), and the store tests.
# all   both, at the same time (two build directories, two logs shown in turn).
#
# Environment: CXX (default: clang++ when installed, else g++), STATEGRAPH_ASAN_BUILD_DIR
# (default build-asan), STATEGRAPH_TSAN_BUILD_DIR (default build-tsan), SG_FUZZ_SECONDS,
# and the tests' own SG_CRASH_SEED, SG_CRASH_TRIALS, SG_FUZZ_SEED, SG_FUZZ_ITERATIONS.
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$(pwd)
scripts/install-deps.sh --sanitize
mode=${1:-asan}
jobs=${STATEGRAPH_SANITIZE_JOBS:-2}

if [[ -z "${CXX:-}" ]]; then
  if command -v clang++ >/dev/null; then CXX=clang++; else CXX=g++; fi
fi
export CXX
is_clang=0
if "$CXX" --version | grep -qi clang; then is_clang=1; fi

configure() {  # <build dir> <flags> [extra cmake args...]
  local build=$1 flags=$2
  shift 2
  # A build dir configured from another source (an older wrapper project) starts afresh.
  if [[ -f "$build/CMakeCache.txt" ]] && ! grep -qx "CMAKE_HOME_DIRECTORY:INTERNAL=$repo" "$build/CMakeCache.txt"; then
    rm -rf "$build"
  fi
  # -O0 with line tables only: reports name file and line, and Clang's optimizer, most of a
  # sanitized test's compile time, is left out (the libFuzzer target keeps -O1: its runs
  # are what a fuzz session buys). The checkpointed-run cases run on the SQLite store only
  # (DURABLE_TEST_SQLITE_ONLY, tests/checkpoints/fixtures.hpp): the durable code is the same
  # for every store, and the store suite still runs the memory store under TSan.
  cmake -S "$repo" -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_COMPILER="$CXX" \
    -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O0 -g1 -DNDEBUG" -DSTATEGRAPH_TEST_OPTIMIZATION= \
    -DCMAKE_CXX_FLAGS="$flags -DDURABLE_TEST_SQLITE_ONLY" -DCMAKE_EXE_LINKER_FLAGS="$flags" \
    -DSTATEGRAPH_BUILD_TESTS=ON -DSTATEGRAPH_BUILD_EXAMPLES=OFF "$@" >/dev/null
}

existing() {  # <build dir> <target>...: those of the targets the build defines
  local build=$1 all
  shift
  all=$(cmake --build "$build" --target help 2>/dev/null)
  for t in "$@"; do
    if grep -qw -- "$t" <<<"$all"; then echo "$t"; fi
  done
}

binary() {  # <build dir> <target>: the path of a built test program (the newest, if several)
  find "$1" -type f -perm -u+x -name "$2" -not -path '*/CMakeFiles/*' -printf '%T@ %p\n' |
    sort -n | tail -n 1 | cut -d' ' -f2-
}

run_asan() {
  local build=${STATEGRAPH_ASAN_BUILD_DIR:-build-asan}
  local flags="-fsanitize=address,undefined -fsanitize=float-cast-overflow -fno-sanitize-recover=all -fno-omit-frame-pointer"
  local fuzz=OFF
  if ((is_clang)); then fuzz=ON; fi
  echo "== asan+ubsan ($CXX) in $build"
  configure "$build" "$flags" -DSTATEGRAPH_FUZZ=$fuzz
  local targets=(stategraph_checkpoint_tests stategraph_checkpoint_crash_child stategraph_checkpoint_crash_test
                 stategraph_checkpoint_fuzz)
  if ((is_clang)); then targets+=(stategraph_checkpoint_libfuzzer); fi
  cmake --build "$build" -j"$jobs" --target "${targets[@]}"

  export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1:detect_stack_use_after_return=1:strict_init_order=1
  export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
  "$(binary "$build" stategraph_checkpoint_tests)"
  "$(binary "$build" stategraph_checkpoint_crash_test)"
  "$(binary "$build" stategraph_checkpoint_fuzz)"
  if ((is_clang)); then
    local corpus=$build/fuzz-corpus
    mkdir -p "$corpus"
    # Every stored text: metadata, values, pieces and pending writes (fuzz_driver.hpp).
    SG_FUZZ_TARGETS=${SG_FUZZ_TARGETS:-0x3f} "$(binary "$build" stategraph_checkpoint_libfuzzer)" \
      -max_total_time="${SG_FUZZ_SECONDS:-60}" -print_final_stats=1 "$corpus"
  fi
}

run_tsan() {
  local build=${STATEGRAPH_TSAN_BUILD_DIR:-build-tsan}
  local flags="-fsanitize=thread -fno-omit-frame-pointer"
  echo "== tsan ($CXX) in $build"
  configure "$build" "$flags"
  # Whichever of the doctest suites the test tree has today.
  local targets
  mapfile -t targets < <(existing "$build" stategraph_threaded_tests stategraph_store_tests stategraph_checkpoint_threaded_tests)
  cmake --build "$build" -j"$jobs" --target "${targets[@]}"
  export TSAN_OPTIONS=halt_on_error=1:second_deadlock_stack=1
  for t in "${targets[@]}"; do
    echo "-- $t"
    "$(binary "$build" "$t")"
  done
}

# Both at once: each build ends with one or two long units while a core waits, and the
# sanitized runs are mostly single-threaded, so the two pipelines fill each other's gaps.
# Each writes a log of its own, shown whole when it ends.
run_both() {
  local logs
  logs=$(mktemp -d)
  run_asan >"$logs/asan.log" 2>&1 &
  local asan_pid=$!
  run_tsan >"$logs/tsan.log" 2>&1 &
  local tsan_pid=$!
  local asan_rc=0 tsan_rc=0
  wait "$asan_pid" || asan_rc=$?
  cat "$logs/asan.log"
  echo "== asan: exit $asan_rc"
  wait "$tsan_pid" || tsan_rc=$?
  cat "$logs/tsan.log"
  echo "== tsan: exit $tsan_rc"
  rm -rf "$logs"
  ((asan_rc == 0 && tsan_rc == 0))
}

case "$mode" in
  asan) run_asan ;;
  tsan) run_tsan ;;
  all) run_both ;;
  *) echo "usage: $0 [asan|tsan|all]" >&2; exit 2 ;;
esac
echo "== $mode: clean"
