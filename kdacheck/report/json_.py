"""``--output-format json``: a versioned, documented schema (docs/json-schema.md)."""

from __future__ import annotations

import re
from typing import IO, Any

from kdacheck import __version__
from kdacheck.findings import Finding, Location
from kdacheck.models import origin
from kdacheck.report import RenderContext, summary
from kdacheck.report.values import layers, unit_of
from kdacheck.resolve import Resolved
from kdacheck.results import FileResult, Suppressed
from kdacheck.sanitize import json_clean, json_text

SCHEMA_VERSION = 3  # 3: commands[].command is the launch as read, its label moved to commands[].role


def location(loc: Location | None) -> dict[str, Any] | None:
    return None if loc is None else {"path": loc.path, "line": loc.line, "column": loc.col}


def finding(f: Finding) -> dict[str, Any]:
    return {
        "code": f.code,
        "severity": f.severity.label,
        "message": f.message,
        "location": location(f.location),
        "fix": f.fix,
        "edits": [{"location": location(e.location), "old": e.old, "new": e.new,
                   "applicability": "safe" if e.safe else "unsafe", **({"after": True} if e.after else {})} for e in f.edits],
        "evidence": [{"name": e.name, "value": e.value, "provenance": e.provenance} for e in f.evidence],
        "command": f.source,
        "fixable": f.fixable,  # added within schema version 2: at the end
    }


def suppressed(s: Suppressed) -> dict[str, Any]:
    """A finding a comment silenced, with the comment's line and reason."""
    return {**finding(s.finding), "suppression": {"line": s.line, "reason": s.reason or None}}


def resolved(cfg: Resolved) -> dict[str, Any]:
    from kdacheck.readers.base import launch_text

    return {
        "command": launch_text(cfg.cmd),
        "location": location(cfg.cmd.loc),
        "sglang_version": cfg.version,
        "model": cfg.model.name if cfg.model else None,
        "model_source": cfg.model_note,
        "model_origin": origin(cfg.model, cfg.model_guess),
        "gpu": cfg.gpu.name if cfg.gpu else None,
        "values": {
            key: {"value": value, "origin": origin, "why": why, "location": location(val.loc) if val else None,
                  "group": group, "unit": unit_of(key.rsplit(".", 1)[-1])}
            for key, (group, value, origin, why, val) in layers(cfg).items()
        },
        "role": cfg.cmd.role,
        "unread": [str(u) for u in cfg.cmd.unread],
    }


def document(results: list[FileResult], sglang_version: str) -> dict[str, Any]:
    return {
        "schema_version": SCHEMA_VERSION,
        "tool": {"name": "kdacheck", "version": __version__},
        "sglang_version": sglang_version,
        "files": [
            {
                "path": r.path,
                "error": r.error,
                "notes": r.notes,
                "commands": [resolved(c) for c in r.resolved],
                "findings": [finding(f) for f in r.findings],
                **({"suppressed": [suppressed(x) for x in r.silenced]} if r.silenced else {}),
            }
            for r in results
        ],
        "summary": summary(results),
    }


def render_failure(message: str, out: IO[str], sglang_version: str) -> None:
    """What kdacheck writes when it could not do the run at all (exit code 2)."""
    doc = document([], sglang_version)
    doc["error"] = message
    out.write(json_text(doc))
    out.write("\n")


def text(doc: dict[str, Any]) -> str:
    """The document indented by two spaces, each resolved value's record (``commands[].values``)
    on one line: the same data as ``json.dumps(doc, indent=2)`` at a fifth of the encoding time
    (the C encoder writes the records; the Python one, which ``indent`` needs, only the frame)."""
    import json
    import secrets

    mark = f"\x00{secrets.token_hex(8)}:"  # a mark the input cannot write (a fresh nonce each run)
    records: list[str] = []
    for f in doc.get("files", []):
        for c in f.get("commands", []):
            values = c.get("values", {})
            for key, record in values.items():
                records.append(json.dumps(record, ensure_ascii=False))
                values[key] = f"{mark}{len(records) - 1}"
    framed = json.dumps(doc, indent=2, ensure_ascii=False)
    escaped = json.dumps(mark, ensure_ascii=False)[1:-1]  # the mark as it stands inside a JSON string
    pattern = re.compile('"' + re.escape(escaped) + '([0-9]+)"')
    return json_clean(pattern.sub(lambda m: records[int(m.group(1))], framed))


def render(results: list[FileResult], out: IO[str], ctx: RenderContext) -> None:
    doc = document(results, ctx.sglang_version)
    if ctx.run is not None:
        doc["run"] = ctx.run  # lint --run: the kernels' reports, one per launch command
    out.write(text(doc))
    out.write("\n")


def render_statistics(results: list[FileResult], out: IO[str], ctx: RenderContext, stats: dict[str, Any]) -> None:
    """``--statistics``: the report with a ``statistics`` object (docs/json-schema.md)."""
    doc = document(results, ctx.sglang_version)
    doc["statistics"] = stats
    out.write(text(doc))
    out.write("\n")
