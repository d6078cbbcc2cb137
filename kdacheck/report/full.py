"""The default, human report: grouped by file, colour only on a terminal (honours NO_COLOR)."""

from __future__ import annotations

import os
import re
import sys
from typing import IO, TYPE_CHECKING, Any

from kdacheck.findings import Severity
from kdacheck.lint import FileResult
from kdacheck.report import summary_line
from kdacheck.resolve import Resolved

if TYPE_CHECKING:
    from rich.table import Table

# rich.markup.escape and the tag syntax of rich.markup.render, copied so that a report that
# does not go to a terminal needs no Rich at all (importing and running Rich's console was
# over half the time of linting 1,000 files); tests/test_fuzz.py checks both give the same text.
_ESCAPE = re.compile(r"(\\*)(\[[a-z#/@][^[]*?])")
_TAGS = re.compile(r"((\\*)\[([a-z#/@][^[]*?)])")


def escape(markup: str) -> str:
    """Escape text so that Rich markup reads it literally (as ``rich.markup.escape``)."""
    markup = _ESCAPE.sub(lambda m: f"{m.group(1)}{m.group(1)}\\{m.group(2)}", markup)
    if markup.endswith("\\") and not markup.endswith("\\\\"):
        return markup + "\\"
    return markup


def strip_markup(markup: str) -> str:
    """The text Rich prints for ``markup`` without styles (as ``rich.markup.render``)."""
    if "[" not in markup:
        return markup
    out: list[str] = []
    pos = 0
    for m in _TAGS.finditer(markup):
        full, escapes, _tag = m.groups()
        start, end = m.span()
        if start > pos:
            out.append(markup[pos:start].replace("\\[", "["))
        if escapes:
            backslashes, escaped = divmod(len(escapes), 2)
            if backslashes:
                out.append("\\" * backslashes)
            if escaped:
                out.append(full[len(escapes) :].replace("\\[", "["))
                pos = end
                continue
        pos = end
    if pos < len(markup):
        out.append(markup[pos:].replace("\\[", "["))
    return "".join(out)


class _PlainConsole:
    """What Rich's console prints to a file that is not a terminal, without Rich; a line
    with a tab (Rich expands tabs by cell width) or a table still goes through Rich."""

    def __init__(self, out: IO[str]) -> None:
        self.out = out
        self._rich: Any = None

    def print(self, markup: Any) -> None:
        if isinstance(markup, str) and "\t" not in markup:
            self.out.write(strip_markup(markup) + "\n")
            return
        if self._rich is None:
            self._rich = _rich_console(self.out)
        self._rich.print(markup)


def _rich_console(out: IO[str]) -> Any:
    from rich.console import Console

    return Console(file=out, highlight=False, soft_wrap=True, emoji=False)  # emoji=False: "x.sh:100:5" is not 💯


def _is_terminal(out: IO[str]) -> bool:
    """Whether Rich would treat ``out`` as a terminal (and so style it)."""
    if any(os.environ.get(k) for k in ("FORCE_COLOR", "TTY_COMPATIBLE", "TTY_INTERACTIVE")) or "ipykernel" in sys.modules:
        return True
    isatty = getattr(out, "isatty", None)
    try:
        return bool(isatty and isatty())
    except ValueError:  # a closed file
        return False

STYLE = {Severity.ERROR: "bold red", Severity.WARNING: "yellow", Severity.INFO: "cyan"}

# The values shown for every launch command, in this order.
HEADLINE = ("speculative_algorithm", "steps", "topk", "draft_tokens", "d_max", "R", "verify_backend", "ssm_dtype")
LABELS = {"speculative_algorithm": "algorithm", "steps": "S", "topk": "K", "draft_tokens": "D", "d_max": "D_max", "R": "R", "verify_backend": "verify", "ssm_dtype": "SSM"}


def headline(cfg: Resolved) -> str:
    parts = [f"SGLang {cfg.version}", f"model {cfg.model.name if cfg.model else '?'}"]
    if not cfg.v("spec_on"):
        parts.append("no speculative decoding")
    else:
        for name in HEADLINE:
            if name in cfg and cfg.v(name) is not None:
                parts.append(f"{LABELS[name]} {cfg.v(name)}")
    return " · ".join(parts)


def resolved_table(cfg: Resolved) -> Table:
    from rich.table import Table

    table = Table(title=f"Resolved: {cfg.cmd.name or cfg.cmd.path}", title_justify="left", show_lines=False)
    table.add_column("value")
    table.add_column("resolved", overflow="fold")
    table.add_column("origin")
    table.add_column("why", overflow="fold")
    table.add_row("sglang_version", cfg.version, "option", "target version")
    table.add_row("model", cfg.model.name if cfg.model else "?", "model", cfg.model_note)
    if cfg.gpu:
        table.add_row("gpu", f"{cfg.gpu.name} (SM{cfg.gpu.sm}, {cfg.gpu.memory_mib:,} MiB)", "gpu", cfg.gpu.source)
    for name, val in cfg.vals.items():
        if val.value is None and val.origin == "default":
            continue
        shown = f"{val.value:,}" if isinstance(val.value, int) and not isinstance(val.value, bool) and abs(val.value) >= 10_000 else str(val.value)
        table.add_row(name, escape(shown), val.origin, escape(val.why))
    return table


def render(results: list[FileResult], out: IO[str], show_resolved: bool = False, plain: bool | None = None) -> None:
    """``plain``: print without Rich (default: when ``out`` is not a terminal)."""
    if plain is None:
        plain = not _is_terminal(out)
    console: Any = _PlainConsole(out) if plain else _rich_console(out)
    for r in results:
        if r.error:
            console.print(f"[bold]{escape(r.path)}[/bold]: [bold red]cannot check[/bold red]: {escape(r.error)}")
            continue
        if not r.resolved and not r.findings:
            for note in r.notes:
                console.print(f"[dim]{escape(note)}[/dim]")
            continue
        console.print(f"[bold underline]{escape(r.path)}[/bold underline]")
        for cfg in r.resolved:
            label = f"{cfg.cmd.name}: " if cfg.cmd.name and cfg.cmd.kind != "yaml" else ""
            console.print(f"  [dim]{escape(label)}{escape(headline(cfg))}[/dim]")
        for note in r.notes:
            console.print(f"  [dim]note: {escape(note)}[/dim]")
        for f in r.findings:
            sev = f.severity
            console.print(
                f"  {escape(str(f.location))}: [{STYLE[sev]}]{f.code}[/{STYLE[sev]}] "
                f"[{STYLE[sev]}]{sev.label}[/{STYLE[sev]}] {escape(f.message)}"
            )
            for ev in f.evidence:
                console.print(f"      [dim]{escape(ev.name)} = {escape(ev.value)} ({escape(ev.provenance)})[/dim]")
            if f.fix:
                console.print(f"      [green]fix:[/green] {escape(f.fix)}")
        if show_resolved:
            for cfg in r.resolved:
                console.print(resolved_table(cfg))
    console.print(summary_line(results))
