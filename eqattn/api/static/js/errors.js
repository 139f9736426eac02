// Errors belong to the control that caused them:
//  * the live validation of the inputs ("design": POST /api/design on every edit, "group",
//    "steppers": the multiplicity boxes checked on the page) is shown AT the input it names;
//  * an action's error ("clusterings", "coverage", "optimize", "verify", ...) is shown next to
//    that action's button, naming the input in words, and never marks an input invalid.
// Every action error is cleared when any input changes (clearActionErrors).

import { ApiError } from "./api.js";
import { $ } from "./util.js";

const errors = {};  // source -> [{field, msg, el?}]

const FIXED_SLOTS = { group: "group-error", name: "group-error", rep: "rep-error", heads: "heads-error",
                      head_dim: "head_dim-error", orbits: "orbits-error" };
const INPUT_OF = { group: "group-select", name: "group-select", rep: "rep-text", heads: "heads", head_dim: "head-dim" };
const FIELD_SOURCES = new Set(["design", "group", "catalog", "steppers"]);
const SOURCE_SLOT = { group: "group-error", catalog: "group-error" };  // a field source's message that names no field
const ACTION_SLOT = { clusterings: "clusterings-error", coverage: "coverage-error", optimize: "optimize-error",
                      catalog: "group-error", group: "group-error" };
const LABEL = { group: "group G", name: "group G", rep: "tokens V", heads: "heads H", head_dim: "head dim d",
                time_limit: "time limit", orbits: "design orbits" };

export function fieldLabel(field) {
  if (!field || field === "request") return "";
  if (LABEL[field]) return LABEL[field];
  const m = field.match(/^orbits\[(\d+)\](?:\.(\w+))?/);
  if (m) return `orbit ${Number(m[1]) + 1}${m[2] ? ` (${m[2]})` : ""}`;
  return field;
}

export function itemsOf(err) {
  if (!err) return [];
  if (err instanceof ApiError && err.items.length) return err.items;
  return [{ field: null, msg: err.message || String(err) }];
}

export function setErrors(source, err) {
  errors[source] = itemsOf(err);
  renderErrors();
}

export function setItems(source, items) {
  errors[source] = items;
  renderErrors();
}

export function errorsOf(source) {
  return errors[source] || [];
}

export const ACTIONS = ["clusterings", "coverage", "optimize", "verify", "witnesses"];

export function clearActionErrors() {
  for (const s of ACTIONS) errors[s] = [];
  renderErrors();
}

// The card showing design orbit i (identical consecutive orbits share one card).
function cardOf(i) {
  return [...$("cards").querySelectorAll(".card")]
    .find((c) => Number(c.dataset.index) <= i && i < Number(c.dataset.index) + Number(c.dataset.count || 1)) || null;
}

function fieldSlot(field, source) {
  if (!field && SOURCE_SLOT[source]) return $(SOURCE_SLOT[source]);
  if (field && FIXED_SLOTS[field]) return $(FIXED_SLOTS[field]);
  const m = field && field.match(/^orbits\[(\d+)\]/);
  if (m) return cardOf(Number(m[1]))?.querySelector(".card-error") || $("orbits-error");
  return $("rep-error");
}

export function renderErrors() {
  const bySlot = new Map();
  document.querySelectorAll(".field-error").forEach((e) => bySlot.set(e, new Set()));
  document.querySelectorAll("[aria-invalid]").forEach((e) => e.removeAttribute("aria-invalid"));
  document.querySelectorAll(".card.invalid").forEach((e) => e.classList.remove("invalid"));
  const add = (slot, text) => {
    if (!slot) return;
    if (!bySlot.has(slot)) bySlot.set(slot, new Set());
    bySlot.get(slot).add(text);
  };
  // the page's own check of a box speaks for it: the server's answer about the same field is
  // for a value the box no longer holds, or says the same thing again
  const checked = (errors.steppers || []).map((it) => it.field).filter(Boolean);
  const superseded = (source, it) => source === "design" && it.field &&
    checked.some((f) => it.field === f || it.field.startsWith(`${f}.`));
  for (const [source, items] of Object.entries(errors)) {
    for (const it of items || []) {
      if (superseded(source, it)) continue;
      if (FIELD_SOURCES.has(source)) {
        const fixed = it.field && (FIXED_SLOTS[it.field] || /^orbits\[\d+\]/.test(it.field));
        add(fieldSlot(it.field, source), (it.field && !fixed ? `${fieldLabel(it.field)}: ` : "") + it.msg);
        if (it.el) it.el.setAttribute("aria-invalid", "true");
        else if (it.field && INPUT_OF[it.field]) $(INPUT_OF[it.field]).setAttribute("aria-invalid", "true");
        if ((it.field === "group" || it.field === "name") && !$("custom-row").hidden) $("custom-gens").setAttribute("aria-invalid", "true");
        const m = it.field && it.field.match(/^orbits\[(\d+)\]/);
        if (m) cardOf(Number(m[1]))?.classList.add("invalid");
      } else {
        const slot = it.slot ? $(it.slot) : $(ACTION_SLOT[source] || "coverage-error");
        const label = fieldLabel(it.field);
        add(slot, (label ? `${label[0].toUpperCase()}${label.slice(1)}: ` : "") + it.msg);
        if (it.el) it.el.setAttribute("aria-invalid", "true");
      }
    }
  }
  for (const [slot, msgs] of bySlot) slot.textContent = [...msgs].join(" · ");
}
