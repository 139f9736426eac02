// The atlas view: the rows of GET /api/atlas (an `eqattn atlas` store) in a filterable,
// sortable table; each row's "Open" link loads that problem and its optimal design in the
// designer (index.html reads g, v, h, d, o=<subgroup id>:<rep> (one per orbit), view).
// The filter and sort live in the URL (q, status, cv, sort, dir) so a view can be shared.

const COLUMNS = [
  { key: "label", label: "G" },
  { key: "rep", label: "V" },
  { key: "dim_v", label: "dim V", num: true },
  { key: "heads", label: "H", num: true },
  { key: "head_dim", label: "d", num: true },
  { key: "p_vanilla", label: "P vanilla", num: true },
  { key: "p_opt", label: "P opt", num: true },
  { key: "ratio", label: "ratio", num: true },
  { key: "status", label: "status" },
  { key: "heads_total", label: "heads", num: true },
  { key: "constrained_vanilla", label: "cv" },
  { key: "design", label: "design", wide: true },
  { key: "time_s", label: "time s", num: true },
];

let rows = [];
const view = { q: "", status: "", cv: "", sort: "", dir: 1 };
const $ = (id) => document.getElementById(id);

// The designer's permalink of one row: the problem, the optimal design, the coverage view.
export function designerUrl(r) {
  const q = new URLSearchParams();
  q.set("g", r.group);
  q.set("v", r.rep);
  q.set("h", String(r.heads));
  q.set("d", String(r.head_dim));
  for (const o of r.orbits || []) q.append("o", `${o.subgroup}:${o.rep}`);
  if (r.orbits) q.set("view", "coverage");
  return `/?${q.toString()}`;
}

function designText(r) {
  if (!r.orbits) return r.detail || "";
  if (!r.orbits.length) return "(empty)";
  const parts = [];
  for (const o of r.orbits) {
    const item = `${o.name}:${o.rep}`;
    const last = parts[parts.length - 1];
    if (last && last.item === item) last.n += 1; else parts.push({ item, n: 1 });
  }
  return parts.map((p) => (p.n > 1 ? `${p.n} x ${p.item}` : p.item)).join("; ");
}

function value(r, key) {
  if (key === "ratio") return r.p_opt === null ? null : r.p_opt / r.p_vanilla;
  if (key === "design") return designText(r);
  return r[key];
}

function matches(r, words) {
  const text = `${r.label} ${r.group} ${r.rep} ${r.rep_input} ${r.status} ${designText(r)}`.toLowerCase();
  return words.every((w) => {
    const m = /^(h|d|dim)=(\d+)$/.exec(w);
    if (m) return String({ h: r.heads, d: r.head_dim, dim: r.dim_v }[m[1]]) === m[2];
    return text.includes(w);
  });
}

function visible() {
  const words = view.q.toLowerCase().split(/\s+/).filter(Boolean);
  let out = rows.filter((r) => (!view.status || r.status === view.status)
    && (!view.cv || r.constrained_vanilla === view.cv) && matches(r, words));
  if (view.sort) {
    const k = view.sort;
    out = out.map((r, i) => [r, i]).sort(([a, i], [b, j]) => {
      const x = value(a, k), y = value(b, k);
      if (x === y) return i - j;
      if (x === null || x === undefined) return 1;
      if (y === null || y === undefined) return -1;
      return (x < y ? -1 : 1) * view.dir;
    }).map(([r]) => r);
  }
  return out;
}

function cell(text, cls) {
  const td = document.createElement("td");
  td.textContent = text;
  if (cls) td.className = cls;
  return td;
}

function render() {
  const list = visible();
  const body = $("atlas-body");
  const frag = document.createDocumentFragment();
  for (const r of list) {
    const tr = document.createElement("tr");
    tr.dataset.key = r.key;
    for (const c of COLUMNS) {
      let v = value(r, c.key);
      if (c.key === "ratio" && v !== null) v = v.toFixed(3);
      if (c.key === "time_s") v = Number(v).toFixed(2);
      if (c.key === "status" && r.status === "feasible") v = `time-limited (gap ${Number(r.gap).toFixed(3)})`;
      if (c.key === "constrained_vanilla" && v === "yes" && r.constrained_params !== null) v = `yes (${r.constrained_params})`;
      const cls = [c.num ? "num" : "", c.key === "status" ? `status-${r.status}` : "", c.key === "design" ? "design" : "",
        c.wide ? "col-wide" : ""].filter(Boolean).join(" ");
      tr.append(cell(v === null || v === undefined ? "" : String(v), cls));
    }
    const td = document.createElement("td");
    const a = document.createElement("a");
    a.href = designerUrl(r);
    a.textContent = "Open";
    a.setAttribute("aria-label", `Open ${r.label}, V = ${r.rep}, H = ${r.heads}, d = ${r.head_dim} in the designer`);
    td.append(a);
    tr.append(td);
    frag.append(tr);
  }
  body.replaceChildren(frag);
  $("count").textContent = `${list.length} of ${rows.length} problems`;
  for (const th of $("atlas-head").children) {
    if (!th.dataset.key) continue;
    th.setAttribute("aria-sort", th.dataset.key === view.sort ? (view.dir > 0 ? "ascending" : "descending") : "none");
  }
  const q = new URLSearchParams();
  if (view.q) q.set("q", view.q);
  if (view.status) q.set("status", view.status);
  if (view.cv) q.set("cv", view.cv);
  if (view.sort) { q.set("sort", view.sort); q.set("dir", view.dir > 0 ? "asc" : "desc"); }
  const s = q.toString();
  history.replaceState(null, "", `${window.location.pathname}${s ? `?${s}` : ""}`);
}

function header() {
  const tr = $("atlas-head");
  for (const c of COLUMNS) {
    const th = document.createElement("th");
    th.dataset.key = c.key;
    th.scope = "col";
    if (c.num) th.className = "num";
    if (c.wide) th.classList.add("col-wide");
    const b = document.createElement("button");
    b.type = "button";
    b.textContent = c.label;
    b.title = `Sort by ${c.label}`;
    b.addEventListener("click", () => {
      view.dir = view.sort === c.key ? -view.dir : 1;
      view.sort = c.key;
      render();
    });
    th.append(b);
    tr.append(th);
  }
  const th = document.createElement("th");
  th.scope = "col";
  th.textContent = "designer";
  tr.append(th);
}

async function main() {
  const q = new URLSearchParams(window.location.search);
  view.q = q.get("q") || "";
  view.status = q.get("status") || "";
  view.cv = q.get("cv") || "";
  view.sort = COLUMNS.some((c) => c.key === q.get("sort")) ? q.get("sort") : "";
  view.dir = q.get("dir") === "desc" ? -1 : 1;
  $("filter-text").value = view.q;
  $("filter-status").value = view.status;
  $("filter-cv").value = view.cv;
  header();
  $("filter-text").addEventListener("input", (e) => { view.q = e.target.value; render(); });
  $("filter-status").addEventListener("change", (e) => { view.status = e.target.value; render(); });
  $("filter-cv").addEventListener("change", (e) => { view.cv = e.target.value; render(); });
  try {
    const resp = await fetch("/api/atlas");
    const data = await resp.json().catch(() => null);
    if (!resp.ok) {
      const d = data && (data.detail || data);
      const msg = Array.isArray(d) ? d.map((i) => i.msg || i.message).join("; ") : (d && (d.message || d)) || resp.statusText;
      throw new Error(String(msg));
    }
    rows = data.rows;
    document.title = `eqattn atlas — ${data.store}`;
    if (data.truncated) $("count").dataset.note = `showing the first ${rows.length} of ${data.total}`;
  } catch (e) {
    $("atlas-error").textContent = `No atlas to show: ${e.message}`;
    $("atlas-error").hidden = false;
    $("atlas-howto").hidden = false;  // say how to get one instead of an empty table
  }
  render();
  document.body.dataset.ready = "1";
}

main();
