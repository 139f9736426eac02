// The designer page: wiring and the flow of changes. The modules hold the parts:
//   store.js (the model), state.js (URL form), history.js (history, undo/redo),
//   flow.js (what a change of the input sets off: counts, dimmed results, history),
//   errors.js (who owns which message), vanilla.js (panel 1 and the live counts),
//   design.js (palette and orbit cards), results.js (clusterings and coverage),
//   explain.js (the clustering drawer), optimise.js (the optimiser panel),
//   glossary.js, inspector.js, export.js (JSON, PyTorch, CSV, import), draw.js (SVG).
// No theory here: every count and verdict comes from the server.

import { api } from "./api.js";
import { model, PAGE } from "./store.js";
import { fromUrl } from "./state.js";
import { setErrors, renderErrors } from "./errors.js";
import { initHistory, replace, arrived, undo, redo, breakMerge } from "./history.js";
import { loadGroup, useGroup, renderCatalog, syncGroupSelect, refreshCounts, clearStepperErrors, renderGroupInfo } from "./vanilla.js";
import { renderPalette, renderCards, renderDesignHint } from "./design.js";
import { runClusterings, runCoverage, renderResults } from "./results.js";
import { renderExplain, hideExplain } from "./explain.js";
import { bindOptimiser, optimumFromState } from "./optimise.js";
import { problemChanged, restore, syncInputs } from "./flow.js";
import { renderGlossary, openGlossary, closeGlossary, decorateTerms } from "./glossary.js";
import { openInspector, closeInspector } from "./inspector.js";
import { bindExport } from "./export.js";
import { $ } from "./util.js";

const state = model.state;

// The user picks another group: load it, then reset V and the design.
async function selectGroup(name) {
  const g = await loadGroup(name);
  if (!g) { syncGroupSelectBack(); return; }
  state.group = name;
  state.orbits = [];
  state.rep = (g.presets || []).includes("vector") ? "vector" : ((g.presets || [])[1] || (g.presets || [])[0] || "trivial");
  $("rep-text").value = state.rep;
  model.counts = null;
  clearStepperErrors();
  useGroup(g);
  renderPalette();
  renderCards();
  syncGroupSelect();
  closeInspector();
  problemChanged("group");
}

function syncGroupSelectBack() {
  const sel = $("group-select");
  if (!state.group.startsWith("perm:") && sel.value !== "__custom__") sel.value = state.group;
}

// ------------------------------------------------------------------------------ wiring
function closeTopDrawer() {
  if (!$("inspector").hidden) { closeInspector(); return true; }
  if (!$("glossary").hidden) { closeGlossary(); return true; }
  if (!$("explain").hidden) { $("explain-close").click(); return true; }
  return false;
}

function isTextField(el) {
  return el && (el.tagName === "TEXTAREA" || (el.tagName === "INPUT" && ["text", "search"].includes(el.type)));
}

function bind() {
  $("group-select").addEventListener("change", (e) => {
    const v = e.target.value;
    if (v === "__custom__") {
      $("custom-row").hidden = false;
      renderGroupInfo();
      $("custom-gens").focus();
      return;
    }
    $("custom-row").hidden = true;
    setErrors("group", null);
    if (v === state.group && model.group) { renderGroupInfo(); return; }  // back to the group in use: nothing changes
    selectGroup(v);
  });
  const applyCustom = () => {
    const t = $("custom-gens").value.trim();
    if (!t) { setErrors("group", { message: "enter permutation generators, e.g. (1,2,3),(1,2)" }); return; }
    selectGroup(t.startsWith("perm:") ? t : `perm:${t}`);
  };
  $("custom-apply").addEventListener("click", applyCustom);
  $("custom-gens").addEventListener("keydown", (e) => { if (e.key === "Enter") applyCustom(); });
  $("rep-text").addEventListener("input", (e) => { state.rep = e.target.value; problemChanged("rep"); });
  $("heads").addEventListener("input", (e) => { state.heads = e.target.value; problemChanged("heads"); });
  $("head-dim").addEventListener("input", (e) => { state.headDim = e.target.value; problemChanged("head-dim"); });
  for (const id of ["rep-text", "heads", "head-dim"]) $(id).addEventListener("change", breakMerge);
  $("list-clusterings").addEventListener("click", runClusterings);
  $("check-coverage").addEventListener("click", runCoverage);
  $("clusterings-filter").addEventListener("input", (e) => { state.filter = e.target.value; model.shown = PAGE; renderResults(); replace(); });
  $("explain-close").addEventListener("click", () => {
    const id = state.sel;
    state.sel = null;
    hideExplain();
    replace();
    for (const b of $("clusterings").querySelectorAll(".cbox")) b.setAttribute("aria-pressed", "false");
    $("clusterings").querySelector(`.cbox[data-id="${id}"]`)?.focus();
  });
  $("undo").addEventListener("click", undo);
  $("redo").addEventListener("click", redo);
  $("open-glossary").addEventListener("click", () => openGlossary());
  $("glossary-close").addEventListener("click", closeGlossary);
  $("inspector-close").addEventListener("click", closeInspector);
  $("inspect-group").addEventListener("click", () => model.group && openInspector(model.group.subgroups[model.group.subgroups.length - 1].id));
  document.addEventListener("keydown", (e) => {
    if (e.key === "Escape" && closeTopDrawer()) { e.preventDefault(); return; }
    const mod = e.ctrlKey || e.metaKey;
    if (!mod || e.altKey || (e.key !== "z" && e.key !== "Z" && e.key !== "y")) return;
    if (isTextField(document.activeElement)) return;  // the field's own text undo
    e.preventDefault();
    if (e.key === "y" || e.shiftKey) redo(); else undo();
  });
  window.addEventListener("popstate", (e) => {
    Object.assign(state, fromUrl());
    arrived(e.state);
    restore();
  });
  // a page restored from the back-forward cache, or whose form fields the browser refilled:
  // the fields show the state of the URL (B3)
  window.addEventListener("pageshow", (e) => { if (e.persisted) { Object.assign(state, fromUrl()); restore(); } else syncInputs(); });
  let resizeT = null;
  window.addEventListener("resize", () => { clearTimeout(resizeT); resizeT = setTimeout(renderResults, 150); });
  bindOptimiser();
  bindExport();
}

async function init() {
  bind();
  syncInputs();
  renderGlossary();
  decorateTerms();
  initHistory();
  renderResults();
  renderDesignHint();
  try {
    model.catalog = await api.catalog();
    setErrors("catalog", null);
  } catch (e) {
    setErrors("catalog", e);
  }
  renderCatalog();
  const g = await loadGroup(state.group);
  if (!g) { document.body.dataset.ready = "1"; return; }
  if (!state.rep) { state.rep = (g.presets || []).includes("vector") ? "vector" : "regular"; syncInputs(); }
  useGroup(g);
  renderPalette();
  renderCards();
  optimumFromState();
  replace();
  await refreshCounts();
  if (state.view === "coverage") await runCoverage();
  else if (state.view === "clusterings") await runClusterings();
  renderErrors();
  document.body.dataset.ready = "1";
}

window.eqattn = { model };  // for debugging in the console
init();
