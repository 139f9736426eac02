// The glossary: every term the page uses, written for someone who knows multi-head attention
// but not group theory. `term(text, key)` makes an inline term: its tooltip is the short
// definition, a click opens the glossary drawer at the entry.

import { $, h } from "./util.js";

export const GLOSSARY = [
  ["group", "Group G", "The symmetry the layer must respect.",
   "A finite set of transformations (rotations, reflections, permutations…) that can be composed and undone. An equivariant layer gives the same answer whether you transform the tokens before or after it."],
  ["tokens", "Tokens V (representation)", "How G acts on one token's feature vector.",
   "Each token is a vector in V; every g in G acts on it by an orthogonal matrix ρ(g). V is written as a sum of irreps with multiplicities, e.g. 2xA1 + E means two copies of A1 and one of E."],
  ["irrep", "Irrep", "An irreducible representation: a building block of V.",
   "A smallest subspace G cannot split further, like a Fourier mode. Every representation is a sum of irreps; 'real', 'complex' and 'quaternionic' type say how many real parameters a map between two copies of it has (1, 2 or 4)."],
  ["multiplicity", "Multiplicity", "How many copies of an irrep a representation contains.",
   "A whole number ≥ 0. 2xA1 has multiplicity 2 of A1. Negative or fractional multiplicities mean nothing and are refused."],
  ["heads", "Heads H", "The number of attention heads of the vanilla layer.", "As in ordinary multi-head attention."],
  ["head-dim", "Head dim d", "The width of each vanilla head's query/key/value.", "As in ordinary multi-head attention; W_Q, W_K, W_V map dim V to d and W_O maps d back to dim V."],
  ["vanilla", "Vanilla layer / parameters", "The ordinary multi-head attention layer: 4·H·d·dim V parameters.",
   "Every G-equivariant layer of this shape is a vanilla layer with constrained weights; the design below reaches all of them with fewer parameters."],
  ["design", "Design", "A list of orbits G/K, each with a representation W of K: the cheap equivariant layer.",
   "Its parameters are 4·Σ dim Hom_K(V, W): only the maps V → W that commute with K are learned, then copied to the other heads of the orbit by G."],
  ["orbit", "Orbit G/K", "A group of heads that G permutes among themselves: one head per coset of K.",
   "A head stabilised by the subgroup K is copied to |G/K| heads by G. K is the stabiliser: the symmetries that map the head to itself."],
  ["subgroup", "Subgroup K", "A subset of G closed under composition; the symmetry one head keeps.",
   "Subgroups are listed up to conjugacy (relabelling by G). C2.1 and C2.2 are different classes of the same standard type C2; the inspector shows which elements each contains."],
  ["conjugates", "Conjugates", "The subgroups gKg⁻¹ that look like K after relabelling by g.", "Conjugate subgroups give the same orbit G/K."],
  ["normaliser", "Normaliser N_G(K)", "The elements g with gKg⁻¹ = K.", "K is normal when its normaliser is all of G."],
  ["isomorphism", "Isomorphism to the standard group", "How K is identified with its standard group (C2, D4, …).",
   "The irreps of K are named after those of the standard group through this fixed identification, generator by generator."],
  ["character", "Character / character table", "The traces of an irrep's matrices, one number per conjugacy class.",
   "Characters tell irreps apart; rows of the table are irreps, columns conjugacy classes (elements that are relabellings of each other)."],
  ["clustering", "Clustering", "A way the heads of an equivariant vanilla layer can fall into clusters and orbits.",
   "In a G-equivariant vanilla layer G permutes the heads. Heads that G maps onto each other form orbits; within an orbit, heads with identical QK matrices form clusters. Every equivariant layer has one of these shapes."],
  ["cluster", "Cluster", "Heads of one orbit that share the same query-key matrix.", "Drawn as a rounded box of dots."],
  ["degenerate", "Degenerate", "An orbit whose clusters can be forced to share one QK matrix.",
   "Its K̄ is larger than K, so the clusters gK with g in K̄ have one M between them: fewer distinct heads than the orbit suggests."],
  ["coverage", "Coverage / covered", "The design can reproduce every vanilla layer of a clustering.",
   "A design covers a clustering when, in every scenario of it, its orbits can host all the demands. Covering every clustering means the design is as expressive as the equivariant vanilla layer."],
  ["scenario", "Scenario", "One case of a clustering: one option (a pair of profiles for M and R) per orbit.",
   "A vanilla head's query-key product M = W_Qᵀ W_K and value-output product R = W_O W_V have limited rank, so each can only use certain pieces of V (its profile). A scenario fixes these per orbit; the design must cover every scenario. The coverage check solves only the scenarios not implied by easier ones; 'Show all' solves each."],
  ["profile", "Profile", "The pieces of V a head's M (query-key) or R (value-output) map can use, given its rank.",
   "A representation a ≤ V|K with dim a ≤ d for M (≤ n·d for R, n heads per cluster), maximal among such; written like V, e.g. A + B."],
  ["kbar", "K̄ (K-bar)", "The symmetries that leave a generic query-key matrix M of the profile unchanged.",
   "K ≤ K̄. The clusters gK with g in K̄ then share one M. When K̄ is larger than K the orbit is degenerate. Demands are representations of K̄."],
  ["image", "Image P", "The representation of K̄ that a generic M of the profile factors through.", "A design orbit can host the demand only if its W contains P (after moving by the coset)."],
  ["demand", "Demand D", "What the summed value-output maps R of the clusters sharing one M need: a representation of K̄.",
   "D = min(Ind from K to K̄ of the R profile, V). Design orbits hosting the demand must supply at least D, irrep by irrep."],
  ["zero-pool", "Zero pool", "Orbits whose query-key map M is 0 (uniform attention) in a scenario.",
   "They all share that same M = 0, so together they form one cluster of the whole layer (K̄ = G) with one pooled demand."],
  ["witness", "Witness", "The proof of coverage for one scenario: which design orbit hosts which demand.",
   "Each demand is met by design orbits through a coset (g0, g1, …), supplying at least the demanded irreps."],
  ["supply", "Supply", "What a design orbit provides to a demand through a coset.", "Supplies must add up to at least the demand."],
  ["coset", "Coset g0", "The group element through which a design orbit hosts a demand: its head at that coset carries M.",
   "g0, g1, … number G's elements (g0 is the identity; the subgroup inspector lists elements with their numbers). Elements in the same double coset are equivalent."],
  ["counterexample", "Counterexample", "A scenario the design cannot realise: some demand lacks irreps.", "The table shows what is missing."],
  ["optimal", "Proven optimal", "The solver proved no design with fewer parameters covers every clustering.", "The lower bound equals the design's count."],
  ["gap", "Gap", "How far the best design found may still be from the optimum: (found − bound) / found.",
   "The true optimum lies between the lower bound and the found count. A gap of 0 % means proven optimal; 100 % means the solver proved nothing yet (bound 0). Raise the time limit to tighten it."],
  ["bound", "Lower bound", "A number of parameters no covering design can go below, as proven so far.", "It rises while the solver runs."],
  ["budget", "Budget (max heads, head dim, attention cost)", "Limits on the design's width: at most this many heads, every head at most this wide, Σ heads × head dim at most this.",
   "Empty means any. The attention cost Σ over heads of the head dimension is the compute of the attention itself; the vanilla layer's is H·d. When nothing within the budget covers every clustering, the optimiser finds the design that covers the most."],
  ["time-limit", "Time limit", "How long the optimiser searches before it reports the best design found.", "The final re-checks of the design come on top."],
  ["regular", "Regular representation", "G acting on itself: one coordinate per group element.", "The orbit G/C1 with V = regular is the vanilla-equivalent strategy."],
  ["verify", "Verify numerically", "Build actual weights and compare outputs.",
   "Samples G-equivariant vanilla weights for each checked scenario, builds the design's weights from the witness, and reports the worst relative difference of the outputs (≈1e-15 means equal)."],
];

const BY_KEY = new Map(GLOSSARY.map((g) => [g.key ?? g[0], g]));

export function shortOf(key) {
  return BY_KEY.get(key)?.[2] || "";
}

export function term(text, key) {
  return h("button", { type: "button", class: "term", "data-term": key, title: `${BY_KEY.get(key)?.[1] || key}: ${shortOf(key)}`,
                       onclick: (e) => { e.stopPropagation(); openGlossary(key); } }, text);
}

// Give every static [data-term] element its tooltip; make plain ones open the glossary.
export function decorateTerms(root = document) {
  for (const el of root.querySelectorAll("[data-term]")) {
    const key = el.dataset.term;
    if (!el.title) el.title = `${BY_KEY.get(key)?.[1] || key}: ${shortOf(key)}`;
    if (el.classList.contains("term") && !el.dataset.bound) {
      el.dataset.bound = "1";
      el.addEventListener("click", (e) => { e.stopPropagation(); openGlossary(key); });
    }
  }
}

export function renderGlossary() {
  const dl = $("glossary-list");
  dl.textContent = "";
  for (const [key, name, short, long] of GLOSSARY) {
    dl.append(h("dt", { id: `gl-${key}`, tabindex: "-1" }, name),
              h("dd", {}, h("strong", { text: short }), " ", long));
  }
}

export function openGlossary(key = null) {
  const d = $("glossary");
  d.hidden = false;
  d.querySelectorAll("dt.hit").forEach((x) => x.classList.remove("hit"));
  const dt = key ? $(`gl-${key}`) : null;
  if (dt) {
    dt.classList.add("hit");
    dt.scrollIntoView({ block: "start" });
    dt.focus({ preventScroll: true });
  } else {
    $("glossary-close").focus();
  }
}

export function closeGlossary() {
  $("glossary").hidden = true;
}
