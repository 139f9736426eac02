"""JSON views of groups (what `eqattn group NAME --json` prints and the web page shows)."""

from __future__ import annotations

from ..groups import FiniteGroup
from .element_words import coset_action, cycles, element_words, irrep_words, subgroup_words
from .compact_labels import in_band
from .irreps import irreps_of
from .rep import presets_of


def _irreps_json(sub, with_characters: bool = False) -> list[dict]:  # noqa: ANN001
    irr = irreps_of(sub)
    G = sub.group
    out = []
    K = sub.elements
    for i, lab in enumerate(irr.labels):
        if not in_band(lab):
            continue  # a compact group's stand-in: slots outside the band are never shown
        words = (compact_irrep_words(sub.std.compact, lab) if sub.std.compact is not None else
                 irrep_words(irr.chars[i, K], int(irr.dims[i]), irr.types[i], int(sub.order), sub.std.family, lab))
        item = {"label": lab, "dim": int(irr.dims[i]), "type": irr.types[i], "description": words}
        if with_characters:
            item["character"] = [round(float(irr.chars[i, c[0]]), 6) + 0.0 for c in G.conjugacy_classes]
        out.append(item)
    return out


def compact_irrep_words(info, label: str) -> str:  # noqa: ANN001 - CompactInfo
    """A compact group's irrep in words, e.g. `l = 1, odd under the inversion (a vector)`.

    >>> from eqattn.groups.compact import CompactInfo
    >>> compact_irrep_words(CompactInfo("O3", 2), "1e"), compact_irrep_words(CompactInfo("SO2", 2), "E2")
    ('l = 1, even under the inversion (a pseudovector)', 'rotation by 2θ (complex type)')
    """
    a, p = info.irrep(label)
    if info.planar:
        if a == 0:
            return "trivial" if p > 0 else "the determinant (-1 on reflections)"
        return f"rotation by {a if a > 1 else ''}θ" + (" (complex type)" if info.kind == "SO2" else ", reflections act as reflections")
    named = {(0, 1): "a scalar", (0, -1): "a pseudoscalar", (1, -1): "a vector", (1, 1): "a pseudovector",
             (0, 0): "a scalar", (1, 0): "a vector"}
    tail = f" ({named[(a, p)]})" if (a, p) in named else ""
    if p == 0:
        return f"l = {a}, dimension {2 * a + 1}{tail}"
    return f"l = {a}, {'even' if p > 0 else 'odd'} under the inversion{tail}"


def compact_json(G: FiniteGroup) -> dict | None:
    """What a compact group stands on: kind, description, Γ, the band and the finite stand-in
    (docs/theory-continuous.md §5); None for a finite group.

    >>> from eqattn.groups import get_group
    >>> compact_json(get_group("SO3", band=1))["stand_in"]
    'O'
    """
    info = G.compact
    if info is None:
        return None
    from ..groups.compact import DESCRIPTION

    return {"kind": info.kind, "description": DESCRIPTION[info.kind], "component_group": info.gamma,
            "identity_component": info.identity_component, "band": info.band, "band_text": info.band_text,
            "stand_in": info.stand_in, "stand_in_order": G.order, "labels": list(info.labels),
            "irreps": {lab: list(info.irrep(lab)) for lab in info.labels},
            "route": "characters" if info.band_irreps else "irreps", "stand_in_role": stand_in_role(info)}


def stand_in_role(info) -> str:  # noqa: ANN001
    """What the finite stand-in does for the band, in words (the two routes of §5 and §8).

    >>> from eqattn.groups.compact import CompactInfo
    >>> stand_in_role(CompactInfo("SO3", 3))
    'whose characters tell the irreps of degrees l <= 3 apart (they are not irreducible on it); the irreps are those of SO3 itself, their matrices the Wigner matrices at its elements'
    """
    if info.band_irreps:
        return (f"whose characters tell the irreps of {info.band_text} apart (they are not irreducible on it); "
                f"the irreps are those of {info.kind} itself, their matrices the Wigner matrices at its elements")
    return f"which keeps the irreps of {info.band_text} irreducible and distinct"


def _subgroup_description(G: FiniteGroup, c) -> str:  # noqa: ANN001
    """What a subgroup class is, in words; a compact group's classes by what they stand for."""
    if G.compact is None:
        return subgroup_words(G, c.elements, _class_generators(c))
    from ..groups.compact import DESCRIPTION

    tail = " (the identity component G°)" if c.order < G.order else ""
    return DESCRIPTION[c.type_name] + tail


def _class_generators(K) -> list[int]:  # noqa: ANN001
    return [int(K.phi[int(s)]) for s in K.std.generators]


def group_json(G: FiniteGroup) -> dict:
    """What the page needs of G: classes, irreps (with characters and a description), presets,
    G's generators in words, and per subgroup class K its irreps, what K is in words
    (`description`), and how each generator of G permutes the cosets of K, the clusters of an
    orbit G/K (`coset_action[s][i] = j`: generator s maps coset i to coset j; null when large).

    >>> from eqattn.groups import get_group
    >>> g = group_json(get_group("C4"))
    >>> g["generators"][0]["description"], g["subgroups"][1]["description"], g["subgroups"][1]["coset_action"]
    ('rotation by π/2', '{identity, rotation by π}', [[1, 0]])
    """
    top = G.subgroup_classes[-1]
    presets = ["trivial", "regular"] + (["vector"] if G.matrices is not None else []) + ["perm:<subgroup>"]
    if G.compact is not None:
        presets = list(presets_of(top))
    return {
        "name": G.name,
        "order": G.order,
        "compact": compact_json(G),
        "classes": [{"size": int(c.size), "order": int(G.element_orders[c[0]]), "rep": int(c[0])} for c in G.conjugacy_classes],
        "irreps": _irreps_json(top, with_characters=True),
        "presets": presets,
        "generators": [{"letter": _LETTERS[i % 26], "index": int(g), "description": element_words(G, int(g))}
                       for i, g in enumerate(G.generators)],
        "subgroups": [
            {
                "id": c.id,
                "name": c.name,
                "type": c.type_name,
                "order": c.order,
                "index": c.index,
                "conjugates": c.size,
                "normal": c.is_normal,
                "irreps": _irreps_json(c),
                "description": _subgroup_description(G, c),
                "coset_action": coset_action(G, c.elements),
            }
            for c in G.subgroup_classes
        ],
    }


# ----------------------------------------------------------------------------- the inspector
MAX_LISTED_ELEMENTS = 48  # subgroups up to this order list their elements; larger ones give the size
_LETTERS = "abcdefghijklmnopqrstuvwxyz"


def element_word(G: FiniteGroup, g: int) -> str:
    """An element as a word in G's generators a, b, c, ... (SPEC §0), e.g. `a^2 b`; `e` is the identity.

    >>> from eqattn.groups import get_group
    >>> element_word(get_group("C4"), 0)
    'e'
    """
    w = G.word(int(g))
    if not w:
        return "e"
    parts: list[list] = []
    for x in w:
        if parts and parts[-1][0] == x:
            parts[-1][1] += 1
        else:
            parts.append([x, 1])
    return " ".join(_LETTERS[x % 26] + (f"^{k}" if k > 1 else "") for x, k in parts)


def element_cycles(G: FiniteGroup, g: int) -> str | None:
    """Disjoint-cycle notation (1-based) of a permutation group's element, `()` for the identity."""
    if G.perms is None:
        return None
    return "".join("(" + ",".join(map(str, c)) + ")" for c in cycles([int(x) for x in G.perms[int(g)]])) or "()"


def _element_json(G: FiniteGroup, g: int) -> dict:
    out: dict = {"index": int(g), "word": element_word(G, g), "order": int(G.element_orders[int(g)]),
                 "description": element_words(G, int(g))}
    cyc = element_cycles(G, g)
    if cyc is not None:
        out["cycles"] = cyc
    if G.matrices is not None and G.matrices.shape[1] <= 4:
        out["matrix"] = [[round(float(x), 4) + 0.0 for x in row] for row in G.matrices[int(g)]]
    return out


def character_table_json(sub) -> dict:  # noqa: ANN001
    """The real character table of a subgroup class representative K (SPEC §0): K's own
    conjugacy classes (from its standard group through the fixed isomorphism) as columns,
    its real irreps as rows. For K = G this is the character table of G.

    >>> from eqattn.groups import get_group
    >>> t = character_table_json(get_group("C2").subgroup_classes[-1])
    >>> [r["character"] for r in t["irreps"]]
    [[1.0, 1.0], [1.0, -1.0]]
    """
    G = sub.group
    S = sub.std
    irr = irreps_of(sub)
    classes = []
    for c in S.conjugacy_classes:
        g = int(sub.phi[int(c[0])])
        classes.append({"size": int(len(c)), "order": int(S.element_orders[int(c[0])]), "rep": _element_json(G, g)})
    rows = []
    for i, lab in enumerate(irr.labels):
        if not in_band(lab):
            continue
        values = irr.std.real_chars[i].values
        rows.append({
            "label": lab,
            "dim": int(irr.dims[i]),
            "type": irr.types[i],
            "character": [round(float(values[int(c[0])]), 6) + 0.0 for c in S.conjugacy_classes],
        })
    return {"classes": classes, "irreps": rows}


def _class_of_set(G: FiniteGroup, elems) -> dict | None:  # noqa: ANN001
    """The subgroup class (id, name) that the element set `elems` belongs to."""
    key = sorted(int(x) for x in elems)
    for c in G.subgroup_classes:
        if c.order != len(key):
            continue
        for conj in c.conjugates:
            if sorted(int(x) for x in conj) == key:
                return {"id": int(c.id), "name": c.name}
    return None


def subgroup_inspector_json(G: FiniteGroup, cid: int) -> dict:
    """What the page's subgroup inspector shows for the class `cid` of G (SPEC §0, §5.1):
    K's generators and elements (as words in G's generators, and as permutations when G is
    one), or only its size when K is large; its normaliser N_G(K); the fixed isomorphism
    from K's standard group (generator by generator); K's irreps with their characters.

    >>> from eqattn.groups import get_group
    >>> v = subgroup_inspector_json(get_group("C4"), 1)
    >>> v["name"], v["order"], [e["word"] for e in v["elements"]]
    ('C2', 2, ['e', 'a^2'])
    """
    from ..errors import InputError

    classes = G.subgroup_classes
    if not 0 <= int(cid) < len(classes):
        raise InputError("id", f"G = {G.name} has subgroup classes 0..{len(classes) - 1}; got {cid}")
    K = classes[int(cid)]
    S = K.std
    gens = [int(K.phi[int(s)]) for s in S.generators]
    N = K.normalizer
    listed = K.order <= MAX_LISTED_ELEMENTS
    return {
        "group": G.name,
        "group_order": G.order,
        "group_generators": [_element_json(G, int(g)) | {"letter": _LETTERS[i % 26]} for i, g in enumerate(G.generators)],
        "id": int(K.id),
        "name": K.name,
        "type": K.type_name,
        "order": K.order,
        "index": K.index,
        "conjugates": K.size,
        "normal": K.is_normal,
        "is_whole_group": K.order == G.order,
        "description": subgroup_words(G, K.elements, gens),
        "generators": [_element_json(G, g) for g in gens],
        "elements": [_element_json(G, int(g)) for g in K.elements] if listed else None,
        "normalizer": {"order": int(len(N)), "class": _class_of_set(G, N)},
        "isomorphism": {
            "standard": S.name,
            "images": [{"standard_generator": i + 1, "order": int(S.element_orders[int(s)]),
                        "image": _element_json(G, int(K.phi[int(s)]))} for i, s in enumerate(S.generators)],
        },
        "character_table": character_table_json(K),
    }


# ----------------------------------------------------------------------------- V restricted to K
def restrictions_json(G: FiniteGroup, rep_text: str) -> dict:
    """V|K for every subgroup class K of G (SPEC §3): the multiplicity m_τ(V|K) of each irrep τ
    of K, and what one copy of τ in a head representation W of an orbit G/K costs:
    4 · dim Hom_K(V|K, τ) = 4 · m_τ(V|K) · e_τ parameters and dim τ of head dimension. An irrep
    τ absent from V|K adds head dimension for 0 parameters (it sees nothing of V).

    >>> from eqattn.groups import get_group
    >>> r = restrictions_json(get_group("C4"), "E1")
    >>> c2 = r["subgroups"][1]
    >>> c2["text"], [(x["label"], x["multiplicity"], x["params_per_copy"]) for x in c2["irreps"]]
    ('2xB', [('A', 0, 0), ('B', 2, 8)])
    """
    from .rep import Rep, format_rep, parse_rep

    V = parse_rep(rep_text, G.subgroup_classes[-1])
    out = []
    for K in G.subgroup_classes:
        VK = V.restrict(K)
        irr = irreps_of(K)
        items = []
        for i, lab in enumerate(irr.labels):
            if not in_band(lab):
                continue
            tau = Rep(K, tuple(int(j == i) for j in range(len(irr))))
            items.append({"label": lab, "dim": int(irr.dims[i]), "multiplicity": int(VK.mults[i]),
                          "params_per_copy": 4 * VK.hom_dim(tau)})
        out.append({"id": int(K.id), "name": K.name, "text": format_rep(VK), "irreps": items})
    return {"group": G.name, "rep": format_rep(V), "subgroups": out}
