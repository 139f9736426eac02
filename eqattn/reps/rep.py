"""Representations as multiplicities over a subgroup's real irreps; the one text notation
`2xA1 + E1` (parse_rep / format_rep), presets, and the operations of SPEC §0:
restriction, induction, conjugation, min, <=, dim Hom."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Iterable

import numpy as np

from ..errors import InputError, LimitError
from .compact_labels import in_band
from .irreps import IrrepSet, irreps_of

if TYPE_CHECKING:
    from ..groups import FiniteGroup, SubgroupClass

PRESETS = ("trivial", "regular", "vector", "perm:<subgroup>")
# The largest multiplicity one term may give (checked before any arithmetic, so a huge
# number is refused with this limit instead of overflowing int64).
MAX_MULTIPLICITY = 1_000_000
_TERM = re.compile(r"^\s*(?:(\d+)\s*x\s*)?(\S.*?)\s*$")


@dataclass(frozen=True)
class Rep:
    """A real representation of the subgroup class representative `sub.elements`."""

    sub: "SubgroupClass"
    mults: tuple[int, ...]

    @property
    def irreps(self) -> IrrepSet:
        return irreps_of(self.sub)

    @property
    def dim(self) -> int:
        return int(np.dot(self.mults, self.irreps.dims))

    @property
    def character(self) -> np.ndarray:
        """Length-|G| array, zero outside K."""
        return np.asarray(self.mults, dtype=float) @ self.irreps.chars

    def __str__(self) -> str:
        return format_rep(self)

    def __add__(self, other: "Rep") -> "Rep":
        self._same(other)
        return Rep(self.sub, tuple(a + b for a, b in zip(self.mults, other.mults)))

    def __le__(self, other: "Rep") -> bool:
        self._same(other)
        return all(a <= b for a, b in zip(self.mults, other.mults))

    def min(self, other: "Rep") -> "Rep":
        self._same(other)
        return Rep(self.sub, tuple(min(a, b) for a, b in zip(self.mults, other.mults)))

    def _same(self, other: "Rep") -> None:
        if other.sub is not self.sub:
            raise ValueError("representations of different subgroups")

    def is_zero(self) -> bool:
        return not any(self.mults)

    def hom_dim(self, other: "Rep") -> int:
        """dim Hom_K(self, other) = sum m m' e."""
        self._same(other)
        return int(np.sum(np.array(self.mults) * np.array(other.mults) * self.irreps.es))

    def restrict(self, target: "SubgroupClass") -> "Rep":
        """Restriction to the representative of `target` (which must lie in this one)."""
        if not self.sub.mask[target.elements].all():
            raise ValueError(f"{target.name} is not contained in {self.sub.name}")
        return decompose(target, self.character)

    def matrices(self) -> np.ndarray:
        """(|K|, dim, dim) block-diagonal orthogonal matrices, in the order of sub.elements."""
        return block_matrices(self.irreps, self.mults)


def block_matrices(irr: IrrepSet, mults: Iterable[int]) -> np.ndarray:
    mults = list(mults)
    m = irr.sub.order
    dim = int(np.dot(mults, irr.dims))
    out = np.zeros((m, dim, dim))
    pos = 0
    for i, k in enumerate(mults):
        d = int(irr.dims[i])
        for _ in range(k):
            out[:, pos : pos + d, pos : pos + d] = irr.matrices[i]
            pos += d
    return out


def zero(sub: "SubgroupClass") -> Rep:
    return Rep(sub, (0,) * len(irreps_of(sub)))


def decompose(sub: "SubgroupClass", character: np.ndarray, field: str = "rep") -> Rep:
    """Multiplicities m_s = <chi, chi_s>_K / e_s of a character (array over G) on K.

    Band irreps (Lemma 8, docs/theory-continuous.md §8) are not orthogonal on K's finite
    stand-in, only linearly independent: there m is the unique solution of
    Σ_s m_s chi_s|K = chi|K, and a character outside their span is refused like a
    non-integral one.

        >>> from eqattn.groups import get_group
        >>> G = get_group("SO3", band=3); K = G.subgroup_classes[-1]
        >>> decompose(K, 2 * irreps_of(K).chars[3] + irreps_of(K).chars[0]).mults
        (1, 0, 0, 2)
    """
    irr = irreps_of(sub)
    K = sub.elements
    chi = np.real(character[K])
    if irr.band:
        A = irr.chars[:, K].T
        raw, *_ = np.linalg.lstsq(A, chi, rcond=None)
        if np.abs(A @ raw - chi).max() > 1e-6 * max(1.0, float(np.abs(chi).max())):
            raise InputError(field, f"not a representation of {sub.name} inside the band of this problem "
                             f"({sub.group.compact.band_text})")
    else:
        raw = (irr.chars[:, K] @ chi) / (sub.order * irr.es)
    m = np.round(raw)
    if not np.allclose(raw, m, atol=1e-6) or (m < 0).any():
        raise InputError(field, f"not a representation of {sub.name} (multiplicities {np.round(raw, 4).tolist()})")
    return Rep(sub, tuple(int(x) for x in m))


def induce_character(G: "FiniteGroup", chi: np.ndarray, L: np.ndarray, K: np.ndarray) -> np.ndarray:
    """Ind_L^K chi (SPEC §0): chi'(g) = (1/|L|) sum_{x in K} chi(x^-1 g x), chi zero outside L."""
    conj = G.conj_table[G.inv[K]][:, K]  # [x, g] = x^-1 g x
    out = np.zeros(G.order)
    out[K] = chi[conj].sum(axis=0) / L.size
    return out


def conjugate_character(G: "FiniteGroup", chi: np.ndarray, a: int) -> np.ndarray:
    """chi^a(k) = chi(a k a^-1): the character of U^a on a^-1 L a (SPEC §0)."""
    return chi[G.conj_table[a]]


def preset_character(sub: "SubgroupClass", name: str, field: str = "rep") -> np.ndarray:
    G = sub.group
    K = sub.elements
    out = np.zeros(G.order)
    low = name.strip()
    if low in ("regular", "perm") or low.startswith("perm:"):
        if G.compact is not None:
            raise InputError(field, f"{G.name} is a compact group: it has no regular or permutation "
                             "representation of finite dimension; write V in its irreps, e.g. "
                             + " + ".join(f"1x{l}" if l[0].isdigit() else l for l in G.compact.labels[:2]))
    if low == "trivial":
        out[K] = 1.0
    elif low == "regular":
        out[0] = sub.order
    elif low == "vector":
        if G.matrices is None:
            raise InputError(field, f"the preset 'vector' needs a matrix group; {G.name} is not one")
        out[K] = np.einsum("gii->g", G.matrices[K])
    elif low.startswith("perm:"):
        if sub.order != G.order:
            raise InputError(field, "perm:<subgroup> is available for representations of G itself")
        L = G.lattice.resolve(low[5:].strip(), field=field)
        lm = L.mask
        # number of cosets xL fixed by g = #{x : x^-1 g x in L} / |L|
        conj = G.conj_table[G.inv]  # [x, g] = x^-1 g x
        out = lm[conj].sum(axis=0) / L.order
    else:
        raise KeyError(name)
    return out


def parse_rep(text: str, sub: "SubgroupClass", field: str = "rep") -> Rep:
    """Parse `2xA1 + E1` (labels of sub's irreps; presets trivial, regular, vector, perm:K)."""
    irr = irreps_of(sub)
    if not isinstance(text, str) or not text.strip():
        raise InputError(field, f"empty representation; write e.g. '2x{irr.labels[-1]} + {irr.labels[0]}' or '0'")
    mults = np.zeros(len(irr), dtype=np.int64)
    if text.strip() == "0":
        return Rep(sub, tuple(int(x) for x in mults))
    for term in _split_terms(text):
        if re.match(r"^\s*-", term):
            raise InputError(field, f"negative multiplicity in {term.strip()!r}: multiplicities are whole numbers >= 0")
        m = _TERM.match(term)
        if not m or not term.strip():
            raise InputError(field, f"cannot read {term.strip()!r}: write terms like '2xA1', joined by '+'")
        k = _multiplicity(m.group(1), term, field)
        lab = m.group(2)
        idx = _lookup(irr, lab)
        if idx is not None:
            mults[idx] += k
            continue
        try:
            chi = preset_character(sub, lab, field)
        except KeyError:
            raise InputError(field, unknown_term(sub, lab)) from None
        part = np.array(decompose(sub, chi, field).mults)
        if sub.group.compact is not None and any(part[i] for i, l in enumerate(irr.labels) if not in_band(l)):
            raise InputError(field, f"{lab!r} uses irreps outside the band of this problem ({sub.group.compact.band_text}, set by V)")
        mults += k * part
    return Rep(sub, tuple(int(x) for x in mults))


_NUMBERISH = re.compile(r"^([0-9.][0-9.eE+_,]*)\s*x\s*(\S.*)$")
_GLUED = re.compile(r"^(\d+)(\S.*)$")


def presets_of(sub: "SubgroupClass") -> tuple[str, ...]:
    """The presets a representation of `sub` may use (vector: G is a matrix group; perm: K = G)."""
    if sub.group.compact is not None:
        return ("trivial", "vector")
    out = ["trivial", "regular"]
    if sub.group.matrices is not None:
        out.append("vector")
    if sub.order == sub.group.order:
        out.append("perm:<subgroup>")
    return tuple(out)


def unknown_term(sub: "SubgroupClass", lab: str) -> str:
    """Why `lab` (a term without a valid `kx` prefix) is not a representation of `sub`, in the
    user's terms: a bad multiplicity (`1e30xE1`, `2.5xB`), a missing x (`2E1`: did you mean
    `2xE1`), or an unknown irrep with the labels (and the presets) that exist.

    >>> from eqattn.groups import get_group
    >>> C4 = get_group("C4").subgroup_classes[-1]
    >>> unknown_term(C4, "2E1")
    "unknown irrep '2E1' of C4; did you mean '2xE1'? (a multiplicity is written 2x before the irrep)"
    >>> unknown_term(C4, "1e30xE1")
    "bad multiplicity '1e30' in '1e30xE1': a multiplicity is a whole number from 0 to 1000000, e.g. '2xE1'"
    """
    irr = irreps_of(sub)
    text = lab.strip()
    if sub.group.compact is not None:
        why = compact_unknown(sub, text)
        if why:
            return why
    num = _NUMBERISH.match(text)
    if num and not num.group(1).isdigit():
        good = num.group(2) if _lookup(irr, num.group(2)) is not None else irr.labels[-1]
        return (f"bad multiplicity {num.group(1)!r} in {text!r}: a multiplicity is a whole number "
                f"from 0 to {MAX_MULTIPLICITY}, e.g. '2x{good}'")
    glued = _GLUED.match(text.replace(" ", ""))
    if glued and (_lookup(irr, glued.group(2)) is not None or glued.group(2) in ("trivial", "regular", "vector")):
        return (f"unknown irrep {text!r} of {sub.name}; did you mean '{glued.group(1)}x{glued.group(2)}'? "
                f"(a multiplicity is written {glued.group(1)}x before the irrep)")
    import difflib

    labels = [lab for lab in irr.labels if in_band(lab)]
    close = difflib.get_close_matches(text, [*labels, *presets_of(sub)[:2]], n=1, cutoff=0.6)
    hint = f" (did you mean {close[0]!r}?)" if close else ""
    return f"unknown irrep {text!r} of {sub.name}{hint}; irreps: {', '.join(labels)}; presets: {', '.join(presets_of(sub))}"


def compact_unknown(sub: "SubgroupClass", text: str) -> str | None:
    """Why `text` is not an irrep of a compact group's class, when it looks like one: outside
    the band, a parity on SO3, a missing parity on O3. None otherwise.

        >>> from eqattn.groups import get_group
        >>> compact_unknown(get_group("O3", band=1).subgroup_classes[-1], "2e")
        "irrep '2e' is outside the band of this problem (degrees l <= 1, set by V's largest irrep); the irreps of O3 here: 0e, 0o, 1o, 1e"
    """
    info = sub.group.compact
    assert info is not None
    kind = sub.type_name
    labs = [l for l in irreps_of(sub).labels if in_band(l)]
    lab = text.replace(" ", "")
    m = re.fullmatch(r"(\d+)([eo]?)", lab) if kind in ("SO3", "O3") else re.fullmatch(r"(?:E(\d+)|A[12]?)", lab)
    if m is None:
        return None
    if kind == "SO3" and m.group(2):
        return f"SO3 irreps carry no parity: write {m.group(1)!r} for {lab!r} (O3 has {lab!r}); the irreps here: {', '.join(labs)}"
    if kind == "O3" and not m.group(2):
        return f"O3 irreps carry a parity: write '{lab}e' or '{lab}o' (e3nn notation); the irreps here: {', '.join(labs)}"
    if kind in ("SO2", "O2") and lab.startswith("A") and lab not in labs:
        return f"{kind}'s one-dimensional irreps are {', '.join(l for l in labs if l.startswith('A'))}; the irreps here: {', '.join(labs)}"
    return (f"irrep {lab!r} is outside the band of this problem ({info.band_text}, set by V's largest irrep); "
            f"the irreps of {kind} here: {', '.join(labs)}")


def _multiplicity(digits: str | None, term: str, field: str) -> int:
    """The `k` of `kxA`, at most MAX_MULTIPLICITY (checked on the digits, before int())."""
    if not digits:
        return 1
    stripped = digits.lstrip("0") or "0"
    if len(stripped) > len(str(MAX_MULTIPLICITY)) or int(stripped) > MAX_MULTIPLICITY:
        shown = term.strip() if len(term.strip()) <= 40 else term.strip()[:37] + "..."
        raise LimitError(field, f"multiplicity too large in {shown!r}: at most {MAX_MULTIPLICITY} per term")
    return int(stripped)


def _split_terms(text: str) -> list[str]:
    terms, depth, cur = [], 0, ""
    for ch in text:
        if ch in "[(":
            depth += 1
        elif ch in "])":
            depth -= 1
        if ch == "+" and depth == 0:
            terms.append(cur)
            cur = ""
        else:
            cur += ch
    terms.append(cur)
    return terms


def _lookup(irr: IrrepSet, lab: str) -> int | None:
    lab = lab.replace(" ", "")
    if not in_band(lab):
        return None
    if lab in irr.labels:
        return irr.labels.index(lab)
    low = [i for i, l in enumerate(irr.labels) if l.lower() == lab.lower()]
    return low[0] if len(low) == 1 else None


def format_rep(rep: Rep) -> str:
    """The one text notation: `2xA1 + E1`, irreps in display order; `0` for the zero rep.
    Labels that start with a digit (e3nn's `0e`, `1o`) always carry their multiplicity:
    `1x0e + 2x1o`, as e3nn writes them."""
    labels = rep.irreps.labels
    terms = [(lab if k == 1 and not lab[0].isdigit() else f"{k}x{lab}") for lab, k in zip(labels, rep.mults) if k]
    return " + ".join(terms) if terms else "0"
