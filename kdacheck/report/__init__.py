"""Reports: one module per output format, all fed the same ``FileResult`` list.

``FORMATS`` is the one list of output formats (the CLI's choices, the configuration's
``output-format``, the tests); each names the module whose ``render(results, out, ctx)`` writes it.
``kdacheck run``'s reports live here too: ``run_full`` (streamed), ``run_json`` and, in
``junit``, the one JUnit writer both commands share.
"""

from __future__ import annotations

from collections import Counter
from importlib import import_module
from typing import IO, TYPE_CHECKING, Any

from kdacheck.findings import Severity

if TYPE_CHECKING:
    from kdacheck.lint import FileResult

# format name → module under kdacheck.report
FORMATS: dict[str, str] = {
    "full": "full", "concise": "concise", "json": "json_", "sarif": "sarif", "github": "github", "junit": "junit",
    "gitlab": "gitlab",
}


class RenderContext:
    """What a report needs besides the results (a plain class: nothing built at import)."""

    __slots__ = ("color", "run", "sglang_version", "show_resolved", "threshold")

    def __init__(
        self, sglang_version: str, show_resolved: bool = False, run: list[dict[str, Any]] | None = None,
        threshold: Severity = Severity.WARNING, color: str = "auto",
    ) -> None:
        self.color = color  # auto (a terminal without NO_COLOR), always, never
        self.sglang_version = sglang_version
        self.show_resolved = show_resolved
        self.run = run  # lint --run: the kernels' reports (JSON only)
        self.threshold = threshold  # the lowest severity that fails the run


def module(name: str) -> Any:
    return import_module(f"kdacheck.report.{FORMATS[name]}")


def render(name: str, results: list[FileResult], out: IO[str], ctx: RenderContext) -> None:
    module(name).render(results, out, ctx)


def render_failure(name: str | None, message: str, out: IO[str], sglang_version: str) -> None:
    """Exit code 2 in a machine format still writes a valid document saying why (SARIF, JSON);
    the other formats leave standard output empty (the message goes to standard error)."""
    mod = module(name) if name in FORMATS else None
    if mod is not None and hasattr(mod, "render_failure"):
        mod.render_failure(message, out, sglang_version)


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
        "not_checked": len({code for r in results for cfg in r.resolved for code in cfg.not_checked}),
        "unknown_values": len({code for r in results for cfg in r.resolved for code in cfg.unknown_checks}),
        "skipped": sum(getattr(results, "skipped", {}).values()),  # found in folders, skipped on purpose
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
    if s["not_checked"]:
        n = s["not_checked"]
        parts.append(f"{n} rule{'s' * (n != 1)} not checked: needs the model")
    if s["unknown_values"]:
        n = s["unknown_values"]
        parts.append(f"{n} rule{'s' * (n != 1)} not checked: values not known statically")
    for kind, n in sorted(getattr(results, "skipped", {}).items()):
        parts.append(f"{n} {kind}{'s' * (n != 1)} skipped")
    return "Checked " + ", ".join(parts) + "."


FIXABLE = "[*] "  # before the code of a finding `lint --fix` fixes (as ruff marks them)


def fixable_line(results: list[FileResult]) -> str:
    """``[*] N fixable with --fix.`` under the summary (empty when none is)."""
    n = sum(f.fixable for r in results for f in r.findings)
    return f"[*] {n} fixable with --fix." if n else ""


def worst(results: list[FileResult]) -> Severity | None:
    sev = [f.severity for r in results for f in r.findings]
    return max(sev) if sev else None


def failing_only(results: list[FileResult], threshold: Severity) -> list[FileResult]:
    """``--quiet``: each file's findings at or above the threshold, without notes."""
    import dataclasses

    out = [dataclasses.replace(r, findings=[f for f in r.findings if f.severity >= threshold and not f.not_checked], notes=[])
           for r in results]
    skipped = getattr(results, "skipped", None)
    if skipped is not None:  # the run's Results: what it skipped is still counted
        kept = type(results)(out)
        kept.skipped = dict(skipped)  # type: ignore[attr-defined]
        return kept
    return out


def statistics(results: list[FileResult], out: IO[str], fmt: str) -> None:
    """``--statistics``: the number of findings per rule, most frequent first (JSON for json)."""
    from kdacheck.rules import REGISTRY

    by_code = REGISTRY.get
    counts = Counter((f.code, f.severity) for r in results for f in r.findings)
    rows = sorted(counts.items(), key=lambda kv: (-kv[1], kv[0][0]))
    if fmt == "json":
        import json

        doc = [{"code": c, "name": getattr(by_code(c), "name", None), "severity": s.label, "count": n} for (c, s), n in rows]
        json.dump(doc, out, indent=2)
        out.write("\n")
        return
    width = max((len(str(n)) for _k, n in rows), default=1)
    for (code, sev), n in rows:
        rule = by_code(code)
        out.write(f"{n:>{width}}  {code:<9} [{sev.label}]  {rule.name if rule else ''}\n")
    out.write(f"{sum(counts.values())} finding{'s' if sum(counts.values()) != 1 else ''} in {len(results)} file{'s' if len(results) != 1 else ''}\n")
