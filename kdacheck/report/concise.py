"""``--output-format concise``: ``path:line:col: CODE [severity] message``, one a line,
sorted by place, then a summary line. Unreadable files, notes about suppressions and, for a
launch whose model did not come from the tree, where it came from (``note: model NAME from
the Hugging Face cache``, the bundled index, the Hub, or a guess from the name) come in the
same order, so the output diffs well."""

from __future__ import annotations

from typing import IO

from kdacheck.models import origin, origin_label
from kdacheck.report import FIXABLE, RenderContext, fixable_line, summary_line
from kdacheck.report._common import in_role
from kdacheck.results import FileResult
from kdacheck.sanitize import visible_name


def lines(results: list[FileResult]) -> list[str]:
    keyed: list[tuple[tuple[str, int, int, str, str], str]] = []
    for r in results:
        if r.error:
            keyed.append(((r.path, 0, 0, "", r.error), f"{r.path}: error: cannot check: {r.error}"))
        for f in r.findings:
            loc = f.location
            key = (loc.path, loc.line, loc.col, f.code, f.message)
            text = f"{loc.path}:{loc.line}:{loc.col}: {FIXABLE if f.fixable else ''}{f.code} [{f.severity.label}] {_one_line(f.message)}{in_role(f)}"
            keyed.append((key, text))
        for cfg in r.resolved:  # where a model not in the tree came from (a folder or --model: said by nothing)
            kind = origin(cfg.model, cfg.model_guess)
            if kind in ("hf-cache", "index", "hub", "guess"):
                loc = cfg.cmd.loc
                name = visible_name(cfg.model.name if cfg.model else str(cfg.user("model_path") or "?")[:200])
                keyed.append(((loc.path, loc.line, loc.col, "~model", name),
                              f"{loc.path}:{loc.line}:{loc.col}: note: model {name} {origin_label(cfg.model, cfg.model_guess)}"))
        for line, code in r.unused_suppressions:
            keyed.append(((r.path, line, 0, "~", code), f"{r.path}:{line}:1: note: unused suppression {code}"))
    keyed.sort(key=lambda kv: kv[0])
    return [text for _key, text in keyed]


def _one_line(text: str) -> str:
    return " ".join(text.split())


def render(results: list[FileResult], out: IO[str], ctx: RenderContext) -> None:
    for line in lines(results):
        out.write(line + "\n")
    out.write(summary_line(results) + "\n")
    if fixable_line(results):
        out.write(fixable_line(results) + "\n")
