"""JSON views of groups (what `eqattn group NAME --json` prints and the web page shows)."""

from __future__ import annotations

from ..groups import FiniteGroup
from .irreps import irreps_of


def _irreps_json(sub, with_characters: bool = False) -> list[dict]:  # noqa: ANN001
    irr = irreps_of(sub)
    G = sub.group
    out = []
    for i, lab in enumerate(irr.labels):
        item = {"label": lab, "dim": int(irr.dims[i]), "type": irr.types[i]}
        if with_characters:
            item["character"] = [round(float(irr.chars[i, c[0]]), 6) + 0.0 for c in G.conjugacy_classes]
        out.append(item)
    return out


def group_json(G: FiniteGroup) -> dict:
    top = G.subgroup_classes[-1]
    presets = ["trivial", "regular"] + (["vector"] if G.matrices is not None else []) + ["perm:<subgroup>"]
    return {
        "name": G.name,
        "order": G.order,
        "classes": [{"size": int(c.size), "order": int(G.element_orders[c[0]]), "rep": int(c[0])} for c in G.conjugacy_classes],
        "irreps": _irreps_json(top, with_characters=True),
        "presets": presets,
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
    p = [int(x) for x in G.perms[int(g)]]
    seen = [False] * len(p)
    out = []
    for i in range(len(p)):
        if seen[i] or p[i] == i:
            continue
        cyc, j = [], i
        while not seen[j]:
            seen[j] = True
            cyc.append(j + 1)
            j = p[j]
        out.append("(" + ",".join(map(str, cyc)) + ")")
    return "".join(out) or "()"


def _element_json(G: FiniteGroup, g: int) -> dict:
    out: dict = {"index": int(g), "word": element_word(G, g), "order": int(G.element_orders[int(g)])}
    cyc = element_cycles(G, g)
    if cyc is not None:
        out["cycles"] = cyc
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
