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

and e3nn's real spherical-harmonic basis restricted to O_h::

    >>> G, V, change = from_e3nn("8x0e + 8x1o", "Oh")
    >>> G.name, str(V)
    ('Oh', '8xA1g + 8xT1u')

escnn and e3nn are imported only inside these functions (extras ``eqattn[escnn]``,
``eqattn[e3nn]``). escnn groups supported: cyclic ``C_N`` and dihedral ``D_N`` (the finite
groups whose eqattn catalog name is unambiguous).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from eqattn.errors import InputError
from eqattn.groups import FiniteGroup, get_group
from eqattn.numeric.basis import BasisChange, basis_from_elements, identify_rep
from eqattn.reps import Rep, decompose

__all__ = ["from_escnn", "to_escnn", "from_e3nn"]


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


def from_e3nn(irreps: Any, group: str | FiniteGroup = "Oh") -> tuple[FiniteGroup, Rep, BasisChange]:
    """``(G, V, change)`` for e3nn ``Irreps`` (or their text, ``"8x0e + 8x1o"``) restricted to a
    finite point group ``G`` of the catalog (its ``vector`` matrices in O(3)).

    ``change.matrices[g] = irreps.D_from_matrix(R_g)``, e3nn's real basis (``1o`` in the order
    y, z, x); ``rho_e3nn(g) = Q rho_eqattn(g) Q^T``.

    >>> G, V, change = from_e3nn("1o", "Oh")
    >>> str(V), change.error < 1e-10
    ('T1u', True)
    """
    import torch
    from e3nn import o3

    G = group if isinstance(group, FiniteGroup) else get_group(group)
    if G.matrices is None or np.asarray(G.matrices).shape[1:] != (3, 3):
        raise InputError("group", f"{G.name} is not a point group given by 3x3 matrices")
    ir = o3.Irreps(irreps)
    R = torch.as_tensor(np.asarray(G.matrices), dtype=torch.float64)
    default = torch.get_default_dtype()
    torch.set_default_dtype(torch.float64)  # e3nn builds its angle tensors in the default dtype
    try:
        mats = ir.D_from_matrix(R).detach().numpy().astype(np.float64)
    finally:
        torch.set_default_dtype(default)
    chi = np.trace(mats, axis1=1, axis2=2)
    V = decompose(G.subgroup_classes[-1], chi, field="irreps")
    return G, V, basis_from_elements(G, V.matrices(), mats)

