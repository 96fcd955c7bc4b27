"""Module docstrings stay short (issue 46 item 7).

A module docstring says what the module is for, its main entry points and how to use them, and
the rule ids it implements, in at most `MAX_LINES` lines (as `ast.get_docstring` gives it).
Longer text has a home elsewhere: a contract or format in a page under `docs/` (the tournament
config, the results schema, the bot protocol, the solvers' design, the references' choices, the
samplers, the heuristics), measured figures in `BENCHMARKS.md` and `docs/benchmarks-history.md`.

Plain Python: no JAX; the modules are parsed, not imported.
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("kanjax", "solvers", "tournaments")
MAX_LINES = 40


def docstring_lines(path: Path) -> int:
    """The lines of the module docstring of `path` (0: none)."""
    doc = ast.get_docstring(ast.parse(path.read_text(encoding="utf-8"), str(path)))
    return len(doc.splitlines()) if doc else 0


def _modules() -> list[Path]:
    return sorted(p for package in PACKAGES for p in (ROOT / package).rglob("*.py")
                  if "__pycache__" not in p.parts)


def test_module_docstrings_are_at_most_40_lines():
    long = []
    for path in _modules():
        name = path.relative_to(ROOT).as_posix()
        n = docstring_lines(path)
        if n > MAX_LINES:
            long.append(f"{name}: {n} lines")
    assert not long, (
        f"module docstrings over {MAX_LINES} lines (say what the module is for and how to use "
        "it; move a contract or format to docs/, figures to docs/benchmarks-history.md):\n  "
        + "\n  ".join(long))


def test_docstring_lines_counts_the_docstring(tmp_path):
    f = tmp_path / "m.py"
    f.write_text('"""One.\n\nThree.\n"""\nX = 1\n', encoding="utf-8")
    assert docstring_lines(f) == 3
    f.write_text("X = 1\n", encoding="utf-8")
    assert docstring_lines(f) == 0
