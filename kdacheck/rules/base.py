"""The rule unit: code, severity, message, fix and documentation side by side.

A rule is a pure function over a ``Resolved`` configuration that yields ``Hit``s. Its
documentation lives in the same place (the ``@rule`` arguments) and is what ``kdacheck
explain``, ``kdacheck rules``, SARIF's rule descriptors and ``docs/rules.md`` are made from.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass

from kdacheck import versions
from kdacheck.findings import NOT_CHECKED, Edit, Location, Severity
from kdacheck.resolve import Resolved


@dataclass(frozen=True)
class Hit:
    """One violation as a rule sees it; the engine adds code, place and evidence."""

    message: str
    fix: str | None = None
    values: tuple[str, ...] = ()  # names of resolved values that led to it (evidence, place)
    at: Location | None = None
    severity: Severity | None = None  # overrides the rule's (e.g. info "could not check")
    edits: tuple[Edit, ...] = ()  # the fix as edits of the file (``lint --fix``)
    sets: tuple[tuple[str, str, bool], ...] = ()  # (flag, value, safe): the fix gives the flag this value


def unchecked(reason: str) -> Hit:
    """The rule needs a fact the configuration does not hold: say so, never guess."""
    return Hit(f"{NOT_CHECKED}: {reason}", severity=Severity.INFO)


Check = Callable[[Resolved], Iterable[Hit]]


@dataclass(frozen=True)
class Rule:
    code: str
    severity: Severity
    summary: str
    what: str
    why: str
    fix: str
    check: Check
    sglang_message: str | None = None
    example: str | None = None
    sources: tuple[str, ...] = ()
    since: str = versions.OLDEST
    until: str | None = None
    inferred: str | None = None
    changes: tuple[str, ...] = ()  # how it changes across versions
    name: str = ""  # readable name (SARIF `name`, `kdacheck rules`, `explain`)
    needs: str = ""  # "model": not run without the model's geometry (MODEL001 lists it)

    @property
    def prefix(self) -> str:
        return self.code.rstrip("0123456789")

    @property
    def versions(self) -> str:
        return f"{self.since}–{self.until or versions.NEWEST}"

    def applies_to(self, version: str) -> bool:
        v = versions.vtuple(version)
        if v < versions.vtuple(self.since):
            return False
        return self.until is None or v <= versions.vtuple(self.until)

    @property
    def help_uri(self) -> str:
        return f"https://github.com/kdacheck/kdacheck/blob/main/docs/rules.md#{self.code.lower()}"


REGISTRY: dict[str, Rule] = {}
MAX_SEARCH = 4096  # candidates a fix search tries (counts in a launch file are not bounded)


def divisors(n: int) -> list[int]:
    """The divisors of ``n`` (trial division to √n; none for an n beyond 10¹²: no loop over an
    untrusted count)."""
    if not 0 < n <= 10**12:
        return []
    small = [d for d in range(1, int(n**0.5) + 1) if n % d == 0]
    return sorted({*small, *(n // d for d in small)})


def rule(
    code: str,
    severity: Severity,
    *,
    name: str,
    summary: str,
    what: str,
    why: str,
    fix: str,
    sglang_message: str | None = None,
    example: str | None = None,
    sources: tuple[str, ...] = (),
    since: str = versions.OLDEST,
    until: str | None = None,
    inferred: str | None = None,
    changes: tuple[str, ...] = (),
    needs: str = "",
) -> Callable[[Check], Check]:
    """Register a check function as rule ``code`` with its documentation."""

    def register(fn: Check) -> Check:
        if code in REGISTRY:
            raise ValueError(f"rule {code} registered twice")
        REGISTRY[code] = Rule(
            code, severity, summary, _dedent(what), _dedent(why), _dedent(fix), fn,
            _dedent(sglang_message) if sglang_message else None,
            _dedent(example) if example else None, sources, since, until,
            _dedent(inferred) if inferred else None, changes, name, needs,
        )
        return fn

    return register


def _dedent(text: str) -> str:
    import textwrap

    return textwrap.dedent(text).strip()
