"""``--output-format github``: GitHub Actions workflow commands, one annotation per finding.

``::error file=PATH,line=L,col=C,title=CODE::message``, with ``warning`` and ``notice`` for
the other severities, escaped exactly as GitHub's own actions/toolkit does (``escapeData`` for
the message, ``escapeProperty`` for the properties). Chosen automatically when
``GITHUB_ACTIONS=true`` and no ``--output-format`` was given.
"""

from __future__ import annotations

from typing import IO

from kdacheck.findings import Severity
from kdacheck.lint import FileResult
from kdacheck.report import RenderContext, summary_line
from kdacheck.report._common import all_findings, is_pseudo, workspace_path

COMMAND = {Severity.ERROR: "error", Severity.WARNING: "warning", Severity.INFO: "notice"}


def escape_data(s: str) -> str:
    """actions/toolkit ``escapeData``."""
    return s.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def escape_property(s: str) -> str:
    """actions/toolkit ``escapeProperty``."""
    return escape_data(s).replace(":", "%3A").replace(",", "%2C")


def command(kind: str, props: dict[str, str | int], message: str) -> str:
    shown = ",".join(f"{k}={escape_property(str(v))}" for k, v in props.items())
    return f"::{kind} {shown}::{escape_data(message)}" if shown else f"::{kind}::{escape_data(message)}"


def render(results: list[FileResult], out: IO[str], ctx: RenderContext) -> None:
    for r in results:
        if r.error:
            props: dict[str, str | int] = {} if is_pseudo(r.path) else {"file": workspace_path(r.path)}
            props["title"] = "kdacheck: cannot check"
            out.write(command("error", props, r.error) + "\n")
    for f in all_findings(results):
        loc = f.location
        props = {} if is_pseudo(loc.path) else {"file": workspace_path(loc.path), "line": loc.line, "col": loc.col}
        props["title"] = f.code
        message = f"{loc}: {f.message}" if is_pseudo(loc.path) else f.message
        if f.fix:
            message += f"\nfix: {f.fix}"
        out.write(command(COMMAND[f.severity], props, message) + "\n")
    for r in results:
        for line, code in r.unused_suppressions:
            props = {} if is_pseudo(r.path) else {"file": workspace_path(r.path), "line": line}
            props["title"] = "kdacheck: unused suppression"
            out.write(command("notice", props, f"`# kdacheck: ignore[{code}]` suppresses nothing here") + "\n")
    out.write(summary_line(results) + "\n")
