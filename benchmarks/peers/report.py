#!/usr/bin/env python3
"""Writes the peers section of docs/performance.md from the raw results of run_peers.sh.

usage: report.py RESULTS_DIR DOCS_FILE [RUNTIME_RESULTS_DIR]

Only the text between the two marker comments below is replaced. RESULTS_DIR is where
run_peers.sh wrote its raw results (by default build/bench-results/peers, outside the
tracked tree). When the run-time benchmarks' results exist (RUNTIME_RESULTS_DIR, by default
the `runtime` folder beside RESULTS_DIR, holding gcc-timing.json from run_runtime.sh), their
stategraph and hand-written CPU medians are shown beside the peers' for ratios — labelled as
a separate run, since they were not measured in the same process.
"""
import json
import os
import statistics
import sys

BEGIN = "<!-- peers:begin -->"
END = "<!-- peers:end -->"

WORKLOADS = [
    ("W1", "W1 pipeline10", "per superstep", 1e-9),
    ("W2", "W2 fanout8", "per invocation", 1e-9),
    ("W3", "W3 loop1000", "per superstep", 1e-9),
    ("W4", "W4 loop1000 + MemorySaver checkpoint every step", "per superstep", 1e-9),
    ("W5", "W5 loop200 + SQLite checkpoints in a file", "per superstep", 1e-6),
]
# Quoted from shared/design/benchmarks.md: measured elsewhere, on a machine like ours.
REFERENCE = {
    "W1": "hand-written 38 ns; oneTBB 77 ns; LangGraph.js 1.7 498 µs",
    "W2": "hand-written 0.38 µs; oneTBB 1.94 µs; LangGraph.js 1.7 3.9 ms",
    "W3": "hand-written 3.5 ns; LangGraph.js 1.7 462 µs",
    "W4": "LangGraph.js 1.7 529 µs",
    "W5": "LangGraph.js 1.7 739 µs",
}
# run_runtime.sh's benchmark names and counters, for the optional stategraph columns
RUNTIME_NAMES = {"W1": ("W1_pipeline10", "sec_per_superstep"), "W2": ("W2_fanout8_sequential", "sec_per_invocation"),
                 "W3": ("W3_loop1000", "sec_per_superstep")}


def fmt(seconds, _scale=None):
    """A time with its own unit and three significant digits: '95.0 ns', '1.35 ms'."""
    for unit, size in (("s", 1.0), ("ms", 1e-3), ("µs", 1e-6), ("ns", 1e-9)):
        if seconds >= size or unit == "ns":
            v = seconds / size
            return f"{v:.3g} {unit}" if v < 1000 else f"{v:,.0f} {unit}"
    return str(seconds)


def times(x):
    return f"{x:,.0f}×" if x >= 100 else f"{x:.2g}×" if x < 10 else f"{x:.1f}×"


def load_tbb(results):
    """{(workload, threads): {'wall': (med, lo, hi), 'cpu': (med, lo, hi)}} in seconds per unit."""
    path = os.path.join(results, "onetbb.json")
    if not os.path.exists(path):
        return {}
    with open(path) as f:
        data = json.load(f)
    scale = {"ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1.0}
    out = {}
    for b in data["benchmarks"]:
        if b.get("run_type") != "aggregate" or b["aggregate_name"] not in ("median", "min", "max"):
            continue
        wid = b["run_name"].split("_", 1)[0]
        threads = 1 if "arena_threads:1" in b["run_name"] else 0
        s = scale[b.get("time_unit", "ns")] / b["units"]
        entry = out.setdefault((wid, threads), {"wall": {}, "cpu": {}, "threads": int(b["threads"])})
        entry["wall"][b["aggregate_name"]] = b["real_time"] * s
        entry["cpu"][b["aggregate_name"]] = b["cpu_time"] * s
    return out


def load_js(results):
    path = os.path.join(results, "langgraphjs.jsonl")
    if not os.path.exists(path):
        return {}
    out = {}
    with open(path) as f:
        for line in f:
            if not line.strip():
                continue
            r = json.loads(line)
            s = 1e-6 if r["unit"].startswith("us") else 1e-9
            out[r["workload"]] = {"wall": {"median": r["median"] * s, "min": r["min"] * s, "max": r["max"] * s},
                                  "cpu": {"median": r["cpu_median"] * s, "min": r["cpu_min"] * s,
                                          "max": r["cpu_max"] * s},
                                  "runs": r["runs"]}
    return out


def load_runtime(runtime_results):
    """stategraph and hand-written CPU medians (seconds per unit) from run_runtime.sh, g++ build."""
    path = os.path.join(runtime_results, "gcc-timing.json")
    if not os.path.exists(path):
        return {}, None
    with open(path) as f:
        data = json.load(f)
    out = {}
    for wid, (prefix, counter) in RUNTIME_NAMES.items():
        for side in ("library", "hand"):
            runs = [b[counter] for b in data["benchmarks"]
                    if b["run_name"] == f"{prefix}/{side}" and b.get("run_type") == "iteration" and counter in b]
            if runs:
                out[(wid, side)] = statistics.median(runs)
    return out, data.get("context", {}).get("date", "unknown date")


def section(results, runtime_results):
    with open(os.path.join(results, "machine.txt")) as f:
        machine = [line.rstrip("\n") for line in f if line.strip()]
    tbb, js = load_tbb(results), load_js(results)
    runtime, runtime_date = load_runtime(runtime_results)
    out = [BEGIN, "", "## Peers: oneTBB flow_graph and LangGraph.js", ""]
    out.append("Measured by `benchmarks/peers/run_peers.sh`, which writes its raw results to "
               "`build/bench-results/peers/` (not tracked).")
    out.append("")
    for line in machine:
        key, _, value = line.partition(": ")
        out.append(f"- **{key}**: {value}")
    out += [
        "",
        "The peers do the same work as the stategraph workloads: a node adds 1 to `counter` (sum reducer) and "
        "appends its own name to `log` (append reducer); W2's join waits for all eight workers; W3–W5 loop one "
        "node through a conditional edge until `counter` reaches 1000 (W5: 200). Every run's final state is "
        "checked. **oneTBB**: serial `function_node`s passing the state by pointer (W1); for W2 `split` feeds "
        "eight `function_node`s (unlimited concurrency) that return updates, a queueing `join_node` and a node "
        "that merges them in worker order; run in oneTBB's default arena (all cores) and in a one-thread "
        "`task_arena` (the counterpart of stategraph's sequential executor); Google Benchmark, 10 repetitions, "
        "process CPU time (worker threads included). **LangGraph.js**: `StateGraph` with `Annotation` reducers, "
        "the default `invoke`, `durability: \"sync\"` for W4 (`MemorySaver`) and W5 (`SqliteSaver` on a file, "
        "one per run, WAL as the saver sets it), so each step's checkpoint is stored before the next step; W1/W2 "
        "runs are batches of 20/10 invocations, W3–W5 runs one invocation each, after warm-up.",
        "",
        "**Noise**: the two cores are shared with other engineers' builds; the load average is above. *Wall* "
        "time includes waiting for a core, so it is inflated by roughly the load divided by 2; *CPU* time (the "
        "process's user + system time; for LangGraph.js it includes V8's helper threads, for oneTBB its worker "
        "threads) is the steadier figure and the one to compare. Medians and min–max over the runs.",
        "",
    ]
    if runtime:
        out += [f"The *stategraph* and *hand-written* rows are CPU medians from run_runtime.sh's "
                f"`gcc-timing.json` (g++, {runtime_date}) — a separate run, not the same process; "
                "ratios are CPU ÷ CPU.", ""]
    for wid, title, unit, scale in WORKLOADS:
        rows = []
        base = runtime.get((wid, "library"))
        for threads, label in ((0, "default arena"), (1, "one-thread arena")):
            t = tbb.get((wid, threads))
            if t:
                rows.append((f"oneTBB flow_graph, {label} ({t['threads']} thread{'s' if t['threads'] > 1 else ''})",
                             t["wall"], t["cpu"]))
        j = js.get(wid)
        if j:
            rows.append((f"LangGraph.js ({j['runs']} runs)", j["wall"], j["cpu"]))
        if not rows:
            continue
        out += [f"### {title} — {unit}", ""]
        head = "| implementation | wall median (min–max) | CPU median (min–max) |"
        rule = "| --- | ---: | ---: |"
        if base:
            head += " CPU ÷ stategraph |"
            rule += " ---: |"
        out += [head, rule]
        for label, wall, cpu in rows:
            row = (f"| {label} | {fmt(wall['median'], scale)} ({fmt(wall['min'], scale)}–{fmt(wall['max'], scale)}) | "
                   f"{fmt(cpu['median'], scale)} ({fmt(cpu['min'], scale)}–{fmt(cpu['max'], scale)}) |")
            if base:
                row += f" {times(cpu['median'] / base)} |"
            out.append(row)
        for side, label in (("library", "stategraph, sequential (g++, run_runtime.sh)"),
                            ("hand", "hand-written C++ (g++, run_runtime.sh)")):
            v = runtime.get((wid, side))
            if v:
                out.append(f"| {label} | — | {fmt(v, scale)} | {times(v / base)} |")
        out += ["", f"Reference figures from the design, measured elsewhere, not by us: {REFERENCE[wid]}.", ""]
    out.append(END)
    return "\n".join(out) + "\n"


def main():
    if len(sys.argv) not in (3, 4):
        sys.exit(__doc__)
    results, docs = sys.argv[1], sys.argv[2]
    runtime_results = sys.argv[3] if len(sys.argv) == 4 else os.path.join(os.path.dirname(
        os.path.abspath(results)), "runtime")
    text = section(results, runtime_results)
    old = open(docs).read() if os.path.exists(docs) else "# Performance\n\n"
    if BEGIN in old and END in old:
        head, rest = old.split(BEGIN, 1)
        tail = rest.split(END, 1)[1].lstrip("\n")
        new = head + text + ("\n" + tail if tail else "")
    else:
        new = old.rstrip("\n") + "\n\n" + text
    os.makedirs(os.path.dirname(os.path.abspath(docs)), exist_ok=True)
    with open(docs, "w") as f:
        f.write(new)


if __name__ == "__main__":
    main()
