#!/usr/bin/env bash
# Draws the pictures of docs/pictures.md: builds tests/pictures/render_graphs.cpp, which
# writes the DOT and Mermaid text of a few representative graphs, then renders each DOT
# file to PNG with Graphviz. Run it after a change to include/stategraph/pictures.hpp; the
# `pictures.docs.*` tests fail until docs/img matches the program's output again.
#
#   scripts/render-graphs.sh [output folder]     (default: docs/img)
#   CXX=clang++ scripts/render-graphs.sh         (default compiler: c++)
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-docs/img}

for tool in "${CXX:-c++}" dot; do
  command -v "$tool" >/dev/null || { echo "render-graphs: $tool not found (graphviz provides dot)" >&2; exit 1; }
done

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"${CXX:-c++}" -std=c++20 -O1 -Wall -Wextra -Wpedantic -Iinclude tests/pictures/render_graphs.cpp -o "$work/render"
mkdir -p "$out"
"$work/render" "$out"

for dotfile in "$out"/*.dot; do
  png=${dotfile%.dot}.png
  dot -Tpng -Gdpi=96 "$dotfile" -o "$png"
  echo "render-graphs: $png"
done
