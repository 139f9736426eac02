"""A grid file (TOML) expanded to normalised problems, each keyed by a hash.

A grid names groups, the V's of each group, the head counts H and the head dimensions d
(SPEC §1: one problem is (G, V, H, d)); `eqattn atlas` solves every problem of the grid
(SPEC §5.5). Example (examples/atlas-small.toml)::

    time_limit = 10                 # seconds per problem (the optimiser's limit)
    solver = "highs"                # the integer programming solver (eqattn.optimize.BACKENDS)
    heads = [1, 2]
    head_dims = [1, 2]              # or head_dims = "dim V / H"

    [[group]]
    name = "C3"                     # catalog name or perm:(1,2,3),(1,2)
    reps = ["regular", "A + E1"]    # presets (regular, vector, trivial, perm:K) or irrep sums

    [[group]]
    name = "D4"
    label = "D4"                    # optional: the name reports show (e.g. for perm: groups)
    reps = ["irreps>=2"]            # every real irrep of dimension >= 2, in catalog order
    heads = [1, 2, 4]               # per-group override of heads / head_dims

`head_dims = "dim V / H"` gives d = dim V / H for the H that divide dim V (the others are
left out). A problem is normalised to the catalog's group name, V in the one notation
(`format_rep`), H, d, the time limit and the solver; its key is the first 16 hex digits of the
SHA-256 of that JSON together with the engine version, so a rerun finds what is finished and
a new engine version recomputes everything. Identical problems in one grid are kept once.
"""

from __future__ import annotations

import hashlib
import json
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..attention.problem import MAX_DIM_V, MAX_HEAD_DIM, MAX_HEADS
from ..errors import InputError, LimitError, short_repr, whole_number

MAX_PROBLEMS = 100_000
DIV_HEAD_DIMS = "dim V / H"
DEFAULT_TIME_LIMIT = 30.0
_GROUP_KEYS = {"name", "label", "reps", "heads", "head_dims"}
_TOP_KEYS = {"time_limit", "solver", "heads", "head_dims", "group", "title"}


@dataclass(frozen=True)
class GridProblem:
    """One normalised problem of a grid; `position` is its place in the grid file."""

    key: str
    position: int
    group: str  # the catalog's name of the group
    rep_input: str  # V as written in the grid
    rep: str  # V in the one notation
    dim_v: int
    heads: int
    head_dim: int
    time_limit: float
    solver: str
    engine: str
    label: str = ""  # the name reports show (the grid's `label`, else the group's name)

    def normalised(self) -> dict[str, Any]:
        """The input the key hashes (without the engine version)."""
        return {
            "group": self.group,
            "rep": self.rep,
            "heads": self.heads,
            "head_dim": self.head_dim,
            "time_limit": self.time_limit,
            "solver": self.solver,
        }

    def to_json(self) -> dict[str, Any]:
        return {
            "key": self.key,
            "position": self.position,
            "group": self.group,
            "rep_input": self.rep_input,
            "rep": self.rep,
            "dim_v": self.dim_v,
            "heads": self.heads,
            "head_dim": self.head_dim,
            "time_limit": self.time_limit,
            "solver": self.solver,
            "engine": self.engine,
            "label": self.label or self.group,
        }

    @staticmethod
    def from_json(data: dict[str, Any]) -> "GridProblem":
        return GridProblem(**{k: data[k] for k in GridProblem.__dataclass_fields__ if k in data})


@dataclass(frozen=True)
class Grid:
    """The expanded grid: its problems in file order and how many `dim V / H` left out."""

    title: str
    problems: tuple[GridProblem, ...]
    left_out: int = 0


def engine_version() -> str:
    """`eqattn <version>; highspy <version>`: what a stored result was computed with."""
    from importlib.metadata import PackageNotFoundError, version

    from .. import __version__

    try:
        highs = version("highspy")
    except PackageNotFoundError:  # pragma: no cover - highspy is a dependency of the optimiser
        highs = "none"
    return f"eqattn {__version__}; highspy {highs}"


def problem_key(normalised: dict[str, Any], engine: str) -> str:
    """sha256(JSON of the normalised input + engine version), 16 hex digits.

    >>> len(problem_key({"group": "C2", "rep": "A + B", "heads": 1, "head_dim": 1}, "e"))
    16
    """
    text = json.dumps({"input": normalised, "engine": engine}, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def _int_list(value: Any, field: str, limit: int) -> list[int]:
    """Whole numbers from 1 to `limit` (the core's MAX_HEADS / MAX_HEAD_DIM), checked before
    any problem is built, so a huge entry is one line and never reaches the store."""
    items = value if isinstance(value, list) else [value]
    out: list[int] = []
    for v in items:
        out.append(whole_number(v, field, 1, limit))
    if not out:
        raise InputError(field, "must not be empty")
    return out


def _head_dims(value: Any, field: str) -> list[int] | str:
    if isinstance(value, str):
        if " ".join(value.split()) != DIV_HEAD_DIMS:
            raise InputError(field, f"a list of whole numbers or {DIV_HEAD_DIMS!r}, got {short_repr(value)}")
        return DIV_HEAD_DIMS
    return _int_list(value, field, MAX_HEAD_DIM)


def _expand_reps(group: str, reps: Any, field: str) -> tuple[str, list[tuple[str, str, int]]]:
    """The group's catalog name and (V as written, V in the one notation, dim V) for each
    entry; `irreps>=k` expands to the irreps of dimension >= k."""
    from ..groups.catalog import get_group, group_for_rep
    from ..reps import irreps_of, parse_rep

    if not isinstance(reps, list) or not reps or not all(isinstance(r, str) for r in reps):
        raise InputError(field, "a non-empty list of representations, e.g. [\"regular\", \"A + E1\"]")
    try:
        G = get_group(group)
    except InputError as e:
        raise InputError(field.rsplit(".", 1)[0] + ".name", e.message) from None
    top = G.subgroup_classes[-1]
    out: list[tuple[str, str, int]] = []
    for i, text in enumerate(reps):
        words = text.replace(" ", "")
        if words.startswith("irreps>="):
            digits = words[len("irreps>="):]
            if not digits.isdigit():
                raise InputError(f"{field}[{i}]", f"write irreps>=k with a whole number k, got {short_repr(text)}")
            if len(digits) > 4 or not 1 <= int(digits) <= MAX_DIM_V:
                raise LimitError(f"{field}[{i}]", f"irreps>=k needs k from 1 to {MAX_DIM_V} (dim V is at most "
                                 f"{MAX_DIM_V}), got {short_repr(text)}")
            irr = irreps_of(top)
            out += [(lab, str(parse_rep(lab, top)), int(dm)) for lab, dm in zip(irr.labels, irr.dims)
                    if dm >= int(digits) and not lab.startswith("~")]  # "~": a compact group's out-of-band slots
            continue
        here = top
        if G.compact is not None:  # a compact group at the band this V names (as Problem.create takes it)
            try:
                here = group_for_rep(group, text).subgroup_classes[-1]
            except InputError as e:  # the band past the limit (a LimitError stays one)
                raise type(e)(f"{field}[{i}]", e.message) from None
        V = parse_rep(text, here, field=f"{field}[{i}]")
        if V.dim == 0:
            raise InputError(f"{field}[{i}]", "V must be non-zero")
        out.append((text, str(V), V.dim))
    if not out:  # e.g. only irreps>=2 for an abelian group: a grid-wide pattern that fits no irrep here
        irr = irreps_of(top)
        raise InputError(field, f"select no representation of {G.name} (its irreps have dimension at most "
                         f"{max(int(x) for x in irr.dims)}); add one such as \"regular\"")
    return G.name, out


def parse_grid(data: dict[str, Any], title: str = "grid") -> Grid:
    """The problems of a grid given as parsed TOML (see the module docstring)."""
    unknown = set(data) - _TOP_KEYS
    if unknown:
        raise InputError(sorted(unknown)[0], f"unknown grid key; allowed: {', '.join(sorted(_TOP_KEYS))}")
    tl = data.get("time_limit", DEFAULT_TIME_LIMIT)
    if isinstance(tl, bool) or not isinstance(tl, (int, float)) or not 0 < tl <= 3600:
        raise InputError("time_limit", f"seconds per problem, a number in (0, 3600], got {short_repr(tl)}")
    title = data.get("title", title)
    if not isinstance(title, str) or len(title) > 200:
        raise InputError("title", "the report's title, a string of at most 200 characters")
    from ..optimize import BACKENDS

    solver = data.get("solver", "highs")
    if solver not in BACKENDS:
        raise InputError("solver", f"one of {', '.join(BACKENDS)}, got {solver!r}")
    heads = _int_list(data.get("heads", [1]), "heads", MAX_HEADS)
    head_dims = _head_dims(data.get("head_dims", [1]), "head_dims")
    groups = data.get("group")
    if not isinstance(groups, list) or not groups:
        raise InputError("group", "at least one [[group]] table with name and reps")
    engine = engine_version()
    problems: list[GridProblem] = []
    seen: set[str] = set()
    left_out = 0
    count = 0
    for gi, entry in enumerate(groups):
        field = f"group[{gi}]"
        if not isinstance(entry, dict):
            raise InputError(field, "a table with name and reps")
        bad = set(entry) - _GROUP_KEYS
        if bad:
            raise InputError(f"{field}.{sorted(bad)[0]}", f"unknown key; allowed: {', '.join(sorted(_GROUP_KEYS))}")
        name = entry.get("name")
        if not isinstance(name, str) or not name.strip():
            raise InputError(f"{field}.name", "a catalog group name (eqattn groups) or perm:...")
        label = entry.get("label", "")
        if not isinstance(label, str) or len(label) > 40:
            raise InputError(f"{field}.label", "a short name for reports (at most 40 characters)")
        g_heads = _int_list(entry["heads"], f"{field}.heads", MAX_HEADS) if "heads" in entry else heads
        g_dims = _head_dims(entry["head_dims"], f"{field}.head_dims") if "head_dims" in entry else head_dims
        gname, reps = _expand_reps(name.strip(), entry.get("reps"), f"{field}.reps")
        for written, rep, dim_v in reps:
            for H in g_heads:
                dims = g_dims
                if dims == DIV_HEAD_DIMS:
                    if dim_v % H:
                        left_out += 1
                        continue
                    dims = [dim_v // H]
                for d in dims:
                    count += 1
                    if count > MAX_PROBLEMS:
                        raise LimitError("group", f"a grid of at most {MAX_PROBLEMS} problems is supported")
                    norm = {"group": gname, "rep": rep, "heads": H, "head_dim": d, "time_limit": float(tl), "solver": solver}
                    key = problem_key(norm, engine)
                    if key in seen:
                        continue
                    seen.add(key)
                    problems.append(
                        GridProblem(key, len(problems), gname, written, rep, dim_v, H, d, float(tl), solver, engine, label.strip() or gname)
                    )
    if not problems:
        raise InputError("head_dims", f"the grid has no problem: {DIV_HEAD_DIMS!r} left out all {left_out} "
                         f"(no H divides dim V); give head_dims as a list")
    return Grid(title, tuple(problems), left_out)


def load_grid(path: str | Path, time_limit: float | None = None) -> Grid:
    """Read and expand a grid file (UTF-8 TOML); a bad file is an InputError naming the key.
    `time_limit`, when given, replaces the file's `time_limit` (`eqattn atlas --time-limit`)."""
    p = Path(path)
    try:
        raw = p.read_bytes()
    except OSError as e:
        raise InputError("grid", f"cannot read {str(p)!r}: {e.strerror or e}") from None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as e:
        raise InputError("grid", f"{p.name} is not UTF-8 text (byte {e.start} is 0x{raw[e.start]:02x}); "
                         f"save the grid file as UTF-8") from None
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        raise InputError("grid", f"{p.name} is not valid TOML: {e}") from None
    if time_limit is not None:
        data["time_limit"] = time_limit
    return parse_grid(data, title=p.stem)
