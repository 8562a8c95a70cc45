// The inspector page's HTML, style and script (<stategraph/inspect.hpp> puts the graph's SVG
// between page_head and page_middle, the thread's data between page_middle and page_tail).
// Plain DOM, no library: the page must open offline. The graph comes laid out by Graphviz's
// dot; the layered layout below is the fallback for a machine without dot.
//
// What a test or a person can rely on: #graph[data-drawn-by] ("page" or the renderer) and
// its note #graph-note; #graph g.node[data-name][data-kind] (in dot's SVG, the node whose
// <title> is the vertex's DOT id; class "ran" for the nodes of the selected step, "next" for
// those scheduled after it, "failed" for those whose task failed in the step from it),
// #timeline[data-count] and its
// rows .row[data-id], #writes .write (one per changed path), #interrupts .interrupt,
// #failures .failure, #pending .pending, #state (the tree). `#cp=<id>` in the address
// selects a checkpoint; the arrow keys move through the timeline.
#pragma once

namespace stategraph::detail::inspect {

inline constexpr const char* page_head = R"sgpage(<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>stategraph inspector</title>
<style>
:root { --ink:#1d2330; --muted:#6b7385; --line:#d8dce6; --node:#eef1fb; --edge:#51608c; --ran:#f6b04a; --next:#2f7de1;
  --add:#e6f6ea; --del:#fdecec; --chg:#fff6dc; }
* { box-sizing: border-box; }
body { margin:0; font:13px/1.4 system-ui, -apple-system, "Segoe UI", Helvetica, Arial, sans-serif; color:var(--ink); }
header { padding:8px 14px; border-bottom:1px solid var(--line); display:flex; gap:16px; align-items:baseline; }
header h1 { font-size:16px; margin:0; }
header .sub { color:var(--muted); }
main { display:grid; grid-template-columns:minmax(360px, 44%) 1fr; height:calc(100vh - 40px); }
#left { border-right:1px solid var(--line); display:flex; flex-direction:column; min-height:0; }
#graph { flex:0 0 auto; max-height:55%; overflow:auto; padding:6px; border-bottom:1px solid var(--line); }
#graph svg { display:block; margin:auto; max-width:100%; height:auto; }
#graph .note { color:var(--muted); font-size:11px; text-align:center; margin-top:2px; }
#graph .node.ran path, #graph .node.ran polygon, #graph .node.ran ellipse { fill:var(--ran); stroke:#b36b00; stroke-width:2; }
#graph .node.next path, #graph .node.next polygon, #graph .node.next ellipse { stroke:var(--next); stroke-width:3; stroke-dasharray:5 3; }
#graph .node rect { fill:var(--node); stroke:var(--edge); rx:7; }
#graph .node.pseudo rect { fill:#fff; rx:14; }
#graph .node.join rect { fill:#333; stroke:#333; rx:1; }
#graph .node.ran rect { fill:var(--ran); stroke:#b36b00; stroke-width:2; }
#graph .node.next rect { stroke:var(--next); stroke-width:3; stroke-dasharray:5 3; }
#graph .node.failed rect, #graph .node.failed path, #graph .node.failed polygon { fill:#fbe1e1; stroke:#c0392b; stroke-width:3; }
#graph svg.layout .node text { font-size:12px; text-anchor:middle; dominant-baseline:central; pointer-events:none; }
#graph svg.layout .edge { fill:none; stroke:#333; stroke-width:1.2; }
#graph svg.layout .edge.branch { stroke-dasharray:6 4; }
#graph svg.layout .edge.goto { stroke-dasharray:2 3; }
#graph svg.layout .edge.send { stroke-width:2.4; }
#graph svg.layout .elabel { font-size:10px; fill:var(--muted); }
#graph svg.layout .stage { fill:none; stroke:#8a8a8a; stroke-dasharray:4 3; rx:10; }
#graph svg.layout .stagelabel { font-size:11px; fill:#8a8a8a; }
#tlhead { padding:6px 10px; color:var(--muted); border-bottom:1px solid var(--line); }
#timeline { flex:1 1 auto; overflow-y:auto; position:relative; min-height:120px; outline:none; }
#timeline .spacer { position:relative; }
#timeline .row { position:absolute; left:0; right:0; height:24px; padding:0 8px; display:flex; gap:8px; align-items:center;
  white-space:nowrap; overflow:hidden; cursor:pointer; border-bottom:1px solid #f1f2f6; }
#timeline .row:hover { background:#f5f7fc; }
#timeline .row.sel { background:#dfe8fb; }
#timeline .lane { display:inline-block; width:8px; height:8px; border-radius:50%; background:var(--edge); flex:0 0 auto; }
#timeline .id { font-variant-numeric:tabular-nums; width:54px; color:var(--muted); flex:0 0 auto; }
#timeline .src { width:52px; flex:0 0 auto; }
.badge { border-radius:8px; padding:0 6px; font-size:11px; }
.badge.int { background:#e9e1fb; color:#4a2a9c; }
.badge.fail { background:#fbe1e1; color:#9c2a2a; }
.badge.fork { background:#e1f3fb; color:#1f5f7a; }
#right { overflow-y:auto; padding:10px 16px; min-height:0; }
#right h2 { font-size:14px; margin:14px 0 6px; }
#right h2 .count { color:var(--muted); font-weight:normal; }
.empty { color:var(--muted); font-style:italic; }
.write, .pending, .failure, .interrupt { font-family:ui-monospace, Menlo, Consolas, monospace; font-size:12px;
  padding:3px 6px; margin:2px 0; border-radius:4px; white-space:pre-wrap; word-break:break-all; }
.write.add { background:var(--add); } .write.del { background:var(--del); } .write.chg { background:var(--chg); }
.failure { background:var(--del); }
.interrupt { background:#f3effc; }
.interrupt .open { color:#4a2a9c; font-weight:bold; }
.pending { background:#f5f6f8; }
code { font-family:ui-monospace, Menlo, Consolas, monospace; }
#state details { margin-left:14px; }
#state summary { cursor:pointer; font-family:ui-monospace, Menlo, Consolas, monospace; font-size:12px; }
#state .leaf { margin-left:14px; font-family:ui-monospace, Menlo, Consolas, monospace; font-size:12px; white-space:pre-wrap;
  word-break:break-all; }
#state .key { color:#7a3e9d; }
#state .more { margin-left:14px; font-size:11px; }
#meta { color:var(--muted); }
</style></head><body>
<header><h1 id="title">stategraph inspector</h1><span class="sub" id="subtitle"></span></header>
<main>
<div id="left"><div id="graph">)sgpage";

inline constexpr const char* page_middle = R"sgpage(</div><div id="tlhead"></div><div id="timeline" tabindex="0"><div class="spacer"></div></div></div>
<div id="right">
<div id="selected"></div>
<h2>Writes of this step <span class="count" id="writes-count"></span></h2><div id="writes"></div>
<p class="empty">Below: the step that ran from this checkpoint, if it paused or failed.</p>
<h2>Interrupts <span class="count" id="interrupts-count"></span></h2><div id="interrupts"></div>
<h2>Failures <span class="count" id="failures-count"></span></h2><div id="failures"></div>
<h2>Pending writes <span class="count" id="pending-count"></span></h2><div id="pending"></div>
<h2>State</h2><div id="state"></div>
</div>
</main>
<script type="application/json" id="sg-data">)sgpage";

inline constexpr const char* page_tail = R"sgpage(</script>
<script>
"use strict";
const DATA = JSON.parse(document.getElementById("sg-data").textContent);
const CPS = DATA.checkpoints;
const BY_ID = new Map(CPS.map((c, i) => [c.id, i]));
const SVGNS = "http://www.w3.org/2000/svg";
const el = (tag, cls, text) => { const e = document.createElement(tag); if (cls) e.className = cls; if (text !== undefined) e.textContent = text; return e; };
const svg = (tag, attrs) => { const e = document.createElementNS(SVGNS, tag); for (const k in attrs) e.setAttribute(k, attrs[k]); return e; };
const parse = (t) => { try { return JSON.parse(t); } catch (e) { return t; } };
const short = (v, n) => { let s = typeof v === "string" ? JSON.stringify(v) : JSON.stringify(v); if (s === undefined) s = String(v); return s.length > (n || 400) ? s.slice(0, n || 400) + " …" : s; };

document.title = DATA.title + " · stategraph inspector";
document.getElementById("title").textContent = DATA.title;
document.getElementById("subtitle").textContent = "thread " + DATA.thread + " · " + CPS.length + " checkpoints" + (DATA.graph ? " · state " + DATA.graph.state : "");

// ---- per-checkpoint facts -------------------------------------------------------------
function taskNode(task) { const h = task.lastIndexOf("#"); return h < 0 ? task : task.slice(0, h); }
function facts(c) {
  if (c._facts) return c._facts;
  const f = { interrupts: [], failures: [], results: [], other: [] };
  const answers = new Map();
  for (const w of c.w) if (w.channel === "__resume__") answers.set(taskNode(w.task) + "/" + w.index, w.value);
  for (const w of c.w) {
    if (w.channel === "__interrupt__") f.interrupts.push({ node: taskNode(w.task), index: w.index, payload: w.value, answer: answers.get(taskNode(w.task) + "/" + w.index) });
    else if (w.channel === "__error__") {
      const e = parse(w.value), rec = e !== null && typeof e === "object" && "message" in e;
      f.failures.push({ node: taskNode(w.task), attempt: w.index + 1, message: rec ? e.message : e, type: rec ? e.type : undefined });
    }
    else if (w.channel !== "__resume__") f.results.push(w);
  }
  // Kept results without an interrupt or a failure record: a store written before failures
  // were recorded, where only the kept writes say that the step from here failed.
  if (!f.failures.length && f.results.length && !f.interrupts.length) f.failures.push({ node: "", message: "the step from this checkpoint failed; its message was not recorded (a store written before failure records); the writes of the nodes that succeeded are kept (below)" });
  return (c._facts = f);
}
function ranIn(c) {
  if (c.source !== "loop") return [];
  const p = BY_ID.get(c.parent);
  return p === undefined ? [] : (CPS[p].meta.next || []);
}

// ---- state at a checkpoint: deltas applied along the parent chain, cached -------------
const cache = new Map();
function joinValue(d) {
  const base = parse(d.v);
  if (!d.p || !d.p.length) return base;
  let out = Array.isArray(base) ? base.slice() : [base];
  for (const piece of d.p) { const x = parse(piece); if (Array.isArray(x)) out = out.concat(x); else out.push(x); }
  return out;
}
function stateAt(id) {
  if (!id || !BY_ID.has(id)) return {};
  if (cache.has(id)) return cache.get(id);
  const chain = [];
  let at = id;
  while (at && BY_ID.has(at) && !cache.has(at)) { chain.push(at); at = CPS[BY_ID.get(at)].parent; }
  let state = at && cache.has(at) ? cache.get(at) : {};
  // Arrays made during this walk and not yet in a cached state are extended in place, so a
  // walk along a long append history copies it once per cached state, not once per step.
  const owned = new Set();
  for (let k = chain.length - 1; k >= 0; --k) {
    const c = CPS[BY_ID.get(chain[k])];
    const next = Object.assign({}, state);
    for (const d of c.d) {
      if (d.a) {
        let v = Array.isArray(next[d.c]) ? next[d.c] : [];
        if (!owned.has(v)) { v = v.slice(); owned.add(v); }
        for (const piece of d.a) { const x = parse(piece); if (Array.isArray(x)) for (const e of x) v.push(e); else v.push(x); }
        next[d.c] = v;
      } else next[d.c] = joinValue(d);
    }
    state = next;
    // Keep every 64th state of a long walk and the one asked for, so memory stays bounded.
    if (k === 0 || k % 64 === 0) { cache.set(chain[k], state); owned.clear(); }
  }
  if (cache.size > 512) { for (const key of Array.from(cache.keys()).slice(0, 256)) cache.delete(key); }
  return state;
}

// ---- diff -------------------------------------------------------------------------------
function diff(a, b, path, out) {
  if (out.length >= 500 || a === b) return;
  const obj = (x) => x !== null && typeof x === "object";
  if (Array.isArray(a) && Array.isArray(b)) {
    const n = Math.min(a.length, b.length);
    for (let i = 0; i < n; ++i) diff(a[i], b[i], path + "[" + i + "]", out);
    for (let i = n; i < b.length && out.length < 500; ++i) out.push({ kind: "add", path: path + "[" + i + "]", after: b[i] });
    for (let i = n; i < a.length && out.length < 500; ++i) out.push({ kind: "del", path: path + "[" + i + "]", before: a[i] });
  } else if (obj(a) && obj(b) && !Array.isArray(a) && !Array.isArray(b)) {
    for (const k of Object.keys(b)) {
      if (!(k in a)) out.push({ kind: "add", path: path + "." + k, after: b[k] });
      else diff(a[k], b[k], path + "." + k, out);
    }
    for (const k of Object.keys(a)) if (!(k in b)) out.push({ kind: "del", path: path + "." + k, before: a[k] });
  } else if (a === undefined) out.push({ kind: "add", path, after: b });
  else if (JSON.stringify(a) !== JSON.stringify(b)) out.push({ kind: "chg", path, before: a, after: b });
}

// ---- the graph --------------------------------------------------------------------------
const CONTROL = new Set(["edge", "branch", "goto", "send", "join_in", "join_out"]);
let nodeEls = new Map();
function note(box, text) { const n = el("div", "note", text); n.id = "graph-note"; box.appendChild(n); }
// The SVG dot drew: each node's <title> is its DOT id, mapped back to the description's vertex.
function adoptSvg(box, g, drawing) {
  const byId = new Map();
  (drawing.ids || []).forEach((id, i) => { if (id) byId.set(id, g.vertices[i]); });
  for (const grp of box.querySelectorAll("svg g.node")) {
    const t = grp.querySelector(":scope > title"), v = t && byId.get(t.textContent);
    if (!v) continue;
    grp.dataset.name = v.kind === "join" ? "join:" + v.name : v.name;
    grp.dataset.kind = v.kind;
    if (v.kind === "node") nodeEls.set(v.name, grp);
  }
  box.dataset.drawnBy = drawing.by;
  note(box, "laid out by " + (drawing.generator || drawing.by));
  // A graph a little taller than its box is shrunk to fit; a much taller one scrolls instead.
  const s = box.querySelector("svg"), h = s.height.baseVal.value, w = s.width.baseVal.value;
  const room = (window.innerHeight - 40) * 0.55 - 34;
  if (h > room && room / h >= 0.5) { s.style.height = room + "px"; s.style.width = (w * room) / h + "px"; }
}
function drawGraph() {
  const box = document.getElementById("graph");
  const g = DATA.graph, drawing = DATA.drawing || { by: "page" };
  if (!g) { box.dataset.drawnBy = "none"; box.appendChild(el("div", "empty", "This store holds no description of the thread's graph (written before graphs were recorded).")); return; }
  if (drawing.by !== "page" && box.querySelector("svg")) { adoptSvg(box, g, drawing); return; }
  box.dataset.drawnBy = "page";
  layOut(box, g);
  note(box, "laid out by the page: " + (drawing.reason || "no renderer's drawing in the page"));
}
// The fallback: a layered layout, long edges routed through a virtual vertex per layer.
function layOut(box, g) {
  const verts = [];
  const index = new Map();
  g.vertices.forEach((v, i) => { if (v.kind !== "channel") { index.set(i, verts.length); verts.push({ i, kind: v.kind, name: v.name, stage: v.stage }); } });
  const links = g.links.filter((l) => CONTROL.has(l.kind) && index.has(l.from) && index.has(l.to)).map((l) => ({ from: index.get(l.from), to: index.get(l.to), kind: l.kind, label: l.label }));
  const n = verts.length, out = verts.map(() => []);
  links.forEach((l, k) => out[l.from].push(k));
  // Back edges (found by a depth-first walk from __start__) do not rank nodes.
  const state = new Array(n).fill(0), back = new Set();
  const walk = (v) => { state[v] = 1; for (const k of out[v]) { const t = links[k].to; if (state[t] === 1) back.add(k); else if (state[t] === 0) walk(t); } state[v] = 2; };
  walk(0); for (let v = 0; v < n; ++v) if (state[v] === 0) walk(v);
  const layer = new Array(n).fill(0);
  for (let changed = true, guard = 0; changed && guard < n + 2; ++guard) {
    changed = false;
    links.forEach((l, k) => { if (!back.has(k) && layer[l.to] < layer[l.from] + 1) { layer[l.to] = layer[l.from] + 1; changed = true; } });
  }
  const endV = verts.findIndex((v) => v.kind === "end");
  if (endV >= 0) layer[endV] = Math.max(...layer.filter((_, v) => v !== endV)) + 1;
  // Long edges pass through a virtual vertex per layer they cross, so they are ordered
  // with the nodes and drawn around them instead of through them.
  const lay = layer.slice(), virt = [], routes = [];
  links.forEach((l, k) => {
    const route = [l.from];
    if (!back.has(k)) for (let r = layer[l.from] + 1; r < layer[l.to]; ++r) { virt[lay.length] = true; route.push(lay.length); lay.push(r); }
    route.push(l.to);
    routes.push(route);
  });
  const N = lay.length;
  const layers = [];
  for (let v = 0; v < N; ++v) (layers[lay[v]] = layers[lay[v]] || []).push(v);
  const pos = new Array(N).fill(0);
  const preds = Array.from({ length: N }, () => []);
  routes.forEach((route, k) => { if (!back.has(k)) for (let i = 0; i + 1 < route.length; ++i) preds[route[i + 1]].push(route[i]); });
  for (const row of layers) if (row) row.forEach((v, k) => (pos[v] = k));
  for (let sweep = 0; sweep < 3; ++sweep)
    for (const row of layers) {
      if (!row) continue;
      const bary = (v) => (preds[v].length ? preds[v].reduce((s, p) => s + pos[p], 0) / preds[v].length : pos[v]);
      row.sort((x, y) => bary(x) - bary(y) || x - y);
      row.forEach((v, k) => (pos[v] = k));
    }
  const width = (v) => (virt[v] ? 14 : verts[v].kind === "join" ? 60 : Math.max(70, verts[v].name.length * 7.2 + 26));
  const H = 30, GAP = 28, ROW = 74;
  const rowWidth = (row) => row.reduce((s, v) => s + width(v), 0) + GAP * (row.length - 1);
  const maxW = Math.max(...layers.filter(Boolean).map(rowWidth));
  const xy = new Array(N);
  layers.forEach((row, r) => { if (!row) return; let x = (maxW - rowWidth(row)) / 2 + 30; for (const v of row) { xy[v] = { x: x + width(v) / 2, y: 24 + r * ROW + H / 2, w: width(v), h: virt[v] ? 0 : verts[v].kind === "join" ? 8 : H }; x += width(v) + GAP; } });
  const W = maxW + 120, Ht = 24 + layers.length * ROW;
  const root = svg("svg", { class: "layout", width: W, height: Ht, viewBox: "0 0 " + W + " " + Ht, role: "img" });
  const defs = svg("defs", {});
  const marker = svg("marker", { id: "arrow", viewBox: "0 0 10 10", refX: 9, refY: 5, markerWidth: 7, markerHeight: 7, orient: "auto-start-reverse" });
  marker.appendChild(svg("path", { d: "M0,0 L10,5 L0,10 z", fill: "#333" }));
  defs.appendChild(marker); root.appendChild(defs);
  // Stages as dashed boxes around their nodes.
  (g.stages || []).forEach((name, s) => {
    const members = verts.map((v, k) => k).filter((k) => verts[k].stage === s);
    if (!members.length) return;
    const x0 = Math.min(...members.map((k) => xy[k].x - xy[k].w / 2)) - 10, x1 = Math.max(...members.map((k) => xy[k].x + xy[k].w / 2)) + 10;
    const y0 = Math.min(...members.map((k) => xy[k].y - xy[k].h / 2)) - 18, y1 = Math.max(...members.map((k) => xy[k].y + xy[k].h / 2)) + 8;
    root.appendChild(svg("rect", { class: "stage", x: x0, y: y0, width: x1 - x0, height: y1 - y0 }));
    const t = svg("text", { class: "stagelabel", x: x0 + 6, y: y0 + 12 }); t.textContent = name; root.appendChild(t);
  });
  links.forEach((l, k) => {
    const a = xy[l.from], b = xy[l.to];
    let d;
    if (back.has(k) || layer[l.to] <= layer[l.from]) {
      const bend = Math.max(a.x + a.w / 2, b.x + b.w / 2) + 40;
      d = "M" + (a.x + a.w / 2) + "," + a.y + " C" + bend + "," + a.y + " " + bend + "," + b.y + " " + (b.x + b.w / 2) + "," + b.y;
    } else {
      const pts = routes[k].map((v) => xy[v]);
      let x0 = a.x, y0 = a.y + a.h / 2;
      d = "M" + x0 + "," + y0;
      for (let i = 1; i < pts.length; ++i) {
        const p = pts[i], x1 = p.x, y1 = p.y - p.h / 2, my = (y0 + y1) / 2;
        d += " C" + x0 + "," + my + " " + x1 + "," + my + " " + x1 + "," + y1;
        x0 = x1; y0 = p.y + p.h / 2;
      }
    }
    const p = svg("path", { class: "edge " + l.kind, d });
    if (l.kind !== "join_in") p.setAttribute("marker-end", "url(#arrow)");
    p.dataset.from = verts[l.from].name; p.dataset.to = verts[l.to].name;
    root.appendChild(p);
    if (l.label && l.kind !== "join_out") { const t = svg("text", { class: "elabel", x: (a.x + b.x) / 2 + 4, y: (a.y + b.y) / 2 }); t.textContent = l.label; root.appendChild(t); }
  });
  verts.forEach((v, k) => {
    const p = xy[k];
    const grp = svg("g", { class: "node " + (v.kind === "node" ? "" : v.kind === "join" ? "join" : "pseudo") });
    grp.dataset.name = v.kind === "join" ? "join:" + v.name : v.name;
    grp.dataset.kind = v.kind;
    grp.appendChild(svg("rect", { x: p.x - p.w / 2, y: p.y - p.h / 2, width: p.w, height: p.h }));
    if (v.kind !== "join") { const t = svg("text", { x: p.x, y: p.y }); t.textContent = v.name; grp.appendChild(t); }
    const title = svg("title", {}); title.textContent = v.kind === "join" ? "join into " + v.name : v.name; grp.appendChild(title);
    root.appendChild(grp);
    if (v.kind === "node") nodeEls.set(v.name, grp);
  });
  box.appendChild(root);
}

// ---- the timeline: only the rows in view are in the document --------------------------
const ROW_H = 24;
const tl = document.getElementById("timeline");
const spacer = tl.querySelector(".spacer");
tl.dataset.count = String(CPS.length);
document.getElementById("tlhead").textContent = CPS.length + " checkpoints (oldest first)";
spacer.style.height = CPS.length * ROW_H + "px";
// Lanes: a checkpoint continues its parent's lane when it is the parent's first child.
const lane = new Array(CPS.length).fill(0);
{ const firstChild = new Map(); let lanes = 0;
  CPS.forEach((c, i) => {
    const p = BY_ID.get(c.parent);
    if (p === undefined) { lane[i] = i === 0 ? 0 : ++lanes; return; }
    if (!firstChild.has(c.parent)) { firstChild.set(c.parent, c.id); lane[i] = lane[p]; } else lane[i] = ++lanes;
  }); }
const LANE_COLORS = ["#51608c", "#2f9e6e", "#c2572b", "#8a4fd1", "#c09a1a", "#2b8fc2"];
let selected = -1;
function renderRows() {
  const first = Math.max(0, Math.floor(tl.scrollTop / ROW_H) - 5);
  const last = Math.min(CPS.length, Math.ceil((tl.scrollTop + tl.clientHeight) / ROW_H) + 5);
  spacer.replaceChildren();
  for (let i = first; i < last; ++i) {
    const c = CPS[i], f = facts(c);
    const row = el("div", "row" + (i === selected ? " sel" : ""));
    row.style.top = i * ROW_H + "px";
    row.dataset.id = String(c.id);
    const dot = el("span", "lane"); dot.style.marginLeft = Math.min(lane[i], 8) * 10 + "px"; dot.style.background = LANE_COLORS[lane[i] % LANE_COLORS.length];
    row.append(dot, el("span", "id", "#" + c.id), el("span", "", "step " + c.step), el("span", "src", c.source));
    const ran = ranIn(c);
    if (ran.length) row.append(el("span", "", ran.join(", ")));
    if (c.parent && i > 0 && CPS[i - 1].id !== c.parent) row.append(el("span", "badge fork", "from #" + c.parent));
    const open = f.interrupts.filter((x) => x.answer === undefined).length;
    if (f.interrupts.length) row.append(el("span", "badge int", (open ? "paused" : "interrupt") + " ×" + f.interrupts.length));
    if (f.failures.length) row.append(el("span", "badge fail", "failed"));
    row.addEventListener("click", () => select(i, false));
    spacer.appendChild(row);
  }
}
tl.addEventListener("scroll", renderRows, { passive: true });
tl.addEventListener("keydown", (e) => {
  if (e.key === "ArrowDown" || e.key === "j") { select(Math.min(CPS.length - 1, selected + 1), true); e.preventDefault(); }
  if (e.key === "ArrowUp" || e.key === "k") { select(Math.max(0, selected - 1), true); e.preventDefault(); }
});

// ---- the selected checkpoint -------------------------------------------------------------
function valueNode(key, v, depth) {
  const obj = v !== null && typeof v === "object";
  if (!obj) {
    const leaf = el("div", "leaf");
    if (key !== null) leaf.append(el("span", "key", key + ": "));
    leaf.append(document.createTextNode(short(v, 2000)));
    return leaf;
  }
  const keys = Array.isArray(v) ? v.map((_, i) => i) : Object.keys(v);
  const d = el("details");
  d.append(el("summary", "", (key !== null ? key + ": " : "") + (Array.isArray(v) ? "[" + keys.length + "]" : "{" + keys.length + "}")));
  let shown = 0;
  const more = () => {
    const stop = Math.min(keys.length, shown + 100);
    for (; shown < stop; ++shown) d.insertBefore(valueNode(String(keys[shown]), v[keys[shown]], depth + 1), d.querySelector(":scope > .more"));
    const btn = d.querySelector(":scope > .more");
    if (shown >= keys.length && btn) btn.remove();
  };
  d.addEventListener("toggle", () => { if (d.open && shown === 0) { if (keys.length > 100) { const b = el("button", "more", "show more"); b.addEventListener("click", more); d.append(b); } more(); } });
  if (depth < 1 && keys.length <= 20) d.open = true;
  return d;
}
function fill(id, items, make, none) {
  const box = document.getElementById(id);
  box.replaceChildren();
  document.getElementById(id + "-count") && (document.getElementById(id + "-count").textContent = items.length ? "(" + items.length + ")" : "");
  if (!items.length) { box.append(el("div", "empty", none)); return; }
  for (const x of items.slice(0, 500)) box.append(make(x));
  if (items.length > 500) box.append(el("div", "empty", (items.length - 500) + " more not shown"));
}
function select(i, scroll) {
  if (i < 0 || i >= CPS.length) return;
  selected = i;
  const c = CPS[i], f = facts(c), ran = ranIn(c), next = c.meta.next || [];
  if (scroll) { const top = i * ROW_H; if (top < tl.scrollTop || top + ROW_H > tl.scrollTop + tl.clientHeight) tl.scrollTop = top - tl.clientHeight / 2; }
  renderRows();
  if (location.hash !== "#cp=" + c.id) history.replaceState(null, "", "#cp=" + c.id);
  for (const [name, g] of nodeEls) {
    g.classList.toggle("ran", ran.includes(name)); g.classList.toggle("next", next.includes(name));
    g.classList.toggle("failed", f.failures.some((x) => x.node === name));
  }
  const sel = document.getElementById("selected");
  sel.replaceChildren();
  sel.append(el("h2", "", "Checkpoint #" + c.id + " · step " + c.step + " · " + c.source));
  sel.dataset.id = String(c.id);
  const meta = el("div", "", "");
  meta.id = "meta";
  meta.textContent = "parent " + (c.parent ? "#" + c.parent : "none") + " · ran: " + (ran.length ? ran.join(", ") : "—") + " · next: " + (next.length ? next.join(", ") : "— (the run is over)") + (c.meta.run ? " · run " + c.meta.run : "");
  sel.append(meta);
  const before = stateAt(c.parent), after = stateAt(c.id);
  const changes = [];
  for (const d of c.d) diff(before[d.c], after[d.c], d.c, changes);
  fill("writes", changes, (x) => {
    const e = el("div", "write " + x.kind);
    e.dataset.path = x.path;
    e.textContent = x.kind === "add" ? "+ " + x.path + " = " + short(x.after) : x.kind === "del" ? "- " + x.path + " (was " + short(x.before) + ")" : "~ " + x.path + ": " + short(x.before) + " → " + short(x.after);
    return e;
  }, c.source === "input" || c.source === "fork" ? "no change" : "this step wrote nothing");
  fill("interrupts", f.interrupts, (x) => {
    const e = el("div", "interrupt");
    e.dataset.node = x.node;
    e.append(el("span", x.answer === undefined ? "open" : "", x.node + (x.answer === undefined ? " waits for an answer" : " asked") + ": "), document.createTextNode(short(parse(x.payload), 2000)));
    if (x.answer !== undefined) e.append(document.createTextNode("  → answered " + short(parse(x.answer))));
    return e;
  }, "none");
  fill("failures", f.failures, (x) => {
    const e = el("div", "failure", (x.node ? x.node + (x.attempt > 1 ? " (attempt " + x.attempt + ")" : "") + ": " : "") + (typeof x.message === "string" ? x.message : short(x.message)));
    e.dataset.node = x.node;
    if (x.type) { e.dataset.type = x.type; e.title = x.type; }
    return e;
  }, "none");
  fill("pending", f.results, (x) => el("div", "pending", x.task + " [" + x.index + "] " + x.channel + " = " + short(parse(x.value))), "none");
  const st = document.getElementById("state");
  st.replaceChildren();
  const names = DATA.graph ? DATA.graph.channels.map((x) => x.name) : Object.keys(after);
  for (const k of Object.keys(after)) if (!names.includes(k)) names.push(k);
  for (const k of names) if (k in after) st.append(valueNode(k, after[k], 0));
}

drawGraph();
const wanted = /#cp=(\d+)/.exec(location.hash);
select(wanted && BY_ID.has(Number(wanted[1])) ? BY_ID.get(Number(wanted[1])) : CPS.length - 1, true);
window.addEventListener("hashchange", () => { const m = /#cp=(\d+)/.exec(location.hash); if (m && BY_ID.has(Number(m[1]))) select(BY_ID.get(Number(m[1])), true); });
document.body.dataset.ready = "1";
document.body.dataset.loadMs = String(Math.round(performance.now()));
</script></body></html>
)sgpage";

}  // namespace stategraph::detail::inspect
