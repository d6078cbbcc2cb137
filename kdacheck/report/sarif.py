"""``--output-format sarif``: SARIF 2.1.0, as GitHub code scanning accepts it.

One run: ``tool.driver`` with one rule descriptor per registered rule (short and full
description, help as text and Markdown, ``helpUri``, default level), one result per finding
(``ruleId``, ``ruleIndex``, level, message with the fix, the place relative to the repository
root), and one invocation saying whether every input could be read.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import IO, Any
from urllib.parse import quote

from kdacheck import __version__
from kdacheck.findings import Finding, Location, Severity
from kdacheck.lint import FileResult
from kdacheck.report import RenderContext
from kdacheck.report._common import all_findings, is_pseudo, relative_to, repo_root
from kdacheck.rules import Rule, all_rules

SCHEMA = "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"
INFORMATION_URI = "https://github.com/kdacheck/kdacheck"
LEVEL = {Severity.ERROR: "error", Severity.WARNING: "warning", Severity.INFO: "note"}
SRCROOT = "%SRCROOT%"


def descriptor(rule: Rule) -> dict[str, Any]:
    from kdacheck.docs import rule_markdown

    markdown = rule_markdown(rule)
    text = f"{rule.summary}\n\n{rule.what}\n\nWhy: {rule.why}\n\nFix: {rule.fix}"
    out: dict[str, Any] = {"id": rule.code}
    if rule.name:
        out["name"] = rule.name
    out.update(
        {
            "shortDescription": {"text": rule.summary},
            "fullDescription": {"text": rule.what},
            "help": {"text": text, "markdown": markdown},
            "helpUri": rule.help_uri,
            "defaultConfiguration": {"level": LEVEL[rule.severity]},
            "properties": {"tags": [rule.prefix], "sglangVersions": rule.versions},
        }
    )
    return out


def _uri(path: str) -> tuple[str, str | None]:
    """(uri, uriBaseId): relative to the repository root when the file lies inside it."""
    root = repo_root(path)
    rel = relative_to(path, root)
    if rel is not None:
        return quote(rel, safe="/"), SRCROOT
    return Path(os.path.abspath(path)).as_uri(), None


def location(loc: Location) -> dict[str, Any]:
    if is_pseudo(loc.path):
        # Not a file: a logical place, so that a consumer never looks for it on disk.
        return {"logicalLocations": [{"name": loc.path, "kind": "module"}], "message": {"text": str(loc)}}
    uri, base = _uri(loc.path)
    artifact: dict[str, Any] = {"uri": uri}
    if base:
        artifact["uriBaseId"] = base
    return {
        "physicalLocation": {
            "artifactLocation": artifact,
            "region": {"startLine": max(loc.line, 1), "startColumn": max(loc.col, 1)},
        }
    }


def result(f: Finding, index: dict[str, int]) -> dict[str, Any]:
    text = f.message if not f.fix else f"{f.message}\nFix: {f.fix}"
    out: dict[str, Any] = {
        "ruleId": f.code,
        "ruleIndex": index[f.code],
        "level": LEVEL[f.severity],
        "message": {"text": text},
        "locations": [location(f.location)],
        "properties": {
            "severity": f.severity.label,
            "fix": f.fix,
            "command": f.source,
            "evidence": [{"name": e.name, "value": e.value, "provenance": e.provenance} for e in f.evidence],
        },
    }
    return out


def document(results: list[FileResult], sglang_version: str) -> dict[str, Any]:
    rules = all_rules()
    findings = all_findings(results)
    known = {r.code for r in rules}
    from kdacheck.rules import REGISTRY

    rules += [REGISTRY[c] for c in sorted({f.code for f in findings} - known) if c in REGISTRY]
    descriptors = [descriptor(r) for r in rules]
    for code in sorted({f.code for f in findings} - {r.code for r in rules}):  # never expected
        descriptors.append({"id": code, "shortDescription": {"text": code}})
    index = {d["id"]: i for i, d in enumerate(descriptors)}

    notifications: list[dict[str, Any]] = []
    for r in results:
        where = [location(Location(r.path))] if not is_pseudo(r.path) else []
        if r.error:
            notifications.append({"level": "error", "message": {"text": r.error}, "locations": where, "descriptor": {"id": "unreadable"}})
        for line, code in r.unused_suppressions:
            notifications.append(
                {
                    "level": "note",
                    "message": {"text": f"`# kdacheck: ignore[{code}]` suppresses nothing"},
                    "locations": [location(Location(r.path, line, 1))],
                    "descriptor": {"id": "unused-suppression"},
                }
            )
    invocation: dict[str, Any] = {"executionSuccessful": not any(r.error for r in results)}
    if notifications:
        invocation["toolExecutionNotifications"] = notifications
    run: dict[str, Any] = {
        "tool": {
            "driver": {
                "name": "kdacheck",
                "version": __version__,
                "semanticVersion": __version__,
                "informationUri": INFORMATION_URI,
                "rules": descriptors,
            }
        },
        "invocations": [invocation],
        "results": [result(f, index) for f in findings],
        "properties": {"sglangVersion": sglang_version},
    }
    roots = {repo_root(r.path) for r in results if not is_pseudo(r.path)}
    if len(roots) == 1:
        run["originalUriBaseIds"] = {SRCROOT: {"uri": Path(roots.pop()).as_uri() + "/"}}
    return {"$schema": SCHEMA, "version": "2.1.0", "runs": [run]}


def render(results: list[FileResult], out: IO[str], ctx: RenderContext) -> None:
    sglang_version = ctx.sglang_version
    json.dump(document(results, sglang_version), out, indent=2, ensure_ascii=False)
    out.write("\n")
