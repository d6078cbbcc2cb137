"""The default gate passes what SGLang documents (issue 24): SGLang's own cookbook and CI launch
commands (tests/data/official/, sources in its SOURCES.md) and examples/clean/ exit 0 at the
default threshold; what kdacheck cannot check is said, never passed silently."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from kdacheck.findings import Severity
from tests.helpers import lint

ROOT = Path(__file__).resolve().parent.parent
OFFICIAL = ROOT / "tests" / "data" / "official"
COMMANDS = sorted(OFFICIAL.glob("*.sh"))


def test_at_least_twenty_official_commands_each_with_a_source() -> None:
    sources = (OFFICIAL / "SOURCES.md").read_text(encoding="utf-8")
    assert len(COMMANDS) >= 20
    missing = [p.name for p in COMMANDS if f"| {p.name} |" not in sources]
    assert not missing, missing
    for p in COMMANDS:  # each file names its source in its first line
        assert p.read_text(encoding="utf-8").startswith("# "), p.name


@pytest.mark.parametrize("gpu", [None, "h200"])
@pytest.mark.parametrize("path", COMMANDS, ids=lambda p: p.name)
def test_official_command_passes_the_default_gate(path: Path, gpu: str | None) -> None:
    result = lint(path.read_text(encoding="utf-8"), gpu=gpu, path=str(path))
    assert result.error is None and len(result.resolved) == 1, result.error
    failing = [(f.code, f.message[:120]) for f in result.findings if f.severity >= Severity.WARNING]
    assert not failing, failing


def test_official_folder_and_clean_examples_exit_zero() -> None:
    """The CLI at its default threshold, as a CI job runs it: exit 0 on both folders."""
    for folder in ("tests/data/official", "examples/clean"):
        p = subprocess.run([sys.executable, "-m", "kdacheck", "lint", folder], cwd=ROOT, capture_output=True, text=True, timeout=120)
        assert p.returncode == 0, (folder, p.stdout[-2000:], p.stderr[-2000:])
        assert "0 errors, 0 warnings" in p.stdout, p.stdout[-500:]


def test_docs_ci_severity_table_matches_the_catalogue() -> None:
    import re

    from kdacheck.rules import all_rules

    text = (ROOT / "docs" / "ci.md").read_text(encoding="utf-8")
    section = text.split("## Severities", 1)[1].split("\n## ", 1)[0]
    listed: dict[str, str] = {}
    for item in re.split(r"\n- ", section)[1:]:
        label = re.match(r"\*\*(error|warning|note)\*\*", item)
        assert label, item[:40]
        for code in re.findall(r"\b[A-Z]+[0-9]{3}\b", item):
            listed.setdefault(code, {"note": "info"}.get(label.group(1), label.group(1)))
    catalogue = {r.code: r.severity.label for r in all_rules()}
    assert listed == catalogue
