#!/usr/bin/env bash
# Installs what stategraph needs to build, test and benchmark on a fresh Debian 12 machine.
# Only Debian packages; skips apt entirely when everything is already there.
#   scripts/install-deps.sh            build + tests (compilers, Boost, range-v3, JSON, doctest, SQLite,
#                                      libpq and the PostgreSQL server the tests start a cluster of,
#                                      Chromium for the inspector page's browser test, Graphviz
#                                      whose dot lays out the inspector's graph)
#   scripts/install-deps.sh --bench    also Google Benchmark, oneTBB, valgrind, gnuplot
#   scripts/install-deps.sh --sanitize also Clang's sanitizer runtimes (scripts/ci-sanitize.sh)
set -euo pipefail

packages=(
  g++ clang cmake make ccache pkg-config
  libboost1.81-dev librange-v3-dev nlohmann-json3-dev doctest-dev
  libsqlite3-dev sqlite3
  libpq-dev postgresql
  chromium graphviz
)
for option in "$@"; do
  case "$option" in
    --bench) packages+=(libbenchmark-dev libtbb-dev valgrind gnuplot-nox time) ;;
    # Clang's sanitizer and libFuzzer runtimes: only recommended by clang, which
    # --no-install-recommends leaves out.
    --sanitize) packages+=(libclang-rt-14-dev) ;;
    *) echo "usage: $0 [--bench] [--sanitize]" >&2; exit 2 ;;
  esac
done

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]} == 0)); then
  exit 0
fi

sudo=""
if [[ $(id -u) -ne 0 ]]; then sudo="sudo"; fi
echo "install-deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
$sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
