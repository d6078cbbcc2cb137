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
"""

from __future__ import annotations

import bisect
import json
import re
from collections.abc import Callable
from dataclasses import dataclass, field, replace

from kdacheck.findings import InputError, Location
from kdacheck.readers.base import Append, LaunchCommand, Token
from kdacheck.readers.shell import Env, Word, expand, find_launch, lex, read_shell

_INSTR = re.compile(r"[ \t]*([A-Za-z]+)(?=[ \t]|$)[ \t]*")
_DIRECTIVE = re.compile(r"#[ \t]*([A-Za-z]+)[ \t]*=[ \t]*(\S*)[ \t]*$")
_HEREDOC = re.compile(r"<<-?[ \t]*([\"']?)([A-Za-z_][A-Za-z0-9_]*)\1")
_NAMES = re.compile(r"\$\{?([A-Za-z_][A-Za-z0-9_]*)")
_VAR = re.compile(r"\$(?:\{([A-Za-z_][A-Za-z0-9_]*)\}|([A-Za-z_][A-Za-z0-9_]*))")
_IMAGE_VERSION = re.compile(r"(?:^|/)sglang[^:/]*:v?(\d+\.\d+\.\d+)")
_POSIX_SHELLS = ("sh", "bash", "dash", "ash", "zsh", "ksh")
MAX_LINES = 200_000
MAX_WORDS = 100_000  # exec-form words in one instruction


def image_version(image: str) -> str | None:
    """The SGLang version an image reference names (``lmsysorg/sglang:v0.5.19-cu126``)."""
    m = _IMAGE_VERSION.search(image[:500])
    return m.group(1) if m else None


def is_dockerfile(path: str, text: str) -> bool:
    from kdacheck.discover import is_container_file_name

    if is_container_file_name(path.replace("\\", "/").rsplit("/", 1)[-1]):
        return True
    return bool(re.search(r"(?m)^\s*FROM\s+\S", text)) and bool(re.search(r"(?m)^\s*(CMD|ENTRYPOINT)\s", text))


@dataclass
class Instruction:
    """One instruction as Docker reads it: ``args`` joined across continuations, ``offsets``
    the file offset of each of its characters, ``view`` its lines as the shell would see them
    in place (a continuation as ``\\`` + line break, a dropped line as a lone ``\\``), from
    line ``line``, column ``col``."""

    name: str
    args: str
    offsets: list[int]
    view: str
    line: int
    col: int
    shell: tuple[str, ...] = ()  # CMD/ENTRYPOINT: the SHELL its shell form runs under


def instructions(text: str) -> list[Instruction]:
    lines = text.split("\n")
    if len(lines) > MAX_LINES:
        raise InputError(f"over {MAX_LINES:,} lines in one Dockerfile")
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
        offsets: list[int] = []
        view: list[str] = []
        seg, at = body[col0:], starts[n] + col0
        while True:
            c = cont.search(seg)
            keep = seg[: c.start()] if c else seg
            args.append(keep)
            offsets += range(at, at + len(keep))
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
        out.append(Instruction(name, joined, offsets, "\n".join(view), first + 1, col0 + 1))
        if name in ("RUN", "COPY", "ADD"):  # here-documents: their bodies are not instructions
            for hd in _HEREDOC.finditer(joined):
                while n < len(lines) and lines[n].rstrip("\r").lstrip("\t") != hd.group(2):
                    n += 1
                n += 1
    return out


def _exec_words(ins: Instruction) -> list[tuple[str, int, list[int]]] | None:
    """The exec form's words, each with the offset of its opening quote and of each of its
    characters; None when ``args`` is not a JSON array of strings (then it is the shell form)."""
    s = ins.args.rstrip()
    if not s.startswith("["):
        return None
    try:
        parsed = json.loads(s)
    except (ValueError, RecursionError):  # not JSON, or nested past Python's recursion limit: the shell form
        return None
    if not isinstance(parsed, list) or not all(isinstance(x, str) for x in parsed) or len(parsed) > MAX_WORDS:
        return None
    off = ins.offsets
    words: list[tuple[str, int, list[int]]] = []
    i = s.index("[") + 1
    for expected in parsed:
        while s[i] in " \t\r\n,":
            i += 1
        start, i = i, i + 1
        chars: list[int] = []
        while s[i] != '"':
            if s[i] == "\\":
                esc = s[i + 1]
                width = 6 if esc == "u" else 2
                k = len(json.loads('"' + s[i : i + width] + '"'))
                chars += [off[i]] * k
                i += width
            else:
                chars.append(off[i])
                i += 1
        i += 1
        if len(chars) != len(expected):  # a surrogate pair: the words are right, their characters' places approximate
            chars = (chars + [off[start]] * len(expected))[: len(expected)]
        words.append((expected, off[start], chars))
    return words


@dataclass
class _Stage:
    env: dict[str, str] = field(default_factory=dict)  # ENV: there at run time
    build: dict[str, str | None] = field(default_factory=dict)  # ARG and ENV at build time (None: a --build-arg's, unknown)
    shell: list[str] = field(default_factory=lambda: ["/bin/sh", "-c"])
    cmd: Instruction | None = None
    entry: Instruction | None = None
    inherited_cmd: bool = False
    version: tuple[str, Location] | None = None


def _substitute(text: str, values: dict[str, str | None]) -> str:
    return _VAR.sub(lambda m: values.get(m.group(1) or m.group(2)) or m.group(0), text)


def read_dockerfile(text: str, path: str) -> list[LaunchCommand]:
    lines = text.split("\n")
    line_starts = [0]
    for ln in lines[:-1]:
        line_starts.append(line_starts[-1] + len(ln) + 1)

    def loc(offset: int) -> Location:
        k = bisect.bisect_right(line_starts, offset) - 1
        return Location(path, k + 1, offset - line_starts[k] + 1)

    try:
        found = instructions(text)
    except InputError as e:
        raise InputError(f"{path}: {e}") from None
    global_args: dict[str, str | None] = {}
    stages: dict[str, _Stage] = {}
    stage: _Stage | None = None
    for ins in found:
        if ins.name == "FROM":
            words = _substitute(ins.args, global_args).split()
            image = words[0] if words else ""
            parent = stages.get(image.lower())
            stage = (_Stage(dict(parent.env), dict(parent.env), list(parent.shell), parent.cmd, parent.entry, True, parent.version)
                     if parent else _Stage())
            if len(words) >= 3 and words[1].upper() == "AS":
                stages[words[2].lower()] = stage
            tagged = image_version(image)
            if tagged:
                stage.version = (tagged, Location(path, ins.line, ins.col))
            continue
        if stage is None:
            if ins.name == "ARG":
                _defaults(ins.args, global_args, global_args, path, ins.line, ins.col, arg=True)
            continue
        if ins.name == "ARG":
            _defaults(ins.args, stage.build, stage.build, path, ins.line, ins.col, arg=True, globals_=global_args)
        elif ins.name == "ENV":
            _defaults(ins.args, stage.build, stage.build, path, ins.line, ins.col, runtime=stage.env)
        elif ins.name == "SHELL":
            words_ = _exec_words(ins)
            if words_:
                stage.shell = [w for w, _s, _c in words_]
        elif ins.name == "CMD":
            stage.cmd, stage.inherited_cmd = replace(ins, shell=tuple(stage.shell)), False
        elif ins.name == "ENTRYPOINT":
            stage.entry = replace(ins, shell=tuple(stage.shell))
            if stage.inherited_cmd:
                stage.cmd = None  # Docker: an ENTRYPOINT resets the CMD inherited from the base
    if stage is None:
        return []
    cmds = _launch(stage, path, loc)
    for c in cmds:
        c.version_hint = stage.version
    return cmds


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
    entry_words = _exec_words(entry) if entry is not None else None
    cmd_words = _exec_words(cmd) if cmd is not None else None
    if entry is not None and entry_words is None:  # a shell-form entry point ignores CMD
        return _shell_form(entry, stage, path)
    if cmd is not None and cmd_words is None:
        if entry is None:
            return _shell_form(cmd, stage, path)
        if "sglang" in cmd.args:
            raise InputError(f"{path}:{cmd.line}: CMD in shell form after an exec-form ENTRYPOINT: Docker passes "
                             f"`{' '.join(cmd.shell)[:80]} ...` to the entry point as arguments: not read (write CMD as a JSON array)")
        cmd_words = []
    words = [*(entry_words or []), *(cmd_words or [])]
    toks = [Token(w, at(start)) for w, start, _chars in words]
    k = find_launch(toks)
    if k is not None:
        c = LaunchCommand(path, toks[k:], "dockerfile", toks[0].loc)
        c.append = Append(", ", "json")
        return [c]
    for w, _start, chars in words:  # ["sh", "-c", "python3 -m sglang.launch_server ..."]
        if "sglang" in w and any(ch.isspace() for ch in w):
            return _script(w, chars, stage, path, at)
    return []


def _shell_form(ins: Instruction, stage: _Stage, path: str) -> list[LaunchCommand]:
    shell = ins.shell
    if not _posix(shell):
        if "sglang" in ins.args:
            raise InputError(f"{path}:{ins.line}: {ins.name} in shell form runs under SHELL "
                             f"{json.dumps(list(shell))[:120]}, not a POSIX shell: not read")
        return []
    cmds = read_shell(ins.view, path, dict(stage.env), ins.line, ins.col, "dockerfile")
    for c in cmds:
        c.append = Append(" ", "shell")
    return cmds


def _script(word: str, chars: list[int], stage: _Stage, path: str, place: Callable[[int], Location]) -> list[LaunchCommand]:
    """A script in one exec-form word (``sh -c "..."``), read as shell, placed in the file."""
    starts = [0] + [i + 1 for i, ch in enumerate(word) if ch == "\n"]

    def moved(t: Token) -> Token:
        i = starts[t.loc.line - 1] + t.loc.col - 1 if 1 <= t.loc.line <= len(starts) else -1
        return replace(t, loc=place(chars[i])) if 0 <= i < len(chars) else t

    cmds = read_shell(word, path, dict(stage.env), 1, 1, "dockerfile")
    for c in cmds:
        c.tokens = [moved(t) for t in c.tokens]
        c.loc = moved(Token("", c.loc)).loc
        c.append = None  # inside a JSON string: the shell words would need JSON escaping
        c.append_why = "the launch is a script inside one exec-form word"
    return cmds


def _defaults(args: str, into: dict[str, str | None], scope: dict[str, str | None], path: str, line: int, col: int,
              arg: bool = False, runtime: dict[str, str] | None = None, globals_: dict[str, str | None] | None = None) -> None:
    """``ENV K=V K2=V2``, ``ENV K V``, ``ARG K=V``, ``ARG K`` (the default of the ``ARG K`` before
    the first ``FROM``, ``globals_``; without one, whatever ``--build-arg`` gives: unknown),
    substituted from ``scope`` as Docker does at build time (a variable nothing declared is
    empty); ``runtime`` gets ENV's known values."""
    words = [w for w in lex(args, path, line, col) if isinstance(w, Word)]
    known = {**dict.fromkeys(_NAMES.findall(args), ""), **{k: v for k, v in scope.items() if v is not None}}
    for k, v in scope.items():
        if v is None:
            known.pop(k, None)  # declared without a value: unknown, not empty
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
    for key, value in sets:
        into[key] = value
        if runtime is not None:
            if value is None:
                runtime.pop(key, None)
            else:
                runtime[key] = value
