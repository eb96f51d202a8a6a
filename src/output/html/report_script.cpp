// The HTML report's script. The page holds the tables (report_data) as JSON ("meta": events,
// threads, frames, facts) and as gzip-compressed, base64-encoded little-endian columns
// ("columns": per sample time, weight, thread, stack, event; per stack its prefix and frame),
// unpacked with the browser's DecompressionStream. A stack id is a node of the top-down call tree
// (prefixes come before the stacks that use them), so each view is one pass over the samples
// that pass the filters (event, time range, search) and one backwards pass over the stacks.
// Views: summary, top-down and bottom-up call trees (sortable, expandable, the hottest path
// opened first), flame graph and icicle (click to zoom), and the per-thread timeline, where a
// dragged range filters every view. "#selftest=NAME" drives the views as a user would and
// records the outcome in <body data-selftest="pass" | "fail: ...">, for headless tests.
#include "output/html/report_page.hpp"

namespace sonde::output {

std::string_view html_report_views_script() {
  return R"JS("use strict";
(function () {
  const errors = [];
  window.addEventListener("error", (e) => errors.push(String(e.message)));
  window.addEventListener("unhandledrejection", (e) => errors.push(String(e.reason)));
  const $ = (id) => document.getElementById(id);
  const meta = JSON.parse($("meta").textContent);
  const strings = meta.strings;
  const frames = meta.frames;  // columns: name, dso, file (string ids), line, kernel
  const frameName = (f) => strings[frames.name[f]];
  const frameDso = (f) => strings[frames.dso[f]];
  let data = null;
  const state = { event: 0, range: null, search: "", sortKey: "total", flameRoot: -1, icicle: false, diffColors: false };
  let view = null;  // the current filter's totals
  const expanded = new Set();
  const expandedUp = new Set();

  async function decode() {
    const text = $("columns").textContent.trim();
    const raw = atob(text);
    const bytes = new Uint8Array(raw.length);
    for (let i = 0; i < raw.length; i++) bytes[i] = raw.charCodeAt(i);
    const stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream("gzip"));
    const buffer = await new Response(stream).arrayBuffer();
    let at = 0;
    const take = (Type, n) => {
      const array = new Type(buffer, at, n);
      at += n * Type.BYTES_PER_ELEMENT;
      return array;
    };
    const n = meta.samples, m = meta.stacks, k = meta.slices;
    const d = {
      time: take(Float64Array, n), weight: take(Float64Array, n), sliceStart: take(Float64Array, k),
      sliceEnd: take(Float64Array, k), thread: take(Uint32Array, n), stack: take(Int32Array, n),
      prefix: take(Int32Array, m), frame: take(Uint32Array, m), sliceCpu: take(Uint32Array, k),
      slicePid: take(Int32Array, k), sliceName: take(Uint32Array, k), event: take(Uint8Array, n),
    };
    d.cpus = 0;
    for (let i = 0; i < k; i++) d.cpus = Math.max(d.cpus, d.sliceCpu[i] + 1);
    // Children of each stack (compressed rows), for the top-down tree and the flame graph.
    const count = new Uint32Array(m + 1);
    for (let s = 0; s < m; s++) count[d.prefix[s] + 1]++;
    d.childStart = new Uint32Array(m + 2);
    for (let s = 0; s <= m; s++) d.childStart[s + 1] = d.childStart[s] + count[s];
    d.children = new Uint32Array(m);
    const fill = d.childStart.slice(0, m + 1);
    for (let s = 0; s < m; s++) d.children[fill[d.prefix[s] + 1]++] = s;
    return d;
  }
  // Children of stack `s` (-1: the roots).
  const childrenOf = (s) => data.children.subarray(data.childStart[s + 1], data.childStart[s + 2]);

  function searchMatcher() {
    if (!state.search) return null;
    let re;
    try { re = new RegExp(state.search); } catch (e) { re = null; }
    const test = re ? (name) => re.test(name) : (name) => name.includes(state.search);
    const frameHit = new Uint8Array(frames.name.length);
    for (let f = 0; f < frameHit.length; f++) frameHit[f] = test(frameName(f)) ? 1 : 0;
    const m = data.prefix.length, onPath = new Uint8Array(m);
    for (let s = 0; s < m; s++) {
      const p = data.prefix[s];
      onPath[s] = frameHit[data.frame[s]] || (p >= 0 && onPath[p]) ? 1 : 0;
    }
    return { frameHit, onPath };
  }

  // The filter's weights: each stack's own and its subtree's, the sum, the sample count.
  function compute() {
    const m = data.prefix.length, n = data.time.length;
    const self = new Float64Array(m), total = new Float64Array(m);
    const match = searchMatcher();
    let sum = 0, samples = 0, rootless = 0;
    const r = state.range;
    for (let i = 0; i < n; i++) {
      if (data.event[i] !== state.event) continue;
      const t = data.time[i];
      if (r && (t < r[0] || t > r[1])) continue;
      const s = data.stack[i];
      if (match && (s < 0 || !match.onPath[s])) continue;
      const w = data.weight[i];
      sum += w;
      samples++;
      if (s >= 0) self[s] += w; else rootless += w;
    }
    for (let s = m - 1; s >= 0; s--) {
      total[s] += self[s];
      const p = data.prefix[s];
      if (p >= 0) total[p] += total[s];
    }
    return { self, total, sum, samples, rootless, match };
  }

  const event = () => meta.events[state.event];
  function amount(w) {
    if (!event().ns) return String(Math.round(w));
    return w >= 1e9 ? (w / 1e9).toFixed(3) + " s" : (w / 1e6).toFixed(3) + " ms";
  }
  const percent = (w) => (view.sum > 0 ? (100 * w / view.sum).toFixed(2) : "0.00") + "%";
  function escape(text) {
    return String(text).replace(/[&<>"]/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;" })[c]);
  }

  // ---- Top-down and bottom-up call trees: rows of expanded nodes, siblings sorted.
  function sortedChildren(list, weightOf, nameOf) {
    const items = Array.from(list).filter((x) => weightOf(x) > 0);
    if (state.sortKey === "name") items.sort((a, b) => nameOf(a).localeCompare(nameOf(b)));
    else items.sort((a, b) => weightOf(b) - weightOf(a));
    return items;
  }
  function row(depth, open, leaf, total, self, name, dso, key) {
    const toggle = leaf ? "&nbsp;" : open ? "&#9662;" : "&#9656;";
    return `<tr data-key="${key}"><td class="num">${percent(total)}</td><td class="num">${self === null ? "" : percent(self)}</td>` +
      `<td class="num">${amount(total)}</td><td class="fn" style="padding-left:${depth * 14 + 4}px">` +
      `<span class="toggle">${toggle}</span> ${escape(name)} <span class="dso">${escape(dso)}</span></td></tr>`;
  }
  const kMaxRows = 3000;
  function renderTopDown() {
    const rows = [];
    const walk = (s, depth) => {
      if (rows.length >= kMaxRows) return;
      const kids = childrenOf(s).filter((c) => view.total[c] > 0);
      const open = expanded.has(s);
      rows.push(row(depth, open, kids.length === 0, view.total[s], view.self[s], frameName(data.frame[s]),
                    frameDso(data.frame[s]), s));
      if (open) for (const c of sortedChildren(kids, (x) => view.total[x], (x) => frameName(data.frame[x]))) walk(c, depth + 1);
    };
    for (const s of sortedChildren(childrenOf(-1), (x) => view.total[x], (x) => frameName(data.frame[x]))) walk(s, 0);
    $("tree-body").innerHTML = rows.join("");
  }
  // Bottom-up: a node is a path from a leaf function up its callers; its items are the
  // (stack, position) pairs it covers, grouped lazily as nodes open.
  let upRoots = [];
  function upNode(key, frame, items) {
    let weight = 0;
    for (const [s] of items) weight += view.self[s];
    return { key, frame, items, weight, kids: null };
  }
  function upChildren(node) {
    if (node.kids) return node.kids;
    const groups = new Map();
    for (const [s, t] of node.items) {
      const p = data.prefix[t];
      if (p < 0) continue;
      const f = data.frame[p];
      if (!groups.has(f)) groups.set(f, []);
      groups.get(f).push([s, p]);
    }
    node.kids = Array.from(groups, ([f, items]) => upNode(node.key + "/" + f, f, items));
    return node.kids;
  }
  function buildBottomUp() {
    const groups = new Map();
    for (let s = 0; s < view.self.length; s++) {
      if (view.self[s] <= 0) continue;
      const f = data.frame[s];
      if (!groups.has(f)) groups.set(f, []);
      groups.get(f).push([s, s]);
    }
    upRoots = Array.from(groups, ([f, items]) => upNode(String(f), f, items));
  }
  function renderBottomUp() {
    const rows = [];
    const walk = (node, depth) => {
      if (rows.length >= kMaxRows) return;
      const open = expandedUp.has(node.key);
      const kids = open ? upChildren(node) : null;
      const leaf = open ? kids.length === 0 : data.prefix[node.items[0][1]] < 0 && node.items.every(([, t]) => data.prefix[t] < 0);
      rows.push(row(depth, open, leaf, node.weight, depth === 0 ? node.weight : null, frameName(node.frame),
                    frameDso(node.frame), node.key));
      if (open) for (const k of sortedChildren(kids, (x) => x.weight, (x) => frameName(x.frame))) walk(k, depth + 1);
    };
    for (const node of sortedChildren(upRoots, (x) => x.weight, (x) => frameName(x.frame))) walk(node, 0);
    $("up-body").innerHTML = rows.join("");
  }
  function findUp(key) {
    const parts = key.split("/");
    let list = upRoots, node = null;
    for (let i = 0; i < parts.length; i++) {
      const wanted = parts.slice(0, i + 1).join("/");
      node = list.find((x) => x.key === wanted);
      if (!node) return null;
      list = upChildren(node);
    }
    return node;
  }
  // Opens the hottest path of the top-down tree from the roots down.
  function expandHottest() {
    let list = childrenOf(-1);
    for (;;) {
      let best = -1;
      for (const c of list) if (view.total[c] > 0 && (best < 0 || view.total[c] > view.total[best])) best = c;
      if (best < 0) break;
      expanded.add(best);
      list = childrenOf(best);
    }
  }
)JS"
         R"JS(
  // ---- Flame graph and icicle on a canvas: widths by total weight, siblings by name.
  const kRowHeight = 17;
  let flameBoxes = [];
  function flameColor(name, hit) {
    if (hit) return "rgb(230,0,230)";
    let h = 0;
    for (let i = 0; i < name.length; i++) h = (h * 31 + name.charCodeAt(i)) >>> 0;
    const v1 = (h % 1000) / 1000, v2 = ((h >>> 10) % 1000) / 1000;
    return `rgb(${205 + Math.round(50 * v2)},${Math.round(230 * v1)},${Math.round(55 * v2)})`;
  }
  function renderFlame() {
    const canvas = $("flame-canvas"), width = canvas.parentNode.clientWidth || 1200;
    let depth = 0;
    const measure = (s, d) => {
      depth = Math.max(depth, d + 1);
      for (const c of childrenOf(s)) if (view.total[c] > 0) measure(c, d + 1);
    };
    for (const c of childrenOf(-1)) if (view.total[c] > 0) measure(c, 1);
    const ratio = window.devicePixelRatio || 1;
    canvas.width = width * ratio;
    canvas.height = (depth + 1) * kRowHeight * ratio;
    canvas.style.width = width + "px";
    canvas.style.height = (depth + 1) * kRowHeight + "px";
    const g = canvas.getContext("2d");
    g.scale(ratio, ratio);
    g.font = "12px sans-serif";
    g.textBaseline = "middle";
    flameBoxes = [];
    const rowY = (d) => (state.icicle ? d * kRowHeight : (depth - d) * kRowHeight);
    const box = (x, w, d, label, color, node) => {
      g.fillStyle = color;
      g.fillRect(x, rowY(d), Math.max(w - 0.5, 0.5), kRowHeight - 1);
      if (w > 30) {
        g.fillStyle = "#000";
        const chars = Math.floor((w - 6) / 7);
        g.fillText(label.length > chars ? label.slice(0, Math.max(chars - 2, 0)) + ".." : label, x + 3, rowY(d) + kRowHeight / 2);
      }
      flameBoxes.push({ x, w, y: rowY(d), node });
    };
    // Zoomed into a node: its ancestors span the width, it and its subtree fill it.
    const focus = state.flameRoot >= 0 && view.total[state.flameRoot] > 0 ? state.flameRoot : -1;
    const chain = [];
    for (let s = focus; s >= 0; s = data.prefix[s]) chain.unshift(s);
    const all = focus < 0 ? view.sum : view.total[focus];
    box(0, width, 0, `all (${amount(view.sum)}, ${percent(view.sum)})`, "rgb(250,200,120)", -1);
    chain.slice(0, -1).forEach((s, i) => box(0, width, i + 1, frameName(data.frame[s]), "rgb(200,200,200)", s));
    const scale = all > 0 ? width / all : 0;
    const draw = (s, x, d) => {
      const w = view.total[s] * scale;
      if (w < 0.5) return;
      const f = data.frame[s];
      const color = state.diffColors && baseTotals ? changeColor(s) : flameColor(frameName(f), view.match && view.match.frameHit[f]);
      box(x, w, d, frameName(f), color, s);
      let cx = x;
      for (const c of byName(childrenOf(s))) {
        draw(c, cx, d + 1);
        cx += view.total[c] * scale;
      }
    };
    if (focus >= 0) draw(focus, 0, chain.length);
    else {
      let x = 0;
      for (const c of byName(childrenOf(-1))) {
        draw(c, x, 1);
        x += view.total[c] * scale;
      }
    }
  }
  // --diff: the baseline's weight at each node of this tree; a node's colour says how its share
  // changed (red: grew, blue: shrank, white: the same), as flamegraph.pl's differential graphs.
  let baseTotals = null;
  function changeColor(s) {
    const change = view.total[s] / (view.sum || 1) - baseTotals[s] / (meta.diff.sum || 1);
    const k = Math.min(1, Math.abs(change) * 5);
    const fade = Math.round(255 * (1 - k));
    return change >= 0 ? `rgb(255,${fade},${fade})` : `rgb(${fade},${fade},255)`;
  }
  // A stack's children that weigh something, by name, as flamegraph.pl orders them.
  function byName(list) {
    return Array.from(list).filter((c) => view.total[c] > 0)
      .sort((a, b) => frameName(data.frame[a]).localeCompare(frameName(data.frame[b])));
  }
  function flameBoxAt(event) {
    const rect = $("flame-canvas").getBoundingClientRect();
    const x = event.clientX - rect.left, y = event.clientY - rect.top;
    return flameBoxes.find((b) => x >= b.x && x < b.x + b.w && y >= b.y && y < b.y + kRowHeight) || null;
  }

  // ---- Timeline: a row per thread (the busiest first), each pixel's samples as a shade.
  const kLabelWidth = 170, kLaneHeight = 14, kMaxLanes = 32;
  let lanes = [], span = [0, 1];
  function renderTimeline() {
    const canvas = $("timeline"), width = canvas.parentNode.clientWidth || 1200;
    const counts = new Float64Array(meta.threads.length);
    const n = data.time.length;
    let t0 = Infinity, t1 = -Infinity;
    for (let i = 0; i < n; i++) {
      if (data.event[i] !== state.event) continue;
      counts[data.thread[i]]++;
      t0 = Math.min(t0, data.time[i]);
      t1 = Math.max(t1, data.time[i]);
    }
    for (let i = 0; i < data.sliceStart.length; i++) {
      t0 = Math.min(t0, data.sliceStart[i]);
      t1 = Math.max(t1, data.sliceEnd[i]);
    }
    if (!(t1 >= t0)) t0 = 0, t1 = 1;
    if (t1 === t0) t1 = t0 + 1;
    span = [t0, t1];
    lanes = Array.from(counts.keys()).filter((t) => counts[t] > 0).sort((a, b) => counts[b] - counts[a]).slice(0, kMaxLanes);
    const lane = new Int32Array(meta.threads.length).fill(-1);
    lanes.forEach((t, i) => (lane[t] = i));
    const rows = Math.max(lanes.length + data.cpus, 1);
    const plot = Math.max(width - kLabelWidth, 1), height = rows * kLaneHeight + 18;
    const ratio = window.devicePixelRatio || 1;
    canvas.width = width * ratio;
    canvas.height = height * ratio;
    canvas.style.width = width + "px";
    canvas.style.height = height + "px";
    const g = canvas.getContext("2d");
    g.scale(ratio, ratio);
    g.font = "11px sans-serif";
    g.textBaseline = "middle";
    const bins = new Float64Array(Math.max(lanes.length, 1) * plot);
    let most = 0;
    for (let i = 0; i < n; i++) {
      if (data.event[i] !== state.event) continue;
      const l = lane[data.thread[i]];
      if (l < 0) continue;
      const x = Math.min(plot - 1, Math.floor((data.time[i] - t0) / (t1 - t0) * plot));
      most = Math.max(most, ++bins[l * plot + x]);
    }
    lanes.forEach((t, l) => {
      const thread = meta.threads[t];
      g.fillStyle = "#333";
      g.fillText(`${thread[2]} ${thread[1]}`.slice(0, 26), 4, l * kLaneHeight + kLaneHeight / 2);
      for (let x = 0; x < plot; x++) {
        const c = bins[l * plot + x];
        if (c === 0) continue;
        g.fillStyle = `rgba(204,80,0,${0.25 + 0.75 * c / most})`;
        g.fillRect(kLabelWidth + x, l * kLaneHeight + 1, 1, kLaneHeight - 2);
      }
    });
    // Below the threads, who ran on each CPU (sched_switch): a colour per task.
    const lastX = new Float64Array(data.cpus).fill(-1);
    for (let cpu = 0; cpu < data.cpus; cpu++) {
      g.fillStyle = "#333";
      g.fillText(`CPU ${cpu}`, 4, (lanes.length + cpu) * kLaneHeight + kLaneHeight / 2);
    }
    for (let i = 0; i < data.sliceStart.length; i++) {
      const cpu = data.sliceCpu[i];
      const a = (data.sliceStart[i] - t0) / (t1 - t0) * plot, b = (data.sliceEnd[i] - t0) / (t1 - t0) * plot;
      if (b - a < 1 && Math.floor(a) === lastX[cpu]) continue;  // one sliver a pixel is enough
      lastX[cpu] = Math.floor(a);
      g.fillStyle = taskColor(data.slicePid[i]);
      g.fillRect(kLabelWidth + a, (lanes.length + cpu) * kLaneHeight + 1, Math.max(b - a, 1), kLaneHeight - 2);
    }
    const axis = rows * kLaneHeight + 12;
    g.fillStyle = "#555";
    g.fillText("0 ms", kLabelWidth, axis);
    g.fillText(`${(t1 - t0).toFixed(1)} ms`, width - 60, axis);
    if (state.range) {
      const a = kLabelWidth + (state.range[0] - t0) / (t1 - t0) * plot;
      const b = kLabelWidth + (state.range[1] - t0) / (t1 - t0) * plot;
      g.fillStyle = "rgba(40,90,200,0.18)";
      g.fillRect(a, 0, Math.max(b - a, 1), axis - 8);
    }
    $("range").textContent = state.range
      ? `${(state.range[0] - t0).toFixed(2)}–${(state.range[1] - t0).toFixed(2)} ms of ${(t1 - t0).toFixed(1)} ms`
      : `all ${(t1 - t0).toFixed(1)} ms`;
  }
  const taskColor = (pid) => `hsl(${(pid * 137) % 360},55%,${55 + (pid % 3) * 8}%)`;
  // The task a CPU lane shows under the pointer, for the lane's tooltip.
  function taskAt(event) {
    const canvas = $("timeline"), rect = canvas.getBoundingClientRect();
    const cpu = Math.floor((event.clientY - rect.top) / kLaneHeight) - lanes.length;
    if (cpu < 0 || cpu >= data.cpus) return "";
    const t = timeAt(event.clientX);
    for (let i = 0; i < data.sliceStart.length; i++)
      if (data.sliceCpu[i] === cpu && data.sliceStart[i] <= t && t <= data.sliceEnd[i])
        return `CPU ${cpu}: ${meta.sliceNames[data.sliceName[i]]} ${data.slicePid[i]}`;
    return `CPU ${cpu}: idle`;
  }
  function timeAt(clientX) {
    const canvas = $("timeline"), rect = canvas.getBoundingClientRect();
    const plot = rect.width - kLabelWidth;
    const x = Math.min(Math.max(clientX - rect.left - kLabelWidth, 0), plot);
    return span[0] + x / plot * (span[1] - span[0]);
  }
)JS"
         R"JS(
  // ---- Summary: the recording's facts and what the filter holds.
  function renderSummary() {
    const facts = meta.facts.map(([k, v]) => `<tr><th>${escape(k)}</th><td>${escape(v)}</td></tr>`);
    facts.push(`<tr><th>samples shown</th><td>${view.samples} of ${event().samples} (${escape(event().name)})</td></tr>`);
    facts.push(`<tr><th>weight shown</th><td>${amount(view.sum)}</td></tr>`);
    const own = new Map();
    for (let s = 0; s < view.self.length; s++) {
      if (view.self[s] <= 0) continue;
      const f = data.frame[s];
      own.set(f, (own.get(f) || 0) + view.self[s]);
    }
    const top = Array.from(own).sort((a, b) => b[1] - a[1]).slice(0, 15);
    $("summary").innerHTML = `<table class="facts">${facts.join("")}</table><h3>Hottest functions (self)</h3>` +
      `<table class="tree"><tr><th>Self</th><th>Weight</th><th>Function</th></tr>` +
      top.map(([f, w]) => `<tr><td class="num">${percent(w)}</td><td class="num">${amount(w)}</td>` +
        `<td class="fn">${escape(frameName(f))} <span class="dso">${escape(frameDso(f))}</span></td></tr>`).join("") +
      "</table>";
  }

  // ---- Source and disassembly of the hottest functions: the whole recording, the busiest event.
  let sourceIndex = 0;
  const shade = (part) => (part > 0 ? `background:rgba(230,80,0,${Math.min(0.08 + 0.9 * part, 0.95).toFixed(3)})` : "");
  function renderSource() {
    const list = meta.annotations;
    $("source-note").textContent = list.length
      ? `Where the samples of ${meta.events[meta.busiestEvent].name} land in its hottest functions, over the whole recording (shares of each function's own).`
      : "No hot function of this recording has its code on this machine (kernel code, or files not found).";
    $("source-functions").innerHTML = list.map((a, i) =>
      `<tr data-index="${i}" class="${i === sourceIndex ? "on" : ""}"><td class="fn">${escape(a.name)} <span class="dso">${escape(a.dso)}</span></td></tr>`).join("");
    const a = list[sourceIndex];
    if (!a) return;
    const part = (w) => (a.total > 0 ? w / a.total : 0);
    const pct = (w) => (w > 0 ? (100 * part(w)).toFixed(2) + "%" : "");
    $("source-title").textContent = a.mainFile >= 0 ? a.files[a.mainFile] : `${a.name}: no source lines (the file has no DWARF)`;
    $("source-lines").innerHTML = a.source.map(([line, text, w]) =>
      `<tr style="${shade(part(w))}"><td class="num">${pct(w)}</td><td class="at">${line}</td><td>${escape(text)}</td></tr>`).join("");
    $("source-asm").innerHTML = a.instructions.map(([at, text, w, file, line]) =>
      `<tr style="${shade(part(w))}"><td class="num">${pct(w)}</td><td class="at">${at}:</td><td>${escape(text)}</td>` +
      `<td class="at">${file >= 0 ? escape(a.files[file].split("/").pop()) + ":" + line : ""}</td></tr>`).join("");
  }

  // ---- Diff: each function's self and total share here and in the baseline (perf diff's
  // Baseline and Delta columns are the self shares); this side follows the filters.
  function renderDiff() {
    const d = meta.diff;
    if (!d) return;
    const selfOf = new Map(), totalOf = new Map();
    for (let s = 0; s < view.total.length; s++) {
      if (view.total[s] <= 0) continue;
      const name = frameName(data.frame[s]);
      if (view.self[s] > 0) selfOf.set(name, (selfOf.get(name) || 0) + view.self[s]);
      let outermost = true;
      for (let up = data.prefix[s]; up >= 0 && outermost; up = data.prefix[up]) outermost = frameName(data.frame[up]) !== name;
      if (outermost) totalOf.set(name, (totalOf.get(name) || 0) + view.total[s]);
    }
    const base = new Map(d.functions.map(([name, self, total]) => [name, [self, total]]));
    const names = new Set([...base.keys(), ...totalOf.keys()]);
    const share = (w, sum) => (sum > 0 ? 100 * w / sum : 0);
    const rows = Array.from(names, (name) => {
      const [bs, bt] = base.get(name) || [0, 0];
      const ns = share(selfOf.get(name) || 0, view.sum), bsp = share(bs, d.sum);
      return { name, bs: bsp, ns, delta: ns - bsp, bt: share(bt, d.sum), nt: share(totalOf.get(name) || 0, view.sum) };
    }).sort((a, b) => Math.abs(b.delta) - Math.abs(a.delta) || a.name.localeCompare(b.name)).slice(0, 300);
    const pct = (v) => v.toFixed(2) + "%";
    $("diff-note").textContent = `Against ${d.title} (${d.event}): shares of each profile's own weight.`;
    $("diff-body").innerHTML = rows.map((r) =>
      `<tr><td class="num">${pct(r.bs)}</td><td class="num">${pct(r.ns)}</td>` +
      `<td class="num ${r.delta > 0 ? "grew" : r.delta < 0 ? "shrank" : ""}">${(r.delta >= 0 ? "+" : "") + r.delta.toFixed(2)}%</td>` +
      `<td class="num">${pct(r.bt)}</td><td class="num">${pct(r.nt)}</td><td class="fn">${escape(r.name)}</td></tr>`).join("");
  }

  function refresh() {
    view = compute();
    buildBottomUp();
    renderTimeline();
    renderSummary();
    renderTopDown();
    renderBottomUp();
    renderFlame();
    renderDiff();
    $("status").textContent = `${view.samples} samples, ${amount(view.sum)}` + (state.search ? ` matching /${state.search}/` : "");
  }

  function show(tab) {
    for (const b of document.querySelectorAll("nav button[data-tab]")) b.classList.toggle("on", b.dataset.tab === tab);
    for (const s of document.querySelectorAll("section.tab")) s.hidden = s.id !== "tab-" + tab;
    if (tab === "flame") renderFlame();
    if (tab === "source") renderSource();
    if (tab === "diff") renderDiff();
  }

  function wire() {
    for (const b of document.querySelectorAll("nav button[data-tab]")) b.onclick = () => show(b.dataset.tab);
    const select = $("event");
    meta.events.forEach((e, i) => select.add(new Option(`${e.name} (${e.samples} samples)`, String(i))));
    select.value = String(state.event);
    select.onchange = () => { state.event = Number(select.value); state.range = null; expanded.clear(); expandedUp.clear(); refresh(); expandHottest(); renderTopDown(); };
    $("search").oninput = () => { state.search = $("search").value; refresh(); };
    $("reset").onclick = () => { state.range = null; state.flameRoot = -1; refresh(); };
    $("icicle").onchange = () => { state.icicle = $("icicle").checked; renderFlame(); };
    $("diff-colors").onchange = () => { state.diffColors = $("diff-colors").checked; renderFlame(); };
    $("tree-body").onclick = (e) => {
      const tr = e.target.closest("tr");
      if (!tr) return;
      const s = Number(tr.dataset.key);
      if (expanded.has(s)) expanded.delete(s); else expanded.add(s);
      renderTopDown();
    };
    $("up-body").onclick = (e) => {
      const tr = e.target.closest("tr");
      if (!tr) return;
      const key = tr.dataset.key;
      if (expandedUp.has(key)) expandedUp.delete(key); else expandedUp.add(key);
      renderBottomUp();
    };
    for (const th of document.querySelectorAll("th[data-sort]"))
      th.onclick = () => { state.sortKey = th.dataset.sort; renderTopDown(); renderBottomUp(); };
    $("source-functions").onclick = (e) => {
      const tr = e.target.closest("tr");
      if (!tr) return;
      sourceIndex = Number(tr.dataset.index);
      renderSource();
    };
    const flame = $("flame-canvas");
    flame.onclick = (e) => { const b = flameBoxAt(e); state.flameRoot = b ? b.node : -1; renderFlame(); };
    flame.onmousemove = (e) => {
      const b = flameBoxAt(e);
      $("flame-detail").textContent = b && b.node >= 0
        ? `${frameName(data.frame[b.node])} (${frameDso(data.frame[b.node])}): ${amount(view.total[b.node])}, ${percent(view.total[b.node])}`
        : "";
    };
    const timeline = $("timeline");
    let dragFrom = null;
    timeline.onmousedown = (e) => { dragFrom = timeAt(e.clientX); };
    timeline.onmousemove = (e) => { timeline.title = taskAt(e); };
    window.addEventListener("mouseup", (e) => {
      if (dragFrom === null) return;
      const to = timeAt(e.clientX);
      const from = dragFrom;
      dragFrom = null;
      if (Math.abs(to - from) < (span[1] - span[0]) / 1000) return;
      state.range = [Math.min(from, to), Math.max(from, to)];
      refresh();
    });
    window.addEventListener("resize", () => { renderTimeline(); renderFlame(); });
  }
)JS";
}

}  // namespace sonde::output
