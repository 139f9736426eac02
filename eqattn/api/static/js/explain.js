// The explanation drawer of one clustering: what it is, the design's verdict with its witness
// or counterexample, every scenario with its witness on request (paged, B10) and
// "Verify numerically" (builds the weights, shows the worst error).

import { api } from "./api.js";
import { model, subName, designBody } from "./store.js";
import { designKey, parseMults } from "./state.js";
import { designChanged } from "./flow.js";
import { renderCards } from "./design.js";
import { runCoverage } from "./results.js";
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

// Orbits of the clustering are "vanilla orbit N", orbits of the design "design orbit N": the
// witness text is built here from the answer's structure, in these words.
function optionText(o) {
  const where = `vanilla orbit ${o.orbit + 1} (G/${o.subgroup})`;
  return o.zero ? `${where} has M = 0 (rank too small: the zero pool) and R with profile ${o.b}`
    : `${where} has M with profile ${o.a} and R with profile ${o.b} (demand ${o.D} on K̄ = ${o.kbar})`;
}

function demandText(label) {
  return String(label).replace(/^orbit (\d+)/, "vanilla orbit $1");
}

// "64xA + 64xB" + "64xA" -> "128xA + 64xB": several hosts' supplies summed (notation only).
export function sumReps(texts) {
  const total = new Map();
  for (const t of texts) {
    for (const [lab, m] of Object.entries(parseMults(t))) {
      if (typeof m === "number") total.set(lab, (total.get(lab) || 0) + m);
    }
  }
  const terms = [...total].filter(([, m]) => m > 0).map(([lab, m]) => (m === 1 ? lab : `${m}x${lab}`));
  return terms.length ? terms.join(" + ") : "0";
}

function hostName(i) {
  const o = model.state.orbits[i];
  return `design orbit ${i + 1}` + (o ? ` (G/${subName(o.subgroup)}, W = ${o.rep})` : "");
}

function hostsText(hosts) {
  return (hosts || []).map((x) => hostName(x.design_orbit) +
    (x.coset_rep !== undefined && x.coset_rep !== null ? `, coset g${x.coset_rep}` : "")).join("; ");
}

function scenarioText(w) {
  const opts = (w.scenario || []).map(optionText);
  return opts.length ? `In this scenario ${opts.join("; ")}.` : "";
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
  blk.append(h("p", { text: scenarioText(w) || w.text || "" }));
  if (w.assignments && !w.assignments.length && !w.shortfall) blk.append(h("p", { class: "muted", text: "Nothing needs hosting: every demand is 0." }));
  if (w.assignments?.length) {
    blk.append(table(w.assignments.map((a) => h("tr", {},
      h("td", { text: demandText(a.demand) }), h("td", { text: a.kbar }), h("td", { text: a.D }),
      h("td", { text: hostsText(a.hosts) }),
      h("td", { text: sumReps((a.hosts || []).map((x) => x.supply)),
                title: (a.hosts || []).length > 1 ? `the hosts' supplies ${(a.hosts || []).map((x) => x.supply).join(" + ")}, summed` : "" }))),
      ["vanilla demand", h("span", {}, "on ", term("K̄", "kbar")), term("demands", "demand"),
       h("span", {}, "hosted by (", term("witness", "witness"), ")"), term("supplies", "supply")]));
  } else if (w.shortfall?.length) {
    blk.append(table(w.shortfall.map((d) => h("tr", {}, h("td", { text: demandText(d.demand) }), h("td", { text: d.kbar }),
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
      `${s ? (model.group?.compact ? ` (${s.description || s.type}, [G:K] = ${s.index})` : ` (${s.type}, order ${s.order})`) : ""}`,
      o.degenerate ? h("span", {}, ". ", term("Degenerate", "degenerate"), ": its clusters can be forced to share one QK matrix.") : "."));
  }
  body.append(desc);
  if (!cv) {
    body.append(h("p", { class: "muted", text: "Press ▶ Check coverage to see whether the design covers this clustering." }));
    body.append(termsLine());
    return;
  }
  if (stale) body.append(h("p", { class: "stale-note", text: "Dimmed: this verdict is for the last valid design; check coverage again after editing." }));
  if (cv.detail_omitted) {
    // a large coverage answer has the verdicts only; this clustering's detail comes on demand
    body.append(h("p", { class: `verdict ${cv.covered ? "good" : "bad"}`, text: cv.covered ? "✓ Covered." : "✗ Not covered." }),
                h("p", { class: "muted", id: "detail-loading", role: "status", text: "Loading this clustering's witnesses…" }));
    if (!stale) loadDetail(cl.id);
    body.append(termsLine());
    return;
  }
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
    const shortBy = new Map((ce.shortfall || []).map((x) => [x.demand, x]));
    if (ce.shortfall?.length) {
      blk.append(h("p", { text: "No assignment of the design's orbits meets every demand; in the best attempt " +
        ce.shortfall.map((x) => `the ${demandText(x.demand)} (on ${x.kbar}) lacks ${x.missing}`).join("; ") + "." }));
    }
    if (ce.demands?.length) {
      blk.append(table(ce.demands.map((d) => h("tr", {},
        h("td", { text: demandText(d.demand) }), h("td", { text: d.kbar }), h("td", { text: d.D }),
        h("td", { class: shortBy.has(d.demand) ? "short" : "", text: shortBy.has(d.demand) ? `${shortBy.get(d.demand).missing} missing` : "met" }))),
        ["vanilla demand", h("span", {}, "on ", term("K̄", "kbar")), term("demands", "demand"), "design falls short by"]));
    }
    body.append(blk);
    const fixes = missingOrbits(ce);
    if (fixes.length) {
      body.append(h("div", { class: "row explain-actions" },
        ...fixes.map((f) => h("button", { type: "button", class: "add-missing",
          text: `Add G/${f.name} with W = ${f.rep}`,
          title: `An orbit G/${f.name} with W = ${f.rep} hosts the ${f.demand} alone (W contains its image P and its demand D); coverage is checked again`,
          onclick: () => addMissing(f) })),
        h("span", { class: "muted small", text: "adds an orbit that meets what this scenario lacks; coverage is checked again" })));
    }
  }
  body.append(termsLine());
}

// What a counterexample lacks, as orbits to add (SPEC §4.4): a design orbit (K̄, W) hosts an
// option (K̄, P, D) through its own coset when P ≤ W, and then supplies W itself; so for each
// demand left short, the orbit G/K̄ with W = P ∨ D (per irrep the larger multiplicity) hosts
// and meets it alone, and this scenario is met (the demands the best attempt met keep their
// hosts; the new orbits are distinct). Other scenarios may still fail: coverage is re-checked.
function maxReps(a, b) {
  const out = new Map();
  for (const t of [a, b]) {
    for (const [lab, m] of Object.entries(parseMults(t || "0"))) if (typeof m === "number") out.set(lab, Math.max(out.get(lab) || 0, m));
  }
  const terms = [...out].filter(([, m]) => m > 0).map(([lab, m]) => (m === 1 ? lab : `${m}x${lab}`));
  return terms.length ? terms.join(" + ") : "0";
}

function missingOrbits(ce) {
  const out = [];
  for (const x of ce.shortfall || []) {
    if (!x.missing || x.missing === "0") continue;
    const d = (ce.demands || []).find((y) => y.demand === x.demand && y.kbar === x.kbar);
    const sub = model.group?.subgroups.find((s) => s.name === x.kbar);
    if (!sub || !d) continue;
    out.push({ id: sub.id, name: x.kbar, rep: maxReps(d.P, d.D), demand: demandText(x.demand) });
  }
  return out;
}

function addMissing(f) {
  model.state.orbits.push({ subgroup: f.id, rep: f.rep });
  renderCards();
  designChanged("add-missing");
  runCoverage();
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
    // a compact group: both layers are checked under the stand-in's generators and Haar-random
    // elements of G itself (as `eqattn verify` says); a finite group: the vanilla layer, under G's generators
    const g = model.group;
    const under = r.haar_samples
      ? `equivariance error ${sci(r.worst_equivariance_error)} of both layers under the generators of ${g?.compact?.stand_in || "the stand-in"} ` +
        `and ${plural(r.haar_samples, `Haar-random element`)} of ${g?.name || model.state.group}`
      : `vanilla equivariance error ${sci(r.worst_equivariance_error)}`;
    out.textContent = r.covered
      ? `${r.ok ? "✓" : "✗"} Worst relative error ${sci(r.worst_rel_error)} over ${plural(r.scenarios_verified, "checked scenario")} ` +
        `(${under}; tolerance ${sci(r.tolerance)}): ` +
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

// One clustering's detail (POST /api/coverage/detail) when the coverage answer left it out;
// it replaces the verdict-only entry while the design is still the one that was checked.
// The drawer is drawn again whenever the page changes; a request already on its way for the
// same clustering and coverage answer is kept, not restarted.
let detailCtl = null;
let detailFor = null;
async function loadDetail(id) {
  const key = model.cvKey;
  const want = `${key}|${id}`;
  if (detailCtl && detailFor === want) return;
  detailCtl?.abort();
  const ctl = detailCtl = new AbortController();
  detailFor = want;
  try {
    const full = await api.coverageDetail({ ...designBody(), clustering: id }, ctl.signal);
    if (model.cvKey !== key) return;
    model.coverageById.set(id, full);
    if (model.state.sel === id) renderExplain();
  } catch (e) {
    if (e?.name === "AbortError") return;
    const el = $("detail-loading");
    if (el) el.textContent = `Could not load this clustering's detail: ${e?.message ?? e}`;
  } finally {
    if (detailCtl === ctl) { detailCtl = null; detailFor = null; }
  }
}
