"""``plan --pd``: a prefill/decode pair. The search plans the decode server (its lines carry
``--disaggregation-mode decode``: speculative decoding, the running requests and the KV cache
that matter are the decode side's); each kept decode line gets its prefill twin, the same flags
with ``--disaggregation-mode prefill`` (so page size, KV cache dtype, attention TP, DCP and the
speculative algorithm agree, as SGLang's transfer compares them), and the two are linted
together as one deployment, the pair rules included (``kdacheck/pairs.py``, ``rules/pd.py``).
A pair with an error or a warning on either side or between them is dropped, counted and said."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from kdacheck.findings import Finding, Severity
from kdacheck.plan.judge import line
from kdacheck.plan.space import Flags

MODE = "--disaggregation-mode"


def decode_base(base: Flags) -> Flags:
    """The search's fixed flags with the decode role (an ``--args`` file naming a role is refused
    by the caller: the plan sets both)."""
    return (*base, (MODE, "decode"))


def names_a_role(fixed: Flags) -> bool:
    return any(opt == MODE for opt, _v in fixed)


def prefill_flags(decode: Flags) -> Flags:
    """The decode line's prefill twin: every flag the same, the role prefill."""
    return tuple((opt, "prefill") if opt == MODE else (opt, val) for opt, val in decode)


def pair_text(prefill: Flags, decode: Flags) -> str:
    """Both servers as one script, as an operator starts them on one host (kdacheck pairs a
    file's roles)."""
    return f"{line(prefill)} &\n{line(decode)} &\nwait\n"


@dataclass
class Pair:
    """A decode line's prefill twin and what linting the two together found."""

    prefill: Flags
    text: str
    findings: list[Finding] = field(default_factory=list)
    error: str | None = None
    notes: list[str] = field(default_factory=list)

    @property
    def blocking(self) -> list[Finding]:
        return [f for f in self.findings if f.severity >= Severity.WARNING]

    @property
    def clean(self) -> bool:
        return self.error is None and not self.blocking

    def first_problem(self) -> str:
        if self.error:
            return self.error
        f = self.blocking[0]
        return f"{f.code} {f.severity.label}: {f.message}"


def check(decode: Flags, opts: Any) -> Pair:
    """Lint the pair as ``kdacheck lint`` lints a file holding both roles."""
    from kdacheck.lint import lint_text

    prefill = prefill_flags(decode)
    text = pair_text(prefill, decode)
    result = lint_text(text, "<pair>", opts, ".", True)
    pair = Pair(prefill, text, list(result.findings), result.error)
    if pair.error is None and len(result.resolved) != 2:
        pair.error = f"the pair resolved to {len(result.resolved)} launches, not 2"
    pair.notes = [n for n in result.notes if "with no" in n and "role" in n]  # an unpaired role: never silent
    if pair.notes and pair.error is None:
        pair.error = pair.notes[0]
    return pair
