// The optimiser panel ("Find optimal design", POST /api/optimize): an adjustable time limit,
// an elapsed-time bar against it with Cancel, and an honest verdict: "proven optimal" or
// "best found, gap x % (bound y)" — styled differently, never success-green unless proven.
// The status belongs to the input it was computed for and disappears when that changes (B2).

import { api } from "./api.js";
import { model, problemBody } from "./store.js";
import { designChanged } from "./flow.js";
import { runCoverage } from "./results.js";
import { problemKey, designKey } from "./state.js";
import { setErrors, setItems } from "./errors.js";
import { replace } from "./history.js";
import { abortable } from "./vanilla.js";
import { renderCards } from "./design.js";
import { term } from "./glossary.js";
import { budgetLimits, budgetVerdict, limitsText, bindBudget, renderFront, runPartial, partialClass } from "./budget.js";
import { $, h, fmt, plural, startProgress } from "./util.js";

export const MAX_TIME_LIMIT = 300;
let notesOpen = false;  // the technical notes stay open (or folded) across re-renders

// The time limit as typed, or an inline error at its box.
function timeLimit() {
  const t = String($("time-limit").value).trim();
  const x = Number(t);
  if (!t || !Number.isFinite(x) || x <= 0 || x > MAX_TIME_LIMIT) {
    setItems("optimize", [{ field: "time_limit", el: $("time-limit"), msg: `enter seconds, more than 0 and at most ${MAX_TIME_LIMIT}` }]);
    return null;
  }
  return x;
}

export async function runOptimize() {
  const tl = timeLimit();
  if (tl === null) return;
  const lim = budgetLimits();
  if (lim.error) { setItems("optimize", lim.error); return; }
  // a max attention cost: the budget program (POST /api/partial), which also says how much of
  // the layer can be kept when nothing within the budget covers everything
  if (lim.body.max_cost) { setErrors("optimize", null); await runPartial(); return; }
  const c = abortable("optimize");
  model.optimum = null;
  renderOptimum();
  setErrors("optimize", null);
  const stop = startProgress("optimize-progress", "Searching the cheapest covering design", c, tl);
  $("optimize").disabled = true;
  const pk = problemKey(model.state);
  try {
    const r = await api.optimize({ ...problemBody(), ...lim.body, time_limit: tl }, c.signal);
    if (problemKey(model.state) !== pk) return;  // the input changed meanwhile: not for this one
    const hasDesign = r.design_params !== null && r.design_params !== undefined;
    if (hasDesign) {
      model.state.orbits = r.orbits.map((o) => ({ subgroup: o.subgroup, rep: o.rep }));
      renderCards();
    }
    acceptOptimum(r);
    designChanged("optimize");  // one history step; renders the status
    stop();
    if (hasDesign) await runCoverage();
  } catch (e) {
    if (e.name === "AbortError") { $("optimize-cancelled").hidden = false; return; }
    setErrors("optimize", e);
  } finally {
    stop();
    $("optimize").disabled = false;
  }
}

// The optimiser's answer for the design now in the state. The URL keeps the verdict only for
// a full-coverage answer (a partial or budget answer is re-asked, not carried in a link).
export function acceptOptimum(r) {
  model.optimum = { result: r, pk: problemKey(model.state), dk: designKey(model.state) };
  const plain = !r.partial && r.design_params !== null && r.design_params !== undefined;
  model.state.opt = plain ? Object.fromEntries(["status", "design_params", "lower_bound", "gap", "time_s", "stopped_by"].map((k) => [k, r[k] ?? null])) : null;
}

// The verdict a URL carries (a reload, a permalink, Back): it speaks for the design of that URL.
export function optimumFromState() {
  const o = model.state.opt;
  if (!o) return;
  if (optimumFresh() && model.optimum.result.status === o.status) return;  // the full answer is at hand
  model.optimum = { result: { ...o, notes: [], orbits: [], fromLink: true },
                    pk: problemKey(model.state), dk: designKey(model.state) };
}

// A change of the input: the verdict stays in the URL only while it is about this design.
export function dropStaleOptimum() {
  if (!optimumFresh()) model.state.opt = null;
}

export function optimumFresh() {
  const o = model.optimum;
  return !!o && o.pk === problemKey(model.state) && o.dk === designKey(model.state);
}

export function renderOptimum() {
  renderFront();
  const box = $("optimize-status");
  $("optimize-cancelled").hidden = true;
  // a click opens the notes at once but its toggle event comes as a later task: a redraw in
  // between must keep what is shown, so the live element's state is read before it goes
  const shown = box.querySelector("details.notes");
  if (shown) notesOpen = shown.open;
  box.textContent = "";
  box.className = "optimize-status";
  if (!optimumFresh()) { box.hidden = true; return; }
  const r = { vanilla_params: model.counts?.vanilla_params ?? model.lastProblem?.vanilla_params, ...model.optimum.result };
  if (!r.vanilla_params) r.vanilla_params = model.counts?.vanilla_params ?? model.lastProblem?.vanilla_params;
  box.hidden = false;
  const limits = limitsText(r.constraints || {});
  if (r.status === "infeasible" || r.partial || r.design_params === null || r.design_params === undefined) {
    box.classList.add(r.partial ? partialClass(r) : r.status === "infeasible" ? "proven-no" : "unproven");
    box.append(...budgetVerdict(r));
    if (r.status !== "infeasible" && !r.partial) {
      box.append(h("p", { class: "headline", text: "No design found within this budget in the time given (not proven impossible)." }),
                 h("p", { class: "why", text: (r.reason ? `${r.reason} ` : "") + (STOPPED[r.stopped_by] ?? STOPPED.time_limit) }));
    }
  } else if (r.status === "optimal") {
    box.classList.add("proven");
    box.append(h("p", { class: "headline" }, "✓ ", term("Proven optimal", "optimal"), limits ? ` within the budget (${limits})` : "", `: ${fmt(r.design_params)} parameters`,
                  ` (vanilla ${fmt(r.vanilla_params)}, ratio ${(r.design_params / r.vanilla_params).toFixed(2)})`),
               h("p", { class: "why", text: `No design with fewer parameters covers every clustering (the solver's lower bound is ${fmt(r.lower_bound)})` +
                 (typeof r.time_s === "number" ? `; found in ${r.time_s} s.` : ".") }));
  } else {
    const gapPct = Math.round(1000 * (r.gap ?? 1)) / 10;
    box.classList.add("unproven");
    box.append(h("p", { class: "headline" }, "Best found: ", `${fmt(r.design_params)} parameters, `,
                  term("gap", "gap"), ` ${gapPct} % (`, term("lower bound", "bound"), ` ${fmt(r.lower_bound)})`, " — not proven optimal"),
               h("p", { class: "why", text: `The optimum lies between ${fmt(r.lower_bound)} and ${fmt(r.design_params)}: at most ${gapPct} % of these parameters could still be saved. ` +
                 (STOPPED[r.stopped_by] ?? STOPPED.time_limit) +
                 (r.design_params === r.vanilla_params ? " This design costs as much as the vanilla layer." : "") }));
  }
  const width = widthNote(r);
  if (width) box.append(width);
  // the search's own log lines are for experts: folded away, under a plain heading
  if ((r.notes ?? []).length) {
    box.append(h("details", { class: "notes", open: notesOpen || undefined, ontoggle: (e) => { notesOpen = e.target.open; } }, h("summary", { text: `How the search ran (${plural(r.notes.length, "technical note")})` }),
                 h("ul", {}, ...r.notes.map((n) => h("li", { text: n })))));
  }
}

// The found design's width against the layer it replaces: an equivariant design may have more
// heads, or wider ones, than the vanilla layer's H and d (SPEC §3: a design is any list of
// orbits; only the parameters are minimised), which a reader would not expect unexplained.
function widthNote(r) {
  if (r.design_params === null || r.design_params === undefined || typeof r.attention_cost !== "number") return null;
  const H = r.heads, d = r.head_dim, base = r.vanilla_attention_cost || H * d;
  const heads = r.heads_total, wide = r.max_head_dim;
  const ratio = (r.attention_cost / base).toFixed(1);
  if (heads <= H && wide <= d) {
    return h("p", { class: "width", text: `Its width fits your layer's: ${plural(heads, "head")} (H = ${H}), each at most ${wide} wide (d = ${d}); attention cost ${fmt(r.attention_cost)} against the layer's ${fmt(base)}.` });
  }
  const parts = [];
  if (heads > H) parts.push(`${plural(heads, "head")} where your layer has ${H}`);
  if (wide > d) parts.push(`heads up to ${wide} wide where yours are ${d}`);
  return h("p", { class: "width" }, `Its width: ${parts.join(", ")}; `, term("attention cost", "budget"),
           ` ${fmt(r.attention_cost)} = ${ratio}× the layer's H·d = ${fmt(base)}. An equivariant design may use more or wider heads than the layer it replaces (only parameters are minimised); give a budget (max heads, max head dim, max attention cost) to keep it narrower.`);
}

// Why an unproven search stopped (the result's stopped_by), in words.
const STOPPED = {
  time_limit: "The search stopped at its time limit; raise it to tighten the gap.",
  work_limit: "The search stopped at its work limit (solver nodes); raise it to tighten the gap.",
  scenario_limit: "The search stopped because a candidate design was past the coverage checker's size limits.",
  type_limit: "The search stopped because the head representations were too many to list.",
};

export function bindOptimiser() {
  $("optimize").addEventListener("click", runOptimize);
  bindBudget();
  $("time-limit").addEventListener("input", (e) => {
    model.state.timeLimit = e.target.value.trim();
    if (timeLimit() !== null) { setErrors("optimize", null); replace(); }
  });
}
