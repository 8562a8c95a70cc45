#!/usr/bin/env python3
"""Splits what a generated graph costs to compile into parts, with probe translation units.

usage: probe.py GEN_DIR OUT_DIR [--graphs chain_50,chain_200,...]

GEN_DIR holds the units generate.py wrote. For each graph named, OUT_DIR gets four units
that keep its state, nodes and graph type and replace only main():

  parse   main() is empty: the headers and the user's node structs, nothing instantiated.
  rules   main() only asserts sg::rules::check_all on the graph: the analysis (tables, the
          may-run-together exploration) and every rule, no app.
  calls   every node's call (with its view) and the library's apply_patch of its patch in a
          function of its own, every router's call in one more, main() calling them in order:
          the node code a graph needs with the library's patches, without the framework
          around it (the floor a runtime on these patches can reach). One function per node,
          not one main(): the optimizer's time on one function grows faster than its size
          (one main of 1,000 nodes' calls takes longer than the whole generated unit).
  hand    the same work in plain C++, no stategraph header: a plain struct for the state,
          one function per node that reads what the node reads and then does what its
          writes do (add, push_back, assign). What the nodes' work costs to compile by hand.
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
    if kind == "hand":
        return hand_unit(source, nodes, routers)
    lines = []
    for n in nodes:
        lines.append(f"[[gnu::noinline]] void call_{n}(State& s) {{")
        lines.append(f"  sg::detail::apply_patch(s, {n}{{}}(sg::view<State, {n}::reads>(s)), nullptr);")
        lines.append("}")
    lines += routers_and_main(nodes, [f"static_cast<int>({r}{{}}(sg::view<State, {r}::reads>(s)).index())"
                                      for r in routers], "static_cast<int>(s.counter)")
    return head + "\n" + "\n".join(lines) + "\n"


def routers_and_main(nodes, choices, counter):
    """One function summing the routers' choices, and a main() calling every node's function."""
    lines = ["[[gnu::noinline]] int call_routers([[maybe_unused]] const State& s) {", "  int chosen = 0;"]
    lines += [f"  chosen += {c};" for c in choices]
    lines += ["  return chosen;", "}", "int main() {", "  State s{};"]
    lines += [f"  call_{n}(s);" for n in nodes]
    lines += [f"  return {counter} + call_routers(s) == 0 ? 1 : 0;", "}"]
    return lines


WRITE = re.compile(r"sg::write<&State::(\w+)>\((.*?)\)(?= \| |; \}$)")
# What a write to each of the generated state's channels does, by hand.
HAND_APPLY = {"counter": "s.counter += {};", "log": "s.log.push_back({});", "last": "s.last = {};",
              "choice": "s.choice = {};"}


def hand_unit(source, nodes, routers):
    """The `hand` unit: the generated nodes' work on a plain struct, one function each."""
    bodies = {m.group(1): m.group(2) for m in STRUCT.finditer(source)}
    out = ["// The generated graph's node work by hand (probe.py, kind `hand`).", "#include <string>",
           "#include <vector>", "", "struct State {", "  int counter = 0;", "  std::vector<std::string> log;",
           "  int last = 0;", "  int choice = 0;", "};"]
    for n in nodes:
        call = next(line for line in bodies[n].splitlines() if "operator()" in line)
        writes = WRITE.findall(call)
        if not writes:
            raise SystemExit(f"probe.py: no write found in node {n}")
        out.append(f"[[gnu::noinline]] void call_{n}(State& s) {{")
        # The node reads its snapshot first; its writes are applied after, in order.
        for k, (_, value) in enumerate(writes):
            value = value.replace("in.get<&State::counter>()", "s.counter")
            out.append(f"  auto v{k} = {value};")
        for k, (channel, _) in enumerate(writes):
            out.append("  " + HAND_APPLY[channel].format(f"std::move(v{k})"))
        out.append("}")
    out += routers_and_main(nodes, ["s.counter % 2 == 0 ? 0 : 1" for _ in routers], "s.counter")
    return "\n".join(out) + "\n"


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
        for kind in ("parse", "rules", "calls", "hand", "full", "named"):
            with open(os.path.join(args.out, f"{g}.{kind}.cpp"), "w") as f:
                f.write(variant(source, kind))


if __name__ == "__main__":
    main()
