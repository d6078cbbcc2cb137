"""Dockerfiles: the launch in ``CMD``/``ENTRYPOINT`` (exec or shell form), with ``ENV``/``ARG``
defaults as variables, and the SGLang version the base image's tag names.

Read as Docker reads them (backslash continuations, ``#`` comment lines, the exec form as a
JSON array, ``ENTRYPOINT`` then ``CMD`` as arguments of an exec-form entry point); nothing is
built or run.
"""

from __future__ import annotations

import json
import re

from kdacheck.findings import Location
from kdacheck.readers.base import LaunchCommand, Token
from kdacheck.readers.shell import Env, Word, expand, lex, read_shell

_INSTR = re.compile(r"^\s*([A-Za-z]+)\s+(.*)$", re.S)
_IMAGE_VERSION = re.compile(r"(?:^|/)sglang[^:/]*:v?(\d+\.\d+\.\d+)")


def image_version(image: str) -> str | None:
    """The SGLang version an image reference names (``lmsysorg/sglang:v0.5.19-cu126``)."""
    m = _IMAGE_VERSION.search(image[:500])
    return m.group(1) if m else None


def is_dockerfile(path: str, text: str) -> bool:
    name = path.replace("\\", "/").rsplit("/", 1)[-1].lower()
    if name in ("dockerfile", "containerfile") or name.endswith((".dockerfile", ".containerfile")) or name.startswith("dockerfile."):
        return True
    return bool(re.search(r"(?m)^\s*FROM\s+\S", text)) and bool(re.search(r"(?m)^\s*(CMD|ENTRYPOINT)\s", text))


def _instructions(text: str) -> list[tuple[str, str, int]]:
    """(instruction, arguments, line) with continuations joined."""
    out: list[tuple[str, str, int]] = []
    buf, start = "", 0
    for n, line in enumerate(text.splitlines(), 1):
        if not buf and (not line.strip() or line.lstrip().startswith("#")):
            continue
        if not buf:
            start = n
        if line.rstrip().endswith("\\"):
            buf += line.rstrip()[:-1] + " "
            continue
        buf += line
        m = _INSTR.match(buf)
        if m:
            out.append((m.group(1).upper(), m.group(2).strip(), start))
        buf = ""
    return out


def read_dockerfile(text: str, path: str) -> list[LaunchCommand]:
    env: dict[str, str] = {}
    version: tuple[str, Location] | None = None
    entry: tuple[list[str] | str, int] | None = None
    cmd: tuple[list[str] | str, int] | None = None
    for instr, args, line in _instructions(text):
        if instr == "FROM":
            tagged = image_version(args.split()[0] if args.split() else "")
            if tagged:
                version = (tagged, Location(path, line, 1))
        elif instr in ("ENV", "ARG"):
            _defaults(args, env, path, line)
        elif instr in ("CMD", "ENTRYPOINT"):
            form: list[str] | str = args
            if args.startswith("["):
                try:
                    parsed = json.loads(args)
                    if isinstance(parsed, list) and all(isinstance(x, str) for x in parsed):
                        form = parsed
                except ValueError:
                    pass
            if instr == "CMD":
                cmd = (form, line)
            else:
                entry = (form, line)
    from kdacheck.readers.shell import find_launch

    found: list[LaunchCommand] = []
    if entry is not None and isinstance(entry[0], str):  # a shell-form entry point ignores CMD
        found = read_shell(entry[0], path, env, entry[1], 1, "dockerfile")
    elif cmd is not None and isinstance(cmd[0], str) and entry is None:
        found = read_shell(cmd[0], path, env, cmd[1], 1, "dockerfile")
    else:  # exec form: ENTRYPOINT's words, then CMD's (no shell: no variable expansion)
        words: list[Token] = []
        for part in (entry, cmd):
            if part is not None and isinstance(part[0], list):
                words += [Token(w, Location(path, part[1], 1)) for w in part[0]]
        k = find_launch(words)
        if k is not None:
            found = [LaunchCommand(path, words[k:], "dockerfile", words[0].loc)]
    for c in found:
        c.version_hint = version
    return found


def _defaults(args: str, env: dict[str, str], path: str, line: int) -> None:
    """``ENV K=V K2=V2``, ``ENV K V``, ``ARG K=V`` (an ``ARG`` without a default is unknown)."""
    words = [w for w in lex(args, path, line, 1) if isinstance(w, Word)]
    if len(words) >= 2 and "=" not in words[0].raw:  # the legacy form: ENV KEY value words
        env[words[0].raw] = " ".join(t.text for w in words[1:] for t in expand(w, Env(env)))
        return
    for w in words:
        key, eq, _v = w.raw.partition("=")
        if eq:
            toks = expand(w, Env(env))
            env[key] = toks[0].text.partition("=")[2] if toks else ""
