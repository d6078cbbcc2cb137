"""GitLab Code Quality: the JSON array GitLab's merge-request widget reads
(``artifacts: reports: codequality``): one issue per finding with ``description``,
``check_name``, ``fingerprint``, ``severity`` and ``location.path``/``lines.begin``.

Paths are relative to the repository root (``CI_PROJECT_DIR`` when set), as GitLab wants;
fingerprints are SARIF's (``kdacheck/v1``: stable across runs and line moves). Facts (info)
are left out unless ``--failure-threshold info``: the widget lists faults in the merge request;
but what could not be checked (an unknown model, MODEL001; each "could not be checked") is an
``info`` issue, so that a check that did not run never looks like one that passed.
"""

from __future__ import annotations

import os
from collections import Counter
from typing import IO, Any

from kdacheck.findings import Finding, Location, Severity
from kdacheck.report import RenderContext
from kdacheck.report._common import in_role, is_fact, is_pseudo, relative_to, repo_root
from kdacheck.report.sarif import fingerprint, identity
from kdacheck.results import FileResult
from kdacheck.sanitize import json_text

SEVERITY = {Severity.ERROR: "critical", Severity.WARNING: "major", Severity.INFO: "info"}


def _path(path: str) -> str:
    if is_pseudo(path):
        return path
    base = os.environ.get("CI_PROJECT_DIR") or repo_root(path)
    rel = relative_to(path, base)
    return rel if rel is not None else path.replace(os.sep, "/")


def issue(f: Finding, occurrence: int) -> dict[str, Any]:
    text = f"{f.message}{in_role(f)}" if not f.fix else f"{f.message}{in_role(f)} (fix: {f.fix})"
    return {
        "description": f"{f.code}: {text}",
        "check_name": f.code,
        "fingerprint": fingerprint(f, occurrence),
        "severity": SEVERITY[f.severity],
        "location": {"path": _path(f.location.path), "lines": {"begin": f.location.line}},
    }


def render(results: list[FileResult], out: IO[str], ctx: RenderContext) -> None:
    seen: Counter[tuple[str, str, str, str]] = Counter()
    issues = []
    for r in results:
        if r.error:  # a file kdacheck could not check (exit 2): one blocker on it, saying why
            issues.append({"description": f"kdacheck could not check this file: {r.error}", "check_name": "kdacheck",
                           "fingerprint": fingerprint(Finding("kdacheck", Severity.ERROR, r.error, Location(r.path)), 0),
                           "severity": "blocker", "location": {"path": _path(r.path), "lines": {"begin": 1}}})
        unread = {(u.loc.path, u.loc.line) for cfg in r.resolved for u in cfg.cmd.unread}
        for cfg in r.resolved:  # a launch whose arguments were not read is no pass: one issue per place
            for u in cfg.cmd.unread:
                text = f"kdacheck did not check this launch: not read: {u.what}" + (f" (in {cfg.cmd.role})" if cfg.cmd.role else "")
                issues.append({"description": text, "check_name": "kdacheck-not-checked",
                               "fingerprint": fingerprint(Finding("kdacheck", Severity.INFO, text, u.loc), 0),
                               "severity": "info", "location": {"path": _path(u.loc.path), "lines": {"begin": u.loc.line}}})
        for f in sorted(r.findings, key=Finding.sort_key):
            if is_fact(f, ctx.threshold):
                continue
            if f.not_checked and f.severity < ctx.threshold and (f.location.path, f.location.line) in unread:
                continue  # arguments not read: said once per place above (kdacheck-not-checked)
            key = identity(f)
            issues.append(issue(f, seen[key]))
            seen[key] += 1
    out.write(json_text(issues))
    out.write("\n")


def render_failure(message: str, out: IO[str], sglang_version: str) -> None:
    """Exit code 2: an empty report (GitLab rejects anything but an array); the reason goes
    to standard error."""
    out.write("[]\n")
