"""Equivariant designs: lists of orbits (K, W) and their parameter counts (SPEC §3)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

import numpy as np

from ..errors import InputError, InputTypeError, LimitError, whole_number
from ..groups import SubgroupClass
from ..reps import Rep, parse_rep
from .problem import Problem

# Orbits in one design, counts included: the one limit of the core, the JSON API and the
# page (an optimiser answer round-trips through `Design.from_json` below it; test_design_json.py).
MAX_DESIGN_ORBITS = 512
# A design orbit's head dimension dim W, capped like the problem's d (checked before any
# parameter count, so counts never overflow).
MAX_ORBIT_HEAD_DIM = 4096


@dataclass(frozen=True)
class DesignOrbit:
    """[G:K] heads of dimension dim W, one per coset (SPEC §3)."""

    sub: SubgroupClass
    W: Rep

    @property
    def heads(self) -> int:
        return self.sub.index

    @property
    def head_dim(self) -> int:
        return self.W.dim

    def params(self, problem: Problem) -> int:
        """4 Σ_t unit_costs(K)_t m_t(W): 4 dim Hom_K(V, W) = 4 Σ_t m_t(V|K) m_t(W) e_t (SPEC §3),
        or 4 [G:K] dim W on a problem priced by attention cost (`Problem.priced`)."""
        return 4 * int(problem.unit_costs(self.sub) @ np.asarray(self.W.mults, dtype=np.int64))

    def key(self) -> tuple[int, tuple[int, ...]]:
        return (self.sub.id, self.W.mults)

    def to_json(self, problem: Problem) -> dict:
        """`{"subgroup": 1, "name": "C2", "rep": "B", "heads": 2, "head_dim": 1, "params": 8}`."""
        return {
            "subgroup": self.sub.id,
            "name": self.sub.name,
            "rep": str(self.W),
            "heads": self.heads,
            "head_dim": self.head_dim,
            "params": self.params(problem),
        }


@dataclass(frozen=True)
class Design:
    problem: Problem
    orbits: tuple[DesignOrbit, ...]

    @staticmethod
    def create(problem: Problem, orbits: Sequence[tuple[str | int, str]]) -> "Design":
        """Orbits given as (subgroup id or name, rep text over that subgroup's irreps)."""
        if not isinstance(problem, Problem):
            raise InputTypeError("problem", f"a Problem (eqattn.Problem(G, V, heads, head_dim)), got {type(problem).__name__}")
        if isinstance(orbits, (str, bytes)) or not isinstance(orbits, Sequence):
            raise InputTypeError("orbits", f"a list of (subgroup, rep) pairs, e.g. [('C2', 'B')], got {type(orbits).__name__}")
        if len(orbits) > MAX_DESIGN_ORBITS:
            raise LimitError("orbits", f"at most {MAX_DESIGN_ORBITS} orbits, got {len(orbits)}")
        out = []
        for i, item in enumerate(orbits):
            try:
                ref, text = item
            except (TypeError, ValueError):
                raise InputError(f"orbits[{i}]", "each orbit is a pair (subgroup, rep), e.g. C2:B") from None
            if isinstance(ref, bool) or not isinstance(ref, (str, int, np.integer)):
                raise InputTypeError(f"orbits[{i}].subgroup", f"a subgroup id or name, got {type(ref).__name__} {ref!r}")
            sub = problem.group.lattice.resolve(ref, field=f"orbits[{i}].subgroup")
            W = parse_rep(str(text), sub, field=f"orbits[{i}].rep")
            if W.dim > MAX_ORBIT_HEAD_DIM:
                raise LimitError(
                    f"orbits[{i}].rep",
                    f"head dimension dim W = {W.dim}; at most {MAX_ORBIT_HEAD_DIM} is supported",
                )
            out.append(DesignOrbit(sub, W))
        return Design(problem, tuple(out))

    @staticmethod
    def parse_specs(problem: Problem, specs: Sequence[str]) -> "Design":
        """From CLI strings `K:W` (e.g. `C2.1:B`, `0:2xA`)."""
        pairs = []
        for i, s in enumerate(specs):
            if ":" not in s:
                raise InputError(f"orbits[{i}]", f"{s!r}: write SUBGROUP:REP, e.g. C2:B or 0:2xA")
            ref, text = s.split(":", 1)
            # perm:<subgroup> presets contain a colon too; the subgroup never does
            pairs.append((ref.strip(), text.strip()))
        return Design.create(problem, pairs)

    @staticmethod
    def regular(problem: Problem, trimmed: bool = False) -> "Design":
        """The regular design: H copies of the regular orbit (C1, d x trivial), SPEC §3.
        A compact group (G° != 1) has no regular orbit; its fallback is H x (G°, V|G°), which
        covers every clustering (docs/theory-continuous.md, Lemma 5) at 4 H dim End_{G°}(V)
        parameters (it can exceed the vanilla count); `trimmed` changes nothing there.

        It has the vanilla layer's count, P = 4 H d dim V, and covers every clustering (SPEC §3:
        it is the vanilla layer averaged over G), so without compute limits there is always a
        covering design. ``trimmed``: W = min(d, dim V) x trivial instead, the same functions
        (a head wider than dim V adds idle dimensions, SPEC §3; W <= V|C1 suffices, SPEC §5.5)
        with fewer parameters when d > dim V; this is the one the optimiser's types hold.

            >>> p = Problem.create("C4", "E1", 2, 1)
            >>> Design.regular(p).params == p.vanilla_params
            True
            >>> wide = Problem.create("C2", "A", 1, 3)
            >>> Design.regular(wide).params == wide.vanilla_params, Design.regular(wide, trimmed=True).orbits[0].head_dim
            (True, 1)
        """
        bottom = problem.group.subgroup_classes[0]
        if problem.group.compact is not None:
            # no regular orbit G/1 for G° != 1: H x (G°, V|G°) (docs/theory-continuous.md, Lemma 5)
            W = problem.restrict(bottom)
        else:
            W = Rep(bottom, (min(problem.head_dim, problem.dim_v) if trimmed else problem.head_dim,))
        return Design(problem, tuple(DesignOrbit(bottom, W) for _ in range(problem.heads)))

    @property
    def params(self) -> int:
        return sum(o.params(self.problem) for o in self.orbits)

    @property
    def heads(self) -> int:
        return sum(o.heads for o in self.orbits)

    def to_json(self) -> dict:
        """The design JSON every layer prints (CLI, API, optimiser, page):
        `{"params": 8, "heads": 2, "orbits": [DesignOrbit.to_json, ...]}`."""
        return {"params": self.params, "heads": self.heads, "orbits": [o.to_json(self.problem) for o in self.orbits]}

    @staticmethod
    def from_json(problem: Problem, data: object) -> "Design":
        """The inverse of `to_json` (only `orbits[i].subgroup` and `orbits[i].rep` are read;
        the subgroup by id or name). An orbit's optional `"count": k` repeats it k times; every
        count is checked (whole numbers, at most MAX_DESIGN_ORBITS orbits in all) before any
        orbit is built. Bad input raises InputError naming the field.

            >>> p = Problem.create("C4", "E1", 2, 1)
            >>> d = Design.regular(p); Design.from_json(p, d.to_json()) == d
            True
            >>> len(Design.from_json(p, {"orbits": [{"subgroup": "C2", "rep": "B", "count": 3}]}).orbits)
            3
        """
        if not isinstance(data, dict) or not isinstance(data.get("orbits"), list):
            raise InputError("orbits", "a design is a JSON object with a list 'orbits' of {subgroup, rep}")
        counts = []
        for i, o in enumerate(data["orbits"]):
            if not isinstance(o, dict) or "subgroup" not in o or "rep" not in o:
                raise InputError(f"orbits[{i}]", "each orbit is an object with 'subgroup' (id or name) and 'rep'")
            counts.append(_orbit_count(o.get("count", 1), f"orbits[{i}].count"))
            if sum(counts) > MAX_DESIGN_ORBITS:
                raise LimitError("orbits", f"at most {MAX_DESIGN_ORBITS} orbits in all (counts included), got more")
        pairs = [(o["subgroup"], o["rep"]) for o, k in zip(data["orbits"], counts) for _ in range(k)]
        return Design.create(problem, pairs)


def _orbit_count(value: object, field: str) -> int:
    """An orbit's `count`: a whole number from 1 to MAX_DESIGN_ORBITS (not a bool, a float or text)."""
    return whole_number(value, field, 1, MAX_DESIGN_ORBITS)
