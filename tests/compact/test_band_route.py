"""The character-detecting route (docs/theory-continuous.md §8, Lemma 8): SO(3), O(3) at any
band through C_n (x {±1}), with the band irreps as the irreps of every class.

Two independent routes check it:

* at l <= 2, the detecting route of §5 (O, I, Oh, Ih with their own irreps), itself checked
  against the catalog's finite groups (test_compact_crosscheck.py): clusterings, every
  option, coverage verdicts of random designs and the optimum must agree;
* at l = 3, AGL(1, 8) = C2^3 ⋊ C7 (order 56), whose irreps of dimensions 1 and 7 are of real
  type (test_lemma8_claims.py): SO(3) on a x 0 + b x 3 against AGL(1, 8) on a x 1 + b x 7,
  and O(3) on degrees {0, 3} against AGL(1, 8) x C2, on the clusterings whose stabilisers all
  contain the rotation part, must agree in the same four ways.
"""

from __future__ import annotations

from itertools import product

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from eqattn.attention import Design, DesignOrbit, Problem, check_clustering, check_coverage, clusterings, option_table
from eqattn.errors import InputError
from eqattn.groups import get_group
from eqattn.groups.compact import CompactInfo
from eqattn.groups.finite_group import FiniteGroup
from eqattn.groups.stand_in import compact_group
from eqattn.optimize import optimize
from eqattn.reps import Rep, decompose, format_rep, irreps_of

from test_compact_crosscheck import Pair, _listed_optimum, _options, same_verdicts


def _types(p: Problem) -> list:
    return [(K, W) for K in p.group.subgroup_classes
            for W in product(*(range(x + 1) for x in p.restrict(K).mults)) if any(W)]


# ------------------------------------------------------------------------------ l <= 2: both routes
@st.composite
def band_cases(draw) -> tuple[str, int, str, int, int]:  # noqa: ANN001
    kind = draw(st.sampled_from(["SO3", "O3"]))
    band = draw(st.integers(0, 2))
    info = CompactInfo(kind, band)
    dims = {lab: 2 * info.irrep(lab)[0] + 1 for lab in info.labels}
    m = {lab: draw(st.integers(0, 2 if dims[lab] == 1 else 1)) for lab in info.labels}
    for lab in reversed(info.labels):  # dim V <= 8
        while m[lab] and sum(m[x] * dims[x] for x in info.labels) > 8:
            m[lab] -= 1
    if not any(m.values()):
        m[info.labels[-1]] = 1
    text = " + ".join(f"{k}x{lab}" for lab, k in m.items() if k)
    return kind, band, text, draw(st.integers(1, 2)), draw(st.integers(1, 3))


def _same_class(p: Problem, q: Problem) -> dict[int, object]:
    """Classes of p matched with q's by index (one per subgroup of Γ)."""
    return {K.id: next(L for L in q.group.subgroup_classes if L.index == K.index) for K in p.group.subgroup_classes}


def _carry(r: Rep, K) -> Rep:  # noqa: ANN001
    """A rep of one route's class as the rep of the other's with the same labels."""
    labels = irreps_of(K).labels
    mults = [0] * len(labels)
    for lab, k in zip(irreps_of(r.sub).labels, r.mults):
        if k:
            mults[labels.index(lab)] += k
    return Rep(K, tuple(mults))


@settings(max_examples=14, deadline=None)
@given(band_cases(), st.randoms(use_true_random=False))
def test_the_character_route_equals_the_detecting_route_up_to_l_2(case, rnd) -> None:
    kind, band, text, H, d = case
    p = Problem.create(kind, text, H, d)  # O, I, Oh or Ih with their own irreps (Lemma 7)
    q = Problem.create(compact_group(kind, band, route="characters"), text, H, d)  # C_n (x Ci), band irreps
    assert not irreps_of(p.top).band and irreps_of(q.top).band
    assert q.group.order < p.group.order and q.vanilla_params == p.vanilla_params
    cls = _same_class(p, q)
    key = lambda c, ids: tuple(sorted(((ids[k], n), m) for (k, n), m in c.orbits))  # noqa: E731
    ident = {K.id: K.id for K in q.group.subgroup_classes}
    to_q = {K: L.id for K, L in cls.items()}
    cp = {key(c, to_q): c for c in clusterings(p)}
    cq = {key(c, ident): c for c in clusterings(q)}
    assert set(cp) == set(cq)
    for k in cp:
        for (kid, n), _ in k:
            back = next(K for K, L in cls.items() if L.id == kid)
            mine = _options(q, (kid, n), lambda r: r)
            theirs = _options(p, (back, n), lambda r: _carry(r, cls[r.sub.id]))
            assert mine == theirs, (k, mine, theirs)
    for _ in range(3):
        picks = [_types(p)[rnd.randrange(len(_types(p)))] for _ in range(rnd.randint(1, 3))]
        dp = Design(p, tuple(DesignOrbit(K, Rep(K, W)) for K, W in picks))
        dq = Design(q, tuple(DesignOrbit(cls[K.id], _carry(Rep(K, W), cls[K.id])) for K, W in picks))
        assert dp.params == dq.params
        for k in cp:
            assert check_clustering(p, dp, cp[k]).covered == check_clustering(q, dq, cq[k]).covered, (k, picks)
    rp, rq = optimize(p, time_limit=30), optimize(q, time_limit=30)
    assert rp.status == rq.status == "optimal" and rp.design.params == rq.design.params


# ------------------------------------------------------------------------------ l = 3: AGL(1, 8)
#: AGL(1, 8) on GF(8) = {0..7} (x -> x + 1, x -> 2x with x^3 = x + 1), 1-based, and times C2 on
#: two more points: the catalog specs whose lattices and irreps GAP checks (gap/reference.g)
AGL = "perm:(1,2)(3,4)(5,6)(7,8),(2,3,5,4,7,8,6)"
AGL_C2 = AGL + ",(9,10)"


def _agl(with_c2: bool) -> FiniteGroup:
    return get_group(AGL_C2 if with_c2 else AGL)


class AglPair(Pair):
    """The compact problem on degrees {0, 3} and AGL(1, 8) (x C2) with V = a x 1 + b x 7: the
    top's labels matched by character (dimension, and the sign at the C2 factor's generator)."""

    def __init__(self, kind: str, mults: dict[str, int], H: int, d: int) -> None:
        text = " + ".join(f"{k}x{lab}" for lab, k in mults.items() if k)
        self.c = Problem.create(kind, text, H, d)
        F = _agl(kind == "O3")
        top = F.subgroup_classes[-1]
        irr = irreps_of(top)
        swap = next(g for g in range(F.order) if F.perms[g][8] == 9 and (F.perms[g][:8] == np.arange(8)).all()) if kind == "O3" else None

        def finite(lab: str) -> str:
            l, parity = self.c.group.compact.irrep(lab)
            want = 2 * l + 1
            hits = [x for i, x in enumerate(irr.labels) if irr.dims[i] == want and irr.types[i] == "real"
                    and (swap is None or np.isclose(irr.chars[i, swap], want * (parity or 1)))]
            assert len(hits) == 1, (lab, hits)
            return hits[0]

        self.top_map = {lab: finite(lab) for lab in ("0e", "0o", "3o", "3e")} if kind == "O3" else {lab: finite(lab) for lab in ("0", "3")}
        ftext = " + ".join(f"{k}x{self.top_map[lab]}" for lab, k in mults.items() if k)
        self.f = Problem.create(F, ftext, H, d)
        Nf = next(c for c in F.subgroup_classes if c.order == 56) if kind == "O3" else F.subgroup_classes[-1]
        self.kept_f = [c for c in F.subgroup_classes if np.isin(Nf.elements, c.elements).all()]
        assert len(self.kept_f) == len(self.c.group.subgroup_classes)
        self.cls = {c.id: next(k for k in self.kept_f if k.index == c.index) for c in self.c.group.subgroup_classes}
        self.labels = {c.id: self._label_map(c) for c in self.c.group.subgroup_classes}

    def _label_map(self, K) -> dict[str, str]:  # noqa: ANN001
        ctop, ftop = self.c.top, self.f.top
        if K.id == ctop.id:
            return dict(self.top_map)
        out = {}
        Kf = self.cls[K.id]
        for lab, flab in self.top_map.items():
            rc = Rep(ctop, tuple(int(x == lab) for x in irreps_of(ctop).labels)).restrict(K)
            rf = Rep(ftop, tuple(int(x == flab) for x in irreps_of(ftop).labels)).restrict(Kf)
            out[irreps_of(K).labels[rc.mults.index(1)]] = irreps_of(Kf).labels[rf.mults.index(1)]
        return out


@pytest.mark.parametrize("kind, mults, H, d", [
    ("SO3", {"0": 1, "3": 1}, 2, 3),     # d = 3: the §8 obstruction, the 7 does not fit a head
    ("SO3", {"0": 2, "3": 1}, 2, 7),
    ("SO3", {"3": 2}, 2, 7),
    ("O3", {"0e": 1, "3o": 1}, 2, 7),
    ("O3", {"0e": 1, "0o": 1, "3o": 1, "3e": 1}, 2, 7),
    ("O3", {"3o": 1, "3e": 1}, 2, 8),
])
def test_degree_3_equals_agl_1_8_on_the_rotation_subfamily(kind, mults, H, d) -> None:
    pair = AglPair(kind, mults, H, d)
    c, f = pair.c, pair.f
    assert irreps_of(c.top).band and c.vanilla_params == f.vanilla_params
    sub = pair.subfamily()
    comp = {tuple(sorted(x.orbits)): x for x in clusterings(c)}
    assert set(comp) == set(sub)
    for key in comp:
        for (k, n), _ in key:
            assert _options(c, (k, n), pair.to_finite) == _options(f, (pair.cls[k].id, n), lambda r: r), key
    types = _types(c)
    for picks in [types[:1], types[-1:], types[:2], [types[0], types[-1]]]:
        same_verdicts(pair, comp, sub, picks)
    best = _listed_optimum(pair, types, sub)
    res = optimize(c, time_limit=30)
    assert res.status == "optimal" and res.design.params == best


# ------------------------------------------------------------------------------ hand-worked facts
def test_the_smallest_obstruction_of_section_8_is_computed_for_so3() -> None:
    """SO(3), V = 1x3, d = 3: no non-zero profile of dim <= 3 (on I, T2 would be one): every
    clustering's only option is the zero one, and the empty design covers everything."""
    p = Problem.create("SO3", "1x3", 2, 3)
    assert p.group.compact.stand_in == "C6" and irreps_of(p.top).band
    for c in clusterings(p):
        for orbit, _ in c.orbits:
            assert {(format_rep(o.a), format_rep(o.b)) for o in option_table(p).options(orbit)} == {("0", "0")}
    res = optimize(p, time_limit=30)
    assert res.status == "optimal" and res.design.params == 0
    wide = Problem.create("SO3", "1x3", 1, 7)
    (only,) = clusterings(wide)
    assert ("1x3", "1x3") in {(format_rep(o.a), format_rep(o.b)) for o in option_table(wide).options(only.orbits[0][0])}


def test_band_characters_decompose_by_a_linear_solve_and_refuse_what_is_outside() -> None:
    G = compact_group("O3", 3)
    top, so3 = G.subgroup_classes[-1], G.subgroup_classes[0]
    irr = irreps_of(top)
    chi = 2 * irr.chars[irr.index("3o")] + irr.chars[irr.index("0e")] + irr.chars[irr.index("2e")]
    assert format_rep(decompose(top, chi)) == "1x0e + 1x2e + 2x3o"
    assert format_rep(decompose(top, chi).restrict(so3)) == "1x0 + 1x2 + 2x3"
    # the regular character of C6 x Ci is no band rep: its coefficients are halves
    reg = np.zeros(G.order)
    reg[0] = G.order
    with pytest.raises(InputError, match=r"not a representation of O3 \(multiplicities \[-?0.0, .*0.5, 0.5\]"):
        decompose(top, reg)
    # a function outside the span of the band characters (here: not a class function of SO3's
    # C6, which is abelian, so any function is; take one that is not even in the angle)
    odd = np.zeros(G.order)
    odd[so3.elements[1]] = 1.0
    with pytest.raises(InputError, match="inside the band"):
        decompose(so3, odd)


@pytest.mark.parametrize("kind, band, stand_in, order", [("SO3", 3, "C6", 6), ("O3", 3, "C6xCi", 12),
                                                         ("SO3", 16, "C32", 32), ("O3", 5, "C10xCi", 20)])
def test_the_character_detecting_stand_ins(kind, band, stand_in, order) -> None:
    G = compact_group(kind, band)
    assert G.compact.stand_in == stand_in and G.order == order
    assert [c.name for c in G.subgroup_classes] == (["SO3"] if kind == "SO3" else ["SO3", "O3"])
    for K in G.subgroup_classes:  # Lemma 8's hypothesis: the band characters are independent on K_F
        chars = irreps_of(K).chars[:, K.elements]
        assert np.linalg.matrix_rank(chars, tol=1e-8) == len(chars)


def test_a_route_that_cannot_hold_the_band_is_refused() -> None:
    with pytest.raises(InputError, match="route 'irreps' goes up to l = 2"):
        compact_group("SO3", 3, route="irreps")
    with pytest.raises(InputError, match="one of auto, irreps, characters"):
        compact_group("O3", 1, route="wigner")
    assert compact_group("O3", 2, route="irreps").compact.stand_in == "Ih"


def test_the_whole_workflow_at_degree_3_is_equivariant_under_haar_samples() -> None:
    """The optimum on O3 with degree 3 covers every clustering, and its witnesses' weights are
    checked by verify under Haar-random elements of O(3), not only under the stand-in's."""
    from eqattn.numeric.verify import verify_design

    p = Problem.create("O3", "1x0e + 1x1o + 1x3o + 1x3e", 2, 7)
    res = optimize(p, time_limit=30)
    assert res.status == "optimal" and all(c.covered for c in check_coverage(p, res.design))
    report = verify_design(p, res.design, seed=2)
    assert report.haar_samples > 0 and report.worst_rel_error < 1e-8 and report.worst_equivariance_error < 1e-10
