"""The default, human report: grouped by file, colour only on a terminal (honours NO_COLOR)."""

from __future__ import annotations

import os
import sys
from typing import IO, TYPE_CHECKING

from kdacheck.findings import Finding, Severity
from kdacheck.report import FIXABLE, RenderContext, fixable_line, summary_line
from kdacheck.report._common import in_role
from kdacheck.resolve import Resolved
from kdacheck.results import FileResult

if TYPE_CHECKING:
    from rich.table import Table

# A line is a list of (text, style) segments. Off a terminal the text is written as it is, with
# no Rich at all (importing and running Rich's console was over half the time of linting 1,000
# files); on a terminal Rich styles the same segments (``Text.assemble``: no markup is parsed, so
# nothing from the input can be read as a style tag or an emoji code).
Segment = tuple[str, str]
Line = list[Segment]


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
    from kdacheck.models import origin_label
    from kdacheck.sanitize import visible_name

    name = visible_name(cfg.model.name) if cfg.model else visible_name(str(cfg.user("model_path") or "?")[:200])
    parts = [f"SGLang {cfg.version}", f"model {name} ({origin_label(cfg.model, cfg.model_guess)})"]
    quant = cfg.model.geometry.quant if cfg.model is not None and cfg.model.geometry is not None else None
    if quant is not None:  # the checkpoint's quantization_config (kdacheck.geometry.Quant)
        parts.append(visible_name(quant.label))
    if not cfg.v("spec_on"):
        parts.append("no speculative decoding")
    else:
        from kdacheck import families

        # the linear-attention verify backend and SSM dtype only where one runs: not for a model without
        # hybrid state (dense, DSA) nor for a family with no verify kernel (LFM2's short conv)
        kernel = cfg.model is None or (cfg.model.hybrid and families.spec(cfg.model.family).op is not None)
        for name in HEADLINE:
            if name in ("verify_backend", "ssm_dtype") and not kernel:
                continue
            if name in cfg and cfg.v(name) is not None:
                capped = name == "R" and isinstance(cfg.v("scratch_R"), int) and cfg.v("scratch_R") < cfg.v("R")
                parts.append(f"{LABELS[name]} {cfg.v(name)}" + (f" → {cfg.v('scratch_R')} (memory solve)" if capped else ""))
    return " · ".join(parts)


def resolved_rows(cfg: Resolved) -> list[tuple[str, str, str, str]]:
    """``--show-resolved``: every value in its layer (``sglang.``, ``input.``, ``kdacheck.``),
    grouped (parallelism, speculative, backends, scratch, memory, row map, HiSparse), with units."""
    from kdacheck.report.values import GROUPS, layers, shown, unit_of

    rows = [("sglang_version", cfg.version, "option", "target version")]
    rows.append(("model", cfg.model.name if cfg.model else "?", "model", cfg.model_note))
    if cfg.gpu:
        rows.append(("gpu", f"{cfg.gpu.name} ({cfg.gpu.label}, {cfg.gpu.memory_mib:,} MiB)", "gpu", cfg.gpu.source))
    entries = layers(cfg)
    for group in GROUPS:
        members = [(k, e) for k, e in entries.items() if e[0] == group and not (e[1] is None and e[2] == "default")]
        if not members:
            continue
        rows.append((f"[{group}]", "", "", ""))
        for key, (_g, value, origin, why, _val) in members:
            rows.append((key, shown(value, unit_of(key.rsplit(".", 1)[-1])), origin, why))
    from kdacheck.sanitize import visible_line

    v = visible_line  # values and places come from the input
    return [(v(str(a)), v(str(b)), v(str(c)), v(str(d))) for a, b, c, d in rows]


def resolved_table(cfg: Resolved) -> Table:
    from rich.table import Table
    from rich.text import Text

    table = Table(title=Text(f"Resolved: {cfg.cmd.name or cfg.cmd.path}"), title_justify="left")
    for col in ("value", "resolved", "origin", "why"):
        table.add_column(col, overflow="fold")
    for row in resolved_rows(cfg):
        table.add_row(*(Text(cell) for cell in row))
    return table


def _plain_table(cfg: Resolved) -> list[Line]:
    rows = resolved_rows(cfg)
    widths = [min(40, max(len(r[i]) for r in rows)) for i in range(3)]
    out: list[Line] = [[(f"Resolved: {cfg.cmd.name or cfg.cmd.path}", "bold")]]
    for row in rows:
        out.append([("  " + "  ".join(c.ljust(w) for c, w in zip(row[:3], widths, strict=True)) + "  " + row[3], "")])
    return out


def verdict(r: FileResult) -> Line:
    """The file's outcome first: what fails and how many more, or that it starts."""
    counts = {sev: sum(1 for f in r.findings if f.severity == sev) for sev in Severity}
    errors, warnings = counts[Severity.ERROR], counts[Severity.WARNING]
    more = f" · {warnings} warning{'s' * (warnings != 1)}" if warnings else ""
    if errors:
        from kdacheck.rules import REGISTRY

        first = _ordered(r)[0]
        rule = REGISTRY.get(first.code)
        what = rule.verdict if rule else "fails"
        also = f" (and {errors - 1} more error{'s' * (errors != 2)})" if errors > 1 else ""
        where = in_role(first) if len(r.resolved) > 1 else ""
        return [("  ✗ ", STYLE[Severity.ERROR]), (f"{what} ({first.code}){where}{also}", "bold"), (more, "")]
    unread = [(cfg.cmd.role, u) for cfg in r.resolved for u in cfg.cmd.unread]
    if unread:  # never "✓ starts" on arguments that were not read
        also = f" (and {len(unread) - 1} more)" if len(unread) > 1 else ""
        role = f" (in {unread[0][0]})" if unread[0][0] and len(r.resolved) > 1 else ""
        return [("  ? ", "yellow"), ("not checked", "bold"), (f": not read: {unread[0][1]}{role}{also}", ""), (more, "")]
    scratch = [
        (cfg.v("intermediate_ssm_bytes") + cfg.v("intermediate_conv_window_bytes"), _capped(cfg))
        for cfg in r.resolved
        if "intermediate_ssm_bytes" in cfg and cfg.v("scratch_allocated")
    ]
    most = max(scratch) if scratch else None
    starts = f"starts · verify scratch {most[0] / 2**30:.2f} GiB per rank{most[1]}" if most else "starts"
    if any(cfg.unknown_checks or cfg.not_checked for cfg in r.resolved) or any(f.not_checked for f in r.findings):
        starts += " as far as checked"
    return [("  ✓ ", "green"), (starts, "bold"), (more, "")]


def _capped(cfg: Resolved) -> str:
    """The scratch's R where SGLang's memory solve caps it (the figure is for the capped R)."""
    rows, R = cfg.v("scratch_R"), cfg.v("R")
    return f" (R {rows}, capped from {R} by SGLang's memory solve)" if rows is not None and R is not None and rows < R else ""


NOT_A_TERMINAL_WIDTH = 1000  # columns Rich lays tables out in when the output is not a terminal

MEMORY = ("weight_bytes_per_rank", "max_mamba_cache_size", "per_request_state_bytes", "spec_reserve_bytes", "mem_kv_rest_gib", "mem_fraction_static")
BAR = 32  # characters for the whole GPU


def memory_lines(cfg: Resolved) -> list[Line]:
    """A per-rank memory picture from SGLang's hybrid memory solve, when the GPU is known."""
    if cfg.gpu is None or any(k not in cfg or cfg.v(k) is None for k in MEMORY):
        return []
    gib = 2**30
    total = cfg.gpu.memory_bytes / gib
    frac = float(cfg.v("mem_fraction_static"))
    if not 0 < frac <= 1:  # no picture of a fraction SGLang cannot mean (a value from hostile input: 6.8e16)
        return []
    pool = int(cfg.v("max_mamba_cache_size")) * int(cfg.v("per_request_state_bytes")) / gib
    draft = int(cfg.v("draft_weight_bytes_per_rank") or 0) if "draft_weight_bytes_per_rank" in cfg else 0
    slack = total * (1 - frac)
    parts = [
        ("weights", cfg.v("weight_bytes_per_rank") / gib, "estimate: parameters × bytes / (tp × pp)"),
        *([("draft weights", draft / gib, _why(cfg, "draft_weight_bytes_per_rank"))] if cfg.v("spec_on") else []),
        ("hybrid state pool", pool, f"{cfg.v('max_mamba_cache_size'):,} slots × {cfg.v('per_request_state_bytes') / 2**20:.1f} MiB"),
        _scratch_part(cfg),
        ("KV cache", float(cfg.v("mem_kv_rest_gib")), "what the static pool leaves"),
        *_slack_parts(cfg, slack, frac),
    ]
    if any(v < 0 for _n, v, _w in parts):
        return []
    out: list[Line] = [[(f"  memory per rank ({cfg.gpu.name.upper()}, {total:.1f} GiB; kdacheck's estimate of SGLang's solve):", "dim")]]
    for name, v, why in parts:
        bar = "█" * min(BAR, max(1, round(BAR * v / total))) if v > 0 else ""
        out.append([(f"    {name:<24}{v:7.2f} GiB  ", ""), (f"{bar:<{BAR}}", "cyan"), (f"  {why}", "dim")])
    return out


def _why(cfg: Resolved, name: str) -> str:
    why = cfg[name].why
    return why if len(why) <= 160 else why[:159] + "…"


def _slack_parts(cfg: Resolved, slack: float, frac: float) -> list[tuple[str, float, str]]:
    """Outside the static pool (1 − mem_fraction_static): SGLang's own estimates of the prefill
    working set and the CUDA-graph capture memory, and what is left of the slack."""
    if "mem_prefill_working_mib" not in cfg or cfg.v("mem_prefill_working_mib") is None:
        return [("outside the static pool", slack, f"1 − mem_fraction_static {frac:g}: activations, CUDA graphs")]
    prefill, graphs = cfg.v("mem_prefill_working_mib") / 1024, cfg.v("mem_graph_reserve_mib") / 1024
    rest = slack - prefill - graphs
    out = [
        ("prefill working set", prefill, "SGLang's estimate: max(chunked prefill, 2048) tokens × 1.5 MiB"),
        ("CUDA graphs", graphs, "SGLang's estimate (memory_hook.py); measured up to 20 GB at batch 128: sglang#24453"),
    ]
    if rest >= 0:
        out.append(("rest of the slack", rest, f"1 − mem_fraction_static {frac:g}, less the two above"))
    else:
        out.append(("slack short by", 0.0, f"{-rest:.2f} GiB: 1 − mem_fraction_static {frac:g} is below SGLang's own estimates"))
    return out


def _scratch_part(cfg: Resolved) -> tuple[str, float, str]:
    """The scratch as allocated (the figure MEM001, MEM005 and the verdict show), with what
    SGLang's budget reserved for it beside it."""
    gib = 2**30
    reserved = f"SGLang's budget reserves per_req × (R + 1) × D = {cfg.v('spec_reserve_bytes') / gib:.2f} GiB"
    if "intermediate_ssm_bytes" not in cfg or not cfg.v("scratch_allocated"):
        return ("speculative scratch", cfg.v("spec_reserve_bytes") / gib, reserved)
    allocated = (cfg.v("intermediate_ssm_bytes") + cfg.v("intermediate_conv_window_bytes")) / gib
    rows = cfg.v("scratch_R")
    return ("speculative scratch", allocated, f"allocated for R {rows} + 1 rows{_capped(cfg) and ' (capped)'}; {reserved}")


def _ordered(r: FileResult) -> list[Finding]:
    """Errors, then warnings, then facts (info), each in file order."""
    return sorted(r.findings, key=lambda f: (-f.severity, f.sort_key()))


def lines(results: list[FileResult], show_resolved: bool = False, plain: bool = True, quiet: bool = False) -> list[Line | Table]:
    """The report, line by line; ``--show-resolved`` tables are Rich tables on a terminal.
    ``quiet`` (``-q``): only the files with findings, each with its findings, and the summary."""
    out: list[Line | Table] = []
    for r in results:
        if r.error:
            out.append([(r.path, "bold"), (": ", ""), ("cannot check", "bold red"), (f": {r.error}", "")])
            continue
        if quiet and not r.findings:
            continue
        if not r.resolved and not r.findings:
            out += [[(note, "dim")] for note in r.notes]
            continue
        out.append([(r.path, "bold underline")])
        if r.resolved and not quiet:
            out.append(verdict(r))
        for cfg in [] if quiet else r.resolved:
            label = f"{cfg.cmd.role}: " if cfg.cmd.role else ""
            out.append([(f"  {label}{headline(cfg)}", "dim")])
            out += memory_lines(cfg)
        out += [[(f"  note: {note}", "dim")] for note in r.notes]
        facts = False
        several = len({cfg.cmd.role for cfg in r.resolved}) > 1  # which launch each finding is in
        for f in _ordered(r):
            if f.severity == Severity.INFO and not facts:
                facts = True
                out.append([("  facts:", "dim")])
            style = STYLE[f.severity]
            out.append([(f"  {f.location}: ", ""), *([(FIXABLE, "green")] if f.fixable else []),
                        (f.code, style), (" ", ""), (f.severity.label, style), (f" {f.message}{in_role(f) if several else ''}", "")])
            if f.severity > Severity.INFO:  # an info finding's message holds its numbers already
                out += [[(f"      {ev.name}: {ev.value}" if ev.provenance == "picture" else f"      {ev.name} = {ev.value} ({ev.provenance})", "dim")]
                        for ev in f.evidence]
            if f.fix:
                unfit = not f.fixable and any(e.safe for e in f.edits)  # mechanical, but not on the text as written
                out.append([("      ", ""), ("fix:", "green"), (f" {f.fix}", ""),
                            *([(" (--fix cannot apply it to the text as written)", "dim")] if unfit else [])])
        if not quiet:
            out += [[(f"  {x.finding.location}: suppressed {x.finding.code} (line {x.line}" + (f": {x.reason})" if x.reason else ")"), "dim")]
                    for x in r.silenced]
        if show_resolved and not quiet:
            for cfg in r.resolved:
                if plain:
                    out += _plain_table(cfg)
                else:
                    out.append(resolved_table(cfg))
    out.append([(summary_line(results), "")])
    if fixable_line(results):
        out.append([(fixable_line(results), "")])
    return out


def render(results: list[FileResult], out: IO[str], ctx: RenderContext, plain: bool | None = None) -> None:
    """``plain``: write without Rich (default: when ``out`` is not a terminal)."""
    show_resolved = ctx.show_resolved
    if plain is None:  # --color auto: style a terminal, unless NO_COLOR asks for none (no bold or dim either)
        plain = ctx.color == "never" or (ctx.color == "auto" and (not _is_terminal(out) or bool(os.environ.get("NO_COLOR"))))
    report = lines(results, show_resolved, plain, ctx.quiet)
    if plain:
        for line in report:
            assert isinstance(line, list)
            out.write("".join(text for text, _style in line).expandtabs(8) + "\n")
        return
    from rich.console import Console
    from rich.text import Text

    # not a terminal (a CI log, a file, --color always into a pipe): no wrapping at 80 columns
    width = None if _is_terminal(out) else NOT_A_TERMINAL_WIDTH
    console = Console(file=out, highlight=False, soft_wrap=True, emoji=False, force_terminal=ctx.color == "always" or None, width=width)
    for line in report:
        console.print(Text.assemble(*line) if isinstance(line, list) else line)
