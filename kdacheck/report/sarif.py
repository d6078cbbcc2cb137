"""``--output-format sarif``: SARIF 2.1.0, as GitHub code scanning accepts it.

One run: ``tool.driver`` with one rule descriptor per registered rule (short and full
description, help as text and Markdown, ``helpUri``, default level), one result per finding
(``ruleId``, ``ruleIndex``, level, message with the fix, the place relative to the repository
root, ``partialFingerprints``), and one invocation saying whether every input could be read.

Results are findings only, since code scanning shows every result as an alert: errors and
warnings, and notes only where ``--failure-threshold info`` makes them faults. Otherwise a note
that says a check did not run (MODEL001) is a notification like "could not be checked", and a
fact (an info finding stating a size or a value: ``is_fact``, the definition GitLab's output
uses) goes into ``run.properties.facts``: a clean tree uploads zero results.

GitHub's ingestion rules shape three choices: a result from ``--cmd`` or an unnamed standard
input is a repository-level result (placed on ``.``; a logical-only location makes code
scanning reject the whole file, and an empty ``locations`` fails its required properties); "could not be checked" is a tool notification naming the
rule, not a result under that rule's id (no alert titled for a check that did not run); and a
run that kdacheck could not do (exit code 2) still writes a valid document, with
``executionSuccessful: false`` and the reason, so that an upload step never sends an empty file.
"""

from __future__ import annotations

import hashlib
import os
import re
from pathlib import Path
from typing import IO, Any
from urllib.parse import quote

from kdacheck import __version__
from kdacheck.findings import Finding, Location, Severity
from kdacheck.report import RenderContext
from kdacheck.report._common import (
    all_findings,
    in_role,
    is_fact,
    is_pseudo,
    relative_to,
    repo_root,
)
from kdacheck.results import FileResult
from kdacheck.rules import Rule, all_rules
from kdacheck.sanitize import json_text

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


def locations(loc: Location) -> list[dict[str, Any]]:
    """The result's places. An input that is not a file (``--cmd``, unnamed standard input) is
    placed on the repository itself (``.`` under ``%SRCROOT%``, line 1): a repository-level
    result, which GitHub ingests, where a logical-only or empty ``locations`` is rejected."""
    if is_pseudo(loc.path):
        return [{"physicalLocation": {"artifactLocation": {"uri": ".", "uriBaseId": SRCROOT}, "region": {"startLine": 1}}}]
    return [location(loc)]


def location(loc: Location) -> dict[str, Any]:
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


_PLACE = re.compile(r"\bline \d+|:\d+(?::\d+)?\b")


def identity(f: Finding) -> tuple[str, str, str, str]:
    """What names a finding across runs and line moves: the rule, the file, the message with
    any line or column numbers taken out, and the launch command."""
    path = f.location.path if is_pseudo(f.location.path) else _uri(f.location.path)[0]
    return (f.code, path, _PLACE.sub("", f.message), f.source)


def fingerprint(f: Finding, occurrence: int) -> str:
    """The identity and which occurrence of it in the file this is, hashed."""
    key = "\0".join((*identity(f), str(occurrence)))
    return hashlib.sha256(key.encode("utf-8", "surrogateescape")).hexdigest()[:32]


def _with_role(locs: list[dict[str, Any]], f: Finding) -> list[dict[str, Any]]:
    """The launch a finding belongs to (a role, service or container) as the location's
    logicalLocation (SARIF 2.1.0 §3.33: ``kind`` "resource")."""
    if f.source and locs:
        locs[0]["logicalLocations"] = [{"name": f.source, "kind": "resource"}]
    return locs


def result(f: Finding, index: dict[str, int], occurrence: int = 0) -> dict[str, Any]:
    text = f"{f.message}{in_role(f)}" if not f.fix else f"{f.message}{in_role(f)}\nFix: {f.fix}"
    if is_pseudo(f.location.path):
        text = f"{f.location.path}: {text}"
    out: dict[str, Any] = {
        "ruleId": f.code,
        "ruleIndex": index[f.code],
        "level": LEVEL[f.severity],
        "message": {"text": text},
        "locations": _with_role(locations(f.location), f),
        "partialFingerprints": {"kdacheck/v1": fingerprint(f, occurrence)},
        "properties": {
            "severity": f.severity.label,
            "fix": f.fix,
            "command": f.source,
            "evidence": [{"name": e.name, "value": e.value, "provenance": e.provenance} for e in f.evidence],
        },
    }
    if f.fixes and not is_pseudo(f.location.path):  # only what `lint --fix` writes, as the text is written
        out["fixes"] = [fix_object(f)]
    return out


def fix_object(f: Finding) -> dict[str, Any]:
    """SARIF 2.1.0 §3.55: the finding's replacements, grouped by file."""
    by_file: dict[str, list[dict[str, Any]]] = {}
    for r in f.fixes:
        by_file.setdefault(r.start.path, []).append({
            "deletedRegion": {"startLine": r.start.line, "startColumn": r.start.col, "endLine": r.end.line, "endColumn": r.end.col},
            "insertedContent": {"text": r.new},
        })
    return {"description": {"text": f.fix or f.message},
            "artifactChanges": [{"artifactLocation": _artifact(path), "replacements": reps} for path, reps in by_file.items()]}


def _artifact(path: str) -> dict[str, Any]:
    uri, base = _uri(path)
    return {"uri": uri, "uriBaseId": base} if base else {"uri": uri}


def fact(f: Finding) -> dict[str, Any]:
    """A fact as a property: the rule, the text and the place, not an alert."""
    uri = f.location.path if is_pseudo(f.location.path) else _uri(f.location.path)[0]
    return {"ruleId": f.code, "message": f"{f.message}{in_role(f)}", "uri": uri, "startLine": max(f.location.line, 1)}


def _split(findings: list[Finding], threshold: Severity) -> tuple[list[Finding], list[Finding], list[Finding]]:
    """(results, what could not be checked, facts). A note that does not fail the run is no
    alert: a check that did not run (a "could not be checked", MODEL001) is a notification, and
    a fact a run property."""
    results: list[Finding] = []
    unchecked: list[Finding] = []
    facts: list[Finding] = []
    for f in findings:
        if is_fact(f, threshold):
            facts.append(f)
        elif f.not_checked or (f.severity < threshold and f.severity == Severity.INFO):
            unchecked.append(f)
        else:
            results.append(f)
    return results, unchecked, facts


def document(results: list[FileResult], sglang_version: str, threshold: Severity = Severity.WARNING) -> dict[str, Any]:
    rules = all_rules()
    everything = all_findings(results)
    findings, unchecked, facts = _split(everything, threshold)
    known = {r.code for r in rules}
    from kdacheck.rules import REGISTRY

    rules += [REGISTRY[c] for c in sorted({f.code for f in findings} - known) if c in REGISTRY]
    descriptors = [descriptor(r) for r in rules]
    for code in sorted({f.code for f in findings} - {r.code for r in rules}):  # never expected
        descriptors.append({"id": code, "shortDescription": {"text": code}})
    index = {d["id"]: i for i, d in enumerate(descriptors)}

    notifications: list[dict[str, Any]] = [
        {
            "level": "note",
            "message": {"text": f"{f.code}: {f.message}" + (f" ({f.fix})" if f.fix else "")},
            "locations": locations(f.location),
            "descriptor": {"id": "not-checked"},
            "associatedRule": {"id": f.code, "index": index[f.code]},
        }
        for f in unchecked
        if f.code in index
    ]
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
    from kdacheck.rules.arg import UNREAD

    # a file not read, or a launch with arguments not read (exit 2): the run did not do its job
    failed = any(r.error for r in results) or any(f.code == UNREAD for r in results for f in r.findings)
    invocation: dict[str, Any] = {"executionSuccessful": not failed}
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
        "results": _results(findings, index) + _suppressed(results, index),
        "properties": {"sglangVersion": sglang_version, "facts": [fact(f) for f in facts]},
    }
    roots = {repo_root(r.path) for r in results if not is_pseudo(r.path)} or {repo_root(os.path.join(os.getcwd(), "-"))}
    if len(roots) == 1:
        run["originalUriBaseIds"] = {SRCROOT: {"uri": Path(roots.pop()).as_uri() + "/"}}
    return {"$schema": SCHEMA, "version": "2.1.0", "runs": [run]}


def _results(findings: list[Finding], index: dict[str, int]) -> list[dict[str, Any]]:
    seen: dict[tuple[str, str, str, str], int] = {}
    out = []
    for f in findings:
        key = identity(f)
        seen[key] = seen.get(key, -1) + 1
        out.append(result(f, index, seen[key]))
    return out


def _suppressed(results: list[FileResult], index: dict[str, int]) -> list[dict[str, Any]]:
    """The findings a comment silenced, each with SARIF's ``suppressions`` (§3.35: ``inSource``,
    the comment's reason as ``justification``): shown as suppressed, never as alerts."""
    out = []
    for r in results:
        for s in r.silenced:
            if s.finding.not_checked or s.finding.code not in index:
                continue
            out.append({**result(s.finding, index), "suppressions": [{"kind": "inSource", **({"justification": s.reason} if s.reason else {})}]})
    return out


def failure_document(message: str, sglang_version: str) -> dict[str, Any]:
    """What kdacheck writes when it could not do the run at all (exit code 2)."""
    doc = document([], sglang_version)
    doc["runs"][0]["invocations"] = [
        {
            "executionSuccessful": False,
            "toolExecutionNotifications": [{"level": "error", "message": {"text": message}, "descriptor": {"id": "usage"}}],
        }
    ]
    return doc


def render_failure(message: str, out: IO[str], sglang_version: str) -> None:
    out.write(json_text(failure_document(message, sglang_version)))
    out.write("\n")


def render(results: list[FileResult], out: IO[str], ctx: RenderContext) -> None:
    sglang_version = ctx.sglang_version
    out.write(json_text(document(results, sglang_version, ctx.threshold)))
    out.write("\n")


def render_statistics(results: list[FileResult], out: IO[str], ctx: RenderContext, stats: dict[str, Any]) -> None:
    """``--statistics``: the log, with the counts in each run's ``properties`` (a SARIF property bag)."""
    doc = document(results, ctx.sglang_version, ctx.threshold)
    for run in doc.get("runs", []):
        run.setdefault("properties", {})["statistics"] = stats
    out.write(json_text(doc))
    out.write("\n")
