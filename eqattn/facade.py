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

Errors: a bad value raises :class:`eqattn.errors.InputError` (a ``ValueError``) naming the
argument; an argument of the wrong type raises :class:`eqattn.errors.InputTypeError`, which is
both a ``TypeError`` and an ``InputError``; a value beyond a supported size raises
``LimitError`` (README "Errors and exit statuses"). Whole numbers may be any integral type
(``int``, ``numpy.int64``), never ``bool`` or ``float``.

Layering: this module uses the layers up to the optimiser, never ``torch`` or ``fastapi``;
the PyTorch layer is ``eqattn.torch.EquivariantAttention.from_design(design)``.
"""

from __future__ import annotations

import numbers
from dataclasses import dataclass
from typing import Sequence

from .attention import Clustering, Verdict, check_coverage, clusterings, count_clusterings
from .attention import Design as _CoreDesign
from .attention import Problem as _CoreProblem
from .attention.problem import MAX_DIM_V, MAX_HEAD_DIM, MAX_HEADS
from .errors import InputError, InputTypeError, LimitError, whole_number
from .groups import FiniteGroup, get_group
from .reps import Rep, parse_rep

__all__ = ["group", "rep", "Problem", "Design", "optimal_design", "OptimalDesign", "NoDesign"]

MAX_THREADS = 1024  # solver threads a caller may ask for


def group(spec: str, band: int | None = None) -> FiniteGroup:
    """The group named ``spec``: a catalog name (``"D4"``, ``"Oh"``, ``"C2xC4"``) or a custom
    ``perm:(1,2,3),(1,2)`` / ``mat:[[0,-1],[1,0]]`` group (README "Groups"; SPEC §0). A compact
    group ``SO2 O2 SO3 O3`` is its finite stand-in for ``band`` (the largest l or frequency k
    V may use; None: l <= 2, k <= 8; docs/theory-continuous.md §6).

    >>> group("D4").order
    8
    >>> group("SO2", band=7).compact.stand_in
    'C15'
    >>> group(5)
    Traceback (most recent call last):
    eqattn.errors.InputTypeError: group: a group name such as 'D4' or 'perm:(1,2,3)', got int
    """
    if not isinstance(spec, str):
        raise InputTypeError("group", f"a group name such as 'D4' or 'perm:(1,2,3)', got {type(spec).__name__}")
    if band is not None:
        band = whole_number(band, "band", 0, 1000)
    return get_group(spec, band=band)


def _problem_arg(problem: object, field: str = "problem") -> _CoreProblem:
    """``problem`` when it is a Problem, else InputTypeError saying what is expected."""
    if not isinstance(problem, _CoreProblem):
        raise InputTypeError(field, f"an eqattn.Problem(G, V, heads, head_dim), got {type(problem).__name__}")
    return problem


def rep(G: FiniteGroup, text: str) -> Rep:
    """The representation of ``G`` written ``text`` in the rep notation (``"2xA1 + E1"``, presets
    ``trivial``, ``regular``, ``vector``, ``perm:<subgroup>``; SPEC §2).

    >>> str(rep(group("C4"), "regular"))
    'A + B + E1'
    """
    if not isinstance(G, FiniteGroup):
        raise InputTypeError("group", f"a group from eqattn.group(...), got {type(G).__name__}")
    if not isinstance(text, str):
        raise InputTypeError("rep", f"a representation in the rep notation such as '2xA1 + E1', got {type(text).__name__}")
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
            raise InputTypeError("group", f"a group from eqattn.group(...), got {type(self.group).__name__}")
        if not isinstance(self.V, Rep):
            raise InputTypeError("rep", f"a representation from eqattn.rep(G, text), got {type(self.V).__name__}")
        if self.V.sub is not self.group.subgroup_classes[-1]:
            raise InputError("rep", f"V must be a representation of {self.group.name} itself (eqattn.rep(G, text))")
        if self.V.dim == 0:
            raise InputError("rep", "V must be non-zero")
        if self.V.dim > MAX_DIM_V:
            raise LimitError("rep", f"dim V = {self.V.dim}; at most {MAX_DIM_V} is supported")
        for field, value, limit in (("heads", self.heads, MAX_HEADS), ("head_dim", self.head_dim, MAX_HEAD_DIM)):
            object.__setattr__(self, field, whole_number(value, field, 1, limit))  # numpy.int64(2) -> 2

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


def _check_optimal_design_args(problem: object, time_limit: object, threads: object) -> None:
    """The argument types of :func:`optimal_design`, before any work (the optimiser checks the
    ranges): a Problem, ``time_limit`` None or a real number of seconds (not ``True``),
    ``threads`` None or a whole number >= 1."""
    _problem_arg(problem)
    if time_limit is not None and (isinstance(time_limit, bool) or not isinstance(time_limit, numbers.Real)):
        raise InputTypeError("time_limit", f"a number of seconds or None, got {type(time_limit).__name__} {time_limit!r}")
    if threads is not None:
        whole_number(threads, "threads", 1, MAX_THREADS)


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
        return Design.of(_CoreDesign.regular(_problem_arg(problem)))

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
        _problem_arg(problem)
        same = (problem.group is self.problem.group and str(problem.V) == str(self.problem.V)
                and problem.heads == self.problem.heads and problem.head_dim == self.problem.head_dim)
        if not same:
            raise InputError("problem", "the design was made for a different (G, V, H, d)")
        return self.problem


@dataclass(frozen=True)
class OptimalDesign(Design):
    """The design :func:`optimal_design` returns: a :class:`Design` (so everything that takes
    a design takes it) that also says how sure it is.

    * ``status``: ``"optimal"`` (proven: no covering design within the budget has fewer
      parameters) or ``"feasible"`` (a limit stopped the search; the design covers every
      clustering and is within the budget, but may not be the cheapest);
    * ``proven``: ``status == "optimal"``;
    * ``lower_bound``: a proven lower bound on the parameters of every covering design within
      the budget; ``gap = (params - lower_bound) / params`` (0 when proven);
    * ``reason``: one line in plain words.
    """

    status: str = "optimal"
    lower_bound: int = 0
    reason: str = ""

    @property
    def proven(self) -> bool:
        return self.status == "optimal"

    @property
    def gap(self) -> float:
        return 0.0 if self.params <= 0 else max(0.0, (self.params - self.lower_bound) / self.params)


class NoDesign(Exception):
    """Raised by :func:`optimal_design` when it has no design to return: ``status`` is
    ``"infeasible"`` (proven: no design within the budget covers every clustering; ``reason``
    says why in one line, e.g. "every covering design has attention cost >= 2304; the budget
    is 384") or ``"unknown"`` (the time limit passed before a covering design within the
    budget was found, and none is ruled out). ``lower_bound``: a proven lower bound on the
    parameters (None when infeasible)."""

    def __init__(self, status: str, reason: str, lower_bound: int | None = None) -> None:
        super().__init__(f"{status}: {reason}")
        self.status = status
        self.reason = reason
        self.lower_bound = lower_bound


def optimal_design(
    problem: _CoreProblem,
    time_limit: float | None = 30.0,
    *,
    threads: int | None = None,
    max_heads: int | None = None,
    max_head_dim: int | None = None,
    max_cost: int | None = None,
) -> OptimalDesign:
    """The covering design with the fewest parameters (SPEC §5.5; ties: fewer heads, then a
    smaller largest head) within the budget — at most ``max_heads`` heads in all, every head
    of dimension at most ``max_head_dim``, attention cost Σ heads × head dim at most
    ``max_cost`` (each None: any) — found within ``time_limit`` seconds.

    Returns an :class:`OptimalDesign`: check ``.proven`` (or ``.status``, ``.lower_bound``,
    ``.gap``) — a limit can stop the search before the proof, and the design is then the best
    covering one found. Raises :class:`NoDesign` when there is none to return (``.status``
    ``"infeasible"``, proven, or ``"unknown"``). ``eqattn.optimize.optimize(problem)`` gives
    the optimiser's full result.

    >>> G = group("C4"); d = optimal_design(Problem(G, rep(G, "E1"), heads=2, head_dim=1))
    >>> d.params, d.proven, d.gap
    (8, True, 0.0)
    >>> try:
    ...     optimal_design(Problem(G, rep(G, "regular"), heads=2, head_dim=1), max_cost=4)
    ... except NoDesign as e:
    ...     print(e.status)
    infeasible
    """
    from .optimize.within import optimize_within

    _check_optimal_design_args(problem, time_limit, threads)
    w = optimize_within(problem, time_limit, max_heads=max_heads, max_head_dim=max_head_dim, max_cost=max_cost, threads=threads)
    if w.design is None:
        raise NoDesign(w.status, w.reason, w.lower_bound)
    return OptimalDesign(problem, w.design.orbits, w.status, w.lower_bound or 0, w.reason)
