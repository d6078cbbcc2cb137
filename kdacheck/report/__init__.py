"""Reports: one module per output format and command, behind one registry.

``REGISTRY`` is the one list of output formats: each name, per command it serves, the module
under ``kdacheck.report`` that renders it. ``kdacheck lint``'s (``FORMATS``: the CLI's choices,
the configuration's ``output-format``, the tests) are fed the same ``FileResult`` list, each
module's ``render(results, out, ctx)``; ``kdacheck run``'s (``RUN_FORMATS``) are fed each plan's
kernel checks as they finish, each module's ``RunReport`` (a ``RunRenderer``): ``run_full``
(streamed), ``run_json`` and ``junit``, the one JUnit writer both commands share.
"""

from __future__ import annotations

from collections import Counter
from importlib import import_module
from typing import IO, TYPE_CHECKING, Any

from kdacheck.findings import Severity

if TYPE_CHECKING:
    from kdacheck.results import FileResult

if TYPE_CHECKING:
    from kdacheck.kernels.harness import CaseResult
    from kdacheck.results import Case, Plan

# format name → {command: module under kdacheck.report that renders it for that command}
REGISTRY: dict[str, dict[str, str]] = {
    "full": {"lint": "full", "run": "run_full"},
    "concise": {"lint": "concise"},
    "json": {"lint": "json_", "run": "run_json"},
    "sarif": {"lint": "sarif"},
    "github": {"lint": "github"},
    "junit": {"lint": "junit", "run": "junit"},
    "gitlab": {"lint": "gitlab"},
}
# what a command's --help says of a format beside its name
NOTES = {("gitlab", "lint"): "Code Quality", ("full", "run"): "streamed as each case finishes"}
# what each command calls in a format's module (tests/test_formats.py holds every module to it)
RENDERERS = {"lint": "render", "run": "RunReport"}


def formats(command: str) -> dict[str, str]:
    """The formats ``command`` offers, in the registry's order: name → module."""
    return {name: by[command] for name, by in REGISTRY.items() if command in by}


FORMATS = formats("lint")
RUN_FORMATS = formats("run")


def spoken(names: list[str], command: str = "") -> str:
    """``full, concise or json``: the names as a sentence says them (with their notes for ``command``)."""
    said = [f"{n} ({NOTES[n, command]})" if (n, command) in NOTES else n for n in names]
    return said[0] if len(said) == 1 else f"{', '.join(said[:-1])} or {said[-1]}"


class RenderContext:
    """What a report needs besides the results (a plain class: nothing built at import)."""

    __slots__ = ("color", "quiet", "run", "sglang_version", "show_resolved", "strict", "threshold")

    def __init__(
        self, sglang_version: str, show_resolved: bool = False, run: list[dict[str, Any]] | None = None,
        threshold: Severity = Severity.WARNING, color: str = "auto", strict: bool = False, quiet: bool = False,
    ) -> None:
        self.strict = strict  # --strict: a check that could not run fails
        self.quiet = quiet  # -q: the findings that fail the run and the summary only
        self.color = color  # auto (a terminal without NO_COLOR), always, never
        self.sglang_version = sglang_version
        self.show_resolved = show_resolved
        self.run = run  # lint --run: the kernels' reports (JSON only)
        self.threshold = threshold  # the lowest severity that fails the run


def module(name: str, command: str = "lint") -> Any:
    return import_module(f"kdacheck.report.{REGISTRY[name][command]}")


class RunRenderer:
    """What ``kdacheck run`` tells a run format, in order: each plan started, each of its kernel
    checks as it finishes, the plan done; then the run done (every plan). A run format's module
    defines ``RunReport``, a subclass that writes what it needs (a plain class: nothing built at import)."""

    progress = False  # a spinner on a terminal's standard error while a case runs (a streamed report)

    def __init__(self, device: str, out: IO[str]) -> None:
        self.device = device
        self.out = out

    def plan_started(self, plan: Plan) -> None:
        """Before the plan's first case."""

    def case_done(self, case: Case, result: CaseResult) -> None:
        """As each case finishes."""

    def plan_done(self, plan: Plan, results: list[tuple[Case, CaseResult]]) -> None:
        """After the plan's last case (or at once, when it has none)."""

    def run_done(self, plans: list[tuple[Plan, list[tuple[Case, CaseResult]]]]) -> None:
        """After every plan ran."""


def run_renderer(name: str, device: str, out: IO[str]) -> RunRenderer:
    """The run format ``name``'s report on ``out``."""
    renderer: RunRenderer = module(name, "run").RunReport(device, out)
    return renderer


def render(name: str, results: list[FileResult], out: IO[str], ctx: RenderContext) -> None:
    module(name).render(results, out, ctx)


def render_failure(name: str | None, message: str, out: IO[str], sglang_version: str) -> None:
    """Exit code 2 in a machine format still writes a valid document saying why (SARIF, JSON);
    the other formats leave standard output empty (the message goes to standard error)."""
    mod = module(name) if name in FORMATS else None
    if mod is not None and hasattr(mod, "render_failure"):
        mod.render_failure(message, out, sglang_version)


def not_checked(results: list[FileResult]) -> tuple[Counter[str], set[str]]:
    """Every check that could not run, one per rule and launch command, by what it lacked
    (``model``: the rules MODEL001 names; ``gpu``: "needs --gpu"; ``values``: a value not known
    statically; ``other``), and the distinct rules among them. Suppressed findings are not counted."""
    reasons: Counter[str] = Counter()
    codes: set[str] = set()
    for r in results:
        unknown = {code for cfg in r.resolved for code in cfg.unknown_checks}
        for cfg in r.resolved:
            reasons["model"] += len(cfg.not_checked)
            codes.update(cfg.not_checked)
        for f in r.findings:
            if f.not_checked:
                codes.add(f.code)
                reasons["gpu" if "needs --gpu" in f.message else "model" if "needs the model" in f.message
                        else "values" if f.code in unknown else "other"] += 1
    for kind in ("model", "gpu", "values", "other"):
        reasons.setdefault(kind, 0)
    return reasons, codes


def summary(results: list[FileResult]) -> dict[str, int]:
    results = getattr(results, "counted", results)  # -q shows fewer findings; the summary counts the run
    counts = Counter(f.severity.label for r in results for f in r.findings)
    reasons, codes = not_checked(results)
    return {
        "files": len(results),
        "commands": sum(len(r.resolved) for r in results),
        "errors": counts.get("error", 0),
        "warnings": counts.get("warning", 0),
        "info": counts.get("info", 0),
        "unreadable": sum(1 for r in results if r.error),
        "suppressed": sum(r.suppressed for r in results),
        "unused_suppressions": sum(len(r.unused_suppressions) for r in results),
        "not_checked": sum(reasons.values()),  # occurrences: one per rule and launch command
        "not_checked_rules": len(codes),  # distinct rules among them
        "not_checked_model": reasons["model"],
        "not_checked_gpu": reasons["gpu"],
        "unknown_values": reasons["values"],
        "skipped": sum(getattr(results, "skipped", {}).values()),  # found in folders, skipped on purpose
        **({"baselined": n} if (n := sum(r.baselined for r in results)) else {}),  # --baseline: only when some
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
    if s.get("baselined"):
        parts.append(f"{s['baselined']} in the baseline")
    if s["unused_suppressions"]:
        n = s["unused_suppressions"]
        parts.append(f"{n} unused suppression{'s' * (n != 1)}")
    if s["not_checked"]:
        n, d = s["not_checked"], s["not_checked_rules"]
        def verb(k: int, one: str, many: str) -> str:
            return f"{k} {one if k == 1 else many}"

        why = [verb(s["not_checked_model"], "needs the model", "need the model")] if s["not_checked_model"] else []
        why += [verb(s["not_checked_gpu"], "needs --gpu", "need --gpu")] if s["not_checked_gpu"] else []
        why += [f"{s['unknown_values']} on values not known statically"] if s["unknown_values"] else []
        other = n - s["not_checked_model"] - s["not_checked_gpu"] - s["unknown_values"]
        why += [verb(other, "lacks another fact", "lack another fact")] if other else []
        parts.append(f"{n} check{'s' * (n != 1)} not run ({d} rule{'s' * (d != 1)}: {', '.join(why)})")
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

    def failing(r: FileResult) -> FileResult:
        keep = [f.severity >= threshold and not f.not_checked for f in r.findings]
        launch_of = [i for i, k in zip(r.launch_of, keep, strict=True) if k] if len(r.launch_of) == len(keep) else []
        return dataclasses.replace(r, findings=[f for f, k in zip(r.findings, keep, strict=True) if k], launch_of=launch_of, notes=[])

    out = [failing(r) for r in results]
    skipped = getattr(results, "skipped", None)
    if skipped is not None:  # the run's Results: what it skipped is still counted, and the summary counts them all
        kept = type(results)(out)
        kept.skipped = dict(skipped)  # type: ignore[attr-defined]
        kept.counted = results  # type: ignore[attr-defined]
        return kept
    return out


# --statistics has no place in these formats (a JUnit test suite, a GitLab code-quality list): refused, exit 2
NO_STATISTICS = ("junit", "gitlab")


def statistics_rows(results: list[FileResult]) -> list[dict[str, Any]]:
    """The number of findings per rule and severity, most frequent first."""
    from kdacheck.rules import REGISTRY

    counts = Counter((f.code, f.severity) for r in results for f in r.findings)
    rows = sorted(counts.items(), key=lambda kv: (-kv[1], kv[0][0]))
    return [{"code": c, "name": getattr(REGISTRY.get(c), "name", None), "severity": s.label, "count": n} for (c, s), n in rows]


def statistics(results: list[FileResult], out: IO[str], fmt: str, ctx: RenderContext | None = None) -> None:
    """``--statistics``: the number of findings per rule, most frequent first. In full and
    concise, a table in place of the findings; in json the report with a ``statistics`` object;
    in sarif the log with the counts in the run's ``properties``; in github the annotations and
    a notice with the counts (each format's ``render_statistics``). JUnit and GitLab are refused
    before linting (``NO_STATISTICS``)."""
    rows = statistics_rows(results)
    total = sum(int(row["count"]) for row in rows)
    stats = {"total": total, "files": len(results), "rules": rows}
    mod = module(fmt) if fmt in FORMATS else None
    if mod is not None and hasattr(mod, "render_statistics"):  # json, sarif, github: the report with the counts
        mod.render_statistics(results, out, ctx or RenderContext(""), stats)
        return
    if fmt in NO_STATISTICS:
        raise ValueError(f"--statistics does not apply to --output-format {fmt}")
    width = max((len(str(row["count"])) for row in rows), default=1)
    for row in rows:
        out.write(f"{row['count']:>{width}}  {row['code']:<9} [{row['severity']}]  {row['name'] or ''}\n")
    out.write(f"{total} finding{'s' if total != 1 else ''} in {len(results)} file{'s' if len(results) != 1 else ''}\n")
