"""Dockerfiles: the launch in ``CMD``/``ENTRYPOINT`` (exec or shell form), every token at its
line:col in the file, and the SGLang version the base image's tag names.

Read as Docker's (BuildKit's) parser reads them; nothing is built or run:

- parser directives at the top (``# escape=`` sets the continuation character, ``\\`` or
  `````), line continuations (the escape character at a line's end, blank and ``#`` comment
  lines inside a continued instruction dropped), here-documents of ``RUN``/``COPY`` skipped;
- the exec form is a JSON array of strings (anything else is the shell form);
- the shell form runs as ``SHELL`` (default ``/bin/sh -c``) with the image's ``ENV`` at run
  time: ``ENV`` values are known (their ``$VAR`` substituted at build time from ``ARG``
  defaults and earlier ``ENV``), an ``ARG`` alone is not there at run time (unknown);
- ``ENTRYPOINT`` in exec form takes ``CMD``'s exec words as arguments; a shell-form
  ``ENTRYPOINT`` ignores ``CMD``; the last stage is the image, and a stage built ``FROM`` an
  earlier one inherits its ``ENV``, ``SHELL``, ``CMD`` and ``ENTRYPOINT`` (an ``ENTRYPOINT``
  set in the stage drops the inherited ``CMD``, as Docker does);
- ``ARG``s before the first ``FROM`` substitute in ``FROM`` lines (an image tag naming the
  SGLang version: ``FROM lmsysorg/sglang:${SGLANG_TAG}``).

Bounded, as a file from a stranger's pull request must be: at most ``MAX_LINES`` lines,
``MAX_STAGES`` stages and ``MAX_WORDS`` words in one exec form (each refused by name, exit 2);
a stage reads its parent's ``ENV`` through (``shell.Scope``, copy on write), an ``ENV``/``ARG``
line reads its stage's scope through, and what each adds is charged to the file's budget
(``bounds``); a character's place in the file is computed when a token needs it, not kept per
character.
"""

from __future__ import annotations

import bisect
import json
import re
from collections.abc import Callable, Iterator, Mapping, MutableMapping
from dataclasses import dataclass, field, replace
from typing import cast

from kdacheck import versions
from kdacheck.findings import InputError, Location
from kdacheck.readers import bounds
from kdacheck.readers.base import Append, LaunchCommand, Token
from kdacheck.readers.shell import Env, Scope, Word, expand, find_launch, lex, read_shell

_INSTR = re.compile(r"[ \t]*([A-Za-z]+)(?=[ \t]|$)[ \t]*")
_DIRECTIVE = re.compile(r"#[ \t]*([A-Za-z]+)[ \t]*=[ \t]*(\S*)[ \t]*$")
_HEREDOC = re.compile(r"<<-?[ \t]*([\"']?)([A-Za-z_][A-Za-z0-9_]*)\1")
_NAMES = re.compile(r"\$\{?([A-Za-z_][A-Za-z0-9_]*)")
_VAR = re.compile(r"\$(?:\{([A-Za-z_][A-Za-z0-9_]*)\}|([A-Za-z_][A-Za-z0-9_]*))")
_JSON_ESCAPES = {"b": "\b", "f": "\f", "n": "\n", "r": "\r", "t": "\t", '"': '"', "\\": "\\", "/": "/"}
_JSON = json.JSONDecoder()
_POSIX_SHELLS = ("sh", "bash", "dash", "ash", "zsh", "ksh")
MAX_LINES = 200_000
MAX_WORDS = 100_000  # exec-form words in one instruction
MAX_STAGES = 10_000  # FROM lines: a real Dockerfile has a handful
MAX_LAYERS = 32  # stages chained FROM one another that a lookup walks before their ENV is flattened into one dict


@dataclass
class Instruction:
    """One instruction as Docker reads it: ``args`` joined across continuations, ``seams`` where
    each joined line's piece starts (its index in ``args``, its file offset), ``view`` its
    lines as the shell would see them in place (a continuation as ``\\`` + line break, a
    dropped line as a lone ``\\``), from line ``line``, column ``col``."""

    name: str
    args: str
    seams: list[tuple[int, int]]
    view: str
    line: int
    col: int
    shell: tuple[str, ...] = ()  # CMD/ENTRYPOINT: the SHELL its shell form runs under

    def offset(self, i: int) -> int:
        """The file offset of ``args[i]`` (one per line kept, not one per character)."""
        k = max(bisect.bisect_right(self.seams, i, key=lambda seam: seam[0]) - 1, 0)
        start, at = self.seams[k] if self.seams else (0, 0)
        return at + i - start


def instructions(text: str, path: str = "Dockerfile") -> list[Instruction]:
    lines = text.split("\n")
    if len(lines) > MAX_LINES:
        raise InputError(f"{path}:{MAX_LINES + 1}: a Dockerfile of more than {MAX_LINES:,} lines (the limit is "
                         f"{MAX_LINES:,}); not read")
    starts = [0]
    for ln in lines[:-1]:
        starts.append(starts[-1] + len(ln) + 1)
    escape = "\\"
    n = 0
    while n < len(lines):  # parser directives: only before anything else
        m = _DIRECTIVE.match(lines[n].rstrip("\r"))
        if not m:
            break
        if m.group(1).lower() == "escape" and m.group(2) in ("\\", "`"):
            escape = m.group(2)
        n += 1
    cont = re.compile(re.escape(escape) + r"[ \t]*$")
    out: list[Instruction] = []
    while n < len(lines):
        body = lines[n].rstrip("\r")
        m = _INSTR.match(body)
        if not body.strip() or body.lstrip().startswith("#") or not m:
            n += 1
            continue
        name, first, col0 = m.group(1).upper(), n, m.end()
        args: list[str] = []
        seams: list[tuple[int, int]] = []
        length = 0
        view: list[str] = []
        seg, at = body[col0:], starts[n] + col0
        while True:
            c = cont.search(seg)
            keep = seg[: c.start()] if c else seg
            args.append(keep)
            if keep:
                seams.append((length, at))
                length += len(keep)
            view.append(keep + (" " * (len(seg) - len(keep) - 1) + "\\" if c else ""))
            n += 1
            if not c:
                break
            while n < len(lines) and (not lines[n].strip() or lines[n].lstrip().startswith("#")):
                view.append("\\")  # Docker drops it; the shell sees a continuation
                n += 1
            if n >= len(lines):
                break
            seg, at = lines[n].rstrip("\r"), starts[n]
        joined = "".join(args)
        out.append(Instruction(name, joined, seams, "\n".join(view), first + 1, col0 + 1))
        if name in ("RUN", "COPY", "ADD"):  # here-documents: their bodies are not instructions
            for hd in _HEREDOC.finditer(joined):
                while n < len(lines) and lines[n].rstrip("\r").lstrip("\t") != hd.group(2):
                    n += 1
                n += 1
    return out


def _exec_words(ins: Instruction, path: str) -> list[tuple[str, int]] | None:
    """The exec form's words, each with the index in ``args`` of its opening quote; None when
    ``args`` is not a JSON array of strings (then it is the shell form)."""
    s = ins.args.rstrip()
    if not s.startswith("["):
        return None
    try:
        parsed = json.loads(s)
    except (ValueError, RecursionError):  # not JSON, or nested past Python's recursion limit: the shell form
        return None
    if not isinstance(parsed, list) or not all(isinstance(x, str) for x in parsed):
        return None
    if len(parsed) > MAX_WORDS:
        raise InputError(f"{path}:{ins.line}: {ins.name} in exec form has {len(parsed):,} words (the limit is "
                         f"{MAX_WORDS:,}); not read")
    words: list[tuple[str, int]] = []
    i = 0
    for word in parsed:  # between the strings of a valid array: only blanks and commas
        i = s.index('"', i)
        words.append((word, i))
        i = _JSON.raw_decode(s, i)[1]  # C speed, no backtracking state kept per character
    return words


def _places_in_word(ins: Instruction, quote: int, wanted: set[tuple[int, int]]) -> dict[tuple[int, int], int]:
    """The file offset of each wanted (line, col) of the exec-form word whose opening quote is
    ``args[quote]``, in one pass over its JSON text (an escape's characters all at its
    backslash; after a surrogate pair, that line's places approximate)."""
    s, out = ins.args, dict[tuple[int, int], int]()
    i, line, col = quote + 1, 1, 1
    while s[i] != '"' and len(out) < len(wanted):
        ch, width = s[i], 1
        if ch == "\\":
            ch, width = (chr(int(s[i + 2: i + 6], 16)), 6) if s[i + 1] == "u" else (_JSON_ESCAPES[s[i + 1]], 2)
        if (line, col) in wanted:
            out[(line, col)] = ins.offset(i)
        line, col = (line + 1, 1) if ch == "\n" else (line, col + 1)
        i += width
    return out


@dataclass
class _Stage:
    env: Scope[str] = field(default_factory=Scope)  # ENV: there at run time
    build: Scope[str | None] = field(default_factory=Scope)  # ARG and ENV at build time (None: a --build-arg's, unknown)
    shell: tuple[str, ...] = ("/bin/sh", "-c")
    cmd: Instruction | None = None
    entry: Instruction | None = None
    inherited_cmd: bool = False
    version: tuple[str, Location] | None = None
    layers: int = 1  # the scopes a lookup in ``env`` walks down to a dict


def _child(parent: _Stage, what: str) -> _Stage:
    """A stage built ``FROM`` an earlier one: the parent's ``ENV`` read through, copy on write
    (the parent is done); a chain of ``MAX_LAYERS`` stages is flattened into one dict, its
    entries charged, so that a lookup walks at most ``MAX_LAYERS`` scopes."""
    base: Mapping[str, str] = parent.env
    layers = parent.layers + 1
    if layers > MAX_LAYERS:
        base, layers = _flatten(parent.env, parent.layers, what), 1
    return _Stage(Scope(base), Scope[str | None](base), parent.shell, parent.cmd, parent.entry, True, parent.version, layers)


def _flatten(scope: Scope[str], layers: int, what: str) -> dict[str, str]:
    """The ``layers`` scopes of a chain as one dict: the dict at its bottom copied, then each
    scope's changes applied upwards (each entry read once, not once per scope above it)."""
    chain = [scope]
    for _ in range(layers - 1):
        chain.append(cast(Scope[str], chain[-1].base))
    bottom = chain[-1].base
    bounds.charge_nodes(len(bottom) + sum(len(s.own) for s in chain),
                        f"{what}: the ENV of {layers} stages built one FROM another, copied")
    out = dict(bottom)
    for s in reversed(chain):
        for name in s.gone:
            out.pop(name, None)
        out.update(s.own)
    return out


def _substitute(text: str, values: Mapping[str, str | None], what: str) -> str:
    def value(m: re.Match[str]) -> str:
        v = values.get(m.group(1) or m.group(2)) or m.group(0)
        bounds.charge_chars(len(v), what)
        return v

    return _VAR.sub(value, text)


def read_dockerfile(text: str, path: str) -> list[LaunchCommand]:
    lines = text.split("\n")
    line_starts = [0]
    for ln in lines[:-1]:
        line_starts.append(line_starts[-1] + len(ln) + 1)

    def loc(offset: int) -> Location:
        k = bisect.bisect_right(line_starts, offset) - 1
        return Location(path, k + 1, offset - line_starts[k] + 1)

    global_args: dict[str, str | None] = {}
    stages: dict[str, _Stage] = {}
    stage: _Stage | None = None
    count = 0
    for ins in instructions(text, path):
        where = f"{path}:{ins.line}: {ins.name}"
        try:
            if ins.name == "FROM":
                count += 1
                stage = _from(ins, count, stages, global_args, path)
            elif stage is not None:
                _instruction(ins, stage, global_args, path)
            elif ins.name == "ARG":
                _defaults(ins.args, global_args, path, ins.line, ins.col, arg=True)
        except InputError as e:  # placed at the instruction when the message does not name the file
            if str(e).startswith(path):
                raise
            raise InputError(f"{where}: {e}") from None
    if stage is None:
        return []
    cmds = _launch(stage, path, loc)
    for c in cmds:
        c.version_hint = stage.version
    return cmds


def _from(ins: Instruction, count: int, stages: dict[str, _Stage], global_args: dict[str, str | None], path: str) -> _Stage:
    """The stage a ``FROM`` line starts (the ``count``-th), named in ``stages`` when it says ``AS``."""
    where = f"{path}:{ins.line}: FROM"
    if count > MAX_STAGES:
        raise InputError(f"{where}: more than {MAX_STAGES:,} stages in one Dockerfile (the limit is {MAX_STAGES:,}); not read")
    bounds.charge_nodes(1, where)
    words = _substitute(ins.args, global_args, where).split()
    image = words[0] if words else ""
    parent = stages.get(image.lower())
    stage = _child(parent, where) if parent else _Stage()
    if len(words) >= 3 and words[1].upper() == "AS":
        stages[words[2].lower()] = stage
    tagged = versions.image_version(image)
    if tagged:
        stage.version = (tagged, Location(path, ins.line, ins.col))
    return stage


def _instruction(ins: Instruction, stage: _Stage, global_args: dict[str, str | None], path: str) -> None:
    """What one instruction of a stage sets: its build and run-time variables, SHELL, CMD, ENTRYPOINT."""
    if ins.name == "ARG":
        _defaults(ins.args, stage.build, path, ins.line, ins.col, arg=True, globals_=global_args)
    elif ins.name == "ENV":
        _defaults(ins.args, stage.build, path, ins.line, ins.col, runtime=stage.env)
    elif ins.name == "SHELL":
        words = _exec_words(ins, path)
        if words:
            stage.shell = tuple(w for w, _q in words)
    elif ins.name == "CMD":
        stage.cmd, stage.inherited_cmd = replace(ins, shell=stage.shell), False
    elif ins.name == "ENTRYPOINT":
        stage.entry = replace(ins, shell=stage.shell)
        if stage.inherited_cmd:
            stage.cmd = None  # Docker: an ENTRYPOINT resets the CMD inherited from the base


def starts_sglang(text: str) -> bool:
    """Whether a Dockerfile's ``CMD`` or ``ENTRYPOINT`` names SGLang (a folder walk lints it)."""
    try:
        return any(i.name in ("CMD", "ENTRYPOINT") and "sglang" in i.args for i in instructions(text))
    except InputError:
        return "sglang" in text


def _posix(shell: tuple[str, ...]) -> bool:
    return bool(shell) and shell[0].rsplit("/", 1)[-1] in _POSIX_SHELLS and shell[-1].startswith("-") and "c" in shell[-1]


def _launch(stage: _Stage, path: str, at: Callable[[int], Location]) -> list[LaunchCommand]:
    entry, cmd = stage.entry, stage.cmd
    entry_words = _exec_words(entry, path) if entry is not None else None
    cmd_words = _exec_words(cmd, path) if cmd is not None else None
    if entry is not None and entry_words is None:  # a shell-form entry point ignores CMD
        return _shell_form(entry, stage, path)
    if cmd is not None and cmd_words is None:
        if entry is None:
            return _shell_form(cmd, stage, path)
        if "sglang" in cmd.args:
            raise InputError(f"{path}:{cmd.line}: CMD in shell form after an exec-form ENTRYPOINT: Docker passes "
                             f"`{' '.join(cmd.shell)[:80]} ...` to the entry point as arguments: not read (write CMD as a JSON array)")
        cmd_words = []
    words = [(ins, w, q) for ins, ws in ((entry, entry_words), (cmd, cmd_words)) if ins is not None for w, q in ws or []]
    toks = [Token(w, at(ins.offset(q))) for ins, w, q in words]
    k = find_launch(toks)
    if k is not None:
        c = LaunchCommand(path, toks[k:], "dockerfile", toks[0].loc, append=Append(", ", "json"))
        from kdacheck.known_bugs import env_names

        c.env = {n: stage.env[n] for n in sorted(env_names()) if n in stage.env}  # ENV: there at run time
        return [c]
    for ins, w, q in words:  # ["sh", "-c", "python3 -m sglang.launch_server ..."]
        if "sglang" in w and any(ch.isspace() for ch in w):
            return _script(w, ins, q, stage, path, at)
    return []


def _runtime(stage: _Stage) -> Mapping[str, str]:
    """The image's ENV for ``read_shell``, read through, not copied."""
    return stage.env


def _shell_form(ins: Instruction, stage: _Stage, path: str) -> list[LaunchCommand]:
    shell = ins.shell
    if not _posix(shell):
        if "sglang" in ins.args:
            raise InputError(f"{path}:{ins.line}: {ins.name} in shell form runs under SHELL "
                             f"{json.dumps(list(shell))[:120]}, not a POSIX shell: not read")
        return []
    cmds = read_shell(ins.view, path, _runtime(stage), ins.line, ins.col, "dockerfile")
    for c in cmds:
        c.append = Append(" ", "shell")
    return cmds


def _script(word: str, ins: Instruction, quote: int, stage: _Stage, path: str,
            place: Callable[[int], Location]) -> list[LaunchCommand]:
    """A script in one exec-form word (``sh -c "..."``), read as shell, placed in the file."""
    cmds = read_shell(word, path, _runtime(stage), 1, 1, "dockerfile")
    places = _places_in_word(ins, quote, {(t.loc.line, t.loc.col) for c in cmds for t in [*c.tokens, Token("", c.loc)]})

    def moved(t: Token) -> Token:
        at = places.get((t.loc.line, t.loc.col))
        return t if at is None else replace(t, loc=place(at))

    for c in cmds:
        c.tokens = [moved(t) for t in c.tokens]
        c.loc = moved(Token("", c.loc)).loc
        c.append = None  # inside a JSON string: the shell words would need JSON escaping
        c.append_why = "the launch is a script inside one exec-form word"
    return cmds


class _BuildTime(Mapping[str, str]):
    """What one ``ENV``/``ARG`` line substitutes from, read through, never copied: the stage's
    build-time values (None, a ``--build-arg``'s, is unknown: absent) and, as Docker has it,
    empty for any other name the line uses."""

    __slots__ = ("named", "scope")

    def __init__(self, scope: Mapping[str, str | None], named: frozenset[str]) -> None:
        self.scope = scope
        self.named = named

    def __getitem__(self, name: str) -> str:
        if name not in self.scope:
            if name in self.named:
                return ""
            raise KeyError(name)
        value = self.scope[name]
        if value is None:
            raise KeyError(name)
        return value

    def __iter__(self) -> Iterator[str]:
        yield from (k for k in self.named if k not in self.scope)
        yield from (k for k, v in self.scope.items() if v is not None)

    def __len__(self) -> int:
        return sum(1 for _ in self)


def _defaults(args: str, scope: MutableMapping[str, str | None], path: str, line: int, col: int,
              arg: bool = False, runtime: Scope[str] | None = None, globals_: dict[str, str | None] | None = None) -> None:
    """``ENV K=V K2=V2``, ``ENV K V``, ``ARG K=V``, ``ARG K`` (the default of the ``ARG K`` before
    the first ``FROM``, ``globals_``; without one, whatever ``--build-arg`` gives: unknown),
    substituted from ``scope`` as it stood before the line, as Docker does at build time (a
    variable nothing declared is empty), then set in it; ``runtime`` gets ENV's known values."""
    words = [w for w in lex(args, path, line, col) if isinstance(w, Word)]
    known = _BuildTime(scope, frozenset(_NAMES.findall(args)))
    sets: list[tuple[str, str | None]] = []
    if not arg and len(words) >= 2 and "=" not in words[0].raw:  # the legacy form: ENV KEY value words
        toks = [t for w in words[1:] for t in expand(w, Env(known))]
        sets.append((words[0].raw, None if any(t.unknown for t in toks) else " ".join(t.text for t in toks)))
    else:
        for w in words:
            key, eq, _v = w.raw.partition("=")
            if eq:
                toks = expand(w, Env(known))
                sets.append((key, None if not toks or toks[0].unknown else toks[0].text.partition("=")[2]))
            elif arg:
                sets.append((key, (globals_ if globals_ is not None else scope).get(key)))
    bounds.charge_nodes(len(sets) * (1 if runtime is None else 2), f"{path}:{line}: {'ARG' if arg else 'ENV'}")  # ENV: both scopes
    for key, value in sets:
        scope[key] = value
        if runtime is not None:
            if value is None:
                runtime.pop(key, None)
            else:
                runtime[key] = value
