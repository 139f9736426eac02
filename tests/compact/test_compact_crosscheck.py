"""The compact problem against the finite group of the catalog, unpruned (docs/theory-continuous.md §5).

For a random band-limited V, the compact problem (G, V) is computed on its stand-in with the
pruned lattice; the independent route is the catalog's finite group F (C_n, D_n, O, Oh, I,
Ih: its own construction, labels and full subgroup lattice) with V written in F's labels
by the hand table below. On the clusterings of F whose stabilisers all contain the rotation
subgroup N (the subfamily), the options of every orbit type, the coverage verdicts of random
designs through those subgroups, and the optimum over such designs (by listing designs on
F) must equal the compact problem's.
"""

from __future__ import annotations

from itertools import combinations_with_replacement, product

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from eqattn.attention import Design, DesignOrbit, Problem, check_clustering, clusterings, option_table
from eqattn.groups import get_group
from eqattn.optimize import optimize
from eqattn.reps import Rep, format_rep, irreps_of

# The compact label of each finite irrep of the catalog group (character tables: l = 0, 1, 2
# of SO(3) restrict to A1, T1 of O and to A, T1, H of I; parity g/u is that of the inversion).
FINITE_LABEL = {
    "O": {"0": "A1", "1": "T1"},
    "I": {"0": "A", "1": "T1", "2": "H"},
    "Oh": {"0e": "A1g", "0o": "A1u", "1o": "T1u", "1e": "T1g"},
    "Ih": {"0e": "Ag", "0o": "Au", "1o": "T1u", "1e": "T1g", "2e": "Hg", "2o": "Hu"},
}


def _finite_label(stand_in: str, label: str) -> str:
    if stand_in[0] in "CD":  # C_n, D_n: the same names (E_k: rotation r -> 2cos(2πk/n))
        return label
    return FINITE_LABEL[stand_in][label]


def _rotation_class(F):  # noqa: ANN001, ANN202
    """The class of F's rotation subgroup N: det > 0 for point groups, C_n for D_n, F for C_n."""
    if F.matrices is not None:
        dets = np.linalg.det(F.matrices)
        rot = set(np.nonzero(dets > 0)[0].tolist())
        return next(c for c in F.subgroup_classes if set(c.elements.tolist()) == rot)
    if F.family == "dihedral":
        n = F.order // 2
        return next(c for c in F.subgroup_classes if c.order == n and c.type_name == f"C{n}")
    return F.subgroup_classes[-1]


class Pair:
    """The compact problem and the finite one, with their classes and labels matched."""

    def __init__(self, kind: str, mults: dict[str, int], H: int, d: int) -> None:
        text = " + ".join(f"{k}x{lab}" for lab, k in mults.items() if k)
        self.c = Problem.create(kind, text, H, d)
        stand_in = self.c.group.compact.stand_in
        ftext = " + ".join(f"{k}x{_finite_label(stand_in, lab)}" for lab, k in mults.items() if k)
        self.f = Problem.create(stand_in, ftext, H, d)
        F = self.f.group
        Nf = _rotation_class(F)
        self.kept_f = [c for c in F.subgroup_classes if np.isin(Nf.elements, c.elements).all()]
        assert len(self.kept_f) == len(self.c.group.subgroup_classes)
        # classes matched by index (one per subgroup of Γ: 1 or C2)
        self.cls = {c.id: next(k for k in self.kept_f if k.index == c.index) for c in self.c.group.subgroup_classes}
        self.labels = {c.id: self._label_map(c) for c in self.c.group.subgroup_classes}

    def _label_map(self, K) -> dict[str, str]:  # noqa: ANN001
        """Compact label -> finite label on class K: on the top by the table; below, through
        the restriction of the top's irreps on each side."""
        stand_in = self.c.group.compact.stand_in
        ctop, ftop = self.c.top, self.f.top
        if K.id == ctop.id:
            return {lab: _finite_label(stand_in, lab) for lab in self.c.group.compact.labels}
        out = {}
        Kf = self.cls[K.id]
        for lab in self.c.group.compact.labels:
            rc = Rep(ctop, tuple(int(l == lab) for l in irreps_of(ctop).labels)).restrict(K)
            rf = Rep(ftop, tuple(int(l == _finite_label(stand_in, lab)) for l in irreps_of(ftop).labels)).restrict(Kf)
            if sum(rc.mults) == 1:
                out[irreps_of(K).labels[rc.mults.index(1)]] = irreps_of(Kf).labels[rf.mults.index(1)]
        return out

    def to_finite(self, r: Rep) -> Rep:
        """A rep of a compact class as the rep of the matched finite class."""
        Kf = self.cls[r.sub.id]
        m = self.labels[r.sub.id]
        mults = [0] * len(irreps_of(Kf))
        for lab, k in zip(irreps_of(r.sub).labels, r.mults):
            if k:
                mults[irreps_of(Kf).labels.index(m[lab])] += k
        return Rep(Kf, tuple(mults))

    def subfamily(self):  # noqa: ANN201
        """Finite clusterings with every stabiliser in the kept classes, keyed like the compact ones."""
        kept = {k.id for k in self.kept_f}
        inv = {k.id: cid for cid, k in self.cls.items()}
        out = {}
        for c in clusterings(self.f):
            if all(k in kept for (k, _), _ in c.orbits):
                out[tuple(sorted(((inv[k], n), m) for (k, n), m in c.orbits))] = c
        return out


def _mults(kind: str, band: int, draw) -> dict[str, int]:  # noqa: ANN001
    from eqattn.groups.compact import CompactInfo

    labels = CompactInfo(kind, band).labels
    dims = {lab: (2 * CompactInfo(kind, band).irrep(lab)[0] + 1 if kind in ("SO3", "O3")
                  else (1 if CompactInfo(kind, band).irrep(lab)[0] == 0 else 2)) for lab in labels}
    m = {lab: draw(st.integers(0, 2 if dims[lab] < 3 else 1)) for lab in labels}
    for lab in reversed(labels):  # dim V <= 7: drop the largest irreps first
        while m[lab] and sum(m[l] * dims[l] for l in labels) > 7:
            m[lab] -= 1
    if not any(m.values()):
        m[labels[-1]] = 1
    return m


@st.composite
def pairs(draw) -> tuple[str, dict[str, int], int, int]:  # noqa: ANN001
    kind = draw(st.sampled_from(["SO2", "O2", "SO3", "O3"]))
    band = draw(st.integers(0, 3 if kind in ("SO2", "O2") else 2))
    m = _mults(kind, band, draw)
    return kind, m, draw(st.integers(1, 2)), draw(st.integers(1, 2))


def _options(problem: Problem, orbit, convert) -> set:  # noqa: ANN001
    """Every option of an orbit type as (zero, a, b, [G:K̄], P, D), reps through `convert`."""
    G = problem.group
    return {(o.zero, format_rep(convert(o.a)), format_rep(convert(o.b)), G.subgroup_classes[o.kbar].index,
             format_rep(convert(o.P)), format_rep(convert(o.D))) for o in option_table(problem).options(orbit)}


@settings(max_examples=12, deadline=None)
@given(pairs(), st.randoms(use_true_random=False))
def test_compact_problem_equals_the_finite_group_on_the_rotation_subfamily(case, rnd) -> None:
    kind, m, H, d = case
    pair = Pair(kind, m, H, d)
    c, f = pair.c, pair.f
    assert c.vanilla_params == f.vanilla_params
    # clusterings: the compact ones are the finite subfamily
    sub = pair.subfamily()
    comp = {tuple(sorted(x.orbits)): x for x in clusterings(c)}
    assert set(comp) == set(sub)
    # options of every orbit type, in finite labels
    for key in comp:
        for (k, n), _ in key:
            mine = _options(c, (k, n), pair.to_finite)
            theirs = _options(f, (pair.cls[k].id, n), lambda r: r)
            assert mine == theirs, (key, mine, theirs)
    # verdicts of random designs through the kept classes
    types = [(K, W) for K in c.group.subgroup_classes
             for W in product(*(range(x + 1) for x in c.restrict(K).mults)) if any(W)]
    for _ in range(3):
        same_verdicts(pair, comp, sub, [types[rnd.randrange(len(types))] for _ in range(rnd.randint(1, 3))])
    # the optimum over designs through the kept classes, by listing designs on F
    best = _listed_optimum(pair, types, sub)
    res = optimize(c, time_limit=30)
    assert res.status == "optimal" and res.design.params == best


def same_verdicts(pair: Pair, comp: dict, sub: dict, picks: list) -> None:
    """The design of orbit types `picks` (compact classes, multiplicities) and its finite
    twin: the same parameters, and the same verdict on every clustering of the subfamily."""
    c, f = pair.c, pair.f
    dc = Design(c, tuple(DesignOrbit(K, Rep(K, W)) for K, W in picks))
    df = Design(f, tuple(DesignOrbit(pair.cls[K.id], pair.to_finite(Rep(K, W))) for K, W in picks))
    assert dc.params == df.params
    for key, x in comp.items():
        assert check_clustering(c, dc, x).covered == check_clustering(f, df, sub[key]).covered, (key, picks)


def _listed_optimum(pair: Pair, types, sub) -> int:  # noqa: ANN001
    """The fewest parameters of a design of at most 2H orbits through the kept classes of F
    covering the subfamily (a listing that missed a cheaper design could only answer more)."""
    f, c = pair.f, pair.c
    orbits = [DesignOrbit(pair.cls[K.id], pair.to_finite(Rep(K, W))) for K, W in types]
    cost = [o.params(f) for o in orbits]
    regular = Design.regular(c).params  # an upper bound (Lemma 5)
    best = regular
    for size in range(0, 2 * c.heads + 1):
        for combo in combinations_with_replacement(range(len(orbits)), size):
            p = sum(cost[i] for i in combo)
            if p >= best:
                continue
            design = Design(f, tuple(orbits[i] for i in combo))
            if all(check_clustering(f, design, x).covered for x in sub.values()):
                best = p
    return best
