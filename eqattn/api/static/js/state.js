// The page state and its URL form (a link reproduces the view; each history entry is one URL).
//   g=C4  v=E1  h=2  d=1  o=<subgroup id>:<rep> (repeated, in order)  view=clusterings|coverage
//   sel=<id>  f=<filter>  tl=<optimiser time limit, seconds>
//   mh=, md=, mc=: the optimiser's max heads / max head dim / max attention cost ("any" when absent)
//   opt=<status>~<params>~<lower bound>~<gap>~<seconds>~<stopped by>: the optimiser's verdict on
//   this very design (kept only while the design is the one it returned)

export const DEFAULT = Object.freeze({ group: "C4", rep: "E1", heads: "2", headDim: "1", timeLimit: "30" });

export function fromUrl(search = window.location.search) {
  const q = new URLSearchParams(search);
  const s = {
    group: q.get("g") || DEFAULT.group,
    rep: q.get("v") ?? (q.get("g") ? "" : DEFAULT.rep),
    heads: q.get("h") || DEFAULT.heads,
    headDim: q.get("d") || DEFAULT.headDim,
    orbits: [],
    view: ["clusterings", "coverage"].includes(q.get("view")) ? q.get("view") : "",
    sel: q.get("sel") !== null && q.get("sel") !== "" && /^\d+$/.test(q.get("sel")) ? Number(q.get("sel")) : null,
    filter: q.get("f") || "",
    timeLimit: q.get("tl") || DEFAULT.timeLimit,
    maxHeads: q.get("mh") || "",
    maxHeadDim: q.get("md") || "",
    maxCost: q.get("mc") || "",
    opt: parseOpt(q.get("opt")),
  };
  for (const o of q.getAll("o")) {
    const i = o.indexOf(":");
    const sub = i < 0 ? o : o.slice(0, i);
    const rep = i < 0 ? "0" : o.slice(i + 1);
    s.orbits.push({ subgroup: /^\d+$/.test(sub) ? Number(sub) : sub, rep: rep || "0" });
  }
  return s;
}

export function toUrl(s) {
  const q = new URLSearchParams();
  q.set("g", s.group);
  q.set("v", s.rep);
  q.set("h", s.heads);
  q.set("d", s.headDim);
  for (const o of s.orbits) q.append("o", `${o.subgroup}:${o.rep}`);
  if (s.view) q.set("view", s.view);
  if (s.sel !== null && s.sel !== undefined && s.view) q.set("sel", String(s.sel));
  if (s.filter) q.set("f", s.filter);
  if (s.timeLimit && s.timeLimit !== DEFAULT.timeLimit) q.set("tl", s.timeLimit);
  if (s.maxHeads) q.set("mh", s.maxHeads);
  if (s.maxHeadDim) q.set("md", s.maxHeadDim);
  if (s.maxCost) q.set("mc", s.maxCost);
  if (s.opt) q.set("opt", optText(s.opt));
  return `${window.location.pathname}?${q.toString()}`;
}

// The optimiser's verdict in the URL: what the status line needs, nothing more.
const OPT_FIELDS = ["status", "design_params", "lower_bound", "gap", "time_s", "stopped_by"];
const OPT_STATUS = ["optimal", "feasible", "unknown", "infeasible"];

export function optText(o) {
  return OPT_FIELDS.map((k) => (o[k] === null || o[k] === undefined ? "" : String(o[k]))).join("~");
}

export function parseOpt(text) {
  if (!text) return null;
  const parts = text.split("~");
  if (parts.length !== OPT_FIELDS.length || !OPT_STATUS.includes(parts[0])) return null;
  const o = { status: parts[0], stopped_by: parts[5] || null };
  for (const [i, k] of [[1, "design_params"], [2, "lower_bound"], [3, "gap"], [4, "time_s"]]) {
    const x = parts[i] === "" ? null : Number(parts[i]);
    if (x !== null && !Number.isFinite(x)) return null;
    o[k] = x;
  }
  return o;
}

// What results depend on: the problem (clusterings) and the problem with the design (coverage).
export function problemKey(s) {
  return JSON.stringify([s.group, s.rep.trim(), String(s.heads).trim(), String(s.headDim).trim()]);
}

export function designKey(s) {
  return JSON.stringify([problemKey(s), s.orbits.map((o) => [o.subgroup, o.rep])]);
}

// "2xA1 + E" from multiplicities in the order of the irreps (notation only; "0" when empty).
// A multiplicity that is not a whole number stays as typed ("2.5xB"), so the state, the URL
// and the server see what the box shows, and the server refuses it at its field.
export function repText(mults, labels) {
  const terms = [];
  for (const lab of labels) {
    const m = mults[lab];
    if (m === undefined || m === null) continue;
    if (typeof m === "number" || /^\d+$/.test(String(m))) {
      // a label that starts with a digit (e3nn's 0e, SO3's 0) always carries its multiplicity
      if (Number(m) > 0) terms.push(Number(m) === 1 && !/^\d/.test(lab) ? lab : `${Number(m)}x${lab}`);
    } else terms.push(`${m}x${lab}`);
  }
  return terms.length ? terms.join(" + ") : "0";
}

// Parse our own notation "2xA + B" back into multiplicities (for the steppers only); a
// multiplicity that is not a whole number comes back as the text it was.
export function parseMults(text) {
  const out = {};
  for (const term of String(text).split("+")) {
    const m = term.trim().match(/^(?:([^\sx]+?)\s*x\s*)?(\S+)$/);
    if (!m || (m[1] === undefined && m[2] === "0")) continue;  // "0": the zero rep ("1x0": SO3's scalar)
    const k = m[1] === undefined ? "1" : m[1];
    if (/^\d+$/.test(k) && typeof (out[m[2]] ?? 0) === "number") out[m[2]] = (out[m[2]] || 0) + Number(k);
    else out[m[2]] = k;
  }
  return out;
}

// Send H and d as numbers when they are integers, else as typed (the API says what is wrong).
export function intOrRaw(text) {
  const t = String(text).trim();
  return /^-?\d+$/.test(t) ? Number(t) : t;
}
