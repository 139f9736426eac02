// The subgroup inspector (click a K, or "G: inspect" for the whole group): generators,
// elements (or the size), normaliser, the isomorphism to its standard group and its irreps
// with their characters (the character table of K; of G for the whole group).

import { api } from "./api.js";
import { model } from "./store.js";
import { itemsOf } from "./errors.js";
import { term } from "./glossary.js";
import { $, h, fmt, plural } from "./util.js";

let ctl = null;

function el(e) {
  return `g${e.index} = ${e.word}` + (e.cycles ? ` = ${e.cycles}` : "");
}

function matrixTable(m) {
  return h("table", { class: "mini-matrix", "aria-label": "matrix" },
    m.map((row) => h("tr", {}, row.map((x) => h("td", { text: num(x) })))));
}

// One element: its name, what it is in words, and its matrix for a matrix group.
function elementItem(e) {
  return h("li", { class: "chip mono" }, el(e),
    e.description && e.description !== "identity" ? h("span", { class: "what", text: `: ${e.description}` }) : null,
    e.matrix && e.matrix.length <= 3 ? matrixTable(e.matrix) : null);
}

function num(x) {
  const r = Math.round(x * 1000) / 1000;
  return Object.is(r, -0) ? "0" : String(r);
}

function characterTable(t, words = new Map()) {
  const head = h("tr", {}, h("th", { text: "irrep" }), h("th", { text: "dim" }),
    t.classes.map((c) => h("th", { title: `class of ${el(c.rep)}: ${plural(c.size, "element")} of order ${c.order}` },
      h("span", { class: "mono", text: c.rep.word }), h("span", { class: "muted small", text: ` ×${c.size}` }))));
  const rows = t.irreps.map((r) => h("tr", {},
    h("th", { class: "mono", title: `${r.type} type`, text: r.label }), h("td", { text: String(r.dim) }),
    r.character.map((x) => h("td", { class: "num", text: num(x) })),
    words.size ? h("td", { class: "small muted", text: words.get(r.label) || "" }) : null));
  if (words.size) head.append(h("th", { text: "what it is" }));
  return h("div", { class: "table-wrap" }, h("table", { class: "chartable" }, head, rows));
}

// A compact group is infinite: K is a closed subgroup of finite index, and what the
// inspector lists (generators, elements, characters) is that of its finite stand-in.
function compactLead(v, c) {
  const what = `${c.kind} is computed on its finite subgroup ${c.stand_in} (order ${fmt(v.group_order)}), ${c.stand_in_role}`;
  return v.is_whole_group
    ? `The whole group ${v.group}, a compact group. ${what}: the generators, elements and characters below are ${c.stand_in}'s.`
    : `${v.name} is a closed subgroup of ${v.group} of index ${fmt(v.index)} (an orbit G/${v.name} has ${plural(v.index, "head")}). ${what}; ` +
      `below, ${v.name} stands for its part in ${c.stand_in} (order ${fmt(v.order)}).`;
}

export async function openInspector(id) {
  const d = $("inspector");
  const body = $("inspector-body");
  d.hidden = false;
  const s = model.subgroups.get(id);
  $("inspector-title").textContent = s ? (s.order === model.group.order ? `G = ${model.group.name}` : `Subgroup ${s.name} of ${model.group.name}`) : "Subgroup";
  body.textContent = "";
  body.append(h("p", { class: "muted", text: "Loading…" }));
  $("inspector-close").focus();
  ctl?.abort();
  ctl = new AbortController();
  try {
    const c = model.group.compact;
    // a compact group: the inspector shows the stand-in at the band in use (the same V)
    const v = await api.subgroup(model.state.group, id, ctl.signal, c ? model.state.rep.trim() : null);
    body.textContent = "";
    const whole = v.is_whole_group;
    body.append(h("p", { class: "lead" }, c ? compactLead(v, c)
      : whole ? `The whole group ${v.group}: order ${fmt(v.order)}, isomorphic to the standard group ${v.type}.`
        : `${v.name} is a subgroup of ${v.group} of order ${fmt(v.order)} and index ${fmt(v.index)} (an orbit G/${v.name} has ${plural(v.index, "head")}), isomorphic to the standard group ${v.type}.`));
    if (v.description) body.append(h("p", { class: "what-it-is" }, h("strong", { text: whole ? "G = " : `${v.name} = ` }), v.description));
    const facts = h("dl", { class: "facts" });
    const fact = (k, ...vals) => facts.append(h("dt", {}, k), h("dd", {}, ...vals));
    fact("G's generators", v.group_generators.map((g) => `${g.letter} = g${g.index}` + (g.cycles ? ` = ${g.cycles}` : "") +
                                                   (g.description ? ` (${g.description})` : "")).join(", "));
    fact(whole ? "generators" : `generators of ${v.name}`, v.generators.length
      ? v.generators.map((e) => el(e) + (e.description ? ` (${e.description})` : "")).join("; ") : "none (the trivial group)");
    if (v.elements) fact(`elements (${v.order})`, h("ul", { class: "elements-list" }, v.elements.map(elementItem)));
    else fact("elements", c ? `infinitely many (its part in ${c.stand_in}: ${fmt(v.order)}, too many to list)` : `${fmt(v.order)} (too many to list)`);
    if (!whole) {
      fact(term("conjugates", "conjugates"), v.conjugates === 1 ? (v.normal ? "1: K is normal in G" : "1") : `${v.conjugates} subgroups gKg⁻¹ of the same class`);
      const nc = v.normalizer.class;
      fact(term("normaliser", "normaliser"), c ? "N_G(K)" : `N_G(K) of order ${fmt(v.normalizer.order)}`,
        nc ? h("span", {}, " = ", h("button", { type: "button", class: "linkish", text: nc.name, onclick: () => openInspector(nc.id) })) : "");
    }
    fact(term("isomorphism", "isomorphism"), `${v.isomorphism.standard} → ${v.name}: ` +
      (v.isomorphism.images.length ? v.isomorphism.images.map((m) => `generator ${m.standard_generator} (order ${m.order}) ↦ ${el(m.image)}`).join("; ") : "trivial"));
    body.append(facts);
    body.append(h("h4", {}, whole ? "Character table of G" : `Irreps of ${v.name} with their `, whole ? "" : term("characters", "character")));
    const sub = model.subgroups.get(id);
    body.append(characterTable(v.character_table, new Map((sub?.irreps || []).map((r) => [r.label, r.description]))));
    body.append(h("p", { class: "muted small", text: "Rows: real irreps (the labels the steppers use); columns: conjugacy classes of K, named by a representative (×size). A complex- or quaternionic-type real irrep is a complex irrep χ seen as real: twice its dimension, character 2·Re χ." }));
  } catch (e) {
    if (e.name === "AbortError") return;
    body.textContent = "";
    body.append(h("p", { class: "field-error", text: itemsOf(e).map((i) => i.msg).join(" · ") }));
  }
}

export function closeInspector() {
  ctl?.abort();
  $("inspector").hidden = true;
}
