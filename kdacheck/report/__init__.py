"""Reports: one module per output format, all fed the same ``FileResult`` list."""

from __future__ import annotations

from collections import Counter

from kdacheck.findings import Severity
from kdacheck.lint import FileResult

FORMATS = ("full", "concise", "json", "sarif", "github", "junit")


def summary(results: list[FileResult]) -> dict[str, int]:
    counts = Counter(f.severity.label for r in results for f in r.findings)
    return {
        "files": len(results),
        "commands": sum(len(r.resolved) for r in results),
        "errors": counts.get("error", 0),
        "warnings": counts.get("warning", 0),
        "info": counts.get("info", 0),
        "unreadable": sum(1 for r in results if r.error),
        "suppressed": sum(r.suppressed for r in results),
        "unused_suppressions": sum(len(r.unused_suppressions) for r in results),
    }


def summary_line(results: list[FileResult]) -> str:
    s = summary(results)
    parts = [f"{s['files']} file{'s' * (s['files'] != 1)}", f"{s['commands']} launch command{'s' * (s['commands'] != 1)}"]
    parts.append(f"{s['errors']} error{'s' * (s['errors'] != 1)}")
    parts.append(f"{s['warnings']} warning{'s' * (s['warnings'] != 1)}")
    parts.append(f"{s['info']} info")
    if s["unreadable"]:
        parts.append(f"{s['unreadable']} unreadable")
    if s["suppressed"]:
        parts.append(f"{s['suppressed']} suppressed")
    if s["unused_suppressions"]:
        n = s["unused_suppressions"]
        parts.append(f"{n} unused suppression{'s' * (n != 1)}")
    return "Checked " + ", ".join(parts) + "."


def worst(results: list[FileResult]) -> Severity | None:
    sev = [f.severity for r in results for f in r.findings]
    return max(sev) if sev else None
