// The flow of changes: what happens when the problem (G, V, H, d) or the design changes,
// when the live counts for an input arrive, and when the page is brought back in line with
// the state (Back / Forward / Undo / Redo / import). Every module that changes the input
// imports these functions directly (no registration at import time).

import { model } from "./store.js";
import { setErrors, clearActionErrors } from "./errors.js";
import { commit, replace } from "./history.js";
import { abort, loadGroup, useGroup, syncGroupSelect, renderIrreps, scheduleCounts, refreshCounts,
         renderCounts, clearStepperErrors } from "./vanilla.js";
import { renderPalette, renderCards, renderDesignHint } from "./design.js";
import { runClusterings, runCoverage, renderResults, settle, clusteringsStale, coverageStale } from "./results.js";
import { renderExplain, hideExplain } from "./explain.js";
import { renderOptimum, dropStaleOptimum, optimumFromState } from "./optimise.js";
import { $ } from "./util.js";

// G, V, H or d changed (kind names the step for the history).
export function problemChanged(kind) {
  for (const s of ["clusterings", "coverage", "optimize"]) abort(s);
  clearActionErrors();
  model.pending = true;
  model.pendingProblem = true;
  renderResults();
  if (model.state.sel !== null) renderExplain();
  dropStaleOptimum();
  renderOptimum();
  if (kind) commit(kind);
  scheduleCounts();
}

// The design's orbits changed.
export function designChanged(kind) {
  abort("coverage");
  if (kind !== "optimize") abort("optimize");
  clearActionErrors();
  model.pending = true;
  renderResults();
  if (model.state.sel !== null) renderExplain();
  renderDesignHint();
  dropStaleOptimum();
  renderOptimum();
  renderCounts();
  if (kind) commit(kind);
  scheduleCounts();
}

// The live counts for input (pk, dk) arrived.
export function countsSettled(pk, dk) {
  model.pendingProblem = false;
  settle(pk, dk);
  if (model.state.sel !== null) renderExplain();
  renderOptimum();
}

export function syncInputs() {
  const state = model.state;
  $("rep-text").value = state.rep;
  $("heads").value = state.heads;
  $("head-dim").value = state.headDim;
  $("clusterings-filter").value = state.filter;
  $("time-limit").value = state.timeLimit;
  for (const [id, key] of [["max-heads", "maxHeads"], ["max-head-dim", "maxHeadDim"], ["max-cost", "maxCost"]]) {
    if ($(id)) $(id).value = state[key] || "";
  }
}

// Bring the page in line with `model.state` (after Back / Forward / Undo / Redo / import).
export async function restore({ group = null } = {}) {
  const state = model.state;
  let g = group;
  if (!g && (!model.group || model.group.name !== state.group)) g = await loadGroup(state.group);
  if (g) useGroup(g);
  else if (!model.group || model.group.name !== state.group) { syncInputs(); return; }
  syncGroupSelect();
  syncInputs();
  model.counts = null;
  clearStepperErrors();
  setErrors("design", null);
  renderIrreps();
  renderPalette();
  renderCards();
  renderCounts();
  clearActionErrors();
  model.pending = true;
  model.pendingProblem = true;
  optimumFromState();
  renderResults();
  renderOptimum();
  const { view, sel } = state;
  await refreshCounts();
  state.view = view;
  state.sel = sel;
  replace();
  // the view of this entry: results already at hand come back; else they are computed again
  if (state.view === "coverage" && coverageStale()) await runCoverage();
  else if (state.view === "clusterings" && clusteringsStale()) await runClusterings();
  renderResults();
  if (state.sel !== null) renderExplain(); else hideExplain();
}
