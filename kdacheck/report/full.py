"""The default, human report: grouped by file, colour only on a terminal (honours NO_COLOR)."""

from __future__ import annotations

from typing import IO

from rich.console import Console
from rich.markup import escape
from rich.table import Table

from kdacheck.findings import Severity
from kdacheck.lint import FileResult
from kdacheck.report import summary_line
from kdacheck.resolve import Resolved

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


def render(results: list[FileResult], out: IO[str], show_resolved: bool = False) -> None:
    console = Console(file=out, highlight=False, soft_wrap=True, emoji=False)  # emoji=False: "x.sh:100:5" is not 💯
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
