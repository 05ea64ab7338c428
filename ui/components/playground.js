// "Move the query yourself": one head's query/key space and value space per head, drawn
// in SVG; a drag or an arrow key redraws the weights, the output ★ and the sentence at
// once (scores q·k/(√d·T) and a softmax, as attention/core/engine.py computes them); the
// positions go back to Python when a drag or a key press ends.
const SVG = "http://www.w3.org/2000/svg";
const STEP = 0.05; // arrow key step in the head's units (Shift: five times)

export function headWeights(q, keys, dHead, temperature) {
  const scale = 1 / (Math.sqrt(dHead) * temperature);
  const scores = keys.map((k) => (q[0] * k[0] + q[1] * k[1]) * scale);
  const top = Math.max(...scores);
  const exps = scores.map((s) => Math.exp(s - top));
  const total = exps.reduce((a, b) => a + b, 0);
  return { scores, weights: exps.map((e) => e / total) };
}

export function weightedSum(weights, values) {
  return weights.reduce((acc, w, j) => [acc[0] + w * values[j][0], acc[1] + w * values[j][1]], [0, 0]);
}

export function percent(w) {
  const whole = Math.floor(100 * w + 0.5);
  if (whole === 0 && w > 0) return "<1 %";
  if (whole === 100 && w < 1) return ">99 %";
  return `${whole} %`;
}

export function sentence(tokens, queryIndex, weights) {
  const order = weights.map((w, j) => j).sort((a, b) => weights[b] - weights[a] || a - b);
  const parts = order.slice(0, 2).map((j) => `${percent(weights[j])} to “${tokens[j]}”`);
  return `“${tokens[queryIndex]}” gives ${parts.join(", ")}`;
}

export function clampPoint(p, bound) {
  const c = (v) => (Number.isFinite(v) ? Math.min(bound, Math.max(-bound, v)) : 0);
  return [c(p[0]), c(p[1])];
}

function el(parent, tag, attrs = {}, text = null) {
  const node = document.createElementNS(tag === "div" || tag === "p" || tag === "span" ? "http://www.w3.org/1999/xhtml" : SVG, tag);
  for (const [name, value] of Object.entries(attrs)) node.setAttribute(name, value);
  if (text !== null) node.textContent = text;
  parent.appendChild(node);
  return node;
}

const fixed = (v) => v.toFixed(2);
const pt = (p) => `${p[0]},${-p[1]}`;

function plot(parent, title, bound) {
  const box = el(parent, "div", { class: "panel" });
  el(box, "p", { class: "title" }, title);
  const view = bound * 1.1; // room for a point at the frame's edge to be grabbed whole
  const svg = el(box, "svg", { viewBox: `${-view} ${-view} ${2 * view} ${2 * view}`, role: "group", "aria-label": title });
  el(svg, "rect", { x: -bound, y: -bound, width: 2 * bound, height: 2 * bound, class: "frame" });
  el(svg, "line", { x1: -bound, y1: 0, x2: bound, y2: 0, class: "axis" });
  el(svg, "line", { x1: 0, y1: -bound, x2: 0, y2: bound, class: "axis" });
  return svg;
}

function draggable(svg, shape, attrs, label) {
  const g = el(svg, "g", { ...attrs, tabindex: "0", role: "button", "aria-roledescription": "draggable point", "aria-label": label, class: `point ${attrs["data-kind"]}` });
  el(g, "circle", { r: 0.32, class: "hit" });
  g.appendChild(shape);
  return g;
}

function buildHead(root, data, h) {
  const head = data.heads[h];
  const n = data.tokens.length;
  const bound = data.bound;
  const vBound = data.value_bound;
  const q = data.tokens[data.query];
  const row = el(root, "div", { class: "head", "data-head": h + 1, style: `--head:${head.color}` });
  const keysSvg = plot(row, `Head ${h + 1}: query ● of “${q}”, keys ◇ — drag ${data.keys_draggable ? "the query or a key" : "the query"}`, bound);
  const axis = el(keysSvg, "line", { class: "direction" });
  const feet = [], drops = [], links = [], keys = [], keyLabels = [];
  for (let j = 0; j < n; j++) {
    links.push(el(keysSvg, "line", { class: "link" }));
    drops.push(el(keysSvg, "line", { class: "drop" }));
    feet.push(el(keysSvg, "circle", { r: 0.06, class: "foot" }));
  }
  for (let j = 0; j < n; j++) {
    const diamond = document.createElementNS(SVG, "polygon");
    diamond.setAttribute("points", "0,-0.16 0.16,0 0,0.16 -0.16,0");
    diamond.setAttribute("class", "diamond");
    const attrs = { "data-token": data.tokens[j], "data-kind": "key", "data-head": h + 1, "data-index": j };
    const g = data.keys_draggable ? draggable(keysSvg, diamond, attrs, "") : el(keysSvg, "g", { ...attrs, role: "img", class: "point key fixed" });
    if (!data.keys_draggable) g.appendChild(diamond);
    keys.push(g);
    keyLabels.push(el(keysSvg, "text", { class: "label" }, data.tokens[j]));
  }
  const dot = document.createElementNS(SVG, "circle");
  dot.setAttribute("r", 0.17);
  dot.setAttribute("class", "dot");
  const query = draggable(keysSvg, dot, { "data-token": q, "data-kind": "query", "data-head": h + 1 }, "");
  const valuesSvg = plot(row, `Head ${h + 1}: values ■ and the output ★ (their weighted sum)`, vBound);
  const vs = vBound / 4;
  const starLinks = [], valuePoints = [];
  for (let j = 0; j < n; j++) starLinks.push(el(valuesSvg, "line", { class: "link" }));
  for (let j = 0; j < n; j++) {
    const v = head.values[j];
    valuePoints.push(el(valuesSvg, "rect", { x: v[0] - 0.08 * vs, y: -v[1] - 0.08 * vs, width: 0.16 * vs, height: 0.16 * vs, class: "value", "data-token": data.tokens[j], "data-kind": "value", "data-head": h + 1, "data-x": v[0], "data-y": v[1] }));
    el(valuesSvg, "text", { x: v[0] + 0.12 * vs, y: -v[1] - 0.1 * vs, class: "label", style: `font-size:${0.28 * vs}px` }, data.tokens[j]);
  }
  const star = el(valuesSvg, "polygon", { class: "star", "data-kind": "output", "data-head": h + 1 });
  const side = el(row, "div", { class: "panel bars" });
  const said = el(side, "p", { class: "sentence", "data-head": h + 1 });
  el(side, "p", { class: "why" }, `score = q·k / (√${data.d_head} · T), T = ${data.temperature}; q·k is the key's projection on the query's direction (dashed foot) times |q|. Weight = softmax of the scores.`);
  const bars = [];
  for (let j = 0; j < n; j++) {
    const line = el(side, "div", { class: "bar", "data-weight-token": data.tokens[j], "data-head": h + 1 });
    el(line, "span", { class: "name" }, data.tokens[j]);
    const track = el(line, "span", { class: "track" });
    const fill = el(track, "span", { class: "fill" });
    const numbers = el(line, "span", { class: "numbers" });
    bars.push({ line, fill, numbers });
  }
  return { head, axis, feet, drops, links, keys, keyLabels, query, star, starLinks, valuePoints, said, bars, vs };
}

function starPoints(c, r) {
  const out = [];
  for (let i = 0; i < 10; i++) {
    const a = Math.PI / 2 + (i * Math.PI) / 5;
    const rr = i % 2 ? r * 0.45 : r;
    out.push(`${c[0] + rr * Math.cos(a)},${-(c[1] + rr * Math.sin(a))}`);
  }
  return out.join(" ");
}

function drawHead(view, data, h) {
  const { head } = view;
  const q = head.query;
  const { scores, weights } = headWeights(q, head.keys, data.d_head, data.temperature);
  const out = weightedSum(weights, head.values);
  const norm = Math.hypot(q[0], q[1]);
  const u = norm > 0 ? [q[0] / norm, q[1] / norm] : [1, 0];
  const far = data.bound / Math.max(Math.abs(u[0]), Math.abs(u[1])); // ends on the frame
  view.axis.setAttribute("x1", -u[0] * far); view.axis.setAttribute("y1", u[1] * far);
  view.axis.setAttribute("x2", u[0] * far); view.axis.setAttribute("y2", -u[1] * far);
  const token = data.tokens[data.query];
  view.query.setAttribute("transform", `translate(${pt(q)})`);
  view.query.setAttribute("data-x", q[0]); view.query.setAttribute("data-y", q[1]);
  view.query.setAttribute("aria-label", `query of “${token}” in head ${h + 1} at ${fixed(q[0])}, ${fixed(q[1])}; arrow keys move it`);
  head.keys.forEach((k, j) => {
    const along = k[0] * u[0] + k[1] * u[1];
    const foot = [along * u[0], along * u[1]];
    view.feet[j].setAttribute("cx", foot[0]); view.feet[j].setAttribute("cy", -foot[1]);
    for (const [line, a, b] of [[view.drops[j], k, foot], [view.links[j], q, k]]) {
      line.setAttribute("x1", a[0]); line.setAttribute("y1", -a[1]);
      line.setAttribute("x2", b[0]); line.setAttribute("y2", -b[1]);
    }
    view.links[j].setAttribute("stroke-width", 0.5 + 8 * weights[j]);
    const g = view.keys[j];
    g.setAttribute("transform", `translate(${pt(k)})`);
    g.setAttribute("data-x", k[0]); g.setAttribute("data-y", k[1]);
    g.setAttribute("aria-label", `key of “${data.tokens[j]}” in head ${h + 1} at ${fixed(k[0])}, ${fixed(k[1])}: weight ${percent(weights[j])}`);
    view.keyLabels[j].setAttribute("x", k[0] + 0.2); view.keyLabels[j].setAttribute("y", -k[1] - 0.15);
    const v = head.values[j];
    const s = view.starLinks[j];
    s.setAttribute("x1", out[0]); s.setAttribute("y1", -out[1]);
    s.setAttribute("x2", v[0]); s.setAttribute("y2", -v[1]);
    s.setAttribute("stroke-width", 0.5 + 8 * weights[j]);
    const bar = view.bars[j];
    bar.fill.style.width = `${100 * weights[j]}%`;
    bar.numbers.textContent = `${percent(weights[j])} · score ${scores[j].toFixed(2)}`;
    bar.line.setAttribute("data-weight", weights[j]);
    bar.line.setAttribute("data-score", scores[j]);
  });
  view.star.setAttribute("points", starPoints(out, 0.3 * view.vs));
  view.star.setAttribute("data-x", out[0]); view.star.setAttribute("data-y", out[1]);
  view.said.textContent = sentence(data.tokens, data.query, weights);
}

// Per mounted component: the last positions sent and their number. A run whose data
// answers an earlier send (data.seq smaller) keeps the newer local positions, so key
// presses faster than the server's reruns are never undone.
const sent = new WeakMap();
// Per mounted component: positions a key press moved but its keyup has not sent yet. A
// run that lands between a press's keydown and keyup mounts from these and sends them,
// or that press would be lost (seen under load in test_browser_playground).
const unsent = new WeakMap();

export default function (component) {
  const { data, parentElement, setStateValue } = component;
  const root = parentElement.querySelector(".pg");
  const focused = parentElement.activeElement?.dataset; // a new run keeps the keyboard's point
  root.replaceChildren();
  const held = unsent.get(parentElement);
  const last = held?.length === data.heads.length ? { heads: held, seq: Infinity } : sent.get(parentElement);
  const stale = last && data.seq < last.seq && last.heads.length === data.heads.length;
  const state = {
    heads: data.heads.map((hd, h) => ({
      ...hd,
      query: [...(stale ? last.heads[h].query : hd.query)],
      keys: (stale ? last.heads[h].keys : hd.keys).map((k) => [...k]),
    })),
  };
  const copy = () => state.heads.map((hd) => ({ query: [...hd.query], keys: hd.keys.map((k) => [...k]) }));
  const views = state.heads.map((hd, h) => buildHead(root, { ...data, heads: state.heads }, h));
  // Redraw in the input's own handler: Chromium already sends pointer moves once per
  // animation frame, and waiting for the next frame would add up to 16 ms of latency.
  const redraw = (stamp = null) => {
    const start = performance.now();
    views.forEach((view, h) => drawHead(view, data, h));
    const end = performance.now();
    if (stamp !== null) {
      performance.measure("playground-frame", { start: stamp, end });
      performance.measure("playground-redraw", { start, end });
    }
  };
  const send = () => {
    performance.mark("playground-sent");
    const seq = Math.max(data.seq, sent.get(parentElement)?.seq ?? 0) + 1;
    sent.set(parentElement, { seq, heads: copy() });
    unsent.delete(parentElement);
    setStateValue("positions", { seq, queries: state.heads.map((hd) => hd.query), keys: state.heads.map((hd) => hd.keys) });
  };
  const target = (g) => {
    const hd = state.heads[Number(g.dataset.head) - 1];
    return g.dataset.kind === "query" ? { hd, field: "query" } : { hd, index: Number(g.dataset.index) };
  };
  const place = (g, p) => {
    const { hd, field, index } = target(g);
    const c = clampPoint(p, data.bound);
    if (field) hd.query = c; else hd.keys[index] = c;
  };
  const where = (g) => {
    const { hd, field, index } = target(g);
    return field ? hd.query : hd.keys[index];
  };
  let dragging = null;
  root.querySelectorAll("g[tabindex]").forEach((g) => {
    g.addEventListener("pointerdown", (event) => {
      event.preventDefault();
      g.focus();
      g.setPointerCapture(event.pointerId);
      performance.clearMeasures("playground-frame");
      performance.clearMeasures("playground-redraw");
      dragging = { g, matrix: g.ownerSVGElement.getScreenCTM().inverse() };
    });
    g.addEventListener("pointermove", (event) => {
      if (!dragging || dragging.g !== g) return;
      const p = new DOMPoint(event.clientX, event.clientY).matrixTransform(dragging.matrix);
      place(g, [p.x, -p.y]);
      redraw(event.timeStamp);
    });
    const end = () => {
      if (!dragging || dragging.g !== g) return;
      dragging = null;
      send();
    };
    g.addEventListener("pointerup", end);
    g.addEventListener("pointercancel", end);
    g.addEventListener("keydown", (event) => {
      const moves = { ArrowLeft: [-1, 0], ArrowRight: [1, 0], ArrowUp: [0, 1], ArrowDown: [0, -1] };
      const move = moves[event.key];
      if (!move) return;
      event.preventDefault();
      const step = event.shiftKey ? 5 * STEP : STEP;
      const p = where(g);
      place(g, [p[0] + move[0] * step, p[1] + move[1] * step]);
      unsent.set(parentElement, copy());
      redraw(event.timeStamp);
    });
    g.addEventListener("keyup", (event) => {
      if (event.key.startsWith("Arrow")) send();
    });
  });
  redraw();
  if (held) send();
  if (focused?.kind) {
    const index = focused.index === undefined ? "" : `[data-index="${focused.index}"]`;
    root.querySelector(`g[tabindex][data-head="${focused.head}"][data-kind="${focused.kind}"]${index}`)?.focus();
  }
}
