// LangGraph.js peer for the run-time workloads W1-W5 of design/benchmarks.md.
//
// Prints one JSON line per workload:
//   {"workload":"W1","unit":"ns_per_superstep","median":..,"min":..,"max":..,"runs":..}
// Each run's final state is checked, so a workload that stopped doing its work fails loudly
// instead of reporting a fast time. Usage: node bench.mjs [--quick] [W1 W3 ...]
import { Annotation, END, MemorySaver, START, StateGraph } from "@langchain/langgraph";
import { SqliteSaver } from "@langchain/langgraph-checkpoint-sqlite";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { performance } from "node:perf_hooks";

// The state of W1-W5: `counter` sums its writes, `log` appends each write (a node writes
// its own name). Reducers are the plain ones a LangGraph.js user would write.
const State = Annotation.Root({
  counter: Annotation({ reducer: (a, b) => a + b, default: () => 0 }),
  log: Annotation({ reducer: (a, b) => a.concat(b), default: () => [] }),
});

// A node that does nothing but the framework's work: +1 on counter, its name on log.
const worker = (name) => () => ({ counter: 1, log: [name] });

function check(cond, what) {
  if (!cond) throw new Error(`workload check failed: ${what}`);
}

// ---- graphs ---------------------------------------------------------------------------

const W1_NODES = 10;
function pipeline10(checkpointer) {
  const g = new StateGraph(State);
  const names = Array.from({ length: W1_NODES }, (_, i) => `n${i + 1}`);
  for (const n of names) g.addNode(n, worker(n));
  g.addEdge(START, names[0]);
  for (let i = 0; i + 1 < names.length; ++i) g.addEdge(names[i], names[i + 1]);
  g.addEdge(names[names.length - 1], END);
  return g.compile(checkpointer ? { checkpointer } : {});
}

const W2_WORKERS = 8;
function fanout8() {
  const g = new StateGraph(State);
  const workers = Array.from({ length: W2_WORKERS }, (_, i) => `w${i + 1}`);
  g.addNode("split", worker("split"));
  for (const w of workers) g.addNode(w, worker(w));
  g.addNode("join", worker("join"));
  g.addEdge(START, "split");
  for (const w of workers) g.addEdge("split", w);
  // A list of sources is LangGraph's waiting edge: join runs once all eight have run.
  g.addEdge(workers, "join");
  g.addEdge("join", END);
  return g.compile();
}

function loop(steps, checkpointer) {
  const g = new StateGraph(State);
  g.addNode("step", worker("step"));
  g.addEdge(START, "step");
  g.addConditionalEdges("step", (s) => (s.counter < steps ? "step" : END), ["step", END]);
  return g.compile(checkpointer ? { checkpointer } : {});
}

// ---- measurement ----------------------------------------------------------------------

function stats(samples) {
  const s = [...samples].sort((a, b) => a - b);
  const mid = s.length >> 1;
  const median = s.length % 2 ? s[mid] : (s[mid - 1] + s[mid]) / 2;
  return { median, min: s[0], max: s[s.length - 1] };
}

// Runs `once` (which returns how many units it did) `warmup` times unmeasured, then `runs`
// times. Each sample is nanoseconds of wall time per unit; the process's CPU time per unit
// is kept beside it, since the machine is shared and wall time includes waiting for a core.
async function measure(once, { warmup, runs }) {
  for (let i = 0; i < warmup; ++i) await once(i);
  const wall = [];
  const cpu = [];
  for (let r = 0; r < runs; ++r) {
    const c0 = process.cpuUsage();
    const t0 = performance.now();
    const units = await once(warmup + r);
    const t1 = performance.now();
    const c1 = process.cpuUsage(c0);
    wall.push(((t1 - t0) * 1e6) / units);
    cpu.push(((c1.user + c1.system) * 1e3) / units);
  }
  return { wall, cpu };
}

function report(workload, unit, { wall, cpu }, decimals = 0, extra = {}) {
  const w = stats(wall);
  const c = stats(cpu);
  const round = (x) => Number(x.toFixed(decimals));
  const line = { workload, unit, median: round(w.median), min: round(w.min), max: round(w.max), runs: wall.length };
  const cpuLine = { cpu_median: round(c.median), cpu_min: round(c.min), cpu_max: round(c.max) };
  console.log(JSON.stringify({ ...line, ...cpuLine, ...extra }));
}

const quick = process.argv.includes("--quick");
const only = process.argv.slice(2).filter((a) => /^W\d$/.test(a));
const wanted = (w) => only.length === 0 || only.includes(w);
const scale = (n) => (quick ? Math.max(2, Math.ceil(n / 5)) : n);

// W1: ns per superstep, a run being a batch of invocations of the 10-node chain.
if (wanted("W1")) {
  const app = pipeline10();
  const batch = 20;
  const expected = Array.from({ length: W1_NODES }, (_, i) => `n${i + 1}`);
  const samples = await measure(
    async () => {
      for (let b = 0; b < batch; ++b) {
        const out = await app.invoke({ counter: 0, log: [] });
        check(out.counter === W1_NODES && out.log.join() === expected.join(), "W1 final state");
      }
      return batch * W1_NODES;
    },
    { warmup: 3, runs: scale(15) },
  );
  report("W1", "ns_per_superstep", samples, 0, { batch });
}

// W2: ns per invocation (split, 8 workers in one superstep, join).
if (wanted("W2")) {
  const app = fanout8();
  const batch = 10;
  const samples = await measure(
    async () => {
      for (let b = 0; b < batch; ++b) {
        const out = await app.invoke({ counter: 0, log: [] });
        check(out.counter === W2_WORKERS + 2, "W2 counter");
        check(out.log.length === W2_WORKERS + 2 && out.log[0] === "split" && out.log.at(-1) === "join", "W2 log");
      }
      return batch;
    },
    { warmup: 3, runs: scale(15) },
  );
  report("W2", "ns_per_invocation", samples, 0, { batch });
}

// W3: ns per superstep of a 1000-step loop of one node.
const W3_STEPS = 1000;
// LangGraph refuses a run that needs exactly recursionLimit steps; leave room.
const loopConfig = (steps) => ({ recursionLimit: steps + 10 });
if (wanted("W3")) {
  const app = loop(W3_STEPS);
  const samples = await measure(
    async () => {
      const out = await app.invoke({ counter: 0, log: [] }, loopConfig(W3_STEPS));
      check(out.counter === W3_STEPS && out.log.length === W3_STEPS, "W3 final state");
      return W3_STEPS;
    },
    { warmup: 1, runs: scale(10) },
  );
  report("W3", "ns_per_superstep", samples);
}

// W4: W3 with MemorySaver; durability "sync" so each step's checkpoint is stored before
// the next step starts, as the C++ side does. A fresh thread per run.
if (wanted("W4")) {
  const saver = new MemorySaver();
  const app = loop(W3_STEPS, saver);
  const samples = await measure(
    async (i) => {
      const config = { ...loopConfig(W3_STEPS), durability: "sync", configurable: { thread_id: `w4-${i}` } };
      const out = await app.invoke({ counter: 0, log: [] }, config);
      check(out.counter === W3_STEPS && out.log.length === W3_STEPS, "W4 final state");
      const saved = await app.getState({ configurable: { thread_id: `w4-${i}` } });
      check(saved.values.counter === W3_STEPS, "W4 checkpointed state");
      return W3_STEPS;
    },
    { warmup: 1, runs: scale(10) },
  );
  report("W4", "ns_per_superstep", samples);
}

// W5: 200 steps with the SQLite saver on a file (WAL, as the saver sets it), in µs per
// superstep. A fresh file per run, so runs do not grow one database; the clock covers
// invoke only, not opening the file or the checks.
const W5_STEPS = 200;
if (wanted("W5")) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "sg-langgraphjs-"));
  try {
    const wall = [];
    const cpu = [];
    const runs = scale(10);
    for (let r = 0; r <= runs; ++r) {
      const saver = SqliteSaver.fromConnString(path.join(dir, `w5-${r}.db`));
      const app = loop(W5_STEPS, saver);
      const config = { ...loopConfig(W5_STEPS), durability: "sync", configurable: { thread_id: "w5" } };
      const c0 = process.cpuUsage();
      const t0 = performance.now();
      const out = await app.invoke({ counter: 0, log: [] }, config);
      const t1 = performance.now();
      const c1 = process.cpuUsage(c0);
      check(out.counter === W5_STEPS && out.log.length === W5_STEPS, "W5 final state");
      const rows = saver.db.prepare("SELECT COUNT(*) AS n FROM checkpoints WHERE thread_id = 'w5'").get().n;
      check(rows >= W5_STEPS, `W5 checkpoints in the file (${rows})`);
      saver.db.close();
      if (r > 0) {
        // run 0 is the warm-up
        wall.push(((t1 - t0) * 1e3) / W5_STEPS);
        cpu.push((c1.user + c1.system) / W5_STEPS);
      }
    }
    report("W5", "us_per_superstep", { wall, cpu }, 1);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
