#!/usr/bin/env python3
"""Splits what a generated graph costs to compile into parts, with probe translation units.

usage: probe.py GEN_DIR OUT_DIR [--graphs chain_50,chain_200,...]

GEN_DIR holds the units generate.py wrote. For each graph named, OUT_DIR gets four units
that keep its state, nodes and graph type and replace only main():

  parse   main() is empty: the headers and the user's node structs, nothing instantiated.
  rules   main() only asserts sg::rules::check_all on the graph: the analysis (tables, the
          may-run-together exploration) and every rule, no app.
  calls   main() calls every node and router once, by hand, with its view, and applies
          each patch with the library's own apply_patch: the node code a graph needs, without
          the framework around it (the floor a runtime can reach).
  full    the unit as generated: compile, invoke.
  named   the unit as generated, but the graph declared as `struct G : sg::graph<...> {};`
          instead of `using G = sg::graph<...>;`: every symbol that carries the graph type
          then carries the short name G (GCC builds a name for each one it instantiates).

probe.sh compiles them and reports CPU seconds and peak memory; the differences between
the parts say where the time goes (full - calls - rules + parse: the app's own code).
"""
import argparse
import os
import re

STRUCT = re.compile(r"^struct (\w+) \{\n((?:  .*\n)*?)\};", re.M)


def nodes_and_routers(source):
    """(nodes, routers) in declaration order, read off the generated structs."""
    nodes, routers = [], []
    for m in STRUCT.finditer(source):
        name, body = m.group(1), m.group(2)
        if "operator()" not in body:
            continue
        (routers if "sg::go<" in body else nodes).append(name)
    return nodes, routers


def variant(source, kind):
    head, sep, _ = source.rpartition("\nint main() {")
    if not sep:
        raise SystemExit("probe.py: no main() in a generated unit")
    if kind == "full":
        return source
    if kind == "named":
        at = source.index("using G = sg::graph<")
        close = source.index(">;", at)
        return (source[:at] + "struct G : sg::graph<" + source[at + len("using G = sg::graph<"):close] + "> {};"
                + source[close + 2:])
    if kind == "parse":
        return head + "\nint main() {}\n"
    if kind == "rules":
        return head + ("\nint main() {\n  static_assert(sg::rules::check_all<G, sg::analysis<G>, "
                       "sg::detail::any_context>());\n}\n")
    nodes, routers = nodes_and_routers(source)
    lines = ["\nint main() {", "  State s{};", "  int chosen = 0;"]
    for n in nodes:
        lines.append(f"  sg::detail::apply_patch(s, {n}{{}}(sg::view<State, {n}::reads>(s)), nullptr);")
    for r in routers:
        lines.append(f"  chosen += static_cast<int>({r}{{}}(sg::view<State, {r}::reads>(s)).index());")
    lines.append("  return static_cast<int>(s.counter) + chosen == 0 ? 1 : 0;")
    lines.append("}")
    return head + "\n".join(lines) + "\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("gen")
    ap.add_argument("out")
    ap.add_argument("--graphs", default="chain_10,chain_50,chain_100,chain_200,dag_10,dag_50,dag_100,dag_200")
    args = ap.parse_args()
    os.makedirs(args.out, exist_ok=True)
    for g in args.graphs.split(","):
        with open(os.path.join(args.gen, f"{g}.cpp")) as f:
            source = f.read()
        for kind in ("parse", "rules", "calls", "full", "named"):
            with open(os.path.join(args.out, f"{g}.{kind}.cpp"), "w") as f:
                f.write(variant(source, kind))


if __name__ == "__main__":
    main()
