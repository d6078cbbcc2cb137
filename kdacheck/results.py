"""The results the drivers produce and the renderers read: below both.

``kdacheck lint`` (``lint.py``, ``lint_command.py``) builds a :class:`FileResult` per file, in
:class:`Results`; ``kdacheck run`` (``runner.py``) builds a :class:`Plan` of :class:`Case` items.
``kdacheck/report/`` renders them and imports no driver. Nothing here imports a driver, a
renderer or the kernels (a case's op is looked up on first use).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from kdacheck.findings import Finding
from kdacheck.resolve import Resolved

if TYPE_CHECKING:
    from kdacheck.kernels.cases import AnyCase
    from kdacheck.kernels.ops import Op


# --- kdacheck lint ------------------------------------------------------------------------------


@dataclass(frozen=True)
class Suppressed:
    """A finding a ``# kdacheck: ignore[CODE] -- reason`` comment silenced: the comment's line
    and its reason ("" when it gives none)."""

    finding: Finding
    line: int
    reason: str = ""


@dataclass
class FileResult:
    path: str
    resolved: list[Resolved] = field(default_factory=list)
    findings: list[Finding] = field(default_factory=list)
    error: str | None = None
    notes: list[str] = field(default_factory=list)
    suppressed: int = 0
    baselined: int = 0  # findings left out because --baseline holds them
    rules: list[str] = field(default_factory=list)  # codes checked (applicable and selected)
    unused_suppressions: list[tuple[int, str]] = field(default_factory=list)  # (line, code)
    silenced: list[Suppressed] = field(default_factory=list)  # the findings a comment suppressed, with its reason
    launch_of: list[int] = field(default_factory=list)  # each finding's launch command (its index in ``resolved``), as ``findings``

    @property
    def by_launch(self) -> list[list[Finding]]:
        """Each launch command's findings, as ``resolved``: read from ``findings`` itself, so what
        became of a finding (its ``[*]`` mark, its sanitising, ``--quiet``) shows here too."""
        if len(self.launch_of) != len(self.findings):  # a result not built by lint_text
            return [list(self.findings) for _ in self.resolved]
        groups: list[list[Finding]] = [[] for _ in self.resolved]
        for f, i in zip(self.findings, self.launch_of, strict=True):
            groups[i].append(f)
        return groups


class Results(list[FileResult]):
    """The files of one run, in order, and what the run skipped on purpose (``skipped``: kind →
    count, e.g. unrendered Helm templates found in folders), which the summary counts."""

    def __init__(self, items: Iterable[FileResult] = (), skipped: dict[str, int] | None = None) -> None:
        super().__init__(items)
        self.skipped: dict[str, int] = dict(skipped or {})


# --- kdacheck run -------------------------------------------------------------------------------


@dataclass
class Case:
    """One kernel launch to make (a typed case of ``kdacheck.kernels.cases``), and why."""

    spec: AnyCase
    label: str
    notes: list[str] = field(default_factory=list)

    @property
    def op(self) -> Op:
        """The kernel op that runs this case."""
        from kdacheck.kernels.ops import op_for  # on first use: a lint loads no kernel module

        return op_for(self.spec)


@dataclass
class Plan:
    source: str
    cases: list[Case]
    notes: list[str] = field(default_factory=list)
    nothing: str | None = None  # why there is no case to run (a model without hybrid state): said, exit 0
