// The explanation drawer of one clustering: what it is, the design's verdict with its witness
// or counterexample, every scenario with its witness on request (paged, B10) and
// "Verify numerically" (builds the weights, shows the worst error).

import { api } from "./api.js";
import { model, subName, designBody } from "./store.js";
import { designKey } from "./state.js";
import { itemsOf, fieldLabel } from "./errors.js";
import { term } from "./glossary.js";
import { $, h, fmt, plural, sci } from "./util.js";

const WITNESS_PAGE = 5;
let witnessCtl = null;
let verifyCtl = null;

export function hideExplain() {
  $("explain").hidden = true;
  witnessCtl?.abort();
  verifyCtl?.abort();
}

function optionText(o) {
  if (o.text) return o.text;
  const where = `vanilla orbit ${o.orbit + 1} (G/${o.subgroup})`;
  return o.zero ? `${where}: M = 0 (zero pool), R profile ${o.b}, demand ${o.D}`
    : `${where}: M profile ${o.a}, R profile ${o.b}; K̄ = ${o.kbar}, image P = ${o.P}, demand D = ${o.D}`;
}

function hostsText(hosts) {
  return (hosts || []).map((x) => `design orbit ${x.design_orbit + 1}` +
    (model.state.orbits[x.design_orbit] ? ` (G/${subName(model.state.orbits[x.design_orbit].subgroup)})` : "") +
    (x.coset_rep !== undefined && x.coset_rep !== null ? `, coset g${x.coset_rep}` : "")).join("; ");
}

function table(rows, head) {
  return h("div", { class: "table-wrap" }, h("table", {}, h("tr", {}, head.map((t) => h("th", {}, t))), rows));
}

function errorText(e) {
  return itemsOf(e).map((i) => (i.field && i.field !== "request" ? `${fieldLabel(i.field)}: ` : "") + i.msg).join(" · ");
}

function witnessBlock(w, title, good = true) {
  const blk = h("div", { class: `scenario ${good ? "good" : "bad"}` });
  if (title) blk.append(h("p", {}, h("strong", { text: title })));
  blk.append(h("p", { text: w.text || (w.scenario || []).map(optionText).join("; ") }));
  if (w.assignments?.length) {
    blk.append(table(w.assignments.map((a) => h("tr", {},
      h("td", { text: a.demand }), h("td", { text: a.kbar }), h("td", { text: a.D }),
      h("td", { text: hostsText(a.hosts) }),
      h("td", { text: (a.hosts || []).map((x) => x.supply).join(" + ") }))),
      ["vanilla demand", h("span", {}, "on ", term("K̄", "kbar")), term("demands", "demand"),
       h("span", {}, "hosted by (", term("witness", "witness"), ")"), term("supplies", "supply")]));
  } else if (w.shortfall?.length) {
    blk.append(table(w.shortfall.map((d) => h("tr", {}, h("td", { text: d.demand }), h("td", { text: d.kbar }),
      h("td", { class: "short", text: `${d.missing} missing` }))),
      ["vanilla demand", h("span", {}, "on ", term("K̄", "kbar")), "design falls short by"]));
  }
  return blk;
}

function termsLine() {
  return h("p", { class: "terms muted small" }, "Terms: ",
    term("scenario", "scenario"), " · ", term("profile", "profile"), " · ", term("K̄", "kbar"), " · ",
    term("demand", "demand"), " · ", term("zero pool", "zero-pool"), " · ", term("coset g0", "coset"), " · ",
    term("witness", "witness"), " · ", term("degenerate", "degenerate"));
}

export function renderExplain() {
  const cl = model.clusterings?.clusterings.find((x) => x.id === model.state.sel);
  if (!cl) { hideExplain(); return; }
  const cv = model.coverageById.get(cl.id);
  const stale = model.cvKey !== designKey(model.state) || !model.designValid;
  $("explain").hidden = false;
  $("explain").classList.toggle("stale", !!cv && stale);
  $("explain-title").textContent = `Clustering #${cl.id + 1}: ${cl.text || cl.orbits.map((o) => `G/${o.name}`).join(" + ")}`;
  const body = $("explain-body");
  body.textContent = "";
  const desc = h("ul", {});
  for (const o of cl.orbits) {
    const s = model.subgroups.get(o.subgroup);
    const name = o.name ?? s?.name;
    desc.append(h("li", {}, `${o.count > 1 ? o.count + " orbits" : "An orbit"} G/${name}: ` +
      `${plural(o.index, "cluster")} of ${plural(o.cluster_size, "head")} each; stabiliser K = ${name}` +
      `${s ? ` (${s.type}, order ${s.order})` : ""}`,
      o.degenerate ? h("span", {}, ". ", term("Degenerate", "degenerate"), ": its clusters can be forced to share one QK matrix.") : "."));
  }
  body.append(desc);
  if (!cv) {
    body.append(h("p", { class: "muted", text: "Press ▶ Check coverage to see whether the design covers this clustering." }));
    body.append(termsLine());
    return;
  }
  if (stale) body.append(h("p", { class: "stale-note", text: "Dimmed: this verdict is for the last valid design; check coverage again after editing." }));
  if (cv.covered) {
    const ws = cv.witness || [];
    const nsc = typeof cv.scenarios === "number" ? cv.scenarios : ws.length;
    body.append(h("p", { class: "verdict good" },
      `✓ Covered: the design realises ${nsc === 1 ? "the one " : `every one of the ${fmt(nsc)} `}`,
      term(nsc === 1 ? "scenario" : "scenarios", "scenario"), " of this clustering."));
    if (nsc > ws.length) {
      body.append(h("p", { class: "muted small", text: `The check solved ${plural(ws.length, "scenario")}; every other scenario asks for no more than one of these (it is implied). Show all ${fmt(nsc)} to see a witness for each.` }));
    }
    ws.slice(0, 20).forEach((w, i) => body.append(witnessBlock(w, ws.length > 1 ? `Checked scenario ${i + 1} of ${ws.length}` : "Witness")));
    const actions = h("div", { class: "row explain-actions" });
    if (nsc > 1 || ws.length < nsc) {
      actions.append(h("button", { type: "button", id: "all-witnesses", text: `Show all ${fmt(nsc)} scenarios with witnesses`,
                                   onclick: () => loadWitnesses(cl.id, 0) }));
    }
    actions.append(h("button", { type: "button", id: "verify", text: "Verify numerically",
                                 title: "Sample G-equivariant vanilla weights for each checked scenario, build the design's weights from the witness, compare outputs",
                                 onclick: () => verify(cl.id) }));
    body.append(actions, h("div", { id: "verify-result", role: "status", "aria-live": "polite" }),
                h("section", { id: "witness-pages", "aria-label": "All scenarios with their witnesses" }));
  } else {
    const ce = cv.counterexample || {};
    body.append(h("p", { class: "verdict bad" }, "✗ Not covered. Counterexample: a ", term("scenario", "scenario"), " the design cannot realise."));
    const blk = witnessBlock({ ...ce, shortfall: null, assignments: null }, null, false);
    if (ce.explanation && ce.text && ce.explanation !== ce.text) blk.append(h("p", { text: ce.explanation }));
    const shortBy = new Map((ce.shortfall || []).map((x) => [x.demand, x]));
    if (ce.demands?.length) {
      blk.append(table(ce.demands.map((d) => h("tr", {},
        h("td", { text: d.demand }), h("td", { text: d.kbar }), h("td", { text: d.D }),
        h("td", { class: shortBy.has(d.demand) ? "short" : "", text: shortBy.has(d.demand) ? `${shortBy.get(d.demand).missing} missing` : "met" }))),
        ["vanilla demand", h("span", {}, "on ", term("K̄", "kbar")), term("demands", "demand"), "design falls short by"]));
    }
    body.append(blk);
  }
  body.append(termsLine());
}

async function loadWitnesses(id, offset) {
  const box = $("witness-pages");
  if (!box) return;
  witnessCtl?.abort();
  witnessCtl = new AbortController();
  box.textContent = "";
  box.append(h("p", { class: "muted", text: "Solving the scenarios…" }));
  try {
    const page = await api.witnesses({ ...designBody(), clustering: id, offset, limit: WITNESS_PAGE }, witnessCtl.signal);
    box.textContent = "";
    const last = offset + page.witnesses.length;
    const nav = h("div", { class: "row pager" },
      h("strong", { text: `Scenarios ${offset + 1}–${last} of ${fmt(page.total)}` }),
      h("button", { type: "button", text: "‹ Previous", disabled: offset === 0 || undefined,
                    onclick: () => loadWitnesses(id, Math.max(0, offset - WITNESS_PAGE)) }),
      h("button", { type: "button", text: "Next ›", disabled: last >= page.total || undefined,
                    onclick: () => loadWitnesses(id, offset + WITNESS_PAGE) }));
    box.append(nav);
    for (const w of page.witnesses) {
      box.append(witnessBlock(w, `Scenario ${w.index + 1} of ${fmt(page.total)}${w.ok ? "" : ": not realised"}`, w.ok));
    }
  } catch (e) {
    if (e.name === "AbortError") return;
    box.textContent = "";
    box.append(h("p", { class: "field-error", text: errorText(e) }));
  }
}

async function verify(id) {
  const out = $("verify-result");
  verifyCtl?.abort();
  verifyCtl = new AbortController();
  out.className = "verify-result muted";
  out.textContent = "Building the weights…";
  $("verify").disabled = true;
  try {
    const r = await api.verify({ ...designBody(), clustering: id }, verifyCtl.signal);
    out.className = `verify-result ${r.ok ? "good" : "bad"}`;
    out.textContent = r.covered
      ? `${r.ok ? "✓" : "✗"} Worst relative error ${sci(r.worst_rel_error)} over ${plural(r.scenarios_verified, "checked scenario")} ` +
        `(vanilla equivariance error ${sci(r.worst_equivariance_error)}; tolerance ${sci(r.tolerance)}): ` +
        (r.ok ? "the design's weights reproduce the sampled vanilla layers." : "the numbers disagree — please report this design.")
      : "Not covered: there is no witness to build weights from.";
  } catch (e) {
    if (e.name === "AbortError") return;
    out.className = "verify-result field-error";
    out.textContent = errorText(e);
  } finally {
    if ($("verify")) $("verify").disabled = false;
  }
}
