"""The vocabulary shared by every stage: places in files, severities and findings."""

from __future__ import annotations

import enum
from dataclasses import dataclass, field


@dataclass(frozen=True, order=True)
class Location:
    """A place in an input file: 1-based line and column."""

    path: str
    line: int = 1
    col: int = 1

    def __str__(self) -> str:
        return f"{self.path}:{self.line}:{self.col}"


class Severity(enum.IntEnum):
    INFO = 0
    WARNING = 1
    ERROR = 2

    @property
    def label(self) -> str:
        return self.name.lower()

    @classmethod
    def parse(cls, text: str) -> Severity:
        try:
            return cls[text.strip().upper()]
        except KeyError:
            raise ValueError(f"unknown severity {text!r} (use error, warning or info)") from None


@dataclass(frozen=True)
class Evidence:
    """One value that led to a finding, with where it came from."""

    name: str
    value: str
    provenance: str


@dataclass(frozen=True)
class Edit:
    """One mechanical change to an input file: ``old`` (as written, maybe quoted) at
    ``location`` becomes ``new``; ``old == ""`` inserts. ``safe``: SGLang does the same thing
    after it (a full flag name, a current spelling, the value SGLang would use anyway);
    an unsafe edit changes what SGLang does and needs ``--unsafe-fixes``."""

    location: Location
    old: str
    new: str
    safe: bool = True
    stage: int = 0  # 0: a spelling (the flags are read again after it); 1: a value or a flag added
    after: bool = False  # insert ``new`` after ``old`` (its closing quote included), which stays
    eol: bool = False  # with ``after``: at the end of ``old``'s line (a new YAML block-list item)


@dataclass(frozen=True)
class Replacement:
    """An edit as it applies to the text as written: ``start`` up to ``end`` (one file, columns
    counted in characters, lines at "\n") becomes ``new``; ``start == end`` inserts."""

    start: Location
    end: Location
    new: str


@dataclass(frozen=True)
class Finding:
    code: str
    severity: Severity
    message: str
    location: Location
    fix: str | None = None
    evidence: tuple[Evidence, ...] = field(default=())
    source: str = ""  # which launch command in the file (e.g. "Deployment/kimi: sglang")
    edits: tuple[Edit, ...] = ()  # the fix as edits, when it is mechanical (``kdacheck lint --fix``)
    fixes: tuple[Replacement, ...] = ()  # its safe edits where each applies to the text as written (``[*]``): --fix writes them

    @property
    def fixable(self) -> bool:
        """Whether ``lint --fix`` applies this finding's fix (its safe edits all apply as written)."""
        return bool(self.fixes)

    def sort_key(self) -> tuple[str, int, int, str, str]:
        loc = self.location
        return (loc.path, loc.line, loc.col, self.code, self.message)

    @property
    def not_checked(self) -> bool:
        """A rule that could not decide (a value or the model unknown), not a fault found."""
        return self.message.startswith(NOT_CHECKED)


NOT_CHECKED = "could not be checked"


class InputError(Exception):
    """kdacheck cannot do its job on this input: reported with exit code 2."""
