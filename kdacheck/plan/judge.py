"""Judge one candidate launch by kdacheck's own lint, as ``kdacheck lint --cmd LINE --model M
--gpu G --sglang-version V`` does: the same ``lint_text`` on the same text, so the plan's
"0 errors, 0 warnings" and its memory figures are lint's for that line by construction."""

from __future__ import annotations

import shlex
from dataclasses import dataclass, field
from typing import Any

from kdacheck.findings import Finding, Severity
from kdacheck.plan.space import Flags

LAUNCHER = ("python3", "-m", "sglang.launch_server")


def argv(flags: Flags) -> list[str]:
    out: list[str] = []
    for option, value in flags:
        out.append(option)
        if isinstance(value, tuple):
            out.extend(value)
        elif value is not None:
            out.append(value)
    return out


def line(flags: Flags) -> str:
    return " ".join(shlex.quote(w) for w in (*LAUNCHER, *argv(flags)))


@dataclass
class Verdict:
    flags: Flags
    text: str
    findings: list[Finding] = field(default_factory=list)
    error: str | None = None
    cfg: Any = None  # the Resolved lint produced
    not_checked: list[str] = field(default_factory=list)

    @property
    def blocking(self) -> list[Finding]:
        return [f for f in self.findings if f.severity >= Severity.WARNING]

    @property
    def clean(self) -> bool:
        return self.error is None and self.cfg is not None and not self.blocking

    @property
    def memory_blocked(self) -> bool:
        """A memory rule refuses it (the solve, the scratch share): monotone in R."""
        return any(f.code.startswith("MEM") for f in self.blocking)

    def first_problem(self) -> str:
        if self.error:
            return self.error
        f = self.blocking[0]
        return f"{f.code} {f.severity.label}: {f.message}"


def judge(flags: Flags, opts: Any) -> Verdict:
    from kdacheck.lint import lint_text

    text = line(flags)
    result = lint_text(text, "<cmd>", opts, ".", True)
    v = Verdict(flags, text, list(result.findings), result.error)
    if result.resolved:
        v.cfg = result.resolved[0]
        v.not_checked = sorted({*v.cfg.not_checked, *v.cfg.unknown_checks})
    elif v.error is None:
        v.error = "no launch command resolved"
    return v
