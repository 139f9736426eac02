// The page state and its URL form (a link reproduces the view; each history entry is one URL).
//   g=C4  v=E1  h=2  d=1  o=<subgroup id>:<rep> (repeated, in order)  view=clusterings|coverage
//   sel=<id>  f=<filter>  tl=<optimiser time limit, seconds>

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
  return `${window.location.pathname}?${q.toString()}`;
}

// What results depend on: the problem (clusterings) and the problem with the design (coverage).
export function problemKey(s) {
  return JSON.stringify([s.group, s.rep.trim(), String(s.heads).trim(), String(s.headDim).trim()]);
}

export function designKey(s) {
  return JSON.stringify([problemKey(s), s.orbits.map((o) => [o.subgroup, o.rep])]);
}

// "2xA1 + E" from multiplicities in the order of the irreps (notation only; "0" when empty).
export function repText(mults, labels) {
  const terms = [];
  for (const lab of labels) {
    const m = Number(mults[lab] || 0);
    if (m > 0) terms.push(m === 1 ? lab : `${m}x${lab}`);
  }
  return terms.length ? terms.join(" + ") : "0";
}

// Parse our own notation "2xA + B" back into multiplicities (for the steppers only).
export function parseMults(text) {
  const out = {};
  for (const term of String(text).split("+")) {
    const m = term.trim().match(/^(?:(\d+)\s*x\s*)?(\S+)$/);
    if (m && m[2] !== "0") out[m[2]] = (out[m[2]] || 0) + Number(m[1] || 1);
  }
  return out;
}

// Send H and d as numbers when they are integers, else as typed (the API says what is wrong).
export function intOrRaw(text) {
  const t = String(text).trim();
  return /^-?\d+$/.test(t) ? Number(t) : t;
}
