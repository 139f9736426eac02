"""Parsing of group specs: custom permutation and matrix generators, a tiny safe evaluator.

Every problem is reported as `InputError("group", one line)`: what is wrong, where, and what
is expected. Nothing here evaluates Python code.

* `perm:(1,2,3),(1,2)`: generators separated by commas, each a product of disjoint cycles
  written in 1-based cycle notation, e.g. `perm:(1,2)(3,4),(1,3)`; points 1..MAX_POINTS.
* `mat:[[0,-1],[1,0]];[[1,0],[0,-1]]`: square real matrices of one size, separated by `;`
  (or `,`), each orthogonal to 1e-9. Entries are numbers or expressions built from numbers,
  `pi`, `sqrt(.)`, `cos(.)`, `sin(.)`, `+ - * /`, `^` and parentheses, e.g. `-sqrt(3)/2`.
"""

from __future__ import annotations

import math
import re

import numpy as np

from ..errors import InputError

MAX_POINTS = 30
MAX_MATRIX_SIZE = 12
ORTHOGONAL_TOL = 1e-9
MAX_TEXT = 20000

PERM_EXAMPLE = "perm:(1,2,3),(1,2)"
MAT_EXAMPLE = "mat:[[0,-1],[1,0]];[[1,0],[0,-1]]"


def _err(message: str) -> InputError:
    return InputError("group", message)


def normalise(spec: str) -> str:
    """The spec with all whitespace removed."""
    return re.sub(r"\s+", "", spec)


# ----- permutations ----------------------------------------------------------------------------
def _split_generators(text: str) -> list[str]:
    """Split at commas outside parentheses; checks that parentheses balance per generator."""
    gens: list[str] = []
    depth = 0
    start = 0
    for i, ch in enumerate(text):
        if ch == "(":
            if depth:
                rest = text[start:]
                j = rest.find(",(", i - start)
                raise _err(f"generator {len(gens) + 1} '{rest if j < 0 else rest[:j]}' is missing ')' before a '('; "
                           f"expected cycles like (1,2,3)(4,5), e.g. {PERM_EXAMPLE}")
            depth = 1
        elif ch == ")":
            if not depth:
                raise _err(f"generator {len(gens) + 1} '{text[start:i + 1]}' has a ')' without a matching '('")
            depth = 0
        elif ch == "," and not depth:
            gens.append(text[start:i])
            start = i + 1
    gens.append(text[start:])
    if depth:
        raise _err(f"generator {len(gens)} '{gens[-1]}' is missing ')'")
    return gens


def parse_permutations(text: str) -> tuple[list[list[int]], int]:
    """0-based image lists of the generators in `text` (the part after `perm:`), and the degree."""
    if not text:
        raise _err(f"perm: needs at least one generator in cycle notation, e.g. {PERM_EXAMPLE}")
    cycles_per_gen: list[list[list[int]]] = []
    for gi, g in enumerate(_split_generators(text), start=1):
        if not g:
            raise _err(f"generator {gi} is empty; write generators as cycles separated by commas, e.g. {PERM_EXAMPLE}")
        if not re.fullmatch(r"(\([^()]*\))+", g):
            raise _err(f"generator {gi} '{g}' is not a product of cycles like (1,2,3)(4,5); "
                       f"generators are separated by commas, e.g. {PERM_EXAMPLE}")
        cycles = []
        seen: set[int] = set()
        for body in re.findall(r"\(([^()]*)\)", g):
            if body == "":
                continue  # () is the identity
            pts = []
            for tok in body.split(","):
                if not tok.isdigit():
                    raise _err(f"generator {gi} '{g}': '{tok}' is not a point; points are whole numbers 1..{MAX_POINTS}")
                p = int(tok)
                if not 1 <= p <= MAX_POINTS:
                    raise _err(f"generator {gi} '{g}': point {p} is out of range; points are 1..{MAX_POINTS}")
                if p in seen:
                    raise _err(f"generator {gi} '{g}': point {p} appears twice; write each generator as "
                               f"disjoint cycles, e.g. (1,2)(3,4)")
                seen.add(p)
                pts.append(p - 1)
            cycles.append(pts)
        cycles_per_gen.append(cycles)
    degree = max([p + 1 for cs in cycles_per_gen for c in cs for p in c], default=1)
    perms = []
    for cs in cycles_per_gen:
        img = list(range(degree))
        for c in cs:
            for a, b in zip(c, c[1:] + c[:1]):
                img[a] = b
        perms.append(img)
    return perms, degree


# ----- a tiny safe expression evaluator --------------------------------------------------------
_TOKEN = re.compile(r"(?:(\d+\.?\d*(?:[eE][+-]?\d+)?|\.\d+(?:[eE][+-]?\d+)?)|([A-Za-z]+)|(.))")
_FUNCS = {"sqrt": math.sqrt, "cos": math.cos, "sin": math.sin}
_CONSTS = {"pi": math.pi}


class _Parser:
    """Recursive descent over nested lists of arithmetic expressions."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.toks: list[tuple[str, str, int]] = []  # (kind, value, position)
        pos = 0
        while pos < len(text):
            if text[pos].isspace():
                pos += 1
                continue
            m = _TOKEN.match(text, pos)
            assert m is not None
            if m.group(1) is not None:
                self.toks.append(("num", m.group(1), m.start(1)))
            elif m.group(2) is not None:
                self.toks.append(("name", m.group(2), m.start(2)))
            elif m.group(3) is not None:
                self.toks.append(("op", m.group(3), m.start(3)))
            pos = m.end()
        self.i = 0
        self.gen = 1  # generator being parsed, for messages

    # helpers
    def peek(self) -> tuple[str, str, int] | None:
        return self.toks[self.i] if self.i < len(self.toks) else None

    def where(self) -> str:
        t = self.peek()
        if t is None:
            return "at the end"
        return f"at '{self.text[t[2]:t[2] + 12]}'"

    def fail(self, what: str) -> InputError:
        return _err(f"generator {self.gen}: {what} {self.where()}; expected square matrices like "
                    f"[[0,-1],[1,0]] separated by ';', e.g. {MAT_EXAMPLE}")

    def finite(self, v: float, what: str) -> float:
        """`v` if it is a finite number; otherwise the error says which step left the reals."""
        if not math.isfinite(v):
            raise self.fail(f"{what} is not a finite number (entries are at most about 1e308)")
        return v

    def accept(self, op: str) -> bool:
        t = self.peek()
        if t is not None and t[0] == "op" and t[1] == op:
            self.i += 1
            return True
        return False

    def expect(self, op: str) -> None:
        if not self.accept(op):
            raise self.fail(f"expected '{op}'")

    # grammar
    def matrices(self) -> list[object]:
        out = [self.item()]
        while self.peek() is not None:
            if not (self.accept(";") or self.accept(",")):
                raise self.fail("expected ';' between matrices")
            self.gen += 1
            out.append(self.item())
        return out

    def item(self) -> object:
        if self.accept("["):
            items = [self.item()]
            while self.accept(","):
                items.append(self.item())
            self.expect("]")
            return items
        return self.expr()

    def expr(self) -> float:
        v = self.term()
        while True:
            if self.accept("+"):
                v = self.finite(v + self.term(), "a sum")
            elif self.accept("-"):
                v = self.finite(v - self.term(), "a difference")
            else:
                return v

    def term(self) -> float:
        v = self.unary()
        while True:
            if self.accept("*"):
                v = self.finite(v * self.unary(), "a product")
            elif self.accept("/"):
                d = self.unary()
                if d == 0:
                    raise self.fail("division by zero")
                v = self.finite(v / d, "a quotient")
            else:
                return v

    def unary(self) -> float:
        if self.accept("-"):
            return -self.unary()
        if self.accept("+"):
            return self.unary()
        return self.power()

    def power(self) -> float:
        v = self.atom()
        if self.accept("^"):
            e = self.unary()
            try:
                r = v**e
            except (OverflowError, ZeroDivisionError, TypeError, ValueError):
                raise self.fail("invalid power") from None
            if isinstance(r, complex):  # a negative number to a fractional power
                raise self.fail("a negative number to a fractional power")
            return self.finite(float(r), "a power")
        return v

    def atom(self) -> float:
        t = self.peek()
        if t is None:
            raise self.fail("expected a number")
        kind, val, _ = t
        if kind == "num":
            v = self.finite(float(val), f"the number {val[:12]!r}")
            self.i += 1
            return v
        if kind == "name":
            if val in _CONSTS:
                self.i += 1
                return _CONSTS[val]
            if val in _FUNCS:
                self.i += 1
                self.expect("(")
                x = self.expr()
                self.expect(")")
                if val == "sqrt" and x < 0:
                    raise self.fail("sqrt of a negative number")
                try:  # math domain errors (cos(inf)) cannot happen on finite x; kept as a guard
                    return self.finite(_FUNCS[val](x), f"{val}(...)")
                except (ValueError, OverflowError):
                    raise self.fail(f"{val}(...) is undefined here") from None
            raise self.fail(f"unknown name '{val}' (allowed: numbers, pi, sqrt, cos, sin)")
        if self.accept("("):
            v = self.expr()
            self.expect(")")
            return v
        raise self.fail("expected a number or an expression such as sqrt(3)/2")


def evaluate(expr: str) -> float:
    """Value of an arithmetic expression (numbers, pi, sqrt, cos, sin, + - * / ^, parentheses)."""
    p = _Parser(expr)
    v = p.expr()
    if p.peek() is not None:
        raise p.fail("unexpected text")
    return v


def parse_matrices(text: str) -> list[np.ndarray]:
    """The orthogonal matrices written in `text` (the part after `mat:`)."""
    if not text:
        raise _err(f"mat: needs at least one matrix, e.g. {MAT_EXAMPLE}")
    if len(text) > MAX_TEXT:
        raise _err(f"mat: text is {len(text)} characters long; at most {MAX_TEXT} are accepted")
    try:
        raw = _Parser(text).matrices()
    except RecursionError:
        raise _err("mat: the expression is nested too deeply") from None
    mats = []
    for gi, m in enumerate(raw, start=1):
        rows = m if isinstance(m, list) else None
        if not rows or not all(isinstance(r, list) for r in rows):
            raise _err(f"generator {gi} is not a matrix; write a matrix as a list of rows, e.g. [[0,-1],[1,0]]")
        if any(isinstance(x, list) for r in rows for x in r):
            raise _err(f"generator {gi} is nested too deeply; write a matrix as a list of rows, e.g. [[0,-1],[1,0]]")
        k = len(rows)
        if any(len(r) != k for r in rows):
            raise _err(f"generator {gi} is not square: it has {k} rows of lengths "
                       f"{', '.join(str(len(r)) for r in rows)}")
        if k > MAX_MATRIX_SIZE:
            raise _err(f"generator {gi} is {k}x{k}; matrices are at most {MAX_MATRIX_SIZE}x{MAX_MATRIX_SIZE}")
        a = np.array(rows, dtype=float)
        if not np.isfinite(a).all():
            raise _err(f"generator {gi} has a non-finite entry")
        if mats and a.shape != mats[0].shape:
            raise _err(f"generator {gi} is {k}x{k} but generator 1 is {mats[0].shape[0]}x{mats[0].shape[0]}; "
                       f"all matrices must have the same size")
        dev = float(np.abs(a @ a.T - np.eye(k)).max())
        if dev > ORTHOGONAL_TOL:
            raise _err(f"generator {gi} is not orthogonal (M M^T differs from I by {dev:.2g}, tolerance "
                       f"{ORTHOGONAL_TOL:g}); write exact entries such as sqrt(3)/2 instead of 0.866")
        mats.append(a)
    return mats
