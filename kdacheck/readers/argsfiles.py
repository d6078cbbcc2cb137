"""Files of arguments a shell launch reads: ``$(cat FILE)``, ``$(< FILE)`` and `` `cat FILE` ``.

The shell substitutes the file's text (trailing newlines dropped) and, unquoted, splits it into
words: quotes inside the file are characters, not quoting. kdacheck reads such a file instead of
running anything, relative to the launch file's folder (where a launch is usually run from, as
for ``--config``), only inside the repository that holds the launch (``kdacheck.confine``:
regular file, no link out, ``MAX_BYTES``), each read charged to the file's budget. A file outside
the repository, missing or unreadable is named as not read: its words stay unknown, so the
launch is "not checked" (ARG009), never a silent pass.

``detect.read_text`` says where a file's launches are read from (``start``); ``--cmd`` and
standard input read relative to the working directory's repository.
"""

from __future__ import annotations

import os
import re

from kdacheck import confine
from kdacheck.findings import InputError, Location
from kdacheck.readers import bounds
from kdacheck.readers.base import Token

MAX_BYTES = 64 * 1024  # an args file holds a launch's flags: a few hundred bytes
MAX_FILES = 64  # args files one launch file may read

# `$(cat FILE)`, `$(< FILE)`, `cat FILE` in backticks: one plain file name, nothing else run
_SUBSTITUTION = re.compile(r"(?:\$\(\s*(?:cat[ \t]+|<[ \t]*)|`[ \t]*cat[ \t]+)([A-Za-z0-9_./@+,:=~-]+)[ \t]*(?:\)|`)\Z")

_base: str | None = None
_root: str | None = None
_read: dict[str, tuple[str | None, str]] = {}
_places: dict[str, str] = {}  # name as written -> the path findings name
_WORD = re.compile(r"[^ \t\n]+")


def start(base_dir: str | None, root: str | None) -> None:
    """The folder a file's launches are read from and the tree they may read (None: any)."""
    global _base, _root
    _base, _root = base_dir, root
    _read.clear()
    _places.clear()


def name_of(expansion: str) -> str | None:
    """The file an expansion reads (``$(cat args.txt)`` → ``args.txt``), or None."""
    m = _SUBSTITUTION.match(expansion)
    return m.group(1) if m else None


def read(name: str, where: str) -> tuple[str | None, str]:
    """(the file's text as the substitution gives it, or None; why not) for ``name`` named at ``where``."""
    if _base is None:
        return None, f"`{name[:100]}` is read by a command substitution (never run), and this input has no folder"
    if name in _read:
        return _read[name]
    if len(_read) >= MAX_FILES:
        raise InputError(f"{where}: more than {MAX_FILES} files read by `$(cat ...)` in one launch file; refusing")
    target = name if os.path.isabs(name) else os.path.join(_base, name)
    try:
        text = confine.read_text(target, _root, MAX_BYTES, f"{where}: $(cat {name})", missing_ok=True)
    except InputError as e:
        got: tuple[str | None, str] = None, f"`$(cat {name[:100]})`: {str(e)[:300]}"
    else:
        if text is None:
            got = None, f"`$(cat {name[:100]})`: no such file beside the launch file (its arguments were not read)"
        else:
            bounds.charge_chars(len(text), f"{where}: $(cat {name[:100]})")
            got = text.rstrip("\n"), ""
            _places[name] = os.path.normpath(target)
    _read[name] = got
    return got


def words(name: str, where: str) -> tuple[list[Token] | None, str]:
    """The words an unquoted ``$(cat name)`` gives (split at blanks and line breaks, quotes kept as
    characters), each placed at its line and column in the file; or None and why not."""
    text, why = read(name, where)
    if text is None:
        return None, why
    path = _places.get(name, name)
    found = list(_WORD.finditer(text))
    bounds.charge_nodes(len(found), f"{where}: $(cat {name[:100]})")
    starts = [0] + [m.end() for m in re.finditer("\n", text)]
    return [_placed(m.group(0), m.start(), starts, path) for m in found], ""


_GLOB = re.compile(r"[*?\[]")


def _placed(word: str, at: int, starts: list[int], path: str, globbed: bool = True) -> Token:
    """``word`` at offset ``at`` of the file as a token at its line and column; a word the shell
    would glob (``*``, ``?``, ``[``: pathname expansion of an unquoted substitution, not done here)
    is unknown."""
    import bisect

    line = bisect.bisect_right(starts, at) - 1
    loc = Location(path, line + 1, at - starts[line] + 1)
    glob = f"`{word[:60]}` would be globbed by the shell (pathname expansion, not performed here)" if globbed and _GLOB.search(word) else None
    return Token(word, loc, unknown=glob)


_XARGS = re.compile(r"""[^ \t\n'"\\]+|'[^'\n]*'|"[^"\n]*"|\\.|[ \t\n]+|['"\\]""", re.S)


def xargs_words(name: str, where: str) -> tuple[list[Token] | None, str]:
    """The arguments ``xargs`` gives a command from the file ``name`` (``xargs CMD < FILE``,
    ``cat FILE | xargs CMD``, ``xargs -a FILE CMD``): GNU xargs's default splitting, at blanks and
    line breaks, single and double quotes and a backslash quoting, an unmatched quote an error
    (xargs refuses it), each word placed where it starts in the file; or None and why not."""
    text, why = read(name, where)
    if text is None:
        return None, why.split("`: ", 1)[-1]  # read()'s reason, without its `$(cat NAME)` prefix
    path = _places.get(name, name)
    starts = [0] + [m.end() for m in re.finditer("\n", text)]
    out: list[Token] = []
    word: list[str] = []
    at = -1
    for m in _XARGS.finditer(text):
        piece = m.group(0)
        if piece[0] in " \t\n":
            if at >= 0:
                out.append(_placed("".join(word), at, starts, path, globbed=False))  # xargs runs no shell: no globbing
            word, at = [], -1
            continue
        if piece in ("'", '"'):
            return None, f"`{name[:100]}`: an unmatched {piece} quote (xargs refuses it)"
        at = m.start() if at < 0 else at
        word.append(piece[1:-1] if piece[0] in "'\"" and len(piece) > 1 else piece[1:] if piece[0] == "\\" else piece)
    if at >= 0:
        out.append(_placed("".join(word), at, starts, path, globbed=False))
    bounds.charge_nodes(len(out), f"{where}: xargs < {name[:100]}")
    return out, ""
