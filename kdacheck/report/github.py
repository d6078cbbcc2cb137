"""``--output-format github``: GitHub Actions workflow commands, one annotation per finding.

``::error file=PATH,line=L,col=C,title=kdacheck (CODE)::message``, with ``warning`` and ``notice`` for
the other severities, escaped exactly as GitHub's own actions/toolkit does (``escapeData`` for
the message, ``escapeProperty`` for the properties). Chosen automatically when
``GITHUB_ACTIONS=true`` and no ``--output-format`` was given.
"""

from __future__ import annotations

import os
from typing import IO, Any

from kdacheck.findings import Finding, Severity
from kdacheck.report import RenderContext, summary_line
from kdacheck.report._common import all_findings, in_role, is_pseudo, loud, workspace_path
from kdacheck.results import FileResult
from kdacheck.sanitize import LEGACY_COMMAND, LEGACY_SHOWN

COMMAND = {Severity.ERROR: "error", Severity.WARNING: "warning", Severity.INFO: "notice"}


def escape_data(s: str) -> str:
    """actions/toolkit ``escapeData``."""
    return s.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def escape_property(s: str) -> str:
    """actions/toolkit ``escapeProperty``."""
    return escape_data(s).replace(":", "%3A").replace(",", "%2C")


def log_line(s: str) -> str:
    """A plain log line: the runner decodes nothing there (``%25`` would show as written), so
    only a line break is folded, so that no text after it can start a workflow command."""
    return s.replace("\r", " ").replace("\n", " ")


def command(kind: str, props: dict[str, str | int], message: str) -> str:
    shown = ",".join(f"{k}={escape_property(str(v))}" for k, v in props.items())
    return f"::{kind} {shown}::{escape_data(message)}" if shown else f"::{kind}::{escape_data(message)}"


def _write(out: IO[str], line: str) -> None:
    """One line of the log: the runner reads the legacy ``##[command]`` anywhere in a line, even
    in an annotation's file or message, so ``##[`` is shown escaped wherever it is."""
    out.write(line.replace(LEGACY_COMMAND, LEGACY_SHOWN) + "\n")


CAP = 10  # annotations GitHub shows per kind and step; the rest are dropped silently


def _annotation(f: Finding) -> str:
    loc = f.location
    props: dict[str, str | int] = {} if is_pseudo(loc.path) else {"file": workspace_path(loc.path), "line": loc.line, "col": loc.col}
    props["title"] = f"kdacheck ({f.code}){in_role(f)}"
    message = f"{loc}: {f.message}" if is_pseudo(loc.path) else f.message
    if f.fix:
        message += f"\nfix: {f.fix}"
    return command(COMMAND[f.severity], props, message)


def step_summary(results: list[FileResult]) -> str:
    """A Markdown table of the errors and warnings for ``$GITHUB_STEP_SUMMARY``."""
    rows = [f for f in all_findings(results) if f.severity > Severity.INFO]
    rows.sort(key=lambda f: (-f.severity, f.sort_key()))
    out = ["## kdacheck", "", summary_line(results), ""]
    if rows:
        out += ["| | Code | Where | Finding |", "|---|---|---|---|"]
        for f in rows:
            mark = "✗" if f.severity == Severity.ERROR else "!"
            text = f.message.replace("|", "\\|").replace("\n", " ")
            where = workspace_path(f.location.path).replace("|", "\\|")
            out.append(f"| {mark} | `{f.code}` | `{where}:{f.location.line}` | {text} |")
    return "\n".join(out) + "\n"


def render(results: list[FileResult], out: IO[str], ctx: RenderContext) -> None:
    """Errors first (GitHub keeps only the first ten of each kind), then warnings, then the
    notes a user must see (an unknown model, "could not be checked") as notices; the other
    info findings are facts, written as plain log lines. A notice says when the cap
    hides some, and the step summary gets a table of them all."""
    for r in results:
        if r.error:
            props: dict[str, str | int] = {} if is_pseudo(r.path) else {"file": workspace_path(r.path)}
            props["title"] = "kdacheck: cannot check"
            _write(out, command("error", props, r.error))
        for cfg in r.resolved:  # never a silent pass on arguments that were not read
            for u in cfg.cmd.unread[:CAP]:
                props = {} if is_pseudo(u.loc.path) else {"file": workspace_path(u.loc.path), "line": u.loc.line, "col": u.loc.col}
                props["title"] = "kdacheck: not checked" + (f" (in {cfg.cmd.role})" if cfg.cmd.role else "")
                _write(out, command("notice", props, f"not read: {u.what}; this launch is not checked"))
    findings = all_findings(results)
    for severity in (Severity.ERROR, Severity.WARNING):
        group = [f for f in findings if f.severity == severity]
        for f in group:
            _write(out, _annotation(f))
        if len(group) > CAP:
            hidden = len(group) - CAP
            _write(out, command("notice", {"title": "kdacheck"}, f"GitHub shows {CAP} {severity.label}s per step: {hidden} more are in this log and the step summary"))
    for r in results:
        for line, code in r.unused_suppressions:
            props = {} if is_pseudo(r.path) else {"file": workspace_path(r.path), "line": line}
            props["title"] = "kdacheck: unused suppression"
            _write(out, command("notice", props, f"`# kdacheck: ignore[{code}]` suppresses nothing here"))
    # notes a user must see (an unknown model, a check that could not run): notice annotations
    notices = [f for f in findings if f.severity == Severity.INFO and loud(f)]
    for f in notices[:CAP]:
        _write(out, _annotation(f))
    if len(notices) > CAP:
        _write(out, command("notice", {"title": "kdacheck"}, f"GitHub shows {CAP} notices per step: {len(notices) - CAP} more are in this log"))
    facts = [f for f in findings if f.severity == Severity.INFO and not loud(f)]
    if facts:
        _write(out, "::group::kdacheck: info")
        for f in facts:
            _write(out, log_line(f"kdacheck info: {f.location}: {f.code} {f.message}"))
        _write(out, "::endgroup::")
    _write(out, summary_line(results))
    path = os.environ.get("GITHUB_STEP_SUMMARY")
    if path and os.environ.get("GITHUB_ACTIONS") == "true":
        try:
            with open(path, "a", encoding="utf-8") as fh:
                fh.write(step_summary(results))
        except OSError:
            pass  # a summary is a courtesy: the annotations above are the report


def render_statistics(results: list[FileResult], out: IO[str], ctx: RenderContext, stats: dict[str, Any]) -> None:
    """``--statistics``: the annotations as usual, then one notice with the counts per rule."""
    render(results, out, ctx)
    rows, total = stats["rules"], stats["total"]
    text = "; ".join(f"{row['count']} {row['code']} [{row['severity']}]" for row in rows) or "no findings"
    _write(out, command("notice", {"title": "kdacheck statistics"}, f"{total} finding{'s' * (total != 1)}: {text}"))
