"""A canned backend for developing the page before / without the core (tests only).

It answers from tests/api/fixtures/ (shapes of docs/contracts.md) and raises
InputError like the core for anything it has no fixture for. Select it with
EQATTN_API_BACKEND=fake; the default is the real core.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from eqattn.errors import InputError

FIXTURES = Path(__file__).resolve().parent / "fixtures"
_TERM = re.compile(r"^\s*(?:(\d+)\s*x\s*)?([A-Za-z][A-Za-z0-9_'.]*)\s*$")


def _load(name: str) -> dict | list:
    return json.loads((FIXTURES / name).read_text())


def _parse(text: str, labels: list[str], field: str) -> dict[str, int]:
    text = text.strip()
    if text in ("", "0"):
        return {}
    out: dict[str, int] = {}
    for term in text.split("+"):
        m = _TERM.match(term)
        if not m or m.group(2) not in labels:
            raise InputError(field, f"unknown term {term.strip()!r}; irreps are {', '.join(labels)}")
        out[m.group(2)] = out.get(m.group(2), 0) + int(m.group(1) or 1)
    return out


class FakeBackend:
    def catalog(self) -> list:
        return _load("catalog.json")

    def group(self, name: str) -> dict:
        path = FIXTURES / f"group_{name}.json"
        if not path.exists():
            raise InputError("group", f"unknown group {name!r} (fake backend: C4, D3)")
        g = json.loads(path.read_text())
        g.pop("_fake", None)
        return g

    def _group_fake(self, name: str) -> dict:
        path = FIXTURES / f"group_{name}.json"
        if not path.exists():
            raise InputError("group", f"unknown group {name!r} (fake backend: C4, D3)")
        return json.loads(path.read_text())

    def _problem(self, group: str, rep: str, heads: int, head_dim: int) -> tuple[dict, dict[str, int], dict]:
        g = self._group_fake(group)
        labels = [ir["label"] for ir in g["irreps"]]
        restrict = g["_fake"]["restrict"]
        if rep.strip() in restrict:
            top = str(len(g["subgroups"]) - 1)
            mults = restrict[rep.strip()][top]
        else:
            mults = _parse(rep, labels, "rep")
            key = " + ".join(f"{v}x{k}" if v > 1 else k for k, v in mults.items())
            if key not in restrict:
                raise InputError("rep", f"fake backend knows only {', '.join(restrict)}")
            rep = key
        return g, mults, restrict[rep.strip()]

    def clusterings(self, group: str, rep: str, heads: int, head_dim: int) -> dict:
        path = FIXTURES / f"clusterings_{group}_{rep}_{heads}_{head_dim}.json"
        if not path.exists():
            raise InputError("group", "fake backend: no fixture for this problem")
        return json.loads(path.read_text())

    def design(self, group: str, rep: str, heads: int, head_dim: int, orbits: list) -> dict:
        g, mults, restrict = self._problem(group, rep, heads, head_dim)
        e, dims = g["_fake"]["e"], g["_fake"]["dims"]
        dim_v = sum(m * dims[k] for k, m in mults.items())
        out = []
        for i, (sub, text) in enumerate(orbits):
            subs = [s for s in g["subgroups"] if s["id"] == sub or s["name"] == sub]
            if not subs:
                raise InputError(f"orbits[{i}].subgroup", f"no subgroup {sub!r}")
            s = subs[0]
            w = _parse(text, [ir["label"] for ir in s["irreps"]], f"orbits[{i}].rep")
            vk = restrict[str(s["id"])]
            params = 4 * sum(vk.get(k, 0) * m * e[k] for k, m in w.items())
            out.append({"subgroup": s["id"], "name": s["name"], "rep": text, "multiplicities": w,
                        "heads": s["index"], "head_dim": sum(m * dims[k] for k, m in w.items()), "params": params})
        vanilla = 4 * heads * head_dim * dim_v
        total = sum(o["params"] for o in out)
        return {"group": group, "dim_v": dim_v, "heads": heads, "head_dim": head_dim, "vanilla_params": vanilla,
                "rep": {"text": rep, "dim": dim_v, "multiplicities": mults}, "design_params": total,
                "design_heads": sum(o["heads"] for o in out), "ratio": total / vanilla, "orbits": out}

    def coverage(self, group: str, rep: str, heads: int, head_dim: int, orbits: list) -> dict:
        self.design(group, rep, heads, head_dim, orbits)  # validates like the core
        key = ";".join(f"{s}-{r}" for s, r in orbits)
        path = FIXTURES / f"coverage_{group}_{rep}_{heads}_{head_dim}_{key}.json"
        if not path.exists():
            raise InputError("orbits", "fake backend: no fixture for this design")
        return json.loads(path.read_text())
