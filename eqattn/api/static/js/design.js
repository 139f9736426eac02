// Panel 2, the equivariant design: the orbit palette (one button per subgroup class K) and
// the design's orbit cards with their multiplicity steppers.

import { model } from "./store.js";
import { designChanged } from "./flow.js";
import { openInspector } from "./inspector.js";
import { repText, parseMults, designKey } from "./state.js";
import { renderErrors } from "./errors.js";
import { readMults, setStepperErrors, clearStepperErrors, checkSteppers } from "./vanilla.js";
import { orbitDotsSvg } from "./draw.js";
import { $, h, fmt, plural } from "./util.js";

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
                           (s.conjugates > 1 ? `; K has ${s.conjugates} conjugates` : ""),
                    onclick: () => addOrbit(s.id) },
        h("span", { class: "pl-name", text: `G/${s.name}` }),
        h("span", { class: "pl-meta", text: `|K| = ${s.order} · ${plural(s.index, "head")}` })),
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
  const inp = card?.querySelector(".card-steppers input");
  if (inp) { inp.focus(); inp.select(); }  // typing replaces the 0 (B7)
}

export function renderDesignHint() {
  $("design-hint").textContent = model.state.orbits.length
    ? `— ${plural(model.state.orbits.length, "orbit")}`
    : "— empty: click an orbit in the palette";
}

export function renderCards() {
  const list = $("cards");
  list.textContent = "";
  clearStepperErrors("orbits");
  const tpl = $("card-template");
  const group = model.group;
  model.state.orbits.forEach((o, i) => {
    const s = model.subgroups.get(o.subgroup) || group?.subgroups.find((x) => x.name === o.subgroup);
    const card = tpl.content.firstElementChild.cloneNode(true);
    card.dataset.index = i;
    card.querySelector(".orbit-label").textContent = `${i + 1}. G/${s ? s.name : o.subgroup}`;
    const sub = card.querySelector(".card-sub");
    if (s) {
      sub.append(h("button", { type: "button", class: "linkish", "aria-label": `Inspect subgroup ${s.name} of orbit ${i + 1}`,
                               title: `What is ${s.name}?`, text: `K = ${s.name}`, onclick: () => openInspector(s.id) }),
                 `${s.name !== s.type ? ` ≅ ${s.type}` : ""} · |K| = ${s.order}`);
      card.querySelector(".card-dots").append(orbitDotsSvg(s.index));
    } else sub.textContent = "unknown subgroup";
    const steppers = card.querySelector(".card-steppers");
    const co = countsFresh() ? model.counts?.orbits?.[i] : null;
    const mults = parseMults(o.rep);
    for (const ir of s?.irreps || []) {
      const inp = h("input", { type: "number", min: 0, step: 1, value: mults[ir.label] || 0, "data-irrep": ir.label, autocomplete: "off",
                               "aria-label": `orbit ${i + 1}: multiplicity of ${ir.label} of ${s.name}`,
                               oninput: () => onCardStepper(i, card, s) });
      steppers.append(h("label", { title: `${ir.label} of ${s.name}: dimension ${ir.dim}, ${ir.type} type` }, ir.label, inp));
    }
    card.querySelector(".head-dim").textContent = co ? fmt(co.head_dim) : "–";
    card.querySelector(".params").textContent = co ? fmt(co.params) : "–";
    card.querySelector(".clone").setAttribute("aria-label", `Clone orbit ${i + 1}`);
    card.querySelector(".remove").setAttribute("aria-label", `Remove orbit ${i + 1}`);
    card.querySelector(".clone").onclick = () => {
      model.state.orbits.splice(i + 1, 0, { ...model.state.orbits[i] });
      renderCards();
      designChanged("clone");
      $("cards").children[i]?.querySelector(".clone")?.focus();
    };
    card.querySelector(".remove").onclick = () => {
      model.state.orbits.splice(i, 1);
      renderCards();
      designChanged("remove");
      const next = $("cards").children[Math.min(i, model.state.orbits.length - 1)];
      (next?.querySelector(".remove") || $("palette").querySelector("button"))?.focus();
    };
    list.append(card);
    if (Object.values(mults).some((m) => typeof m !== "number")) checkSteppers(steppers.querySelectorAll("input"), `orbits[${i}]`);
  });
  if (!model.state.orbits.length) {
    list.append(h("li", { class: "empty", text: "No orbit yet. The empty design has 0 parameters and covers only the clusterings with nothing to compute." }));
  }
  renderDesignHint();
  renderErrors();
}

function onCardStepper(i, card, s) {
  const where = `orbits[${i}]`;
  const { typed, bad } = readMults(card.querySelectorAll(".card-steppers input"), where);
  setStepperErrors(where, bad);
  model.state.orbits[i].rep = repText(typed, s.irreps.map((x) => x.label));
  designChanged(`orbit-${i}`);
}
