// Taking the work elsewhere: the design as JSON (and back), a Python snippet that builds
// eqattn.torch.EquivariantAttention from it, the clusterings / coverage report as CSV, a link.

import { api } from "./api.js";
import { model, subName } from "./store.js";
import { restore } from "./flow.js";
import { intOrRaw } from "./state.js";
import { itemsOf, fieldLabel } from "./errors.js";
import { commit } from "./history.js";
import { $, h, plural, download } from "./util.js";

function safeName() {
  return model.state.group.replace(/[^\w.-]+/g, "_");
}

export function designJson() {
  const s = model.state;
  return { group: s.group, rep: s.rep, heads: intOrRaw(s.heads), head_dim: intOrRaw(s.headDim),
           orbits: s.orbits.map((o) => ({ subgroup: subName(o.subgroup), rep: o.rep })) };
}

export function topMsg(text, isError = false) {
  const m = $("topbar-msg");
  m.textContent = text;
  m.classList.toggle("error", isError);
  clearTimeout(topMsg.t);
  if (!isError) topMsg.t = setTimeout(() => { m.textContent = ""; }, 4000);
}

export function exportDesign() {
  download(`eqattn-design-${safeName()}.json`, JSON.stringify(designJson(), null, 2) + "\n", "application/json");
  topMsg("Design exported.");
}

// ------------------------------------------------------------------------------ PyTorch
export function torchSnippet() {
  const data = { ...designJson(), design_params: model.counts?.design_params };
  const json = JSON.stringify(data, null, 2);
  const peak = model.counts?.layer_memory?.peak_bytes;
  const memory = peak ? `# Building it needs about ${(peak / 2 ** 20).toFixed(0)} MB (estimated before anything is built, float32).\n` : "";
  return `# The equivariant attention layer designed on the eqattn page (pip install 'eqattn[torch]').
${memory}import json

from eqattn.torch import EquivariantAttention

DESIGN = json.loads(r"""
${json}
""")

# from_json realises the design and checks its parameter count against "design_params"
layer = EquivariantAttention.from_json(DESIGN)
print(layer)
print("parameters:", sum(p.numel() for p in layer.parameters()))

# x: (batch, tokens, dim V) -> (batch, tokens, dim V), G-equivariant
# y = layer(x)
${e3nnLines()}`;
}

// SO3 / O3: the layer above acts in eqattn's coordinates of V; e3nn's layout (real spherical
// harmonics, eqattn.torch.interop.to_e3nn) is one basis change away.
function e3nnLines() {
  const kind = model.group?.compact?.kind;
  if (kind !== "SO3" && kind !== "O3") return "";
  return `
# Features in e3nn's layout (e3nn Irreps, real spherical harmonics): the same layer in e3nn's basis
import eqattn
from eqattn.torch.interop import to_e3nn

problem = eqattn.Problem.create(DESIGN["group"], DESIGN["rep"], DESIGN["heads"], DESIGN["head_dim"])
irreps, change = to_e3nn(problem.group, problem.V)  # e3nn Irreps of V and the change of basis
layer_e3nn = EquivariantAttention.from_json(DESIGN, basis=change)
# y_e3nn = layer_e3nn(x_e3nn)   # x_e3nn: (batch, tokens, irreps.dim) in e3nn's layout
`;
}

export function openTorch() {
  if (!model.counts) {
    topMsg("Fix the input first: the snippet needs a valid design.", true);
    return;
  }
  $("torch-code").textContent = torchSnippet();
  $("torch-dialog").showModal();
}

// ------------------------------------------------------------------------------ CSV
function csvCell(v) {
  const t = v === null || v === undefined ? "" : String(v);
  return /[",\n]/.test(t) ? `"${t.replace(/"/g, '""')}"` : t;
}

export function reportCsv() {
  const cls = model.clusterings?.clusterings || [];
  const cov = model.coverageById;
  const head = ["clustering", "description", "heads", "orbits", "degenerate", "covered", "scenarios", "scenarios_checked"];
  const rows = cls.map((cl) => {
    const v = cov.get(cl.id);
    return [cl.id + 1, cl.text || "", cl.heads ?? "", cl.orbits.map((o) => `${o.count > 1 ? o.count + "x" : ""}G/${o.name}`).join(" + "),
            cl.degenerate ? "yes" : "no", v ? (v.covered ? "yes" : "no") : "", v?.scenarios ?? "", v?.scenarios_checked ?? ""];
  });
  const s = model.state;
  const meta = `# eqattn report: G=${s.group}; V=${s.rep}; H=${s.heads}; d=${s.headDim}; design=${designJson().orbits.map((o) => `(${o.subgroup}, ${o.rep})`).join(" ") || "empty"}`;
  return [meta, head.join(","), ...rows.map((r) => r.map(csvCell).join(","))].join("\n") + "\n";
}

export function exportCsv() {
  if (!model.clusterings) {
    topMsg("List the clusterings (or check coverage) first: the report is about them.", true);
    return;
  }
  download(`eqattn-report-${safeName()}.csv`, reportCsv(), "text/csv");
  topMsg("Report exported.");
}

// ------------------------------------------------------------------------------ import
// What an import must be: the JSON "Export JSON" writes (or `eqattn ... --json` prints):
// an object with an "orbits" list (top level, or under "design") of {"subgroup", "rep"} or
// [subgroup, rep] pairs, and optionally "group", "rep", "heads", "head_dim". Anything else is
// refused before anything changes.
const DESIGN_SHAPE = 'expected an eqattn design: {"group", "rep", "heads", "head_dim", "orbits": [{"subgroup", "rep"}, …]}';

export function designOfJson(d) {
  if (!d || typeof d !== "object" || Array.isArray(d)) return { error: `not an eqattn design (${DESIGN_SHAPE})` };
  const src = d.orbits !== undefined ? d.orbits : d.design?.orbits;
  if (!Array.isArray(src)) return { error: `not an eqattn design: it has no "orbits" list (${DESIGN_SHAPE})` };
  const orbits = [];
  for (const [i, o] of src.entries()) {
    const pair = Array.isArray(o) ? { subgroup: o[0], rep: o[1] } : o && typeof o === "object" ? o : null;
    const okSub = pair && ((typeof pair.subgroup === "number" && Number.isInteger(pair.subgroup)) || (typeof pair.subgroup === "string" && pair.subgroup));
    const okRep = pair && (typeof pair.rep === "string" || pair.rep === undefined);
    if (!okSub || !okRep) return { error: `orbit ${i + 1} is not {"subgroup": id or name, "rep": "2xA + B"}` };
    orbits.push({ subgroup: pair.subgroup, rep: pair.rep === undefined ? "0" : pair.rep });
  }
  for (const [k, t] of [["group", "string"], ["rep", "string"]]) {
    if (d[k] !== undefined && typeof d[k] !== t) return { error: `"${k}" must be a ${t}` };
  }
  return { orbits };
}

// Every orbit is validated by the server (POST /api/design) before anything changes (B8); the
// import is a step of its own in the history, so Undo brings back the design it replaced.
export async function importDesign(text) {
  let d;
  try { d = JSON.parse(text); } catch (e) { topMsg(`Import failed, nothing changed: not JSON (${e.message})`, true); return; }
  const shape = designOfJson(d);
  if (shape.error) { topMsg(`Import failed, nothing changed: ${shape.error}`, true); return; }
  const s = model.state;
  const orbits = shape.orbits;
  const next = {
    group: typeof d.group === "string" && d.group ? d.group : s.group,
    rep: d.rep !== undefined ? String(d.rep) : s.rep,
    heads: d.heads !== undefined ? String(d.heads) : s.heads,
    headDim: d.head_dim !== undefined ? String(d.head_dim) : s.headDim,
  };
  try {
    await api.design({ group: next.group, rep: next.rep, heads: intOrRaw(next.heads), head_dim: intOrRaw(next.headDim), orbits });
  } catch (e) {
    if (e.name === "AbortError") return;
    const why = itemsOf(e).map((i) => (i.field && i.field !== "request" ? `${fieldLabel(i.field)}: ` : "") + i.msg).join(" · ");
    topMsg(`Import failed, nothing changed: ${why}`, true);
    return;
  }
  let group = model.group;
  if (next.group !== s.group || !group) {
    group = await api.group(next.group).catch(() => null);
    if (!group) { topMsg("Import failed, nothing changed: the group could not be loaded.", true); return; }
  }
  Object.assign(s, next, { view: "", sel: null, opt: null });
  s.orbits = orbits.map((o) => {
    const sub = group.subgroups.find((x) => x.name === o.subgroup || x.id === o.subgroup);
    return { subgroup: sub ? sub.id : o.subgroup, rep: o.rep };
  });
  commit("import");  // a new history entry first: restore() then only updates it
  await restore({ group });
  topMsg(`Imported ${plural(s.orbits.length, "orbit")}.`);
}

export function bindExport() {
  $("export-design").addEventListener("click", exportDesign);
  $("export-torch").addEventListener("click", openTorch);
  $("export-csv").addEventListener("click", exportCsv);
  $("torch-copy").addEventListener("click", async () => {
    try { await navigator.clipboard.writeText($("torch-code").textContent); $("torch-msg").textContent = "Copied."; }
    catch { $("torch-msg").textContent = "Select the code and copy it."; }
  });
  $("torch-download").addEventListener("click", () => download(`eqattn_layer_${safeName()}.py`, $("torch-code").textContent, "text/x-python"));
  $("torch-close").addEventListener("click", () => $("torch-dialog").close());
  $("import-design").addEventListener("click", () => $("import-file").click());
  $("import-file").addEventListener("change", async (e) => {
    const f = e.target.files?.[0];
    if (f) await importDesign(await f.text());
    e.target.value = "";
  });
  $("copy-link").addEventListener("click", async () => {
    try { await navigator.clipboard.writeText(window.location.href); topMsg("Link copied."); }
    catch { topMsg("The address bar holds the link to this view."); }
  });
}
