// Panel 1, the vanilla layer: the group picker, V (text, presets, irrep steppers), H, d and
// the live parameter counts (POST /api/design on every edit, debounced).

import { api, ApiError } from "./api.js";
import { model, designBody, problemBody } from "./store.js";
import { problemChanged, countsSettled } from "./flow.js";
import { countsFresh, renderPalette, renderCards } from "./design.js";
import { optimumFresh } from "./optimise.js";
import { repText, parseMults, problemKey, designKey } from "./state.js";
import { setErrors, setItems, errorsOf, renderErrors } from "./errors.js";
import { $, h, fmt, plural, startProgress, keepingFocus } from "./util.js";

const FAMILY = { cyclic: "Cyclic", dihedral: "Dihedral", symmetric: "Symmetric", alternating: "Alternating",
                 Q8: "Quaternion", product: "Products", point: "Point groups", compact: "Compact (continuous) groups", other: "Other" };
const DEBOUNCE_MS = 150;
const controllers = {};

export function abortable(source) {
  controllers[source]?.abort();
  const c = new AbortController();
  controllers[source] = c;
  return c;
}

export function abort(source) {
  controllers[source]?.abort();
}

// ------------------------------------------------------------------------------ catalog / group
export function renderCatalog() {
  const sel = $("group-select");
  sel.textContent = "";
  const families = new Map();
  for (const e of model.catalog) {
    const fam = e.family || "other";
    if (!families.has(fam)) families.set(fam, []);
    families.get(fam).push(e);
  }
  for (const [fam, entries] of families) {
    const og = h("optgroup", { label: FAMILY[fam] || fam });
    for (const e of entries) {
      const what = e.family === "compact" ? e.description : `order ${e.order}`;
      og.append(h("option", { value: e.name, text: `${e.name}  (${what})` }));
    }
    sel.append(og);
  }
  sel.append(h("option", { value: "__custom__", text: "Custom: permutation generators…" }));
  syncGroupSelect();
}

export function syncGroupSelect() {
  const sel = $("group-select");
  const name = model.state.group;
  if (name.startsWith("perm:")) {
    sel.value = "__custom__";
    $("custom-row").hidden = false;
    $("custom-gens").value = name.slice(5);
    return;
  }
  $("custom-row").hidden = true;
  if (sel.options.length && ![...sel.options].some((o) => o.value === name)) {
    sel.prepend(h("option", { value: name, text: name }));
  }
  sel.value = name;
}

export async function loadGroup(name) {
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
    renderGroupInfo();
  }
}

// The line next to the picker describes the group in use; while custom generators are being
// typed (not yet applied), it says that the previous group is still the one in use.
export function renderGroupInfo() {
  const g = model.group;
  const c = g && g.compact;
  const size = c ? `compact · ${c.band_text} · computed on its finite subgroup ${c.stand_in}` : g ? `order ${g.order}` : "";
  const facts = g ? `${size} · ${plural(g.irreps.length, "irrep")} · ${plural(g.subgroups.length, "subgroup class", "subgroup classes")}` : "";
  const typing = !$("custom-row").hidden && g && !model.state.group.startsWith("perm:");
  $("group-info").textContent = typing ? `${g.name} (${facts}) stays in use until custom generators are applied` : facts;
  $("inspect-group").hidden = !g;
}

export function useGroup(g) {
  model.baseGroup = g;
  model.group = g;
  model.subgroups = new Map(g.subgroups.map((s) => [s.id, s]));
  renderGroupInfo();
  renderPresets();
  renderIrreps();
}

// The legend of the clusterings' drawings: whose generators permute the numbered clusters. It
// follows model.group, so followBand redraws it when the group for V's band arrives after the
// clusterings were drawn (a compact group's stand-in changes with the band).
export function renderGenLegend() {
  const gens = model.group?.generators || [];
  const c = model.group?.compact;
  // a compact group: the generators are its finite stand-in's; the rotations among them fix
  // every cluster (docs/theory-continuous.md, Lemma 1)
  const whose = c ? `the generators of ${c.stand_in} (G's finite stand-in; ${c.identity_component}, the rotations, fixes every cluster)` : "G's generators";
  $("gen-legend").textContent = gens.length
    ? `Under each orbit: how ${whose} permute its numbered clusters (${gens.map((g) => `${g.letter} = ${g.description}`).join("; ")}).`
    : "";
}

// A compact group is computed on the finite stand-in for the band V names (l <= 1 on Oh,
// l <= 2 on Ih, l >= 3 on C_2l x Ci; E_k up to V's k on C_n / D_n): once V is valid, the page takes the server's
// group for that V (GET /api/group with the rep), so the palette and the cards offer exactly
// the irreps of K that a head may use. The V steppers keep the wider of that band and the
// default one, so V can still grow.
export async function followBand() {
  const g0 = model.group;
  if (!g0?.compact) return;
  const name = model.state.group;
  const rep = model.state.rep.trim();
  const c = abortable("band");
  let g;
  try {
    g = await api.group(name, c.signal, rep);
  } catch (e) {
    return;  // V's own error is the counts' to show
  }
  if (model.state.group !== name || model.state.rep.trim() !== rep || model.group?.name !== g.name) return;
  if (g.compact.band === model.group.compact.band) return;
  model.group = g;
  model.subgroups = new Map(g.subgroups.map((s) => [s.id, s]));
  keepingFocus(() => {  // the user may be typing in a card or a stepper as the band changes
    renderGroupInfo();
    renderIrreps();
    renderPalette();
    renderCards();
    if (model.clusterings) renderGenLegend();
  });
}

// The irreps offered as V's steppers: the band in use, or the default band when it is wider.
function stepperIrreps() {
  const g = model.group;
  const base = model.baseGroup;
  const wider = base && base !== g && base.name === g.name && base.compact && g.compact && base.compact.band > g.compact.band;
  return (wider ? base : g).irreps;
}

// ------------------------------------------------------------------------------ V
function renderPresets() {
  const box = $("presets");
  box.textContent = "";
  box.append(h("span", { class: "muted", text: "presets:" }));
  const g = model.group;
  for (const p of g.presets || []) {
    if (p.includes("<")) continue;  // a template such as "perm:<subgroup>": the picker below
    box.append(h("button", { type: "button", "data-preset": p, title: `V = ${p}`, text: p, onclick: () => setRep(p) }));
  }
  if (!(g.presets || []).includes("perm:<subgroup>")) return;  // e.g. a compact group: no permutation rep
  const sel = h("select", { id: "perm-subgroup", "aria-label": "Subgroup K for the permutation representation on G/K" });
  for (const s of g.subgroups) sel.append(h("option", { value: s.name, text: `G/${s.name} (${s.index})` }));
  box.append(h("button", { type: "button", id: "perm-preset", title: "V = permutation representation on the cosets G/K",
                           text: "perm on", onclick: () => setRep(`perm:${sel.value}`) }), sel);
}

export function setRep(text) {
  model.state.rep = text;
  $("rep-text").value = text;
  problemChanged("rep-preset");
}

export function renderIrreps() {
  const box = $("irreps");
  box.textContent = "";
  const g = model.group;
  if (!g) return;
  const mults = model.counts?.rep?.multiplicities || parseMults(model.state.rep);
  for (const ir of stepperIrreps()) {
    const id = `irrep-${ir.label}`;
    box.append(h("span", { class: "irrep", title: `${ir.label}: an irrep of dimension ${ir.dim}, ${ir.type} type` + (ir.description ? ` (${ir.description})` : "") },
      h("label", { for: id },
        h("span", { class: "name", text: ir.label }), " ",
        h("span", { class: "meta", text: `${ir.dim}d ${ir.type}` })),
      h("input", { type: "number", id, min: 0, step: 1, value: mults[ir.label] || 0, "data-irrep": ir.label, autocomplete: "off",
                   "aria-label": `multiplicity of ${ir.label} in V`, oninput: onIrrepStepper })));
  }
  if (Object.values(parseMults(model.state.rep)).some((m) => typeof m !== "number")) checkSteppers(box.querySelectorAll("input"), "rep");
}

// A multiplicity must be a whole number >= 0 (B6): anything else is refused at the box, and
// kept as typed in `typed` (the state holds what the box shows, never an older value).
export function readMults(inputs, where) {
  const mults = {};
  const typed = {};
  const bad = [];
  for (const inp of inputs) {
    const t = String(inp.value).trim();
    if (!/^\d+$/.test(t)) {
      const got = inp.validity?.badInput ? "not a number" : t === "" ? "empty" : `got ${t}`;
      bad.push({ el: inp, msg: `multiplicity of ${inp.dataset.irrep} must be a whole number ≥ 0 (${got})` });
      typed[inp.dataset.irrep] = t === "" ? "?" : t;
    } else {
      mults[inp.dataset.irrep] = Number(t);
      typed[inp.dataset.irrep] = Number(t);
    }
  }
  return { mults, typed, bad: bad.map((b) => ({ ...b, field: where })) };
}

// The page's own check of the boxes as they are (after typing, and after a state is loaded).
export function checkSteppers(inputs, where) {
  const { bad } = readMults(inputs, where);
  setStepperErrors(where, bad);
}

const stepperErrors = new Map();  // "rep" | "orbits[i]" -> items

export function setStepperErrors(where, items) {
  if (items.length) stepperErrors.set(where, items);
  else stepperErrors.delete(where);
  setItems("steppers", [...stepperErrors.values()].flat());
}

export function clearStepperErrors(prefix = "") {
  for (const k of [...stepperErrors.keys()]) if (k.startsWith(prefix)) stepperErrors.delete(k);
  setItems("steppers", [...stepperErrors.values()].flat());
}

function onIrrepStepper() {
  const { typed, bad } = readMults($("irreps").querySelectorAll("input"), "rep");
  setStepperErrors("rep", bad);
  model.state.rep = repText(typed, stepperIrreps().map((i) => i.label));
  $("rep-text").value = model.state.rep;
  problemChanged("rep");
}

// ------------------------------------------------------------------------------ counts (live)
let countsTimer = null;
let countsSeq = 0;

export function scheduleCounts(delay = DEBOUNCE_MS) {
  clearTimeout(countsTimer);
  model.pending = true;
  countsTimer = setTimeout(refreshCounts, delay);
}

const onlyFields = (items, ok) => items.length > 0 && items.every((i) => i.field && ok(i.field));

export async function refreshCounts() {
  if (!model.group) return;
  const c = abortable("design");
  const seq = ++countsSeq;
  const pk = problemKey(model.state);
  const dk = designKey(model.state);
  try {
    const counts = await api.design(designBody(), c.signal);
    if (seq !== countsSeq) return;
    model.counts = counts;
    model.countsKey = dk;
    model.lastProblem = counts;
    model.problemValid = true;
    model.designValid = true;
    setErrors("design", null);
  } catch (e) {
    if (e.name === "AbortError" || seq !== countsSeq) return;
    model.counts = null;
    setErrors("design", e);
    const items = errorsOf("design");
    model.designValid = false;
    model.problemValid = onlyFields(items, (f) => f.startsWith("orbits"));
    model.lastProblem = null;
    // the vanilla numbers still stand when only the design is wrong; dim V still stands when
    // only H or d is wrong (B9)
    try {
      if (model.problemValid) {
        model.lastProblem = await api.design({ ...problemBody(), orbits: [] }, c.signal);
      } else if (onlyFields(items, (f) => f === "heads" || f === "head_dim" || f.startsWith("orbits"))) {
        const p = await api.design({ group: model.state.group, rep: model.state.rep, heads: 1, head_dim: 1, orbits: [] }, c.signal);
        model.lastProblem = { dim_v: p.dim_v, rep: p.rep, partial: true };
      }
    } catch (e2) {
      if (e2.name === "AbortError") return;
    }
    if (seq !== countsSeq) return;
  }
  model.pending = false;
  renderCounts();
  countsSettled(pk, dk);
  if (model.problemValid) { loadRestrictions(); followBand(); }
}

// V|K for every subgroup class (GET /api/restrictions), once per (G, V): what each irrep of K
// costs in a head of an orbit G/K, shown on the design cards.
async function loadRestrictions() {
  const key = JSON.stringify([model.state.group, model.state.rep.trim()]);
  if (model.restrictions?.key === key) return;
  const c = abortable("restrictions");
  try {
    const data = await api.restrictions(model.state.group, model.state.rep.trim(), c.signal);
    model.restrictions = { key, bySub: new Map(data.subgroups.map((x) => [x.id, x])) };
    renderRestrictions();
  } catch (e) {
    if (e.name !== "AbortError") model.restrictions = null;
  }
}

export function restrictionOf(subId) {
  const key = JSON.stringify([model.state.group, model.state.rep.trim()]);
  return model.restrictions?.key === key ? model.restrictions.bySub.get(subId) : null;
}

// Each card: V|K, and on each irrep's box what one copy of it costs (0 when V|K lacks it).
export function renderRestrictions() {
  $("cards").querySelectorAll(".card").forEach((card) => {
    const o = model.state.orbits[Number(card.dataset.index)];
    const r = o && restrictionOf(o.subgroup);
    const line = card.querySelector(".card-restriction");
    if (!line) return;
    line.textContent = "";
    if (!r) return;
    const zero = r.irreps.filter((x) => x.multiplicity === 0).map((x) => x.label);
    line.append(h("span", { class: "mono", text: `V|${r.name} = ${r.text}` }));
    if (zero.length) line.append(h("span", { class: "muted", text: ` · ${zero.join(", ")} ${zero.length === 1 ? "is" : "are"} not in V|${r.name}: a copy adds head dimension for 0 parameters` }));
    for (const x of r.irreps) {
      const lab = card.querySelector(`.card-steppers label[data-irrep="${CSS.escape(x.label)}"]`);
      if (!lab) continue;
      lab.classList.toggle("zero", x.multiplicity === 0);
      const cost = lab.querySelector(".cost");
      if (cost) cost.textContent = `${fmt(x.params_per_copy)} each`;
      lab.title = `${x.label} of ${r.name}: dimension ${x.dim}; V|${r.name} holds ${x.multiplicity} ${x.multiplicity === 1 ? "copy" : "copies"}, ` +
        `so each copy of ${x.label} in W adds ${x.dim} to the head dimension and 4 · dim Hom(V|K, ${x.label}) = ${fmt(x.params_per_copy)} parameters`;
    }
  });
}

// The design's figures shown: the live counts when they answer the design as it is now; the
// optimiser's own figures for the design it just loaded; otherwise the last figures, dimmed
// as "on their way" (never a count of another design next to an optimiser's verdict).
function designFigures() {
  const c = model.counts;
  if (countsFresh()) return { params: c.design_params, heads: c.design_heads, ratio: c.ratio, pending: false };
  if (optimumFresh()) {
    const r = model.optimum.result;
    return { params: r.design_params, heads: r.heads_total ?? r.orbits.reduce((n, o) => n + o.heads, 0),
             ratio: r.vanilla_params ? r.design_params / r.vanilla_params : null, pending: false };
  }
  return c ? { params: c.design_params, heads: c.design_heads, ratio: c.ratio, pending: true } : null;
}

export function renderCounts() {
  const c = model.counts;
  const p = c || model.lastProblem;
  const full = p && !p.partial;
  $("dim-v").textContent = p ? fmt(p.dim_v) : "–";
  $("vanilla-params").textContent = full ? fmt(p.vanilla_params) : "–";
  $("vanilla-params-2").textContent = full ? fmt(p.vanilla_params) : "–";
  $("vanilla-formula").textContent = full ? `4 · H · d · dim V = 4 · ${p.heads} · ${p.head_dim} · ${p.dim_v}` : "";
  const f = designFigures();
  const empty = !model.state.orbits.length;
  $("design-params").textContent = f ? fmt(f.params) : "–";
  $("design-heads").textContent = f ? fmt(f.heads) : "–";
  // the ratio of an empty design says nothing: there is no design yet
  $("ratio").textContent = f && !empty && f.ratio !== null && f.ratio !== undefined ? f.ratio.toFixed(2) : "–";
  $("ratio").title = empty ? "No design yet: add an orbit from the palette" : "design parameters / vanilla parameters";
  for (const id of ["design-params", "design-heads", "ratio"]) $(id).classList.toggle("pending", !!f?.pending);
  if (p?.rep) {
    for (const inp of $("irreps").querySelectorAll("input")) {
      if (document.activeElement !== inp) inp.value = p.rep.multiplicities[inp.dataset.irrep] || 0;
    }
  }
  const fresh = countsFresh();
  $("cards").querySelectorAll(".card").forEach((card) => {
    const i = Number(card.dataset.index);
    const n = Number(card.dataset.count || 1);
    const o = fresh ? c?.orbits?.[i] : null;
    const run = fresh ? (c?.orbits || []).slice(i, i + n) : [];
    card.querySelector(".head-dim").textContent = o ? fmt(o.head_dim) : "–";
    card.querySelector(".params").textContent = o ? fmt(run.reduce((t, x) => t + x.params, 0)) : "–";
    card.querySelector(".params").title = o && n > 1 ? `${n} copies of ${fmt(o.params)}` : "";
    if (o?.multiplicities) {
      for (const inp of card.querySelectorAll(".stepper-boxes input")) {
        if (document.activeElement !== inp) inp.value = o.multiplicities[inp.dataset.irrep] || 0;
      }
    }
  });
  renderErrors();
}
