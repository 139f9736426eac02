// The designer page. It holds the state (in the URL), calls the JSON API and renders what
// the API answers: no theory here, every count and verdict comes from the server.

import { api, ApiError } from "./api.js";
import { fromUrl, toUrl, repText, intOrRaw } from "./state.js";
import { clusteringSvg, orbitDotsSvg } from "./draw.js";

const $ = (id) => document.getElementById(id);
const PAGE = 120;
const FAMILY = { cyclic: "Cyclic", dihedral: "Dihedral", symmetric: "Symmetric", alternating: "Alternating",
                 Q8: "Quaternion", product: "Products", point: "Point groups", other: "Other" };             // clustering boxes rendered at a time
const DEBOUNCE_MS = 150;

const state = fromUrl();
let catalog = [];
let group = null;             // GET /api/group answer for state.group
let subgroups = new Map();    // subgroup id -> subgroup entry
let counts = null;            // last POST /api/design answer
let clusterings = null;       // POST /api/clusterings answer (or built from a coverage report)
let coverage = null;          // POST /api/coverage answer
let coverageById = new Map();
let shown = PAGE;
const errors = {};            // source -> [{field, msg}]
const controllers = {};       // source -> AbortController

// ------------------------------------------------------------------------------ helpers
function h(tag, attrs = {}, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === undefined || v === null || v === false) continue;
    if (k === "class") e.className = v;
    else if (k === "text") e.textContent = v;
    else if (k.startsWith("on")) e.addEventListener(k.slice(2), v);
    else e.setAttribute(k, v === true ? "" : String(v));
  }
  for (const c of children.flat()) if (c !== null && c !== undefined) e.append(c);
  return e;
}

function fmt(n) {
  return typeof n === "number" ? n.toLocaleString("en-US") : "–";
}

function plural(n, word, many = word + "s") {
  return `${n} ${n === 1 ? word : many}`;
}

function abortable(source) {
  controllers[source]?.abort();
  const c = new AbortController();
  controllers[source] = c;
  return c;
}

function writeUrl() {
  history.replaceState(null, "", toUrl(state));
}

function problemBody() {
  return { group: state.group, rep: state.rep, heads: intOrRaw(state.heads), head_dim: intOrRaw(state.headDim) };
}

function designBody() {
  return { ...problemBody(), orbits: state.orbits.map((o) => ({ subgroup: o.subgroup, rep: o.rep })) };
}

function subName(id) {
  const s = subgroups.get(id);
  return s ? s.name : String(id);
}

// Parse our own notation "2xA + B" back into multiplicities (for the steppers only).
function parseMults(text) {
  const out = {};
  for (const term of String(text).split("+")) {
    const m = term.trim().match(/^(?:(\d+)\s*x\s*)?(\S+)$/);
    if (m && m[2] !== "0") out[m[2]] = (out[m[2]] || 0) + Number(m[1] || 1);
  }
  return out;
}

// ------------------------------------------------------------------------------ errors
const FIXED_SLOTS = { group: "group-error", name: "group-error", rep: "rep-error", heads: "heads-error",
                      head_dim: "head_dim-error", orbits: "orbits-error" };
const INPUT_OF = { group: "group-select", name: "group-select", rep: "rep-text", heads: "heads", head_dim: "head-dim" };
const FALLBACK = { group: "group-error", design: "orbits-error", clusterings: "clusterings-error",
                   coverage: "coverage-error", optimize: "coverage-error", catalog: "group-error" };

function setErrors(source, err) {
  if (!err) { errors[source] = []; }
  else if (err instanceof ApiError && err.items.length) { errors[source] = err.items; }
  else { errors[source] = [{ field: null, msg: err.message || String(err) }]; }
  renderErrors();
}

function slotFor(field, source) {
  if (field && FIXED_SLOTS[field]) return $(FIXED_SLOTS[field]);
  const m = field && field.match(/^orbits\[(\d+)\]/);
  if (m) {
    const card = $("cards").children[Number(m[1])];
    if (card && card.classList.contains("card")) return card.querySelector(".card-error");
    return $("orbits-error");
  }
  return $(FALLBACK[source] || "coverage-error");
}

function renderErrors() {
  const bySlot = new Map();
  document.querySelectorAll(".field-error").forEach((e) => bySlot.set(e, new Set()));
  document.querySelectorAll("[aria-invalid]").forEach((e) => e.removeAttribute("aria-invalid"));
  document.querySelectorAll(".card.invalid").forEach((e) => e.classList.remove("invalid"));
  for (const [source, items] of Object.entries(errors)) {
    for (const it of items || []) {
      const slot = slotFor(it.field, source);
      if (!bySlot.has(slot)) bySlot.set(slot, new Set());
      const prefix = it.field && !FIXED_SLOTS[it.field] && !/^orbits\[\d+\]/.test(it.field) ? `${it.field}: ` : "";
      bySlot.get(slot).add(prefix + it.msg);
      if (it.field && INPUT_OF[it.field]) $(INPUT_OF[it.field]).setAttribute("aria-invalid", "true");
      if (it.field === "group" && !$("custom-row").hidden) $("custom-gens").setAttribute("aria-invalid", "true");
      const m = it.field && it.field.match(/^orbits\[(\d+)\]/);
      if (m) $("cards").children[Number(m[1])]?.classList.add("invalid");
    }
  }
  for (const [slot, msgs] of bySlot) slot.textContent = [...msgs].join(" · ");
}

// ------------------------------------------------------------------------------ progress
function startProgress(id, label, controller) {
  const box = $(id);
  const text = box.querySelector(".progress-text");
  const t0 = performance.now();
  box.hidden = false;
  const tick = () => { text.textContent = `${label}… ${((performance.now() - t0) / 1000).toFixed(1)} s`; };
  tick();
  const timer = setInterval(tick, 100);
  box.querySelector(".cancel").onclick = () => controller.abort();
  return () => { clearInterval(timer); box.hidden = true; };
}

// ------------------------------------------------------------------------------ catalog / group
function renderCatalog() {
  const sel = $("group-select");
  sel.textContent = "";
  const families = new Map();
  for (const e of catalog) {
    const fam = e.family || "other";
    if (!families.has(fam)) families.set(fam, []);
    families.get(fam).push(e);
  }
  for (const [fam, entries] of families) {
    const og = h("optgroup", { label: FAMILY[fam] || fam });
    for (const e of entries) og.append(h("option", { value: e.name, text: `${e.name}  (order ${e.order})` }));
    sel.append(og);
  }
  sel.append(h("option", { value: "__custom__", text: "Custom: permutation generators…" }));
  syncGroupSelect();
}

function syncGroupSelect() {
  const sel = $("group-select");
  const isPerm = state.group.startsWith("perm:");
  if (isPerm) {
    sel.value = "__custom__";
    $("custom-row").hidden = false;
    $("custom-gens").value = state.group.slice(5);
    return;
  }
  $("custom-row").hidden = true;
  if (![...sel.options].some((o) => o.value === state.group)) {
    sel.prepend(h("option", { value: state.group, text: state.group }));
  }
  sel.value = state.group;
}

async function loadGroup(name) {
  const c = abortable("group");
  $("group-info").textContent = "loading…";
  const stop = startProgress("clusterings-progress", `Loading ${name}`, c);
  try {
    const g = await api.group(name, c.signal);
    setErrors("group", null);
    return g;
  } catch (e) {
    if (e.name === "AbortError") return null;
    setErrors("group", e instanceof ApiError && e.items.length
      ? new ApiError(422, e.message, e.items.map((i) => ({ ...i, field: "group" })))
      : e);
    return null;
  } finally {
    stop();
    $("group-info").textContent = group ? groupInfo() : "";
  }
}

function groupInfo() {
  return `order ${group.order} · ${plural(group.irreps.length, "irrep")} · ${plural(group.subgroups.length, "subgroup class", "subgroup classes")}`;
}

function useGroup(g) {
  group = g;
  subgroups = new Map(g.subgroups.map((s) => [s.id, s]));
  $("group-info").textContent = groupInfo();
  renderPresets();
  renderIrreps();
  renderPalette();
  renderCards();
  renderClusterings();
}

// The user picks another group: load it, then reset V and the design.
async function selectGroup(name) {
  const g = await loadGroup(name);
  if (!g) { if (group) syncGroupSelectTo(group); return; }
  state.group = name;
  state.orbits = [];
  state.rep = (g.presets || []).includes("vector") ? "vector" : ((g.presets || [])[1] || (g.presets || [])[0] || "trivial");
  $("rep-text").value = state.rep;
  counts = null;
  useGroup(g);
  syncGroupSelect();
  problemChanged();
}

function syncGroupSelectTo() {
  // keep the picker showing the group still in use (the new one failed to load)
  const sel = $("group-select");
  if (!state.group.startsWith("perm:") && sel.value !== "__custom__") sel.value = state.group;
}

// ------------------------------------------------------------------------------ V
function renderPresets() {
  const box = $("presets");
  box.textContent = "";
  box.append(h("span", { class: "muted", text: "presets:" }));
  for (const p of group.presets || []) {
    if (p.includes("<")) continue;  // a template such as "perm:<subgroup>": the picker below
    box.append(h("button", { type: "button", "data-preset": p, title: `V = ${p}`, text: p,
                             onclick: () => setRep(p) }));
  }
  // "perm on G/K": the permutation representation on the cosets of a subgroup K
  const sel = h("select", { id: "perm-subgroup", "aria-label": "Subgroup K for the permutation representation on G/K" });
  for (const s of group.subgroups) sel.append(h("option", { value: s.name, text: `G/${s.name} (${s.index})` }));
  box.append(h("button", { type: "button", id: "perm-preset", title: "V = permutation representation on the cosets G/K",
                           text: "perm on", onclick: () => setRep(permPreset(sel.value)) }), sel);
}

// Text of the permutation representation on G/K (the core's notation).
function permPreset(kName) {
  return `perm:${kName}`;
}

function setRep(text) {
  state.rep = text;
  $("rep-text").value = text;
  problemChanged();
}

function renderIrreps() {
  const box = $("irreps");
  box.textContent = "";
  const mults = counts?.rep?.multiplicities || parseMults(state.rep);
  for (const ir of group.irreps) {
    const id = `irrep-${ir.label}`;
    box.append(h("span", { class: "irrep", title: `${ir.label}: dimension ${ir.dim}, ${ir.type} type` },
      h("label", { for: id },
        h("span", { class: "name", text: ir.label }), " ",
        h("span", { class: "meta", text: `${ir.dim}d ${ir.type}` })),
      h("input", { type: "number", id, min: 0, step: 1, value: mults[ir.label] || 0, "data-irrep": ir.label,
                   "aria-label": `multiplicity of ${ir.label} in V`, oninput: onIrrepStepper })));
  }
}

function onIrrepStepper() {
  const mults = {};
  for (const inp of $("irreps").querySelectorAll("input")) mults[inp.dataset.irrep] = Math.max(0, Number(inp.value) || 0);
  state.rep = repText(mults, group.irreps.map((i) => i.label));
  $("rep-text").value = state.rep;
  problemChanged();
}

// ------------------------------------------------------------------------------ counts (live)
let countsTimer = null;
function scheduleCounts(delay = DEBOUNCE_MS) {
  clearTimeout(countsTimer);
  countsTimer = setTimeout(refreshCounts, delay);
}

async function refreshCounts() {
  if (!group) return;
  const c = abortable("design");
  try {
    counts = await api.design(designBody(), c.signal);
    setErrors("design", null);
  } catch (e) {
    if (e.name === "AbortError") return;
    counts = null;
    setErrors("design", e);
    // only orbits are wrong: still show the vanilla layer's numbers
    if (e instanceof ApiError && e.items.length && e.items.every((i) => i.field?.startsWith("orbits"))) {
      try {
        renderCounts.lastProblem = await api.design({ ...problemBody(), orbits: [] }, c.signal);
      } catch (e2) {
        if (e2.name === "AbortError") return;
      }
    }
  }
  renderCounts();
}

function renderCounts() {
  const badOrbitsOnly = (errors.design || []).length > 0 && (errors.design || []).every((i) => i.field && i.field.startsWith("orbits"));
  const c = counts;
  if (c) renderCounts.lastProblem = c;
  const p = c || (badOrbitsOnly ? renderCounts.lastProblem : null);
  $("dim-v").textContent = p ? fmt(p.dim_v) : "–";
  $("vanilla-params").textContent = p ? fmt(p.vanilla_params) : "–";
  $("vanilla-params-2").textContent = p ? fmt(p.vanilla_params) : "–";
  $("vanilla-formula").textContent = p ? `4 · H · d · dim V = 4 · ${p.heads} · ${p.head_dim} · ${p.dim_v}` : "";
  $("design-params").textContent = c ? fmt(c.design_params) : "–";
  $("design-heads").textContent = c ? fmt(c.design_heads) : "–";
  $("ratio").textContent = c && c.ratio !== null && c.ratio !== undefined ? c.ratio.toFixed(2) : "–";
  if (c) {
    for (const inp of $("irreps").querySelectorAll("input")) {
      if (document.activeElement !== inp) inp.value = c.rep.multiplicities[inp.dataset.irrep] || 0;
    }
  }
  const cards = $("cards").querySelectorAll(".card");
  cards.forEach((card, i) => {
    const o = c?.orbits?.[i];
    card.querySelector(".head-dim").textContent = o ? fmt(o.head_dim) : "–";
    card.querySelector(".params").textContent = o ? fmt(o.params) : "–";
    if (o?.multiplicities) {
      for (const inp of card.querySelectorAll(".card-steppers input")) {
        if (document.activeElement !== inp) inp.value = o.multiplicities[inp.dataset.irrep] || 0;
      }
    }
  });
}

// ------------------------------------------------------------------------------ changes
function problemChanged() {
  for (const s of ["clusterings", "coverage"]) controllers[s]?.abort();
  clusterings = null;
  coverage = null;
  coverageById = new Map();
  state.view = "";
  state.sel = null;
  setErrors("clusterings", null);
  setErrors("coverage", null);
  renderClusterings();
  renderCoverageSummary();
  hideExplain();
  writeUrl();
  scheduleCounts();
}

function designChanged() {
  controllers.coverage?.abort();
  if (coverage) {
    coverage = null;
    coverageById = new Map();
    if (state.view === "coverage") state.view = clusterings ? "clusterings" : "";
    renderClusterings();
    if (state.sel !== null) renderExplain();
  }
  setErrors("coverage", null);
  renderCoverageSummary();
  renderDesignHint();
  writeUrl();
  scheduleCounts();
}

// ------------------------------------------------------------------------------ clusterings
async function runClusterings() {
  if (!group) return;
  const c = abortable("clusterings");
  const stop = startProgress("clusterings-progress", "Listing clusterings", c);
  $("list-clusterings").disabled = true;
  try {
    const data = await api.clusterings(problemBody(), c.signal);
    clusterings = data;
    coverage = null;
    coverageById = new Map();
    shown = PAGE;
    state.view = "clusterings";
    setErrors("clusterings", null);
    renderClusterings();
    renderCoverageSummary();
    if (state.sel !== null) renderExplain();
    writeUrl();
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

function orbitsSummary(cl) {
  const parts = cl.orbits.map((o) => `${o.count > 1 ? o.count + "× " : ""}G/${o.name ?? subName(o.subgroup)}` +
                                     (o.cluster_size > 1 ? ` (clusters of ${o.cluster_size})` : ""));
  return parts.join(" + ");
}

function haystack(cl) {
  const words = [`#${cl.id + 1}`];
  for (const o of cl.orbits) {
    const s = subgroups.get(o.subgroup);
    const name = o.name ?? s?.name ?? "";
    words.push(`g/${name}`, name, s?.type || "");
  }
  if (cl.degenerate || cl.orbits.some((o) => o.degenerate)) words.push("degenerate");
  const cv = coverageById.get(cl.id);
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
  const W = Math.max(260, list.clientWidth - 6);
  const cols = Math.max(1, Math.floor((W + 8) / (250 + 8)));
  return Math.floor((W - 8 * (cols - 1)) / cols) - 20;
}

function renderClusterings() {
  const list = $("clusterings");
  list.textContent = "";
  $("legend-row").hidden = !clusterings;
  if (!clusterings) {
    $("clusterings-count").textContent = "";
    list.append(h("div", { class: "empty", text: group
      ? "Press ▶ List clusterings to see every way G can organise the H heads into clusters and orbits."
      : "Pick a group first." }));
    return;
  }
  const all = clusterings.clusterings;
  const tokens = state.filter.toLowerCase().split(/\s+/).filter(Boolean);
  const filtered = all.filter((cl) => matches(cl, tokens));
  let line = `${plural(all.length, "clustering")}`;
  if (tokens.length) line += ` · ${filtered.length} match`;
  if (coverage) line += ` · ${coverage.covered} of ${coverage.total} covered`;
  $("clusterings-count").textContent = line;
  const w = boxWidth();
  for (const cl of filtered.slice(0, shown)) list.append(clusteringBox(cl, w));
  if (filtered.length > shown) {
    list.append(h("button", { type: "button", class: "more", text: `Show ${Math.min(PAGE, filtered.length - shown)} more (${filtered.length - shown} hidden)`,
                              onclick: () => { shown += PAGE; renderClusterings(); } }));
  }
  if (!filtered.length) list.append(h("div", { class: "empty", text: "No clustering matches the filter." }));
}

function clusteringBox(cl, width) {
  const cv = coverageById.get(cl.id);
  const degenerate = cl.degenerate || cl.orbits.some((o) => o.degenerate);
  const heads = cl.heads ?? cl.orbits.reduce((n, o) => n + o.index * o.cluster_size * (o.count || 1), 0);
  const norb = cl.orbits.reduce((n, o) => n + (o.count || 1), 0);
  const status = cv ? (cv.covered ? "covered" : "uncovered") : "";
  const label = `Clustering ${cl.id + 1}: ${orbitsSummary(cl)}${degenerate ? ", degenerate" : ""}${cv ? (cv.covered ? ", covered" : ", not covered") : ""}`;
  return h("button", { type: "button", class: `cbox ${status}`, "data-id": cl.id, "aria-pressed": state.sel === cl.id ? "true" : "false",
                       "aria-label": label, title: "Click for details", onclick: () => selectClustering(cl.id) },
    h("span", { class: "cbox-head" },
      h("span", { class: "title", text: `#${cl.id + 1}` }),
      h("span", { class: "muted meta", text: plural(norb, "orbit"), title: `${plural(norb, "orbit")}, ${plural(heads, "head")}` }),
      degenerate ? h("span", { class: "badge warn", title: "an orbit's clusters can be forced to share a QK matrix", text: "degenerate" }) : null,
      cv ? h("span", { class: `badge ${cv.covered ? "good" : "bad"}`, text: cv.covered ? "✓ covered" : "✗ not covered" }) : null),
    clusteringSvg(cl, width, subgroups));
}

function selectClustering(id) {
  state.sel = id;
  for (const b of $("clusterings").querySelectorAll(".cbox")) b.setAttribute("aria-pressed", Number(b.dataset.id) === id ? "true" : "false");
  writeUrl();
  renderExplain();
  $("explain").focus({ preventScroll: true });
}

// ------------------------------------------------------------------------------ coverage
async function runCoverage() {
  if (!group) return;
  const c = abortable("coverage");
  const stop = startProgress("coverage-progress", "Checking coverage", c);
  $("check-coverage").disabled = true;
  $("coverage-summary").textContent = "";
  try {
    const data = await api.coverage(designBody(), c.signal);
    coverage = data;
    coverageById = new Map(data.clusterings.map((x) => [x.id, x]));
    if (!clusterings || clusterings.clusterings.length !== data.clusterings.length) {
      clusterings = { count: data.total, clusterings: data.clusterings.map((x) => ({
        id: x.id, heads: x.heads, degenerate: x.degenerate ?? x.orbits.some((o) => o.degenerate), orbits: x.orbits, text: x.text })) };
      shown = PAGE;
    }
    state.view = "coverage";
    setErrors("coverage", null);
    renderClusterings();
    renderCoverageSummary();
    if (state.sel !== null) renderExplain();
    writeUrl();
  } catch (e) {
    if (e.name === "AbortError") { $("coverage-summary").textContent = "Cancelled."; return; }
    setErrors("coverage", e);
  } finally {
    stop();
    $("check-coverage").disabled = false;
  }
}

function renderCoverageSummary() {
  const s = $("coverage-summary");
  s.className = "coverage-summary";
  if (!coverage) { s.textContent = ""; return; }
  const all = coverage.covered === coverage.total;
  s.classList.add(all ? "good" : "bad");
  s.textContent = `${coverage.covered} of ${coverage.total} covered`;
}

// ------------------------------------------------------------------------------ explanation
function hideExplain() {
  $("explain").hidden = true;
}

function optionText(o) {
  if (o.text) return o.text;
  const where = `vanilla orbit ${o.orbit + 1} (G/${o.subgroup})`;
  return o.zero ? `${where}: M = 0 (zero pool), R profile ${o.b}, demand ${o.D}`
    : `${where}: M profile ${o.a}, R profile ${o.b}; K̄ = ${o.kbar}, image P = ${o.P}, demand D = ${o.D}`;
}

function hostsText(hosts) {
  return (hosts || []).map((x) => `design orbit ${x.design_orbit + 1}` +
    (state.orbits[x.design_orbit] ? ` (G/${subName(state.orbits[x.design_orbit].subgroup)})` : "") +
    (x.coset_rep !== undefined && x.coset_rep !== null ? `, coset g${x.coset_rep}` : "")).join("; ");
}

function demandsTable(rows, head) {
  return h("table", {}, h("tr", {}, head.map((t) => h("th", { text: t }))), rows);
}

function renderExplain() {
  const cl = clusterings?.clusterings.find((x) => x.id === state.sel);
  if (!cl) { hideExplain(); return; }
  const cv = coverageById.get(cl.id);
  $("explain").hidden = false;
  $("explain-title").textContent = `Clustering #${cl.id + 1}: ${cl.text || orbitsSummary(cl)}`;
  const body = $("explain-body");
  body.textContent = "";
  const desc = h("ul", {});
  for (const o of cl.orbits) {
    const s = subgroups.get(o.subgroup);
    desc.append(h("li", { text: `${o.count > 1 ? o.count + " orbits" : "An orbit"} G/${o.name ?? s?.name}: ` +
      `${plural(o.index, "cluster")} of ${plural(o.cluster_size, "head")} each; stabiliser K = ${o.name ?? s?.name}` +
      `${s ? ` (${s.type}, order ${s.order})` : ""}` +
      (o.degenerate ? ". Degenerate: its clusters can be forced to share one QK matrix." : ".") }));
  }
  body.append(desc);
  if (!cv) {
    body.append(h("p", { class: "muted", text: "Press ▶ Check coverage to see whether the design covers this clustering." }));
    return;
  }
  if (cv.covered) {
    const ws = cv.witness || [];
    const nsc = typeof cv.scenarios === "number" ? cv.scenarios : ws.length;
    body.append(h("p", { class: "verdict good",
      text: `✓ Covered: the design realises ${nsc === 1 ? "the one scenario" : `every one of the ${fmt(nsc)} scenarios`} of this clustering.` +
            (ws.length > 1 ? " A witness per scenario checked:" : " Witness:") }));
    ws.slice(0, 20).forEach((w, i) => {
      const blk = h("div", { class: "scenario good" });
      if (ws.length > 1) blk.append(h("p", {}, h("strong", { text: `Scenario ${i + 1} of ${ws.length}` })));
      blk.append(h("p", { text: w.text || (w.scenario || []).map(optionText).join("; ") }));
      if (w.assignments?.length) {
        blk.append(demandsTable(w.assignments.map((a) => h("tr", {},
          h("td", { text: a.demand }), h("td", { text: a.kbar }), h("td", { text: a.D }),
          h("td", { text: hostsText(a.hosts) }),
          h("td", { text: (a.hosts || []).map((x) => x.supply).join(" + ") }))),
          ["vanilla demand", "on K̄", "demands", "hosted by (witness)", "supplies"]));
      }
      body.append(blk);
    });
    if (ws.length > 20 || cv.witness_truncated) {
      body.append(h("p", { class: "muted", text: "… more witnesses are not shown; every scenario is met." }));
    }
  } else {
    const ce = cv.counterexample || {};
    body.append(h("p", { class: "verdict bad", text: "✗ Not covered. Counterexample: a scenario the design cannot realise." }));
    const blk = h("div", { class: "scenario bad" });
    blk.append(h("p", { text: ce.text || ce.explanation || (ce.scenario || []).map(optionText).join("; ") }));
    if (ce.explanation && ce.text && ce.explanation !== ce.text) blk.append(h("p", { text: ce.explanation }));
    const shortBy = new Map((ce.shortfall || []).map((x) => [x.demand, x]));
    if (ce.demands?.length) {
      blk.append(demandsTable(ce.demands.map((d) => h("tr", {},
        h("td", { text: d.demand }), h("td", { text: d.kbar }), h("td", { text: d.D }),
        h("td", { class: shortBy.has(d.demand) ? "short" : "", text: shortBy.has(d.demand) ? `${shortBy.get(d.demand).missing} missing` : "met" }))),
        ["vanilla demand", "on K̄", "demands", "design falls short by"]));
    }
    body.append(blk);
  }
}

// ------------------------------------------------------------------------------ palette and design
function renderPalette() {
  const box = $("palette");
  box.textContent = "";
  for (const s of group.subgroups) {
    box.append(h("button", { type: "button", "data-subgroup": s.id, "aria-label": `Add orbit G/${s.name}`,
                             title: `Add an orbit G/${s.name}: ${plural(s.index, "head")}, one per coset of K = ${s.name} (${s.type}, order ${s.order})` +
                                    (s.conjugates > 1 ? `; K has ${s.conjugates} conjugates` : ""),
                             onclick: () => addOrbit(s.id) },
      h("span", { class: "pl-name", text: `G/${s.name}` }),
      h("span", { class: "pl-meta", text: `|K| = ${s.order} · ${plural(s.index, "head")}` })));
  }
}

function addOrbit(id) {
  state.orbits.push({ subgroup: id, rep: "0" });
  renderCards();
  designChanged();
  const card = $("cards").lastElementChild;
  card?.scrollIntoView({ block: "nearest" });
  card?.querySelector(".card-steppers input")?.focus();
}

function renderDesignHint() {
  $("design-hint").textContent = state.orbits.length
    ? `— ${plural(state.orbits.length, "orbit")}`
    : "— empty: click an orbit in the palette";
}

function renderCards() {
  const list = $("cards");
  list.textContent = "";
  const tpl = $("card-template");
  state.orbits.forEach((o, i) => {
    const s = subgroups.get(o.subgroup) || group?.subgroups.find((x) => x.name === o.subgroup);
    const card = tpl.content.firstElementChild.cloneNode(true);
    card.dataset.index = i;
    card.querySelector(".orbit-label").textContent = `${i + 1}. G/${s ? s.name : o.subgroup}`;
    card.querySelector(".card-sub").textContent = s ? `K ≅ ${s.type}, |K| = ${s.order}` : "unknown subgroup";
    if (s) card.querySelector(".card-dots").append(orbitDotsSvg(s.index));
    const steppers = card.querySelector(".card-steppers");
    const co = counts?.orbits?.[i];
    const mults = co?.multiplicities || parseMults(o.rep);
    for (const ir of s?.irreps || []) {
      const inp = h("input", { type: "number", min: 0, step: 1, value: mults[ir.label] || 0, "data-irrep": ir.label,
                               "aria-label": `orbit ${i + 1}: multiplicity of ${ir.label} of ${s.name}`,
                               oninput: () => onCardStepper(i, card, s) });
      steppers.append(h("label", { title: `${ir.label} of ${s.name}: dimension ${ir.dim}, ${ir.type} type` }, ir.label, inp));
    }
    card.querySelector(".head-dim").textContent = co ? fmt(co.head_dim) : "–";
    card.querySelector(".params").textContent = co ? fmt(co.params) : "–";
    card.querySelector(".clone").setAttribute("aria-label", `Clone orbit ${i + 1}`);
    card.querySelector(".remove").setAttribute("aria-label", `Remove orbit ${i + 1}`);
    card.querySelector(".clone").onclick = () => {
      state.orbits.splice(i + 1, 0, { ...state.orbits[i] });
      renderCards();
      designChanged();
      $("cards").children[i]?.querySelector(".clone")?.focus();
    };
    card.querySelector(".remove").onclick = () => {
      state.orbits.splice(i, 1);
      renderCards();
      designChanged();
      const next = $("cards").children[Math.min(i, state.orbits.length - 1)];
      (next?.querySelector(".remove") || $("palette").querySelector("button"))?.focus();
    };
    list.append(card);
  });
  if (!state.orbits.length) {
    list.append(h("li", { class: "empty", text: "No orbit yet. The empty design has 0 parameters and covers only the clusterings with nothing to compute." }));
  }
  renderDesignHint();
  renderErrors();
}

function onCardStepper(i, card, s) {
  const mults = {};
  for (const inp of card.querySelectorAll(".card-steppers input")) mults[inp.dataset.irrep] = Math.max(0, Number(inp.value) || 0);
  state.orbits[i].rep = repText(mults, s.irreps.map((x) => x.label));
  designChanged();
}

// ------------------------------------------------------------------------------ optimiser (hook)
// OPTIMIZE HOOK: the "Find optimal design" button;
// POST /api/optimize answers {"status", "design_params", "lower_bound", "orbits": [{"subgroup", "rep", ...}]}.
async function runOptimize() {
  const c = abortable("optimize");
  $("optimize-status").hidden = true;
  const stop = startProgress("coverage-progress", "Searching the optimal design", c);
  try {
    const r = await api.optimize(problemBody(), c.signal);
    state.orbits = r.orbits.map((o) => ({ subgroup: o.subgroup, rep: o.rep }));
    setErrors("optimize", null);
    renderCards();
    designChanged();
    const proven = r.status === "optimal";
    const status = proven
      ? `Proven optimal: ${fmt(r.design_params)} parameters (solver bound ${fmt(r.lower_bound)})`
      : `Best found: ${fmt(r.design_params)} parameters, lower bound ${fmt(r.lower_bound)} (gap ${fmt(r.gap)})`;
    stop();
    await runCoverage();
    $("optimize-status").textContent = status;
    $("optimize-status").hidden = false;
  } catch (e) {
    if (e.name !== "AbortError") setErrors("optimize", e);
  } finally {
    stop();
  }
}

// ------------------------------------------------------------------------------ export / import / link
function exportDesign() {
  const data = { group: state.group, rep: state.rep, heads: intOrRaw(state.heads), head_dim: intOrRaw(state.headDim),
                 orbits: state.orbits.map((o) => ({ subgroup: subName(o.subgroup), rep: o.rep })) };
  const blob = new Blob([JSON.stringify(data, null, 2) + "\n"], { type: "application/json" });
  const a = h("a", { href: URL.createObjectURL(blob), download: `eqattn-design-${state.group.replace(/[^\w.-]+/g, "_")}.json` });
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(a.href), 1000);
  topMsg("Design exported.");
}

function topMsg(text, isError = false) {
  const m = $("topbar-msg");
  m.textContent = text;
  m.classList.toggle("error", isError);
  clearTimeout(topMsg.t);
  if (!isError) topMsg.t = setTimeout(() => { m.textContent = ""; }, 4000);
}

async function importDesign(text) {
  let d;
  try { d = JSON.parse(text); } catch (e) { topMsg(`Import failed: not JSON (${e.message})`, true); return; }
  if (!d || typeof d !== "object" || (d.orbits !== undefined && !Array.isArray(d.orbits))) {
    topMsg('Import failed: expected {"group", "rep", "heads", "head_dim", "orbits": [{"subgroup", "rep"}]}', true);
    return;
  }
  const orbits = (d.orbits || []).map((o) => (Array.isArray(o) ? { subgroup: o[0], rep: String(o[1] ?? "0") }
                                                                : { subgroup: o?.subgroup, rep: String(o?.rep ?? "0") }));
  const name = typeof d.group === "string" && d.group ? d.group : state.group;
  if (name !== state.group || !group) {
    const g = await loadGroup(name);
    if (!g) { topMsg("Import failed: see the group field.", true); return; }
    state.group = name;
    group = g;
    useGroup(g);
    syncGroupSelect();
  }
  state.rep = d.rep !== undefined ? String(d.rep) : state.rep;
  state.heads = d.heads !== undefined ? String(d.heads) : state.heads;
  state.headDim = d.head_dim !== undefined ? String(d.head_dim) : state.headDim;
  state.orbits = orbits.map((o) => {
    const s = group.subgroups.find((x) => x.name === o.subgroup || x.id === o.subgroup);
    return { subgroup: s ? s.id : o.subgroup, rep: o.rep };
  });
  syncInputs();
  counts = null;
  renderIrreps();
  renderCards();
  problemChanged();
  topMsg(`Imported ${plural(state.orbits.length, "orbit")}.`);
}

function syncInputs() {
  $("rep-text").value = state.rep;
  $("heads").value = state.heads;
  $("head-dim").value = state.headDim;
  $("clusterings-filter").value = state.filter;
}

// ------------------------------------------------------------------------------ wiring
function bind() {
  $("group-select").addEventListener("change", (e) => {
    const v = e.target.value;
    if (v === "__custom__") {
      $("custom-row").hidden = false;
      $("custom-gens").focus();
      return;
    }
    $("custom-row").hidden = true;
    selectGroup(v);
  });
  const applyCustom = () => {
    const t = $("custom-gens").value.trim();
    if (!t) { setErrors("group", new ApiError(422, "", [{ field: "group", msg: "enter permutation generators, e.g. (1,2,3),(1,2)" }])); return; }
    selectGroup(t.startsWith("perm:") ? t : `perm:${t}`);
  };
  $("custom-apply").addEventListener("click", applyCustom);
  $("custom-gens").addEventListener("keydown", (e) => { if (e.key === "Enter") applyCustom(); });
  $("rep-text").addEventListener("input", (e) => { state.rep = e.target.value; problemChanged(); });
  $("heads").addEventListener("input", (e) => { state.heads = e.target.value; problemChanged(); });
  $("head-dim").addEventListener("input", (e) => { state.headDim = e.target.value; problemChanged(); });
  $("list-clusterings").addEventListener("click", runClusterings);
  $("check-coverage").addEventListener("click", runCoverage);
  $("optimize").addEventListener("click", runOptimize);
  $("clusterings-filter").addEventListener("input", (e) => { state.filter = e.target.value; shown = PAGE; renderClusterings(); writeUrl(); });
  $("explain-close").addEventListener("click", () => {
    const id = state.sel;
    state.sel = null;
    hideExplain();
    writeUrl();
    for (const b of $("clusterings").querySelectorAll(".cbox")) b.setAttribute("aria-pressed", "false");
    $("clusterings").querySelector(`.cbox[data-id="${id}"]`)?.focus();
  });
  document.addEventListener("keydown", (e) => { if (e.key === "Escape" && !$("explain").hidden) $("explain-close").click(); });
  $("copy-link").addEventListener("click", async () => {
    try { await navigator.clipboard.writeText(window.location.href); topMsg("Link copied."); }
    catch { topMsg("The address bar holds the link to this view."); }
  });
  $("export-design").addEventListener("click", exportDesign);
  $("import-design").addEventListener("click", () => $("import-file").click());
  $("import-file").addEventListener("change", async (e) => {
    const f = e.target.files?.[0];
    if (f) await importDesign(await f.text());
    e.target.value = "";
  });
  let resizeT = null;
  window.addEventListener("resize", () => { clearTimeout(resizeT); resizeT = setTimeout(renderClusterings, 150); });
}

async function init() {
  bind();
  syncInputs();
  renderClusterings();
  renderDesignHint();
  try {
    catalog = await api.catalog();
    setErrors("catalog", null);
  } catch (e) {
    setErrors("catalog", e);
  }
  renderCatalog();
  const g = await loadGroup(state.group);
  if (!g) { document.body.dataset.ready = "1"; return; }
  if (!state.rep) { state.rep = (g.presets || []).includes("vector") ? "vector" : "regular"; syncInputs(); }
  useGroup(g);
  writeUrl();
  await refreshCounts();
  if (state.view === "coverage") await runCoverage();
  else if (state.view === "clusterings") await runClusterings();
  document.body.dataset.ready = "1";
}

window.eqattn = { state };  // for debugging in the console
init();
