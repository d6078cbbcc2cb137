"""``kdacheck run``'s human report: a header, one table per kernel check as it finishes, a footer.

Streamed by ``kdacheck run`` (``RunReport``: ``header``, then ``case`` as each case finishes,
then ``footer``) and written at once by ``lint --run`` (``render``); on a terminal, a spinner on
standard error while a case runs (``spinner``). Everything from the input goes through
``visible_name`` and Rich's markup escaping.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import IO, TYPE_CHECKING, Any

from kdacheck.report import RunRenderer
from kdacheck.sanitize import visible_name

if TYPE_CHECKING:
    from kdacheck.kernels.harness import CaseResult
    from kdacheck.results import Case, Plan

# The shapes a report shows (the JSON document has them all)
SHOWN_SHAPES = ("N", "T", "T_alloc", "N_scratch", "HV", "Kd", "Vd", "H", "G", "P", "DS", "state_dtype", "tree", "B", "D", "top_k", "plan_capacity", "item_bytes")


def shapes_line(shapes: dict[str, Any]) -> str:
    """``N=2, T=33, ...``: the shown shapes, in the case's order."""
    return ", ".join(f"{k}={v}" for k, v in shapes.items() if k in SHOWN_SHAPES)


WIDTH_NOT_A_TERMINAL = 1000  # a CI log: lines as long as their text (a terminal: its width)


def _console(out: IO[str]) -> Any:
    """Rich on ``out``: a terminal's width, or (a file, a pipe, a CI log) ``WIDTH_NOT_A_TERMINAL``
    so that no table is folded at Rich's default 80 columns."""
    from rich.console import Console

    tty = bool(getattr(out, "isatty", lambda: False)())
    return Console(file=out, highlight=False, soft_wrap=True, width=None if tty else WIDTH_NOT_A_TERMINAL)


@contextlib.contextmanager
def spinner(progress: IO[str], what: str) -> Iterator[None]:
    """``running <what> …`` on the terminal ``progress`` while the block runs."""
    from rich.console import Console
    from rich.markup import escape

    with Console(file=progress, highlight=False).status(f"running {escape(what)} …"):
        yield


def header(plan: Plan, device: str, out: IO[str]) -> None:
    from rich.markup import escape

    console = _console(out)
    where = "GPU (CUDA)" if device == "cuda" else "CPU, Triton interpreter (shapes scaled by --batch; wall-clock times)"
    console.print(f"[bold]kdacheck run[/bold] {escape(visible_name(plan.source))} on {where}")
    for note in plan.notes:
        console.print(f"  [dim]{escape(visible_name(note))}[/dim]")


def case(case: Case, r: CaseResult, out: IO[str]) -> None:
    from rich.markup import escape
    from rich.table import Table

    table = Table(title=escape(visible_name(case.label)), title_justify="left", show_header=False, box=None, padding=(0, 2))
    table.add_column("field", style="dim", no_wrap=True)
    table.add_column("value", overflow="fold")
    table.add_row("kernel", f"{r.kernel} (kdacheck's Triton kernel)")
    table.add_row("shapes", shapes_line(r.shapes))
    table.add_row("bytes moved", f"{r.bytes_moved:,}" if r.time_s is not None else "— (not launched)")
    table.add_row("time", "—" if r.time_s is None else f"{r.time_s * 1e3:.3f} ms ({r.timing_method})")
    if r.bandwidth_gbs is not None:
        table.add_row("bandwidth", f"{r.bandwidth_gbs:,.0f} GB/s")
    if r.rel_err is not None:
        table.add_row("max error", f"{r.max_abs_err:.2e} abs, {r.rel_err:.2e} relative")
    table.add_row("canaries", "intact" if r.canaries_intact else "[red]OVERWRITTEN[/red]")
    table.add_row("verdict", "[green]pass[/green]" if r.passed else "[bold red]FAIL[/bold red]")
    if r.error:
        table.add_row("error", f"[bold red]{escape(visible_name(r.error))}[/bold red]")
    for note in r.notes:
        table.add_row("note", escape(visible_name(note)))
    _console(out).print(table)


def footer(results: list[tuple[Case, CaseResult]], out: IO[str], plan: Plan | None = None) -> None:
    from rich.markup import escape

    console = _console(out)
    if not results and plan is not None and plan.nothing:
        console.print(f"{escape(visible_name(plan.nothing))}.")
        return
    for c, r in results:
        if r.error:
            console.print(f"[bold red]{escape(visible_name(c.label))} failed:[/bold red] {escape(visible_name(r.error))}")
    passed = sum(1 for _c, r in results if r.passed)
    console.print(f"{passed} of {len(results)} kernel checks passed.")


def render(plan: Plan, device: str, results: list[tuple[Case, CaseResult]], out: IO[str]) -> None:
    """The whole report at once (``lint --run``)."""
    header(plan, device, out)
    for c, r in results:
        case(c, r, out)
    footer(results, out, plan)


class RunReport(RunRenderer):
    """``kdacheck run --output-format full``: each plan's header, its cases as they finish, its footer."""

    progress = True

    def plan_started(self, plan: Plan) -> None:
        header(plan, self.device, self.out)

    def case_done(self, case_: Case, result: CaseResult) -> None:
        case(case_, result, self.out)
        self.out.flush()

    def plan_done(self, plan: Plan, results: list[tuple[Case, CaseResult]]) -> None:
        footer(results, self.out, plan)
