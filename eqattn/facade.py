"""The Python API re-exported by ``import eqattn`` (lazily: ``import eqattn`` alone loads nothing).

::

    import eqattn

    G = eqattn.group("D4")                                 # a catalog group (or perm:/mat:)
    V = eqattn.rep(G, "2xregular")                         # the one rep notation (SPEC §2)
    prob = eqattn.Problem(G, V, heads=2, head_dim=2)       # (G, V, H, d), SPEC §1
    prob.vanilla_params                                    # 4 H d dim V = 256
    len(prob.clusterings())                                # the G-clusterings, SPEC §4.2
    design = eqattn.optimal_design(prob, time_limit=30)    # fewest parameters (208), SPEC §5.5
    assert design.covers(prob)                             # every clustering covered, SPEC §4.5
    design.to_json()                                       # what the CLI and the page print

Why ``optimal_design`` and not ``optimize``: ``eqattn.optimize`` is the optimiser
*subpackage* (its ``optimize(problem)`` returns the full result: status, proven lower
bound, constrained-vanilla answer, timings). A top-level function of the same name would
be shadowed by the subpackage as soon as anything imports it, so the convenience function
that returns just the design is :func:`optimal_design`.

Layering: this module uses the layers up to the optimiser, never ``torch`` or ``fastapi``;
the PyTorch layer is ``eqattn.torch.EquivariantAttention.from_design(design)``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

from .attention import Clustering, Verdict, check_coverage, clusterings, count_clusterings
from .attention import Design as _CoreDesign
from .attention import Problem as _CoreProblem
from .attention.problem import MAX_DIM_V, MAX_HEAD_DIM, MAX_HEADS
from .attention.problem import positive_int as _positive_int
from .errors import InputError, LimitError
from .groups import FiniteGroup, get_group
from .reps import Rep, parse_rep

__all__ = ["group", "rep", "Problem", "Design", "optimal_design"]


def group(spec: str) -> FiniteGroup:
    """The group named ``spec``: a catalog name (``"D4"``, ``"Oh"``, ``"C2xC4"``) or a custom
    ``perm:(1,2,3),(1,2)`` / ``mat:[[0,-1],[1,0]]`` group (README "Groups"; SPEC §0).

    >>> group("D4").order
    8
    """
    if not isinstance(spec, str):
        raise InputError("group", f"a group name such as 'D4' or 'perm:(1,2,3)', got {type(spec).__name__}")
    return get_group(spec)


def rep(G: FiniteGroup, text: str) -> Rep:
    """The representation of ``G`` written ``text`` in the rep notation (``"2xA1 + E1"``, presets
    ``trivial``, ``regular``, ``vector``, ``perm:<subgroup>``; SPEC §2).

    >>> str(rep(group("C4"), "regular"))
    'A + B + E1'
    """
    if not isinstance(G, FiniteGroup):
        raise InputError("group", f"a group from eqattn.group(...), got {type(G).__name__}")
    return parse_rep(text, G.subgroup_classes[-1], field="rep")


@dataclass(frozen=True, eq=False)
class Problem(_CoreProblem):
    """``G`` acting on ``V`` (dim ``n``) and a vanilla layer of ``heads`` heads of dimension
    ``head_dim`` (SPEC §1); ``P_vanilla = 4 H d n``.

    The core problem (:class:`eqattn.attention.Problem`) with its fields checked and the
    questions of the Python API as methods.

    >>> G = group("C4"); Problem(G, rep(G, "E1"), heads=2, head_dim=1).vanilla_params
    16
    """

    def __post_init__(self) -> None:
        if not isinstance(self.group, FiniteGroup):
            raise InputError("group", f"a group from eqattn.group(...), got {type(self.group).__name__}")
        if not isinstance(self.V, Rep):
            raise InputError("rep", f"a representation from eqattn.rep(G, text), got {type(self.V).__name__}")
        if self.V.sub is not self.group.subgroup_classes[-1]:
            raise InputError("rep", f"V must be a representation of {self.group.name} itself (eqattn.rep(G, text))")
        if self.V.dim == 0:
            raise InputError("rep", "V must be non-zero")
        if self.V.dim > MAX_DIM_V:
            raise LimitError("rep", f"dim V = {self.V.dim}; at most {MAX_DIM_V} is supported")
        for field, value, limit in (("heads", self.heads, MAX_HEADS), ("head_dim", self.head_dim, MAX_HEAD_DIM)):
            if not isinstance(value, int) or _positive_int(value, field, limit) != value:
                raise InputError(field, f"must be a whole number from 1 to {limit}, got {value!r}")

    @staticmethod
    def create(group: str | FiniteGroup, rep: str, heads: int | str, head_dim: int | str) -> "Problem":
        """From text, as the CLI reads it: ``Problem.create("C4", "E1", 2, 1)``."""
        core = _CoreProblem.create(group, rep, heads, head_dim)
        return Problem(core.group, core.V, core.heads, core.head_dim)

    def clusterings(self) -> tuple[Clustering, ...]:
        """The G-clusterings of the heads (SPEC §4.2), in a deterministic order."""
        return clusterings(self)

    def count_clusterings(self) -> int:
        """How many G-clusterings there are (without listing them)."""
        return count_clusterings(self)


@dataclass(frozen=True)
class Design(_CoreDesign):
    """A list of orbits ``(K, W)``: ``[G:K]`` heads of dimension ``dim W`` each (SPEC §3).

    The core design (:class:`eqattn.attention.Design`) with the coverage check as a method.
    """

    @staticmethod
    def of(design: _CoreDesign) -> "Design":
        """The API's view of a core design (same problem, same orbits)."""
        return design if isinstance(design, Design) else Design(design.problem, design.orbits)

    @staticmethod
    def create(problem: _CoreProblem, orbits: Sequence[tuple[str | int, str]]) -> "Design":
        """Orbits as ``(subgroup id or name, rep over that subgroup)``: ``Design.create(prob, [("C2", "B")])``."""
        return Design.of(_CoreDesign.create(problem, orbits))

    @staticmethod
    def from_json(problem: _CoreProblem, data: object) -> "Design":
        """The inverse of ``to_json`` (the orbits' subgroup and rep are read)."""
        return Design.of(_CoreDesign.from_json(problem, data))

    @staticmethod
    def regular(problem: _CoreProblem) -> "Design":
        """H copies of the regular orbit ``(C1, d x trivial)``: ``P = P_vanilla`` (SPEC §3)."""
        return Design.of(_CoreDesign.regular(problem))

    def check(self, problem: _CoreProblem | None = None) -> tuple[Verdict, ...]:
        """One verdict per G-clustering, each with its witnesses or a counterexample (SPEC §4.5).

        ``problem`` defaults to the design's own; another problem must be the same ``(G, V, H, d)``.
        """
        return check_coverage(self._problem(problem), self)

    def covers(self, problem: _CoreProblem | None = None) -> bool:
        """Whether the design covers every G-clustering (SPEC §4.5)."""
        return all(v.covered for v in self.check(problem))

    def _problem(self, problem: _CoreProblem | None) -> _CoreProblem:
        if problem is None or problem is self.problem:
            return self.problem
        same = (problem.group is self.problem.group and str(problem.V) == str(self.problem.V)
                and problem.heads == self.problem.heads and problem.head_dim == self.problem.head_dim)
        if not same:
            raise InputError("problem", "the design was made for a different (G, V, H, d)")
        return self.problem


def optimal_design(problem: _CoreProblem, time_limit: float | None = 30.0, *, threads: int | None = None) -> Design:
    """The covering design with the fewest parameters (SPEC §5.5; ties: fewer heads, then a
    smaller largest head), found by the optimiser within ``time_limit`` seconds.

    When the time limit stops the search before optimality is proven, the best covering design
    found is returned; ``eqattn.optimize.optimize(problem)`` gives the full result (status,
    lower bound, constrained-vanilla answer).

    >>> G = group("C4"); optimal_design(Problem(G, rep(G, "E1"), heads=2, head_dim=1)).params
    8
    """
    from .optimize import optimize

    result = optimize(problem, time_limit, constrained=False, threads=threads)
    return Design.of(result.design)
