// The optimiser under a compute budget (SPEC §5.5, docs/theory-scale.md): the limits the
// user sets (max heads, max head dim, max attention cost; "any" when empty), the least
// widening in plain words, the front of (attention cost, parameters) and the coverage-vs-
// budget curve as SVG plots (a click on a point loads its design), and the best partial
// coverage when nothing within the budget covers every clustering.
// Every number comes from the server: POST /api/optimize (max heads / head dim), POST /api/partial
// (a max attention cost, the best partial coverage and its curve), POST /api/front, POST /api/widening.

import { api } from "./api.js";
import { model, problemBody } from "./store.js";
import { problemKey } from "./state.js";
import { setErrors, setItems } from "./errors.js";
import { replace } from "./history.js";
import { abortable } from "./vanilla.js";
import { renderCards } from "./design.js";
import { designChanged } from "./flow.js";
import { runCoverage, selectClustering } from "./results.js";
import { acceptOptimum } from "./optimise.js";
import { $, h, fmt, plural, startProgress } from "./util.js";

const LIMITS = [["max-heads", "maxHeads", "max_heads", "max heads"], ["max-head-dim", "maxHeadDim", "max_head_dim", "max head dim"],
                ["max-cost", "maxCost", "max_cost", "max attention cost"]];
const LIMIT_MAX = 10 ** 7;

// The limits as typed: {body: {max_heads?, ...}} or {error} at the box that is wrong.
export function budgetLimits() {
  const body = {};
  const bad = [];
  for (const [id, , key, label] of LIMITS) {
    const t = String($(id)?.value ?? "").trim().toLowerCase();
    if (!t || t === "any") continue;
    if (!/^\d+$/.test(t) || Number(t) < 1 || Number(t) > LIMIT_MAX) {
      bad.push({ field: key, el: $(id), msg: `${label}: a whole number from 1 to ${fmt(LIMIT_MAX)}, or empty for any` });
    } else body[key] = Number(t);
  }
  return bad.length ? { error: bad } : { body };
}

export function limitsText(body) {
  const parts = [];
  if (body.max_heads) parts.push(`at most ${plural(body.max_heads, "head")}`);
  if (body.max_head_dim) parts.push(`head dim at most ${fmt(body.max_head_dim)}`);
  if (body.max_cost) parts.push(`attention cost at most ${fmt(body.max_cost)}`);
  return parts.join(", ");
}

export function bindBudget() {
  for (const [id, key] of LIMITS) {
    $(id).addEventListener("input", (e) => {
      model.state[key] = e.target.value.trim();
      const lim = budgetLimits();
      if (lim.error) setItems("optimize", lim.error); else { setErrors("optimize", null); replace(); }
    });
  }
  $("show-front").addEventListener("click", runFront);
}

// ------------------------------------------------------------------------------ the verdict
// What the optimiser said about a budget, in plain words (for renderOptimum in optimise.js).
export function budgetVerdict(r) {
  const out = [];
  const limits = limitsText(r.constraints || {});
  if (r.status === "infeasible") {
    out.push(h("p", { class: "headline", text: `No design within this budget covers every clustering (proven)${limits ? `: ${limits}` : ""}.` }));
    if (r.reason) out.push(h("p", { class: "why", text: r.reason }));
    if (!r.partial) {
      out.push(h("div", { class: "row" },
        h("button", { type: "button", id: "find-partial", text: "Find the best design within this budget",
                      title: "The design within the budget that covers the most clusterings (and among those the fewest parameters)",
                      onclick: () => runPartial() })));
    }
  }
  if (r.partial) out.push(partialBlock(r));
  return out;
}

function capital(t) {
  return t ? t[0].toUpperCase() + t.slice(1) : "";
}

function partialBlock(r) {
  const p = r.partial;
  const all = p.covered === p.of;
  const blk = h("div", { class: "partial" });
  const limits = limitsText(p.limits || {});
  blk.append(h("p", { class: "headline", text: capital(p.statement ||
    (all ? `a design within this budget covers all ${p.of} clusterings`
      : `no design within this budget covers everything${p.upper_bound < p.of ? " (proven)" : ""}; the best one covers ${p.covered} of ${p.of} clusterings`)) +
    (limits ? ` (${limits})` : "") + "." }));
  if (all) {
    blk.append(h("p", { class: "why", text: p.params_proven ? `Its ${fmt(r.design_params)} parameters are the fewest of any such design (proven).`
      : `${fmt(r.design_params)} parameters; fewer may be possible (not proven).` }));
  } else if (p.status !== "optimal") {
    blk.append(h("p", { class: "why", text: `Not proven the most: at most ${fmt(p.upper_bound)} of ${fmt(p.of)} could be covered within this budget.` }));
  }
  if ((p.uncovered || []).length) {
    blk.append(h("p", { class: "why", text: `Left out (${plural(p.uncovered.length, "clustering")}); each opens with its counterexample:` }));
    blk.append(h("ul", { class: "uncovered-list" }, p.uncovered.slice(0, 40).map((id) => h("li", {},
      h("button", { type: "button", class: "linkish", text: `#${id + 1}`, "aria-label": `Clustering ${id + 1}: its counterexample`,
                    onclick: () => selectClustering(id) }),
      h("span", { class: "muted", text: ` ${clusteringText(id)}` })))));
    if (p.uncovered.length > 40) blk.append(h("p", { class: "muted small", text: `… and ${p.uncovered.length - 40} more (filter the clusterings by "uncovered").` }));
  }
  return blk;
}

export function partialClass(r) {
  const p = r.partial;
  if (p.covered === p.of) return p.params_proven && p.status === "optimal" ? "proven" : "unproven";
  return p.upper_bound < p.of ? "proven-no" : "unproven";
}

function clusteringText(id) {
  const cl = model.clusterings?.clusterings.find((x) => x.id === id);
  return cl?.text || "";
}

// ------------------------------------------------------------------------------ partial
export async function runPartial(extra = {}) {
  const lim = budgetLimits();
  if (lim.error) { setItems("optimize", lim.error); return null; }
  const tl = Number(model.state.timeLimit) || 30;
  const c = abortable("optimize");
  const stop = startProgress("optimize-progress", "Searching the design that covers the most within the budget", c, tl);
  const pk = problemKey(model.state);
  try {
    const r = await api.partial({ ...problemBody(), ...lim.body, ...extra, time_limit: tl }, c.signal);
    if (problemKey(model.state) !== pk) return null;
    await loadResult(r);
    return r;
  } catch (e) {
    if (e.name !== "AbortError") setErrors("optimize", e);
    return null;
  } finally {
    stop();
  }
}

// An optimiser answer with a design: load it, remember the verdict, check its coverage.
export async function loadResult(r) {
  if (r.design_params !== null && r.design_params !== undefined) {
    model.state.orbits = (r.orbits || []).map((o) => ({ subgroup: o.subgroup, rep: o.rep }));
    renderCards();
  }
  acceptOptimum(r);
  designChanged("optimize");
  await runCoverage();
}

// ------------------------------------------------------------------------------ the front
export async function runFront() {
  const tl = Number(model.state.timeLimit) || 30;
  const c = abortable("front");
  const box = $("front-box");
  box.hidden = false;
  box.textContent = "";
  const stop = startProgress("optimize-progress", "Computing the front of attention cost against parameters", c, tl);
  const pk = problemKey(model.state);
  try {
    const f = await api.front({ ...problemBody(), time_limit: tl }, c.signal);
    if (problemKey(model.state) !== pk) return;
    model.front = { pk, data: f, widening: null };
    renderFront();
    const w = await api.widening({ ...problemBody(), time_limit: tl }, c.signal);
    if (problemKey(model.state) !== pk || model.front?.data !== f) return;
    model.front.widening = w;
    renderFront();
  } catch (e) {
    if (e.name !== "AbortError") setErrors("optimize", e);
  } finally {
    stop();
  }
}

// One least widening (an Extent: value, status, lower_bound) as what covering needs: the
// value when it is proven least; else only its proven lower bound, beside the best found
// (a design's value is no lower bound); nothing when neither says anything.
function need(e, where, atLeast, found) {
  if (!e || !e.value) return null;
  if (e.status === "optimal") return `${where}, ${atLeast(e.value)}`;
  if (e.lower_bound) return `${where}, ${atLeast(e.lower_bound)} (proven; the best design found has ${found(e.value)})`;
  return null;
}

export function renderFront() {
  const box = $("front-box");
  const f = model.front;
  if (!f || f.pk !== problemKey(model.state)) { box.hidden = true; box.textContent = ""; return; }
  const d = f.data;
  box.hidden = false;
  box.textContent = "";
  const pts = d.points || [];
  const base = d.vanilla_attention_cost || (Number(model.state.heads) * Number(model.state.headDim));
  const w = f.widening;
  box.append(h("p", { class: "widening" }, h("strong", { text: "The least widening: " }),
    w ? `${capital(w.statement)}.` : "computing…"));
  if (w) {
    const heads = Number(model.state.heads);
    const bits = [
      need(w.min_heads, `at head dim ≤ ${fmt(Number(model.state.headDim))}`, (n) => `at least ${plural(n, "head")}`, (n) => plural(n, "head")),
      w.min_head_dim?.status === "infeasible"
        ? `no design with ≤ ${plural(heads, "head")} covers everything, whatever its head dims (proven)`
        : need(w.min_head_dim, `with ≤ ${plural(heads, "head")}`, (n) => `head dim at least ${fmt(n)}`, (n) => `a largest head dim of ${fmt(n)}`),
    ].filter(Boolean);
    if (bits.length) box.append(h("p", { class: "muted small", text: `Covering everything also needs: ${bits.join("; ")}.` }));
  }
  if (d.reason) box.append(h("p", { class: "muted small", text: `${capital(d.reason)}.` }));
  box.append(plot({
    title: "Front: attention cost against parameters",
    xLabel: "attention cost (Σ heads × head dim)", yLabel: "parameters",
    points: pts.map((p, i) => ({ x: p.attention_cost, y: p.design_params, proven: p.status === "optimal",
                                 label: `point ${i + 1}: attention cost ${fmt(p.attention_cost)}, ${fmt(p.design_params)} parameters` +
                                        `${p.status === "optimal" ? " (proven)" : p.lower_bound !== null && p.lower_bound !== undefined ? `, lower bound ${fmt(p.lower_bound)}` : ", not proven"}; ${plural(p.heads, "head")}`,
                                 onclick: () => loadPoint(p) })),
    refs: [{ axis: "x", value: base, text: "vanilla H·d" }, { axis: "y", value: d.vanilla_params, text: "vanilla params" }],
  }));
  box.append(h("div", { class: "row" },
    h("button", { type: "button", id: "coverage-curve", text: "Coverage against budget",
                  title: "The best partial coverage at budgets from the vanilla layer's H·d to the least widening",
                  onclick: () => runCurve(base) })),
    h("div", { id: "curve-box" }));
}

async function loadPoint(p) {
  const lb = p.lower_bound ?? null;
  await loadResult({ ...p, status: p.status, constraints: { max_cost: p.attention_cost }, vanilla_params: model.front?.data?.vanilla_params,
                     gap: lb !== null && p.design_params ? (p.design_params - lb) / p.design_params : null, lower_bound: lb });
}

// Covered clusterings as the budget (max attention cost) grows from H·d to the least widening
// (POST /api/partial with curve); a click on a point asks for that budget's best design.
async function runCurve(base) {
  const out = $("curve-box");
  const tl = Number(model.state.timeLimit) || 30;
  const c = abortable("curve");
  const stop = startProgress("optimize-progress", "The best partial coverage as the budget grows", c, tl);
  const pk = problemKey(model.state);
  try {
    const r = await api.partial({ ...problemBody(), max_cost: base, curve: true, time_limit: tl }, c.signal);
    if (problemKey(model.state) !== pk) return;
    const of = r.partial?.of;
    const pts = (r.curve || []).map((q) => ({
      x: q.max_cost, y: q.covered, proven: q.status === "optimal",
      label: `budget ${fmt(q.max_cost)}: ${fmt(q.covered)} of ${fmt(of)} clusterings covered` + (q.status === "optimal" ? " (proven)" : `, at most ${fmt(q.upper_bound)}`),
      onclick: () => runPartial({ max_cost: q.max_cost }),
    }));
    out.textContent = "";
    if (!pts.length) { out.append(h("p", { class: "muted small", text: "At the vanilla layer's own compute a design covers everything: there is no curve to draw." })); return; }
    out.append(plot({ title: "Coverage against budget", xLabel: "max attention cost", yLabel: "clusterings covered",
                      points: pts, refs: of ? [{ axis: "y", value: of, text: `all ${of}` }, { axis: "x", value: base, text: "vanilla H·d" }] : [] }));
  } catch (e) {
    if (e.name !== "AbortError") setErrors("optimize", e);
  } finally {
    stop();
  }
}

// ------------------------------------------------------------------------------ SVG plot
const NS = "http://www.w3.org/2000/svg";
function s(name, attrs = {}, parent = null, text = null) {
  const e = document.createElementNS(NS, name);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, String(v));
  if (text !== null) e.textContent = text;
  if (parent) parent.appendChild(e);
  return e;
}

// A small scatter-and-step plot: points joined in order, each a focusable button-like circle.
export function plot({ title, xLabel, yLabel, points, refs = [] }) {
  const W = 420, H = 210, L = 58, R = 16, T = 14, B = 40;
  const xv = points.map((p) => p.x).concat(refs.filter((r) => r.axis === "x").map((r) => r.value));
  const yv = points.map((p) => p.y).concat(refs.filter((r) => r.axis === "y").map((r) => r.value));
  const xmin = Math.min(...xv), xmax = Math.max(...xv);
  const pad = (xmax - xmin) * 0.08 || Math.max(1, xmax * 0.1);
  const [x0, x1] = [Math.max(0, xmin - pad), xmax + pad];
  const [y0, y1] = [0, Math.max(...yv, 1) * 1.1];
  const X = (x) => L + ((x - x0) / (x1 - x0 || 1)) * (W - L - R);
  const Y = (y) => H - B - ((y - y0) / (y1 - y0 || 1)) * (H - T - B);
  const svg = s("svg", { viewBox: `0 0 ${W} ${H}`, class: "plot", role: "group", "aria-label": title });
  s("line", { x1: L, y1: H - B, x2: W - R, y2: H - B, class: "axis" }, svg);
  s("line", { x1: L, y1: T, x2: L, y2: H - B, class: "axis" }, svg);
  // ticks at the values that matter: the points and the vanilla layer's figures
  const ticks = (vals, n) => [...new Set(vals)].sort((a, b) => a - b).filter((v, i, a) => a.length <= n || i % Math.ceil(a.length / n) === 0);
  for (const v of ticks(xv, 6)) s("text", { x: X(v), y: H - B + 14, class: "tick", "text-anchor": "middle" }, svg, fmt(v));
  for (const v of ticks([0, ...yv], 5)) s("text", { x: L - 4, y: Y(v) + 3, class: "tick", "text-anchor": "end" }, svg, fmt(v));
  s("text", { x: (L + W - R) / 2, y: H - 6, class: "axis-label", "text-anchor": "middle" }, svg, xLabel);
  s("text", { x: 12, y: (T + H - B) / 2, class: "axis-label", "text-anchor": "middle", transform: `rotate(-90 12 ${(T + H - B) / 2})` }, svg, yLabel);
  for (const r of refs) {
    if (r.axis === "x") {
      s("line", { x1: X(r.value), y1: T, x2: X(r.value), y2: H - B, class: "ref" }, svg);
      s("text", { x: X(r.value) + 3, y: T + 9, class: "ref-text" }, svg, r.text);
    } else {
      s("line", { x1: L, y1: Y(r.value), x2: W - R, y2: Y(r.value), class: "ref" }, svg);
      s("text", { x: W - R - 2, y: Y(r.value) - 3, class: "ref-text", "text-anchor": "end" }, svg, r.text);
    }
  }
  if (points.length > 1) {
    s("polyline", { points: points.map((p) => `${X(p.x)},${Y(p.y)}`).join(" "), class: "plot-line" }, svg);
  }
  points.forEach((p, i) => {
    const g = s("g", { class: `pt${p.proven ? " proven" : ""}`, tabindex: 0, role: "button", "aria-label": p.label, "data-index": i }, svg);
    s("title", {}, g, p.label);
    s("circle", { cx: X(p.x), cy: Y(p.y), r: 7 }, g);
    const go = () => p.onclick && p.onclick();
    g.addEventListener("click", go);
    g.addEventListener("keydown", (e) => { if (e.key === "Enter" || e.key === " ") { e.preventDefault(); go(); } });
  });
  return h("figure", { class: "plot-figure" },
    h("figcaption", {}, h("strong", { text: title }),
      h("span", { class: "muted small", text: " · filled: proven; hollow: best found (its gap in the tooltip); Enter or a click loads a point" })),
    svg);
}
