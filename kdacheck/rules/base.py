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
from kdacheck.models import Family
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
    pictures: tuple[tuple[str, str], ...] = ()  # (name, one line) shown with the evidence, e.g. KDA002's row map


def unchecked(reason: str, *values: str) -> Hit:
    """The rule needs a fact the configuration does not hold: say so, never guess (``values``:
    the resolved names it would have judged, for the place and the evidence)."""
    return Hit(f"{NOT_CHECKED}: {reason}", values=values, severity=Severity.INFO)


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
    needs: str = ""  # "model": not run without the model's geometry (MODEL001 lists it); "state": without its config
    families: tuple[Family, ...] = ()  # the families it can fire on (empty: any); a guessed family outside them rules it out
    speculative: bool = False  # fires only under speculative decoding
    notice: bool = False  # an info finding every format shows where a user looks (a GitHub notice, a SARIF tool notification)

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

    @property
    def consequence(self) -> str:
        """What SGLang does when this rule fails, in a few words (the report's verdict line),
        read from the rule's ``why``: when it stops, not its exception."""
        why = self.why.lower()
        for needle, words in _CONSEQUENCES:
            if needle in why:
                return words
        return "fails" if self.severity is Severity.ERROR else "runs other than written"


# ``why`` phrases → the verdict's words, first match wins (checked over every rule in tests).
_CONSEQUENCES = (
    ("valueerror at start-up", "refuses to start"),
    ("parsed at start-up", "refuses to start"),
    ("fail later", "fails after start (empty drafts, zero-sized buffers)"),
    ("multi-step kernel", "crashes at the first speculative gather"),
    ("cuda-graph capture", "crashes at CUDA-graph capture"),
    ("first verify batch", "crashes at the first verify batch"),
    ("decode kernel", "crashes in the decode kernel"),
    ("static_assert", "fails to compile its kernel at first use"),
    ("torch.topk", "crashes when it builds the draft tree"),
    ("when the model is built", "refuses to start (model construction)"),
    ("backend is built", "refuses to start (attention backend)"),
    ("draft worker allocates", "refuses to start (draft worker)"),
    ("before it loads a single weight", "refuses to start"),
    ("not enough gpu memory", "refuses to start (out of memory)"),
    ("exits at start", "exits at start (argument error)"),
    ("unrecognized arguments", "exits at start (argument error)"),
    ("refuses", "refuses to start"),
    ("start", "refuses to start"),
    ("launch", "refuses to start"),
    ("silently", "runs, silently other than written"),
    ("corrupt", "corrupts memory silently"),
)


REGISTRY: dict[str, Rule] = {}
HYBRID = tuple(f for f in Family if f.hybrid)  # the families whose verify scratch and state pool kdacheck models (their formulas)
# the families whose verify runs a linear-attention kernel (FlashInfer / Triton, 0.5.23 layers/attention/linear/); LFM2's
# short conv runs its own causal_conv1d on the conv windows (short_conv_backend.py), no such kernel
LINEAR_VERIFY = (Family.KDA, Family.GDN, Family.MAMBA2)
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
    families: tuple[Family, ...] = (),
    speculative: bool = False,
    notice: bool = False,
) -> Callable[[Check], Check]:
    """Register a check function as rule ``code`` with its documentation."""

    def register(fn: Check) -> Check:
        if code in REGISTRY:
            raise ValueError(f"rule {code} registered twice")
        REGISTRY[code] = Rule(
            code, severity, summary, _dedent(what), _dedent(why), _dedent(fix), fn,
            _dedent(sglang_message) if sglang_message else None,
            _dedent(example) if example else None, sources, since, until,
            _dedent(inferred) if inferred else None, changes, name, needs, families, speculative, notice,
        )
        return fn

    return register


def _dedent(text: str) -> str:
    import textwrap

    return textwrap.dedent(text).strip()
