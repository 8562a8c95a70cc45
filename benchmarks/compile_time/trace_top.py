#!/usr/bin/env python3
"""Summarises a clang -ftime-trace JSON: where one translation unit's compile time goes.

usage: trace_top.py TRACE.json [--top 25]

Prints (1) clang's own per-category totals, (2) the longest single events with their
detail, and (3) self time (an event's duration minus its nested events) summed per
*construct*: the event's detail with template arguments cut off, so that the 200
instantiations of one library template add up to one line.
"""
import argparse
import collections
import json
import re


def strip_templates(detail):
    """'ns::f<a, b<c>>::g<d>' -> 'ns::f<>::g<>'; keeps the construct, drops the arguments."""
    out, depth = [], 0
    for ch in detail:
        if ch == "<":
            if depth == 0:
                out.append("<>")
            depth += 1
        elif ch == ">" and depth > 0:
            depth -= 1
        elif depth == 0:
            out.append(ch)
    text = "".join(out)
    return re.sub(r"\s+", " ", text).strip()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("trace")
    ap.add_argument("--top", type=int, default=25)
    args = ap.parse_args()
    with open(args.trace) as f:
        events = json.load(f)["traceEvents"]
    spans = [e for e in events if e.get("ph") == "X" and "dur" in e]
    totals = sorted((e for e in spans if e["name"].startswith("Total ")), key=lambda e: -e["dur"])
    work = [e for e in spans if not e["name"].startswith("Total ") and e["name"] not in ("ExecuteCompiler",)]

    print(f"trace: {args.trace}")
    whole = next((e["dur"] for e in spans if e["name"] == "ExecuteCompiler"), None)
    if whole:
        print(f"ExecuteCompiler: {whole / 1e6:.2f} s")
    print("\n== clang's totals per category (nested categories overlap) ==")
    for e in totals[: args.top]:
        print(f"{e['dur'] / 1e6:9.3f} s  {e['name']}  (count {e.get('args', {}).get('count', '?')})")

    # Self time: walk each thread's events in start order with a stack of open spans.
    self_time = collections.Counter()
    count = collections.Counter()
    by_thread = collections.defaultdict(list)
    for e in work:
        by_thread[e.get("tid", 0)].append(e)
    for evs in by_thread.values():
        evs.sort(key=lambda e: (e["ts"], -e["dur"]))
        stack = []
        for e in evs:
            while stack and stack[-1]["ts"] + stack[-1]["dur"] <= e["ts"]:
                stack.pop()
            e["_self"] = e["dur"]
            if stack:
                stack[-1]["_self"] -= e["dur"]
            stack.append(e)
    for e in work:
        key = (e["name"], strip_templates(e.get("args", {}).get("detail", "")))
        self_time[key] += max(e["_self"], 0)
        count[key] += 1

    print("\n== self time per construct (template arguments cut off) ==")
    for (name, detail), t in self_time.most_common(args.top):
        print(f"{t / 1e6:9.3f} s  {count[(name, detail)]:6d}x  {name}: {detail[:150]}")

    print("\n== longest single events (include nested work) ==")
    longest = sorted((e for e in work if e["name"] not in ("Frontend", "Backend", "Source")), key=lambda e: -e["dur"])
    for e in longest[: args.top]:
        detail = e.get("args", {}).get("detail", "")
        print(f"{e['dur'] / 1e6:9.3f} s  {e['name']}: {detail[:200]}")


if __name__ == "__main__":
    main()
