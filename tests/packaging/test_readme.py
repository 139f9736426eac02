"""The README's Python quickstart runs as written and prints what its `# ->` comments say."""

from __future__ import annotations

import contextlib
import io
import re
from pathlib import Path

README = Path(__file__).resolve().parents[2] / "README.md"


def quickstart() -> str:
    text = README.read_text(encoding="utf-8")
    section = text.split("## Python quickstart", 1)[1]
    match = re.search(r"```python\n(.*?)```", section, re.S)
    assert match, "README has no ```python block under 'Python quickstart'"
    return match.group(1)


def test_readme_quickstart_runs_and_prints_its_comments() -> None:
    code = quickstart()
    expected = [line.split("# ->", 1)[1].strip() for line in code.splitlines() if "# ->" in line]
    assert len(expected) >= 4
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(code, str(README), "exec"), {"__name__": "readme"})
    assert out.getvalue().splitlines() == expected
