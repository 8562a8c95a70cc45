// LangGraph.js peer for W5 on PostgreSQL (design/benchmarks.md, W5pg): the W5 loop (200
// supersteps of one node, durability "sync") on LangGraph.js's Postgres checkpointer
// (PostgresSaver over a pg Pool), with synchronous_commit on and off. benchmarks/run_postgres.sh
// runs it interleaved with the C++ side (durable/postgres_w5.cpp) against the same server.
//
//   node bench_postgres.mjs CONNINFO [REPETITIONS]
//
// CONNINFO is libpq's key=value form as scripts/pg-cluster.sh prints it ("host=DIR user=sg
// dbname=postgres"; a host starting with / is the socket's folder). Each repetition runs
// one invocation per setting on a new thread, after an unmeasured warm-up (a 20-step loop)
// per setting. Prints one JSON line per setting: the median over the
// repetitions of wall µs per superstep, with min, max and the process's CPU µs per superstep.
import { Annotation, END, START, StateGraph } from "@langchain/langgraph";
import { PostgresSaver } from "@langchain/langgraph-checkpoint-postgres";
import { performance } from "node:perf_hooks";
import pg from "pg";

const STEPS = 200;
const INVOCATIONS = 1;  // an invocation takes seconds here: run_postgres.sh repeats the process instead
const SCHEMA = "sg_bench_w5_langgraphjs";

// The state and loop of bench.mjs's W3-W5: `counter` sums, `log` appends the node's name.
const State = Annotation.Root({
  counter: Annotation({ reducer: (a, b) => a + b, default: () => 0 }),
  log: Annotation({ reducer: (a, b) => a.concat(b), default: () => [] }),
});
function loop(steps, checkpointer) {
  const g = new StateGraph(State);
  g.addNode("step", () => ({ counter: 1, log: ["step"] }));
  g.addEdge(START, "step");
  g.addConditionalEdges("step", (s) => (s.counter < steps ? "step" : END), ["step", END]);
  return g.compile({ checkpointer });
}

function parseConninfo(text) {
  const out = {};
  for (const m of text.matchAll(/(\w+)\s*=\s*('(?:[^'\\]|\\.)*'|\S+)/g)) {
    let v = m[2];
    if (v.startsWith("'")) v = v.slice(1, -1).replace(/\\(.)/g, "$1");
    out[m[1]] = v;
  }
  return { host: out.host, port: out.port ? Number(out.port) : undefined, user: out.user, database: out.dbname, password: out.password };
}

function stats(samples) {
  const s = [...samples].sort((a, b) => a - b);
  const mid = s.length >> 1;
  return { median: s.length % 2 ? s[mid] : (s[mid - 1] + s[mid]) / 2, min: s[0], max: s[s.length - 1] };
}

function check(cond, what) {
  if (!cond) throw new Error(`W5 postgres check failed: ${what}`);
}

const [conninfo, repsArg] = process.argv.slice(2);
if (!conninfo) {
  console.error("usage: node bench_postgres.mjs CONNINFO [REPETITIONS]");
  process.exit(2);
}
const repetitions = Number(repsArg ?? 5);
const base = parseConninfo(conninfo);

// One pool and saver per setting; synchronous_commit is set on each of the pool's sessions.
const sides = [];
for (const synchronous of [true, false]) {
  const pool = new pg.Pool({ ...base, max: 2, options: `-c synchronous_commit=${synchronous ? "on" : "off"}` });
  const saver = new PostgresSaver(pool, undefined, { schema: SCHEMA });
  sides.push({ synchronous, pool, saver, app: loop(STEPS, saver), warm: loop(20, saver), wall: [], cpu: [] });
}
await sides[0].saver.setup();

let threadNo = 0;
async function invokeOnce(side, app = side.app) {
  const thread = `w5-${process.pid}-${threadNo++}`;
  const config = { recursionLimit: STEPS + 10, durability: "sync", configurable: { thread_id: thread } };
  const out = await app.invoke({ counter: 0, log: [] }, config);
  return { out, thread };
}

for (const side of sides) await invokeOnce(side, side.warm);  // warm-up: connections, JIT
for (let r = 0; r < repetitions; ++r) {
  for (let k = 0; k < sides.length; ++k) {
    const side = sides[(k + r) % sides.length];  // rotated, so no setting always runs first
    const done = [];
    const c0 = process.cpuUsage();
    const t0 = performance.now();
    for (let i = 0; i < INVOCATIONS; ++i) done.push(await invokeOnce(side));
    const t1 = performance.now();
    const c1 = process.cpuUsage(c0);
    for (const { out, thread } of done) {
      check(out.counter === STEPS && out.log.length === STEPS, "final state");
      const { rows } = await side.pool.query(`SELECT count(*)::int AS n FROM "${SCHEMA}".checkpoints WHERE thread_id = $1`, [thread]);
      check(rows[0].n >= STEPS, `checkpoints of ${thread} in the database (${rows[0].n})`);
    }
    side.wall.push(((t1 - t0) * 1e3) / (STEPS * INVOCATIONS));
    side.cpu.push((c1.user + c1.system) / (STEPS * INVOCATIONS));
  }
}
for (const side of sides) {
  const w = stats(side.wall);
  const c = stats(side.cpu);
  console.log(
    JSON.stringify({
      kind: "w5_postgres",
      side: "langgraphjs",
      synchronous_commit: side.synchronous,
      wall_us_per_step: Number(w.median.toFixed(1)),
      wall_min: Number(w.min.toFixed(1)),
      wall_max: Number(w.max.toFixed(1)),
      cpu_us_per_step: Number(c.median.toFixed(1)),
      repetitions,
    }),
  );
  await side.pool.end();
}
