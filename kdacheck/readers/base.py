"""The shape every reader produces."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from kdacheck.findings import Location

Origin = Literal["cli", "yaml"]


@dataclass(frozen=True)
class Token:
    """One argv token and where it was written.

    ``origin`` is ``"yaml"`` for tokens made from an SGLang ``--config`` file: there a key is
    always a flag (``is_flag``) and a value never is, whatever it looks like.
    """

    text: str
    loc: Location
    origin: Origin = "cli"
    is_flag: bool | None = None  # None: decide the argparse way (leading dash)
    unknown: str | None = None  # why the value is not known statically (an unset shell variable, `$(...)`)


@dataclass(frozen=True)
class Append:
    """How ``--fix`` adds words after a launch's last one, in the style it is written:
    ``sep`` before each word (``" "`` in shell, ``", "`` in a JSON or YAML flow list,
    ``"\n    - "`` in a YAML block list, then put at the end of the last word's line), each
    word quoted as ``quoting`` says: ``shell``, ``json``, ``double``/``single`` (YAML quotes)
    or ``plain`` (a YAML plain scalar, quoted where YAML would not read it as a string)."""

    sep: str
    quoting: str
    eol: bool = False


@dataclass
class LaunchCommand:
    """The SGLang arguments of one launch found in a file."""

    path: str
    tokens: list[Token]
    kind: str  # "yaml", "shell", "kubernetes", "compose"
    loc: Location  # where the launch starts (the program, or the top of the file)
    name: str = ""  # e.g. "Deployment/kimi-linear, container sglang"
    notes: list[str] = field(default_factory=list)
    version_hint: tuple[str, Location] | None = None  # the SGLang version an image tag names
    side_files: dict[str, str | None] = field(default_factory=dict)  # a named file's text, read inside the tree (None: absent)
    unread: list[str] = field(default_factory=list)  # "place: what" for arguments the reader could not read (the verdict is "not checked")
    append: Append | None = Append(" ", "shell")  # how --fix adds a flag after the last word; None: it cannot
    append_why: str = ""  # why it cannot (said with the finding)
