"""The vocabulary of resolution: provenance (``Val``), the resolved configuration, the steps.

A step is a function ``(Resolved) -> None`` that reads values set by earlier steps and the
parsed flags, and sets the values it declares (``Step.sets``). A value no step declares cannot
be set or read: ``Resolved.v("stpes")`` raises instead of reading None.
"""

from __future__ import annotations

import enum
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from kdacheck import flags as flagmod
from kdacheck import versions
from kdacheck.args import Given, Parsed
from kdacheck.findings import Location
from kdacheck.gpus import GPU
from kdacheck.models import Family, Model
from kdacheck.readers.base import LaunchCommand


@dataclass(frozen=True)
class Val:
    """A resolved value and where it came from."""

    value: Any
    origin: str  # "user", "default", "derived", "model", "gpu", "assumed"
    why: str
    loc: Location | None = None

    def __str__(self) -> str:
        return f"{fmt(self.value)} ({self.why})"


def fmt(value: Any) -> str:
    if isinstance(value, bool) or value is None:
        return str(value)
    if isinstance(value, int) and abs(value) >= 10_000:
        return f"{value:,}"
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(fmt(v) for v in value) + "]"
    return str(value)


def ceil_align(x: int, a: int) -> int:
    return x if a <= 1 else -(-x // a) * a


class Event(enum.Enum):
    """What SGLang does during resolution that the launch line does not say: a refusal it raises
    or a value it silently rewrites. Steps record them; rules (``kdacheck/rules``) report them."""

    TOPK_OR_DRAFT_WITHOUT_STEPS = "topk or draft tokens without steps: SGLang asserts"
    STEPS_WITHOUT_TOPK = "steps without topk: `None > 1` raises TypeError"
    DRAFT_TOKENS_OVERRIDDEN = "topk 1: draft tokens rewritten to steps + 1"
    TREE_WITHOUT_DRAFT_TOKENS = "topk > 1 without draft tokens"
    ADAPTIVE_OFF = "adaptive speculation switched off silently"
    STEPS_NOT_IN_CANDIDATES = "steps not among the adaptive candidate steps: ValueError"
    TP_NOT_DIVISIBLE_BY_ATTN_DP = "tp_size % attn_dp_size != 0: a bare AssertionError"
    DP_REPLICAS_WITH_ATTN_DP = "dp_size > 1 with attn_dp_size > 1: ValueError"
    FLASHKDA_DECODE = "--linear-attn-decode-backend flashkda: ValueError (prefill-only)"
    EXTRA_BUFFER_WITHOUT_MAMBA = "an extra_buffer strategy on a model without mamba state: ValueError"


class RuleOptions:
    """kdacheck's own settings that rules read (``[tool.kdacheck]``, never SGLang's)."""

    __slots__ = ("mem005_share", "plan_capacity")

    def __init__(self, mem005_share: float = 0.10, plan_capacity: int | None = None) -> None:
        self.mem005_share = mem005_share  # MEM005: the share of GPU memory the scratch may take
        self.plan_capacity = plan_capacity  # HSP003: the miss-plan capacity, when known otherwise


@dataclass
class Resolved:
    cmd: LaunchCommand
    parsed: Parsed
    version: str
    model: Model | None
    model_note: str
    gpu: GPU | None
    vals: dict[str, Val] = field(default_factory=dict)
    events: set[Event] = field(default_factory=set)
    options: RuleOptions = field(default_factory=RuleOptions)
    sglang: dict[str, Any] | None = None  # lint --sglang: SGLang's own verdict (kdacheck.sglang.child)
    model_guess: Family | None = None  # the family the model's name says, when its geometry is unknown
    draft_block: tuple[int | None, str] = (None, "")  # DSpark's gamma from the draft config.json, and where
    draft_weights: tuple[int | None, str] = (None, "")  # the draft checkpoint's weight bytes (estimate from its config.json), and how
    draft_vocab: int | None = None  # the draft checkpoint's vocab_size (its text config), where its config.json was read
    # The SGLang version an image tag names (any version, one without a flag table too) and where, unless
    # --sglang-version chose the target: the version SPEC017 looks the known-bug table up by
    deployed: tuple[str, str] | None = None
    not_checked: list[str] = field(default_factory=list)  # rules not run: they need the model
    unknown_checks: list[str] = field(default_factory=list)  # rules not decided: they read a value not known statically
    # Values that depend on a flag whose value is not known statically (``$TP`` unset): name → why.
    tainted: dict[str, str] = field(default_factory=dict)
    taint_seen: str | None = None  # set when a tainted value is read (by a step or a rule)
    step_sets: list[str] = field(default_factory=list)  # names set by the step running now

    # -- reading (rules and later steps) --------------------------------------------------
    def _read(self, name: str) -> None:
        why = self.tainted.get(name)
        if why is not None and self.taint_seen is None:
            self.taint_seen = why

    def __getitem__(self, name: str) -> Val:
        self._read(name)
        return self.vals[_declared(name)]

    def __contains__(self, name: str) -> bool:
        self._read(name)
        return _declared(name) in self.vals

    def v(self, name: str, default: Any = None) -> Any:
        self._read(name)
        val = self.vals.get(_declared(name))
        return default if val is None else val.value

    @property
    def family(self) -> Family | None:
        """The model's family: from its geometry, else guessed from its name (``model_guess``)."""
        return self.model.family if self.model is not None else self.model_guess

    def given(self, dest: str) -> bool:
        stored = flagmod.dest(dest, self.version)
        self._read(stored)
        return stored in self.parsed.given

    def written(self, dest: str) -> Given | None:
        """Where and how the launch gives a flag (``dest`` as the newest SGLang names it:
        ``flags.dest``), else None; its value is not read (no taint)."""
        return self.parsed.given.get(flagmod.dest(dest, self.version))

    def user(self, dest: str) -> Any:
        """A flag's value as written (None when not given, or not known statically)."""
        self._read(dest)
        return self.parsed.value(dest)

    def at_least(self, first: str) -> bool:
        """Whether the target version has the behaviour that starts in ``first`` (``kdacheck.versions``)."""
        return versions.at_least(self.version, first)

    def place(self, *names: str) -> Location:
        """Where to point a finding about these values: the first one the user wrote."""
        for n in names:
            val = self.vals.get(n)
            if val is not None and val.loc is not None:
                return val.loc
            g = self.parsed.given.get(flagmod.stored(n, self.version))  # n: a resolved name, or a flag's dest
            if g is not None:
                return g.loc
        return self.cmd.loc

    # -- writing (steps) ------------------------------------------------------------------
    def flag(self, name: str, dest: str | None = None) -> Val:
        """Set ``name`` to a flag's value: the user's, else SGLang's default for the version."""
        dest = flagmod.dest(dest or name, self.version)
        g = self.parsed.given.get(dest)
        u = self.parsed.unknown.get(dest)
        if u is not None:
            why = f"`{u.written}` is `{u.text[:60]}`: {u.why}"
            self.tainted[dest] = self.tainted[name] = why
            val = Val(flagmod.table(self.version).default(dest), "unknown", why, u.loc)
            self._read(dest)
        elif g is not None:
            val = Val(g.value, "user", f"given: {g.written} at {g.loc}", g.loc)
        else:
            val = Val(flagmod.table(self.version).default(dest), "default", f"SGLang {self.version} default")
        self.vals[_declared(name)] = val
        self.step_sets.append(name)
        return val

    def put(self, name: str, value: Any, why: str, origin: str = "derived", loc: Location | None = None) -> Val:
        val = Val(value, origin, why, loc)
        self.vals[_declared(name)] = val
        self.step_sets.append(name)
        return val


StepFn = Callable[[Resolved], None]


class Step:
    """One named step of the resolution: the SGLang function it mirrors and the values it sets."""

    __slots__ = ("fn", "mirrors", "name", "sets")

    def __init__(self, name: str, fn: StepFn, mirrors: str, sets: tuple[str, ...]) -> None:
        self.name, self.fn, self.mirrors, self.sets = name, fn, mirrors, sets


DECLARED: set[str] = set()


def step(name: str, *, mirrors: str, sets: tuple[str, ...]) -> Callable[[StepFn], Step]:
    """Declare a step function with the SGLang function it mirrors and the names it sets."""

    def wrap(fn: StepFn) -> Step:
        DECLARED.update(sets)
        return Step(name, fn, mirrors, sets)

    return wrap


def _declared(name: str) -> str:
    if name not in DECLARED:
        raise KeyError(f"no resolution step declares the value {name!r}")
    return name
