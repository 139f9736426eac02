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
