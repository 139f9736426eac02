// The page's shared model: the state (mirrored in the URL) and what the server answered.
// Modules read and write `model`; actions are imported from the module that holds them.

import { fromUrl, intOrRaw } from "./state.js";

// clustering boxes rendered at a time (fewer on a phone, where they stack in one column)
export const PAGE = window.matchMedia?.("(max-width: 900px)").matches ? 24 : 120;

export const model = {
  state: fromUrl(),
  catalog: [],
  group: null,          // GET /api/group answer for state.group (a compact group: at V's band, vanilla.followBand)
  baseGroup: null,      // ... as first loaded (a compact group: its default band)
  subgroups: new Map(), // subgroup id -> subgroup entry
  counts: null,         // last POST /api/design answer for the current input (null when invalid)
  lastProblem: null,    // last valid vanilla-layer numbers (dim V etc.)
  problemValid: false,  // the current problem (G, V, H, d) is valid
  designValid: false,   // ... and so is the design
  pending: false,       // a counts request is on its way
  pendingProblem: false, // ... after a change of G, V, H or d
  // results, each with the key of the input it answers (state.js problemKey / designKey)
  clusterings: null, clKey: null,
  coverage: null, cvKey: null, coverageById: new Map(),
  optimum: null,        // {result, pk, dk}: the optimiser's answer and the input it was for
  shown: PAGE,
};


export function subName(id) {
  const s = model.subgroups.get(id);
  return s ? s.name : String(id);
}

export function problemBody() {
  const s = model.state;
  return { group: s.group, rep: s.rep, heads: intOrRaw(s.heads), head_dim: intOrRaw(s.headDim) };
}

export function designBody() {
  return { ...problemBody(), orbits: model.state.orbits.map((o) => ({ subgroup: o.subgroup, rep: o.rep })) };
}

