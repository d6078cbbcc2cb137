"""The shape every reader produces."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal, NamedTuple

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


MAX_ROLE = 200  # characters of a role's name in a report (names come from the input)


class Unread(NamedTuple):
    """Arguments of a launch the reader could not read: where, and what stands there."""

    loc: Location
    what: str

    def __str__(self) -> str:
        return f"{self.loc}: {self.what}"


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
    unread: list[Unread] = field(default_factory=list)  # arguments the reader could not read (the verdict is "not checked")
    program: list[Token] = field(default_factory=list)  # the words before the arguments (`python3 -m sglang.launch_server`)
    # How --fix adds a flag after the last word; None: it cannot, and ``append_why`` says why
    # ("not fixable here"). No default: every reader says how its launches are edited.
    append: Append | None = field(kw_only=True)
    append_why: str = ""
    held: str = ""  # why --fix does not edit its ``--config`` tokens where they are held (a ConfigMap key it does not write)
    config_off: list[Token] = field(default_factory=list)  # --config keys set to false: not passed, but read by SGLang's merger
    env: dict[str, str] = field(default_factory=dict)  # the variables known_bugs.env_names() names, as the launch sets them
    # what SGLang's --config merger refuses before argparse runs (its message, where), set by detect.expand_config
    config_refused: tuple[str, Location] | None = None

    @property
    def role(self) -> str:
        """Which launch of its file this is: the role, service or container (``name``); empty
        for a bare command and for an SGLang ``--config`` file, which is the whole file."""
        if self.kind == "yaml":
            return ""
        return self.name if len(self.name) <= MAX_ROLE else self.name[: MAX_ROLE - 1] + "…"


MAX_SHOWN = 4_000  # characters of a launch shown in a report (JSON `commands[].command`)


def launch_text(cmd: LaunchCommand, limit: int = MAX_SHOWN) -> str:
    """The launch as read (the program, then its arguments after expansion), shell-quoted where
    a word needs it, with control characters made visible and cut at ``limit`` characters."""
    import shlex

    from kdacheck.sanitize import visible_name

    words: list[str] = []
    size = 0
    for t in [*cmd.program, *cmd.tokens]:
        words.append(shlex.quote(t.text[:limit]) if t.text else "''")
        size += len(words[-1]) + 1
        if size > limit:
            break
    text = visible_name(" ".join(words))
    return text if len(text) <= limit else text[: limit - 1] + "…"
