// LangGraph.js peer of W8 (docs/performance.md, "Async runs"): RUNS concurrent invokes of a
// 3-node chain whose nodes each await an MS-millisecond setTimeout promise, on Node's one
// event loop. Prints one line in the format of stategraph_bench_async's w8 line:
//   w8js runs=.. node_wait_ms=.. done=.. right=.. wall_ms=.. cpu_ms=.. ideal_ms=.. ratio=..
//        rss_before_kb=.. rss_waiting_kb=.. bytes_per_run=..
// wall_ms runs from the first invoke to the last run's end (invoke does its set-up work
// before the first node awaits, so starting the runs is part of the work); cpu_ms is the
// process's user + system time meanwhile. The memory is sampled when the last run enters its
// first node (every run is then waiting in, or past, its first timer). A warm-up round of
// --warmup runs goes first, unmeasured, so V8 has compiled the code the runs take.
// Usage: node w8.mjs [RUNS=10000] [MS=10] [--warmup 1000]
import { Annotation, END, START, StateGraph } from "@langchain/langgraph";
import { performance } from "node:perf_hooks";

const args = process.argv.slice(2);
let warmup = 1000;
const positional = [];
for (let i = 0; i < args.length; ++i) {
  if (args[i] === "--warmup") warmup = Number(args[++i]);
  else positional.push(Number(args[i]));
}
const runs = positional[0] ?? 10000;
const ms = positional[1] ?? 10;

// W8's state as in the other LangGraph.js workloads: counter sums, log appends.
const State = Annotation.Root({
  counter: Annotation({ reducer: (a, b) => a + b, default: () => 0 }),
  log: Annotation({ reducer: (a, b) => a.concat(b), default: () => [] }),
});

const sleep = (d) => new Promise((resolve) => setTimeout(resolve, d));
let entered = 0; // runs that have entered their first node, this round
let onAllEntered = () => {};
const waits = (name, first) => async () => {
  if (first && ++entered === expected) onAllEntered();
  await sleep(ms);
  return { counter: 1, log: [name] };
};
let expected = 0;

const g = new StateGraph(State);
g.addNode("n1", waits("n1", true));
g.addNode("n2", waits("n2", false));
g.addNode("n3", waits("n3", false));
g.addEdge(START, "n1");
g.addEdge("n1", "n2");
g.addEdge("n2", "n3");
g.addEdge("n3", END);
const app = g.compile();

const cpuMs = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};
const rssKb = () => Math.round(process.memoryUsage().rss / 1024);

async function round(n) {
  entered = 0;
  expected = n;
  let waiting = 0;
  onAllEntered = () => {
    waiting = rssKb();
  };
  if (global.gc) global.gc();
  const before = rssKb();
  const cpu0 = cpuMs();
  const t0 = performance.now();
  const finals = await Promise.all(Array.from({ length: n }, () => app.invoke({})));
  const wall = performance.now() - t0;
  const cpu = cpuMs() - cpu0;
  const right = finals.filter((s) => s.counter === 3 && s.log.length === 3 && s.log[2] === "n3").length;
  return { n, right, wall, cpu, before, waiting };
}

if (warmup > 0) await round(warmup);
const r = await round(runs);
const ideal = 3 * ms;
console.log(
  `w8js runs=${r.n} node_wait_ms=${ms} done=${r.n} right=${r.right} wall_ms=${r.wall.toFixed(1)} ` +
    `cpu_ms=${r.cpu.toFixed(1)} ideal_ms=${ideal} ratio=${(r.wall / ideal).toFixed(3)} ` +
    `rss_before_kb=${r.before} rss_waiting_kb=${r.waiting} ` +
    `bytes_per_run=${Math.round(((r.waiting - r.before) * 1024) / r.n)}`,
);
process.exitCode = r.right === r.n ? 0 : 1;
