// Panel 2, the equivariant design: the orbit palette (one button per subgroup class K) and
// the design's orbit cards with their multiplicity steppers.

import { model, subName } from "./store.js";
import { designChanged } from "./flow.js";
import { openInspector } from "./inspector.js";
import { repText, parseMults, designKey } from "./state.js";
import { renderErrors } from "./errors.js";
import { readMults, setStepperErrors, clearStepperErrors, checkSteppers, renderRestrictions, renderCounts } from "./vanilla.js";
import { orbitDotsSvg } from "./draw.js";
import { $, h, fmt, plural } from "./util.js";

// |K| for a finite group; a compact group's K is infinite, so its index [G:K] instead
function subgroupSize(s) {
  return model.group && model.group.compact ? `[G:K] = ${s.index}` : `|K| = ${s.order}`;
}

// The live counts answer the design as it is now (not an earlier one still on its way out).
export function countsFresh() {
  return !!model.counts && model.countsKey === designKey(model.state);
}

export function renderPalette() {
  const box = $("palette");
  box.textContent = "";
  for (const s of model.group.subgroups) {
    box.append(h("span", { class: "pl-item" },
      h("button", { type: "button", class: "pl-add", "data-subgroup": s.id, "aria-label": `Add orbit G/${s.name}`,
                    title: `Add an orbit G/${s.name}: ${plural(s.index, "head")}, one per coset of K = ${s.name} (${s.type}, order ${s.order})` +
                           (s.description ? `; K = ${s.description}` : "") +
                           (s.conjugates > 1 ? `; K has ${s.conjugates} conjugates` : ""),
                    onclick: () => addOrbit(s.id) },
        h("span", { class: "pl-name", text: `G/${s.name}` }),
        h("span", { class: "pl-meta", text: `${subgroupSize(s)} · ${plural(s.index, "head")}` }),
        s.description ? h("span", { class: "pl-desc", text: `K = ${s.description}` }) : null),
      h("button", { type: "button", class: "pl-inspect", "aria-label": `Inspect subgroup ${s.name}`,
                    title: `What is ${s.name}? Generators, elements, normaliser, irreps`, text: "i",
                    onclick: () => openInspector(s.id) })));
  }
}

export function addOrbit(id) {
  model.state.orbits.push({ subgroup: id, rep: "0" });
  renderCards();
  designChanged("add-orbit");  // a step of its own: its multiplicities are the next one
  const card = $("cards").lastElementChild;
  card?.scrollIntoView({ block: "nearest" });
  const inp = card?.querySelector(".stepper-boxes input");
  if (inp) { inp.focus(); inp.select(); }  // typing replaces the 0 (B7)
}

export function renderDesignHint() {
  $("design-hint").textContent = model.state.orbits.length
    ? `— ${plural(model.state.orbits.length, "orbit")}`
    : "— empty: click an orbit in the palette";
  renderSummary();
}

// Runs of identical consecutive orbits (same K, same W): one card each, with a copy count.
export function orbitRuns(orbits = model.state.orbits) {
  const runs = [];
  orbits.forEach((o, i) => {
    const last = runs[runs.length - 1];
    // an orbit still at W = 0 is one being set up: it keeps a card of its own
    if (last && last.o.subgroup === o.subgroup && last.o.rep === o.rep && o.rep !== "0") last.count += 1;
    else runs.push({ o, first: i, count: 1 });
  });
  return runs;
}

function rangeText(run) {
  return run.count === 1 ? `${run.first + 1}` : `${run.first + 1}–${run.first + run.count}`;
}

// The whole design in one line: "2 × G/C1 (W = 2xA) + G/C2 (W = B)".
export function renderSummary() {
  const box = $("design-summary");
  if (!box) return;
  const runs = orbitRuns();
  box.textContent = runs.length ? "Design: " + runs.map((r) => `${r.count > 1 ? `${r.count} × ` : ""}G/${subName(r.o.subgroup)} (W = ${r.o.rep})`).join(" + ") : "";
}

const COMPACT_IRREPS = 6;  // past this many irreps of K, W's boxes fold behind its text until opened
const openCards = new Set();  // the first orbit index of cards whose W boxes the user opened

export function renderCards() {
  const list = $("cards");
  list.textContent = "";
  clearStepperErrors("orbits");
  const tpl = $("card-template");
  const group = model.group;
  const runs = orbitRuns();
  for (const run of runs) {
    const { o, first: i, count } = run;
    const s = model.subgroups.get(o.subgroup) || group?.subgroups.find((x) => x.name === o.subgroup);
    const card = tpl.content.firstElementChild.cloneNode(true);
    card.dataset.index = i;
    card.dataset.count = count;
    const range = rangeText(run);
    card.querySelector(".orbit-label").textContent = `${range}. ${count > 1 ? `${count} × ` : ""}G/${s ? s.name : o.subgroup}`;
    const sub = card.querySelector(".card-sub");
    if (s) {
      sub.append(h("button", { type: "button", class: "linkish", "aria-label": `Inspect subgroup ${s.name} of orbit ${i + 1}`,
                               title: `What is ${s.name}?${s.description ? ` ${s.description}` : ""}`, text: `K = ${s.name}`, onclick: () => openInspector(s.id) }),
                 `${s.name !== s.type ? ` ≅ ${s.type}` : ""} · ${subgroupSize(s)}`);
      card.querySelector(".card-dots").append(orbitDotsSvg(s.index));
    } else sub.textContent = "unknown subgroup";
    const steppers = card.querySelector(".card-steppers");
    const mults = parseMults(o.rep);
    const irreps = s?.irreps || [];
    const bad = Object.values(mults).some((m) => typeof m !== "number");
    const boxes = h("span", { class: "stepper-boxes" });
    for (const ir of irreps) {
      const inp = h("input", { type: "number", min: 0, step: 1, value: mults[ir.label] || 0, "data-irrep": ir.label, autocomplete: "off",
                               "aria-label": `orbit ${i + 1}: multiplicity of ${ir.label} of ${s.name}`,
                               oninput: () => onCardStepper(run, card, s) });
      boxes.append(h("label", { "data-irrep": ir.label, title: `${ir.label} of ${s.name}: dimension ${ir.dim}, ${ir.type} type` + (ir.description ? ` (${ir.description})` : "") },
        h("span", { class: "irrep-name", text: ir.label }), inp, h("span", { class: "cost" })));
    }
    if (irreps.length > COMPACT_IRREPS) {
      const det = h("details", { class: "w-fold", open: openCards.has(i) || bad || o.rep === "0" || undefined,
                                 ontoggle: (e) => { if (e.target.open) openCards.add(i); else openCards.delete(i); } },
        h("summary", { "aria-label": `orbit ${i + 1}: W = ${o.rep}, edit` }, h("span", { class: "mono", text: `W = ${o.rep}` }), h("span", { class: "muted small", text: " · edit" })),
        boxes);
      steppers.append(det);
    } else steppers.append(boxes);
    {
      const copies = h("label", { class: "copies", title: "How many copies of this orbit the design has" }, "copies",
        h("input", { type: "number", min: 0, step: 1, value: count, class: "copies-input", autocomplete: "off",
                     "aria-label": `orbit ${i + 1}: number of copies`, onchange: (e) => setCopies(run, e.target) }));
      card.querySelector(".card-actions").prepend(copies);
    }
    card.querySelector(".clone").setAttribute("aria-label", `Clone orbit ${i + 1}`);
    card.querySelector(".remove").setAttribute("aria-label", count > 1 ? `Remove orbits ${range}` : `Remove orbit ${i + 1}`);
    card.querySelector(".remove").textContent = count > 1 ? "Remove all" : "Remove";
    card.querySelector(".clone").onclick = () => {
      model.state.orbits.splice(i + count, 0, { ...model.state.orbits[i] });
      renderCards();
      designChanged("clone");
      cardAt(i)?.querySelector(".clone")?.focus();
    };
    card.querySelector(".remove").onclick = () => {
      model.state.orbits.splice(i, count);
      renderCards();
      designChanged("remove");
      const next = cardAt(Math.min(i, model.state.orbits.length - 1));
      (next?.querySelector(".remove") || $("palette").querySelector("button"))?.focus();
    };
    list.append(card);
    if (bad) checkSteppers(boxes.querySelectorAll("input"), `orbits[${i}]`);
  }
  if (!model.state.orbits.length) {
    list.append(h("li", { class: "empty", text: "No orbit yet. The empty design has 0 parameters and covers only the clusterings with nothing to compute." }));
  }
  renderDesignHint();
  renderCounts();
  renderRestrictions();
  renderErrors();
}

// The card that shows design orbit i (a run of identical orbits shares one card).
export function cardAt(i) {
  return [...$("cards").querySelectorAll(".card")].find((c) => Number(c.dataset.index) <= i && i < Number(c.dataset.index) + Number(c.dataset.count));
}

function setCopies(run, input) {
  const t = String(input.value).trim();
  if (!/^\d+$/.test(t) || Number(t) > 4096) {
    setStepperErrors(`orbits[${run.first}]`, [{ el: input, field: `orbits[${run.first}]`, msg: "copies must be a whole number from 0 to 4096" }]);
    return;
  }
  const n = Number(t);
  model.state.orbits.splice(run.first, run.count, ...Array.from({ length: n }, () => ({ ...run.o })));
  renderCards();
  designChanged("copies");
  cardAt(run.first)?.querySelector(".copies-input")?.focus();
}

// W typed on a card: every copy of the run gets it (they stay one run, one card).
function onCardStepper(run, card, s) {
  const i = run.first;
  const where = `orbits[${i}]`;
  const { typed, bad } = readMults(card.querySelectorAll(".stepper-boxes input"), where);
  setStepperErrors(where, bad);
  const rep = repText(typed, s.irreps.map((x) => x.label));
  for (let k = i; k < i + run.count; k++) model.state.orbits[k].rep = rep;
  run.o = model.state.orbits[i];
  const sum = card.querySelector(".w-fold summary .mono");
  if (sum) sum.textContent = `W = ${rep}`;
  renderSummary();
  designChanged(`orbit-${i}`);
}
