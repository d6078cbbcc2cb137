"""The rule unit: code, severity, message, fix and documentation side by side.

A rule is a pure function over a ``Resolved`` configuration that yields ``Hit``s. Its
documentation lives in the same place (the ``@rule`` arguments) and is what ``kdacheck
explain``, ``kdacheck rules``, SARIF's rule descriptors and ``docs/rules.md`` are made from.
"""

from __future__ import annotations

import enum
from collections.abc import Callable, Iterable, Iterator
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
Refusal = tuple[str, str | None, tuple[str, ...]]  # SGLang's message, the fix, the values it read


def first_refusal(refusals: Iterable[Refusal]) -> Iterator[Hit]:
    """One SGLang function's checks, in its order, as a rule reports them: SGLang raises at the
    first, so the first refusal is the one finding (placed at its values by the engine)."""
    for message, fix, values in refusals:
        yield Hit(message, fix, values=values)
        return


class Consequence(str, enum.Enum):
    """What SGLang does when a rule fails, in a few words: the full report's verdict line
    ("✗ refuses to start (PAR001)"). When it stops, not its exception."""

    EXITS = "exits at start (argument error)"  # argparse: unrecognized or invalid arguments
    REFUSES = "refuses to start"  # a check in server_args or the scheduler, before any weight loads
    REFUSES_MODEL = "refuses to start (model construction)"
    REFUSES_BACKEND = "refuses to start (attention backend)"
    REFUSES_DRAFT = "refuses to start (draft worker)"
    OUT_OF_MEMORY = "refuses to start (out of memory)"
    FAILS_AFTER_START = "fails after start (empty drafts, zero-sized buffers)"
    FAILS_TO_COMPILE = "fails to compile its kernel at first use"
    CRASHES_AT_CAPTURE = "crashes at CUDA-graph capture"
    CRASHES_AT_GATHER = "crashes at the first speculative gather"
    CRASHES_AT_VERIFY = "crashes at the first verify batch"
    CRASHES_IN_DECODE = "crashes in the decode kernel"
    CRASHES_AT_DRAFT_TREE = "crashes when it builds the draft tree"
    FAILS_AT_TRANSFER = "fails at the first KV transfer between prefill and decode (the client waits)"
    SILENTLY_OTHER = "runs, silently other than written"
    CORRUPTS = "corrupts memory silently"
    RUNS_OTHER = "runs other than written"  # a warning or a note: SGLang starts, not as the flags read
    KNOWN_BUG = "hits a known SGLang bug"  # SPEC017: a public issue on this version, fixed later or open


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
    consequence: Consequence | None = None  # what SGLang does when it fails (the verdict line); every rule declares one

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
    def verdict(self) -> str:
        """The full report's verdict words for this rule (its declared consequence)."""
        if self.consequence is None:  # undeclared (tests/test_catalogue.py fails on it): a neutral verdict
            return "fails" if self.severity is Severity.ERROR else Consequence.RUNS_OTHER.value
        return self.consequence.value

    @property
    def help_uri(self) -> str:
        return f"https://github.com/kdacheck/kdacheck/blob/main/docs/rules.md#{self.code.lower()}"


REGISTRY: dict[str, Rule] = {}
HYBRID = tuple(f for f in Family if f.hybrid)  # the families whose verify scratch and state pool kdacheck models (their formulas)
# the families whose verify runs a linear-attention kernel (FlashInfer / Triton, 0.5.23 layers/attention/linear/); LFM2's
# short conv runs its own causal_conv1d on the conv windows (short_conv_backend.py), no such kernel
LINEAR_VERIFY = (Family.KDA, Family.GDN, Family.MAMBA2)
MAX_SEARCH = 4096  # candidates a fix search tries (counts in a launch file are not bounded)


def layout(cfg: Resolved) -> tuple[int, int, int]:
    """TP, attention TP and EP as SGLang builds the model with them (``kdacheck.geometry``)."""
    tp = int(cfg.v("tp_size") or 1)
    ep = cfg.user("ep_size")
    return tp, int(cfg.v("attn_tp_size") or tp), int(ep) if isinstance(ep, int) and ep > 0 else 1


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
    consequence: Consequence | None = None,
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
            consequence,
        )
        return fn

    return register


def _dedent(text: str) -> str:
    import textwrap

    return textwrap.dedent(text).strip()
