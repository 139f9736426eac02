// The results: the clusterings of the problem (POST /api/clusterings) and the design's
// coverage (POST /api/coverage). Each result remembers the input it answers; while the input
// is invalid (or being edited) the last good results stay visible, dimmed (B9), and they come
// back undimmed when the input returns to what they answer.

import { api } from "./api.js";
import { model, PAGE, designBody, problemBody, subName } from "./store.js";
import { problemKey, designKey } from "./state.js";
import { setErrors, errorsOf } from "./errors.js";
import { replace } from "./history.js";
import { abortable, renderGenLegend } from "./vanilla.js";
import { clusteringSvg } from "./draw.js";
import { $, h, plural, startProgress } from "./util.js";
import { renderExplain, hideExplain } from "./explain.js";

export function clusteringsStale() {
  return !model.clusterings || model.clKey !== problemKey(model.state) || !model.problemValid || model.pendingProblem;
}

export function coverageStale() {
  return !model.coverage || clusteringsStale() || model.cvKey !== designKey(model.state) || !model.designValid || model.pending;
}

// The live counts answered for input (pk, dk): drop results that answer another valid input.
export function settle(pk, dk) {
  if (pk !== problemKey(model.state) || dk !== designKey(model.state)) return;
  if (model.problemValid && model.clusterings && model.clKey !== pk) {
    model.clusterings = null; model.clKey = null;
    model.coverage = null; model.cvKey = null; model.coverageById = new Map();
    if (model.state.view) { model.state.view = ""; model.state.sel = null; replace(); }
    hideExplain();
  }
  if (model.designValid && model.coverage && model.cvKey !== dk) {
    model.coverage = null; model.cvKey = null; model.coverageById = new Map();
    if (model.state.view === "coverage") { model.state.view = model.clusterings ? "clusterings" : ""; replace(); }
  }
  renderResults();
}

// Why the user cannot run an action now (the input has errors), or "".
function inputProblem() {
  const items = errorsOf("design").concat(errorsOf("group"), errorsOf("steppers"));
  if (!items.length) return "";
  return "Fix the input first (see the field marked in red).";
}

export async function runClusterings() {
  if (!model.group) return false;
  const blocked = inputProblem();
  if (blocked && !model.problemValid) { setErrors("clusterings", new Error(blocked)); return false; }
  const c = abortable("clusterings");
  const stop = startProgress("clusterings-progress", "Listing clusterings", c);
  $("list-clusterings").disabled = true;
  const pk = problemKey(model.state);
  try {
    const data = await api.clusterings(problemBody(), c.signal);
    model.clusterings = data;
    model.clKey = pk;
    if (model.cvKey && JSON.parse(model.cvKey)[0] !== pk) { model.coverage = null; model.cvKey = null; model.coverageById = new Map(); }
    model.shown = PAGE;
    if (!model.coverage || model.state.view !== "coverage") model.state.view = "clusterings";
    setErrors("clusterings", null);
    renderResults();
    if (model.state.sel !== null) renderExplain();
    replace();
    return true;
  } catch (e) {
    if (e.name === "AbortError") { $("clusterings-count").textContent = "Cancelled."; return false; }
    setErrors("clusterings", e);
    return false;
  } finally {
    stop();
    $("list-clusterings").disabled = false;
  }
}

export async function runCoverage() {
  if (!model.group) return;
  const blocked = inputProblem();
  if (blocked && !model.designValid) { setErrors("coverage", new Error(blocked)); return; }
  const c = abortable("coverage");
  const stop = startProgress("coverage-progress", "Checking coverage", c);
  $("check-coverage").disabled = true;
  $("coverage-summary").textContent = "";
  const pk = problemKey(model.state);
  const dk = designKey(model.state);
  try {
    const data = await api.coverage(designBody(), c.signal);
    model.coverage = data;
    model.cvKey = dk;
    model.coverageById = new Map(data.clusterings.map((x) => [x.id, x]));
    if (!model.clusterings || model.clKey !== pk || model.clusterings.clusterings.length !== data.clusterings.length) {
      model.clusterings = { count: data.total, clusterings: data.clusterings.map((x) => ({
        id: x.id, heads: x.heads, degenerate: x.degenerate ?? x.orbits.some((o) => o.degenerate), orbits: x.orbits, text: x.text })) };
      model.clKey = pk;
      model.shown = PAGE;
    }
    model.state.view = "coverage";
    setErrors("coverage", null);
    renderResults();
    if (model.state.sel !== null) renderExplain();
    replace();
  } catch (e) {
    if (e.name === "AbortError") { $("coverage-summary").textContent = "Cancelled."; return; }
    setErrors("coverage", e);
  } finally {
    stop();
    $("check-coverage").disabled = false;
  }
}

export function renderResults() {
  renderClusterings();
  renderCoverageSummary();
}

export function renderCoverageSummary() {
  const s = $("coverage-summary");
  s.className = "coverage-summary";
  const cv = model.coverage;
  if (!cv) { s.textContent = ""; return; }
  const stale = coverageStale();
  s.classList.add(cv.covered === cv.total ? "good" : "bad");
  s.classList.toggle("stale", stale);
  s.textContent = `${cv.covered} of ${cv.total} covered`;
  s.title = stale ? "For the last valid input; it returns when the input does" : "";
}

export function orbitsSummary(cl) {
  return cl.orbits.map((o) => `${o.count > 1 ? o.count + "× " : ""}G/${o.name ?? subName(o.subgroup)}` +
                              (o.cluster_size > 1 ? ` (clusters of ${o.cluster_size})` : "")).join(" + ");
}

function haystack(cl) {
  const words = [`#${cl.id + 1}`];
  for (const o of cl.orbits) {
    const s = model.subgroups.get(o.subgroup);
    const name = o.name ?? s?.name ?? "";
    words.push(`g/${name}`, name, s?.type || "");
  }
  if (cl.degenerate || cl.orbits.some((o) => o.degenerate)) words.push("degenerate");
  const cv = model.coverageById.get(cl.id);
  if (cv) words.push(cv.covered ? "covered" : "uncovered");
  return words.map((w) => w.toLowerCase()).filter(Boolean);
}

function matches(cl, tokens) {
  if (!tokens.length) return true;
  const words = haystack(cl);
  return tokens.every((t) => words.some((w) => w.startsWith(t) || (t.length > 1 && w === t)));
}

function boxWidth() {
  const list = $("clusterings");
  const W = Math.max(240, list.clientWidth - 6);
  const cols = Math.max(1, Math.floor((W + 8) / (250 + 8)));
  return Math.max(200, Math.floor((W - 8 * (cols - 1)) / cols) - 20);
}

export function renderClusterings() {
  const list = $("clusterings");
  list.textContent = "";
  const cls = model.clusterings;
  $("legend-row").hidden = !cls;
  const stale = cls && clusteringsStale();
  list.classList.toggle("stale", !!stale);
  $("stale-note").hidden = !stale;
  if (!cls) {
    $("clusterings-count").textContent = "";
    list.append(h("div", { class: "empty", text: model.group
      ? "Press ▶ List clusterings to see every way G can organise the H heads into clusters and orbits."
      : "Pick a group first." }));
    return;
  }
  renderGenLegend();
  const all = cls.clusterings;
  const tokens = model.state.filter.toLowerCase().split(/\s+/).filter(Boolean);
  const filtered = all.filter((cl) => matches(cl, tokens));
  let line = `${plural(all.length, "clustering")}`;
  if (tokens.length) line += ` · ${filtered.length} match`;
  if (model.coverage) line += ` · ${model.coverage.covered} of ${model.coverage.total} covered`;
  $("clusterings-count").textContent = line;
  const w = boxWidth();
  for (const cl of filtered.slice(0, model.shown)) list.append(clusteringBox(cl, w));
  if (filtered.length > model.shown) {
    list.append(h("button", { type: "button", class: "more", text: `Show ${Math.min(PAGE, filtered.length - model.shown)} more (${filtered.length - model.shown} hidden)`,
                              onclick: () => { model.shown += PAGE; renderClusterings(); } }));
  }
  if (!filtered.length) list.append(h("div", { class: "empty", text: "No clustering matches the filter." }));
}

function clusteringBox(cl, width) {
  const cv = model.coverageById.get(cl.id);
  const degenerate = cl.degenerate || cl.orbits.some((o) => o.degenerate);
  const heads = cl.heads ?? cl.orbits.reduce((n, o) => n + o.index * o.cluster_size * (o.count || 1), 0);
  const norb = cl.orbits.reduce((n, o) => n + (o.count || 1), 0);
  const status = cv ? (cv.covered ? "covered" : "uncovered") : "";
  const label = `Clustering ${cl.id + 1}: ${orbitsSummary(cl)}${degenerate ? ", degenerate" : ""}${cv ? (cv.covered ? ", covered" : ", not covered") : ""}`;
  return h("button", { type: "button", class: `cbox ${status}`, "data-id": cl.id, "aria-pressed": model.state.sel === cl.id ? "true" : "false",
                       "aria-label": label, title: "Click for details", onclick: () => selectClustering(cl.id) },
    h("span", { class: "cbox-head" },
      h("span", { class: "title", text: `#${cl.id + 1}` }),
      h("span", { class: "muted meta", text: plural(norb, "orbit"), title: `${plural(norb, "orbit")}, ${plural(heads, "head")}` }),
      degenerate ? h("span", { class: "badge warn", "data-term": "degenerate", text: "degenerate" }) : null,
      cv ? h("span", { class: `badge ${cv.covered ? "good" : "bad"}`, text: cv.covered ? "✓ covered" : "✗ not covered" }) : null),
    clusteringSvg(cl, width, model.subgroups, model.group?.generators));
}

export function selectClustering(id) {
  model.state.sel = id;
  for (const b of $("clusterings").querySelectorAll(".cbox")) b.setAttribute("aria-pressed", Number(b.dataset.id) === id ? "true" : "false");
  replace();
  renderExplain();
  $("explain").focus({ preventScroll: true });
}

