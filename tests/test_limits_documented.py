"""Every cap in kdacheck is in docs/robustness.md's limits table, with what it gives and the
test that holds it: a cap added without its row, or a row naming a test that does not exist,
fails here."""

from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DOC = ROOT / "docs" / "robustness.md"
_CAP = re.compile(r"(MAX_[A-Z0-9_]+|[A-Z0-9_]+_(BYTES|LIMIT))\Z")
_TEST = re.compile(r"tests/([\w/]+\.py)::(\w+)")


def _caps() -> set[str]:
    """``module.NAME`` of every module-level integer cap under kdacheck/ and kernels/."""
    out = set()
    for path in [*(ROOT / "kdacheck").rglob("*.py"), *(ROOT / "kernels").glob("*.py")]:
        if "rules" in path.relative_to(ROOT).parts:
            continue  # SGLang's own numbers (what it accepts), not kdacheck's caps
        for node in ast.parse(path.read_text(encoding="utf-8")).body:
            if not isinstance(node, ast.Assign) or len(node.targets) != 1 or not isinstance(node.targets[0], ast.Name):
                continue
            name = node.targets[0].id
            value = node.value
            if _CAP.match(name) and (isinstance(value, (ast.BinOp, ast.Attribute))
                                     or (isinstance(value, ast.Constant) and isinstance(value.value, int))):
                out.add(f"{path.parent.name if path.stem == '__init__' else path.stem}.{name}")
    return out


def _rows() -> list[list[str]]:
    text = DOC.read_text(encoding="utf-8")
    table = text[text.index("## Limits"):].split("\n## ", 1)[0]
    return [[c.strip() for c in ln.strip("|").split(" | ")] for ln in table.splitlines()
            if ln.startswith("| ") and not ln.startswith("| what")]


def test_every_cap_has_a_row() -> None:
    documented = "\n".join(" | ".join(r) for r in _rows())
    missing = sorted(c for c in _caps() if f"{c}`" not in documented)
    assert not missing, f"caps missing from docs/robustness.md's limits table: {missing}"


def test_every_row_names_a_test_that_exists() -> None:
    for row in _rows():
        tests = _TEST.findall(row[-1])
        assert tests, f"no test named for the limit `{row[0]}`"
        for file, name in tests:
            source = (ROOT / "tests" / file).read_text(encoding="utf-8")
            assert re.search(rf"^(async )?def {name}\(|^class {name}\b", source, re.M), f"{file}::{name} (for `{row[0]}`)"
