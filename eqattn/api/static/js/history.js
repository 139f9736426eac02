// Real history: every meaningful step (group, V, H, d, a design edit, an optimum loaded, an
// import) is a browser history entry, so Back / Forward / Undo / Redo walk the same list.
// Typing in one field is one step (keystrokes within MERGE_MS update the same entry); views
// (listed clusterings, the selected clustering, the filter) only replace the current entry.

import { model } from "./store.js";
import { toUrl } from "./state.js";
import { $ } from "./util.js";

const MERGE_MS = 1200;
const MERGEABLE = /^(rep|heads|head-dim|orbit-\d+)$/;  // typing in one field; not add / remove / clone / group
let index = 0;  // position of the current entry among ours
let top = 0;    // the last entry Redo can reach
let last = { kind: null, t: 0 };

function saveTop() {
  try { sessionStorage.setItem("eqattn.top", String(top)); } catch { /* private mode */ }
}

export function initHistory() {
  const st = history.state;
  if (st && typeof st.i === "number") {
    index = st.i;
    top = Math.max(index, Number(sessionStorage.getItem("eqattn.top") || index));
  } else {
    index = 0;
    top = 0;
  }
  history.replaceState({ i: index }, "", toUrl(model.state));
  saveTop();
  renderUndo();
}

function here() {
  return window.location.pathname + window.location.search;
}

// A meaningful step of kind `kind` ("rep", "heads", "design", "group", ...).
export function commit(kind) {
  const url = toUrl(model.state);
  const now = Date.now();
  if (url === here()) { last = { kind, t: now }; return; }
  if (kind && MERGEABLE.test(kind) && kind === last.kind && now - last.t < MERGE_MS && index > 0) {
    history.replaceState({ i: index }, "", url);
  } else {
    index += 1;
    top = index;
    history.pushState({ i: index }, "", url);
    saveTop();
  }
  last = { kind, t: now };
  renderUndo();
}

// Views: the same entry, its URL updated.
export function replace() {
  history.replaceState({ i: index }, "", toUrl(model.state));
}

// Ends a run of typing: the next edit is a new step.
export function breakMerge() {
  last = { kind: null, t: 0 };
}

// popstate: the entry we arrived at.
export function arrived(st) {
  index = st && typeof st.i === "number" ? st.i : 0;
  top = Math.max(top, index);
  last = { kind: null, t: 0 };
  renderUndo();
}

export function canUndo() { return index > 0; }
export function canRedo() { return index < top; }
export function undo() { if (canUndo()) history.back(); }
export function redo() { if (canRedo()) history.forward(); }

export function renderUndo() {
  const u = $("undo");
  const r = $("redo");
  if (u) u.disabled = !canUndo();
  if (r) r.disabled = !canRedo();
}
