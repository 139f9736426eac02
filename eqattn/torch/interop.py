"""Adapters to escnn and e3nn types: their representations as ``(group, rep, basis change)``.

A design's layer acts in eqattn's coordinates of V (block form in the irreps' standard
matrices). These adapters find, for a representation given by another library, the eqattn
group, the representation in eqattn's notation, and the orthogonal change of basis ``Q``
(:class:`eqattn.numeric.basis.BasisChange`); ``EquivariantAttention.from_design(design,
basis=change)`` then acts on the other library's features directly. escnn's regular
representation of D4 twice (each copy holds E1 twice, so V has 4xE1)::

    >>> import torch, eqattn
    >>> from eqattn.torch import EquivariantAttention
    >>> from escnn import group, gspaces, nn as enn
    >>> D4 = group.dihedral_group(4)
    >>> ft = enn.FieldType(gspaces.no_base_space(D4), 2 * [D4.regular_representation])
    >>> G, V, change = from_escnn(ft)
    >>> G.name, str(V), change.Q.shape
    ('D4', '2xA1 + 2xA2 + 2xB1 + 2xB2 + 4xE1', (16, 16))
    >>> prob = eqattn.Problem(G, V, heads=2, head_dim=2)
    >>> layer = EquivariantAttention.from_design(eqattn.optimal_design(prob), basis=change, dtype=torch.float64)
    >>> x = torch.randn(3, 5, ft.size, dtype=torch.float64)       # (batch, tokens, ft.size), escnn's basis
    >>> R = torch.as_tensor(ft.representation(D4.elements[3]), dtype=torch.float64)   # escnn's rho(g)
    >>> torch.allclose(layer(x @ R.T), layer(x) @ R.T)
    True

e3nn's features of O(3) (the compact group, through its finite stand-in) or restricted to a
point group::

    >>> G, V, change = from_e3nn("8x0e + 8x1o")
    >>> G.name, str(V)
    ('O3', '8x0e + 8x1o')
    >>> str(from_e3nn("8x0e + 8x1o", "Oh")[1])
    '8xA1g + 8xT1u'

The transformer-block modules (:mod:`eqattn.torch.linear`, ``norm``, ``encoder``, ...) take
the same changes as ``basis=``: :class:`Coordinates` carries a token row between the user's
coordinates and eqattn's (``x_u = x Q^T``) and gives an escnn ``GeometricTensor`` back as one.

escnn and e3nn are imported only inside these functions (extras ``eqattn[escnn]``,
``eqattn[e3nn]``). escnn groups supported: cyclic ``C_N`` and dihedral ``D_N`` (the finite
groups whose eqattn catalog name is unambiguous).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from eqattn.errors import InputError
from eqattn.groups import FiniteGroup, get_group
from eqattn.groups.compact import check_band, compact_kind
from eqattn.groups.parse import normalise
from eqattn.numeric.basis import BasisChange, basis_from_elements, identify_rep
from eqattn.reps import Rep, decompose

from .exact import ExactBuffers

__all__ = ["from_escnn", "to_escnn", "from_e3nn", "to_e3nn", "Coordinates", "NoBasis", "coordinates"]


def _escnn_group_name(group: Any) -> str:
    kind = type(group).__name__
    N = getattr(group, "N", getattr(group, "rotation_order", None))
    if kind == "CyclicGroup" and isinstance(N, int):
        return f"C{N}"
    if kind == "DihedralGroup" and isinstance(N, int):
        return f"D{N}"
    raise InputError("group", f"escnn group {getattr(group, 'name', kind)!r}: only cyclic and dihedral groups are supported")


def from_escnn(rep: Any) -> tuple[FiniteGroup, Rep, BasisChange]:
    """``(G, V, change)`` for an escnn ``Representation`` or ``FieldType`` (without base space
    or with one: only the fibre representation is used).

    ``change.matrices[g]`` is escnn's ``rho(g)``; ``rho_escnn(g) = Q rho_eqattn(g) Q^T``.

    >>> from escnn import group
    >>> C4 = group.cyclic_group(4)
    >>> G, V, change = from_escnn(C4.regular_representation)
    >>> G.name, str(V), change.error < 1e-10
    ('C4', 'A + B + E1', True)
    """
    representation = rep.representation if hasattr(rep, "gspace") else rep  # FieldType -> its fibre rep
    group = getattr(representation, "group", None)
    if group is None or not callable(representation):
        raise InputError("rep", f"an escnn Representation or FieldType, got {type(rep).__name__}")
    G = get_group(_escnn_group_name(group))
    gens = [np.asarray(representation(g), dtype=np.float64) for g in group.generators]
    V, change = identify_rep(G, gens)
    return G, V, change


def _escnn_elements(group: Any, G: FiniteGroup) -> list[Any]:
    """escnn's element for each element of G (via escnn's regular representation, faithful)."""
    reg = group.regular_representation
    gens = list(group.generators)
    mats = [np.asarray(reg(g), dtype=np.float64) for g in gens]
    S = FiniteGroup.from_matrices("escnn", mats)
    from eqattn.groups.identify import find_isomorphism

    phi = find_isomorphism(S, G, np.arange(G.order))
    if phi is None:  # pragma: no cover - escnn's C_N / D_N are C_N / D_N
        raise InputError("group", f"escnn's {group.name} is not isomorphic to {G.name}")
    out: list[Any] = [None] * G.order
    for s in range(S.order):
        e = group.identity
        for w in S.word(s):
            e = e @ gens[w]
        out[int(phi[s])] = e
    return out


def to_escnn(G: FiniteGroup, V: Rep, gspace: Any = None) -> tuple[Any, BasisChange]:
    """An escnn ``FieldType`` carrying V (a direct sum of escnn's irreps with V's multiplicities,
    matched by character) and the change of basis: ``rho_escnn(g) = Q rho_eqattn(g) Q^T``.

    ``gspace`` defaults to ``escnn.gspaces.no_base_space(group)`` for escnn's C_N / D_N.

    >>> import eqattn
    >>> G = eqattn.group("C4")
    >>> ft, change = to_escnn(G, eqattn.rep(G, "2xE1"))
    >>> ft.size, change.error < 1e-10
    (4, True)
    """
    from escnn import group as egroup
    from escnn import gspaces
    from escnn import nn as enn

    if G.name.startswith("C") and G.name[1:].isdigit():
        group = egroup.cyclic_group(int(G.name[1:]))
    elif G.name.startswith("D") and G.name[1:].isdigit():
        group = egroup.dihedral_group(int(G.name[1:]))
    else:
        raise InputError("group", f"{G.name}: only C_N and D_N have an escnn counterpart here")
    space = gspace if gspace is not None else gspaces.no_base_space(group)
    elements = _escnn_elements(group, G)
    irr = V.irreps
    chars = np.asarray(irr.chars)  # (irreps, |G|)
    chosen: list[Any] = []
    for i, m in enumerate(V.mults):
        if not m:
            continue
        match = [
            psi for psi in group.irreps()
            if np.allclose([np.trace(np.asarray(psi(e))) for e in elements], chars[i], atol=1e-8)
        ]
        if len(match) != 1:
            raise InputError("rep", f"no single escnn irrep has the character of {irr.labels[i]}")
        chosen += [match[0]] * int(m)
    field_type = enn.FieldType(space, chosen)
    mats = np.array([np.asarray(field_type.representation(e), dtype=np.float64) for e in elements])
    return field_type, basis_from_elements(G, V.matrices(), mats)


def _e3nn_irreps(irreps: Any) -> Any:
    from e3nn import o3

    try:
        ir = o3.Irreps(irreps)
    except (ValueError, TypeError, AssertionError) as e:
        raise InputError("irreps", f"e3nn Irreps or their text, such as '16x0e + 8x1o + 4x2e'; got {irreps!r} ({e})") from None
    if ir.dim == 0:
        raise InputError("irreps", f"V must be non-zero; got {irreps!r}")
    return ir


def _e3nn_matrices(ir: Any, R: np.ndarray) -> np.ndarray:
    """e3nn's ``ir.D_from_matrix`` at the orthogonal 3x3 matrices R, in float64."""
    import torch

    default = torch.get_default_dtype()
    torch.set_default_dtype(torch.float64)  # e3nn builds its angle tensors in the default dtype
    try:
        return ir.D_from_matrix(torch.as_tensor(np.asarray(R), dtype=torch.float64)).detach().numpy().astype(np.float64)
    finally:
        torch.set_default_dtype(default)


def _e3nn_group(ir: Any, group: str | FiniteGroup) -> FiniteGroup:
    """The compact group's stand-in for the irreps' band (SO3, O3), or a finite point group."""
    if isinstance(group, FiniteGroup):
        G = group
    elif not isinstance(group, str):
        raise InputError("group", f"a group name such as 'O3', 'SO3' or 'Oh', got {type(group).__name__}")
    else:
        kind = compact_kind(normalise(group))
        if kind in ("SO2", "O2"):
            raise InputError("group", f"e3nn's irreps are representations of O(3): use O3, SO3 or a point group, not {group}")
        if kind is not None:
            check_band(kind, ir.lmax, "irreps")
            return get_group(kind, band=ir.lmax)
        G = get_group(group)
    if G.matrices is None or np.asarray(G.matrices).shape[1:] != (3, 3):
        raise InputError("group", f"{G.name} is not a point group given by 3x3 matrices")
    return G


def from_e3nn(irreps: Any, group: str | FiniteGroup = "O3") -> tuple[FiniteGroup, Rep, BasisChange]:
    """``(G, V, change)`` for e3nn ``Irreps`` (or their text, ``"16x0e + 8x1o + 4x2e"``).

    ``group`` is ``"O3"`` (the default) or ``"SO3"``: the compact group, computed through its
    finite stand-in for the irreps' band (``G.compact``; V in the compact notation, parity
    dropped for SO3); or a finite point group of the catalog (``"Oh"``: e3nn's features
    restricted to it). ``change.matrices[f] = irreps.D_from_matrix(R_f)`` at the stand-in's
    elements, and ``rho_e3nn(g) = Q rho_eqattn(g) Q^T`` then holds at EVERY element g of the
    compact group, with ``rho_eqattn`` V's matrices at any element
    (:func:`eqattn.numeric.ambient.ambient_rep`): both sides are representations of G in the
    band that agree on the stand-in, where Hom equals Hom over G.

    >>> G, V, change = from_e3nn("16x0e + 8x1o + 4x2e")
    >>> G.name, G.compact.stand_in, str(V), change.Q.shape, change.error < 1e-10
    ('O3', 'Ih', '16x0e + 8x1o + 4x2e', (60, 60), True)
    >>> str(from_e3nn("1x0e + 1x1o", "SO3")[1]), str(from_e3nn("1o", "Oh")[1])
    ('1x0 + 1x1', 'T1u')
    """
    ir = _e3nn_irreps(irreps)
    G = _e3nn_group(ir, group)
    mats = _e3nn_matrices(ir, np.asarray(G.matrices))
    chi = np.trace(mats, axis1=1, axis2=2)
    V = decompose(G.subgroup_classes[-1], chi, field="irreps")
    return G, V, basis_from_elements(G, V.matrices(), mats)


def to_e3nn(G: FiniteGroup, V: Rep) -> tuple[Any, BasisChange]:
    """e3nn ``Irreps`` carrying V of the compact group SO3 or O3 (V's irreps in display order
    with their multiplicities; SO3's ``l`` as ``l`` with parity ``(-1)^l``, the spherical
    harmonics') and the change of basis: ``rho_e3nn(g) = Q rho_eqattn(g) Q^T``.

    >>> import eqattn
    >>> G = eqattn.group("O3")
    >>> irreps, change = to_e3nn(G, eqattn.rep(G, "2x0e + 1x1o + 1x2e"))
    >>> str(irreps), change.Q.shape
    ('2x0e+1x1o+1x2e', (10, 10))
    """
    from e3nn import o3

    info = getattr(G, "compact", None)
    if info is None or info.kind not in ("SO3", "O3"):
        raise InputError("group", f"{G.name}: only the compact groups SO3 and O3 have e3nn irreps")
    if V.sub.order != G.order:
        raise InputError("rep", f"V must be a representation of all of {G.name}, not of {V.sub.name}")
    terms = []
    for label, m in zip(V.irreps.labels, V.mults):
        if m:
            l, parity = info.irrep(label)
            terms.append((int(m), (int(l), parity if parity else (-1) ** int(l))))
    ir = o3.Irreps(terms)
    mats = _e3nn_matrices(ir, np.asarray(G.matrices))
    return ir, basis_from_elements(G, V.matrices(), mats)



# ----- the block modules in another library's coordinates ---------------------------------------
def _is_geometric_tensor(x: Any) -> bool:
    return hasattr(x, "tensor") and hasattr(x, "type") and hasattr(getattr(x, "type"), "gspace")


def _resolve_basis(V: Rep, basis: Any, field: str) -> tuple[np.ndarray | None, Any]:
    """``(Q, escnn field type or None)`` for ``basis``: None, a :class:`BasisChange` (from
    :func:`from_escnn`, :func:`to_escnn`, :func:`from_e3nn`, ``match_basis``), an escnn
    ``FieldType`` (its :func:`from_escnn` change; GeometricTensors of that type come back as
    GeometricTensors) or an orthogonal ``(dim V, dim V)`` array ``Q``."""
    if basis is None:
        return None, None
    field_type = None
    if hasattr(basis, "gspace") and hasattr(basis, "representation"):
        field_type = basis
        G, W, change = from_escnn(basis)
        if G.name != V.sub.group.name or W.mults != V.mults:
            raise InputError(field, f"the field type carries {G.name} on {W}; the module's V is {V.sub.group.name} on {V}")
        basis = change
    if isinstance(basis, BasisChange):
        chi = np.trace(np.asarray(basis.matrices), axis1=1, axis2=2)
        if basis.Q.shape != (V.dim, V.dim) or not np.allclose(chi, V.character[V.sub.elements], atol=1e-6):
            raise InputError(field, f"the basis change is for another representation than V = {V} (dim {V.dim})")
        return np.asarray(basis.Q, dtype=np.float64), field_type
    Q = np.asarray(basis, dtype=np.float64)
    if Q.shape != (V.dim, V.dim) or np.abs(Q @ Q.T - np.eye(V.dim)).max() > 1e-8:
        raise InputError(field, f"an orthogonal ({V.dim}, {V.dim}) matrix, a BasisChange or an escnn FieldType")
    return Q, field_type


class Coordinates(ExactBuffers):
    """The user's coordinates of V: ``rho_u(g) = Q rho(g) Q^T``, so a token row ``x_u = x Q^T``.

    ``inward(x)`` takes a tensor (or an escnn ``GeometricTensor``) in the user's coordinates to
    eqattn's, ``outward(y, like)`` takes the result back (a GeometricTensor again when ``like``
    was one). Without a basis both are the identity (and a GeometricTensor is refused: its
    coordinates are escnn's, so the module must be built with ``basis=field_type``).

    >>> import eqattn, torch
    >>> G = eqattn.group("C4"); V = eqattn.rep(G, "regular")
    >>> Q = np.eye(4)[[1, 0, 2, 3]]                     # the user's coordinates: two swapped
    >>> c = Coordinates(V, Q, dtype=torch.float64)
    >>> x = torch.tensor([[1.0, 2.0, 3.0, 4.0]], dtype=torch.float64)
    >>> c.inward(x).tolist(), c.outward(c.inward(x)).tolist()
    ([[2.0, 1.0, 3.0, 4.0]], [[1.0, 2.0, 3.0, 4.0]])
    """

    def __init__(self, V: Rep, basis: Any = None, *, dtype: Any = None, device: Any = None, field: str = "basis") -> None:
        import torch

        super().__init__()
        Q, self.field_type = _resolve_basis(V, basis, field)
        self.dim = V.dim
        self.active = Q is not None
        self.register_exact("Q", Q if Q is not None else np.zeros((0, 0)), dtype or torch.get_default_dtype(), device)

    def inward(self, x: Any) -> Any:
        if _is_geometric_tensor(x):
            if not self.active:
                raise ValueError("a GeometricTensor is in escnn's coordinates: build the module with basis=its field type")
            x = x.tensor
        if x.shape[-1] != self.dim:
            raise ValueError(f"expected {self.dim} features in the last dimension, got {tuple(x.shape)}")
        return x @ self.Q_w if self.active else x

    def outward(self, y: Any, like: Any = None, field_type: Any = None) -> Any:
        out = y @ self.Q_w.T if self.active else y
        if like is not None and _is_geometric_tensor(like):
            return (field_type or like.type)(out)
        return out

    def extra_repr(self) -> str:
        return f"dim={self.dim}, basis={'user' if self.active else 'eqattn'}"


class NoBasis:
    """eqattn's own coordinates: ``inward``/``outward`` are the identity (not a module, so it
    adds nothing to a module's repr or state). A GeometricTensor is refused: its coordinates are
    escnn's, so the module must be built with ``basis=field_type``."""

    active = False
    field_type = None

    def __init__(self, dim: int) -> None:
        self.dim = dim

    def inward(self, x: Any) -> Any:
        if _is_geometric_tensor(x):
            raise ValueError("a GeometricTensor is in escnn's coordinates: build the module with basis=its field type")
        if x.shape[-1] != self.dim:
            raise ValueError(f"expected {self.dim} features in the last dimension, got {tuple(x.shape)}")
        return x

    def outward(self, y: Any, like: Any = None, field_type: Any = None) -> Any:
        return y


def coordinates(V: Rep, basis: Any = None, *, dtype: Any = None, device: Any = None, field: str = "basis") -> "Coordinates | NoBasis":
    """:class:`Coordinates` for ``basis`` (see :func:`_resolve_basis` for what it may be), or
    :class:`NoBasis` when it is None."""
    if basis is None:
        return NoBasis(V.dim)
    return Coordinates(V, basis, dtype=dtype, device=device, field=field)


def trivial_field_type(like: Any, count: int) -> Any:
    """An escnn field type of ``count`` trivial fields on ``like``'s gspace (invariant outputs)."""
    return type(like.type)(like.type.gspace, [like.type.gspace.trivial_repr] * count)
