"""Helpers shared by the machine-readable reports: paths, ordering, special inputs."""

from __future__ import annotations

import os

from kdacheck.discover import git_root
from kdacheck.findings import Finding, Severity
from kdacheck.results import FileResult

PSEUDO = ("<cmd>", "<stdin>")  # inputs that are not files


def is_pseudo(path: str) -> bool:
    return path in PSEUDO


def repo_root(path: str) -> str:
    """Where a file's URI is relative to: its git top-level, else the working directory."""
    return git_root(os.path.dirname(os.path.abspath(path))) or os.getcwd()


def relative_to(path: str, root: str) -> str | None:
    """``path`` relative to ``root`` with forward slashes, or None when it lies outside."""
    try:
        rel = os.path.relpath(os.path.abspath(path), root)
    except ValueError:  # another drive on Windows
        return None
    if rel == os.pardir or rel.startswith(os.pardir + os.sep):
        return None
    return rel.replace(os.sep, "/")


def workspace_path(path: str) -> str:
    """The path as CI annotations want it: relative to ``GITHUB_WORKSPACE`` (else the working
    directory) when inside it."""
    if is_pseudo(path):
        return path
    rel = relative_to(path, os.environ.get("GITHUB_WORKSPACE") or os.getcwd())
    return rel if rel is not None else path.replace(os.sep, "/")


def all_findings(results: list[FileResult]) -> list[Finding]:
    return sorted((f for r in results for f in r.findings), key=Finding.sort_key)


def loud(f: Finding) -> bool:
    """A note every format shows where a user looks (a GitHub notice, a GitLab info issue): a
    check that could not run, or a rule that asks for it (``@rule(notice=True)``: MODEL001)."""
    from kdacheck.rules import REGISTRY

    rule = REGISTRY.get(f.code)
    return f.not_checked or bool(rule is not None and rule.notice)


def is_fact(f: Finding, threshold: Severity) -> bool:
    """A note that states what was read (a size, a value) rather than a fault: an info finding
    that is not :func:`loud`, while info does not fail the run (``--failure-threshold info``
    makes every note a fault). Formats whose every entry is an alert (GitLab issues, SARIF
    results) leave facts out of their findings."""
    return f.severity == Severity.INFO and threshold > Severity.INFO and not loud(f)


def in_role(f: Finding) -> str:
    """`` (in ROLE)`` for a finding of a named launch (a role, service or container), else empty."""
    return f" (in {f.source})" if f.source else ""
