"""Which files ``kdacheck lint`` reads: paths, folders, globs, ``.gitignore`` (file system only).

- A file named on the command line is always linted.
- A folder is searched recursively for ``*.yaml``, ``*.yml``, ``*.sh``, ``*.bash``,
  ``*.txt`` and ``*.cmd`` files, skipping ``.git``, hidden folders, ``node_modules``,
  ``__pycache__``, whatever the ``.gitignore`` files on the way ignore (their common patterns:
  ``dir/``, ``*.ext``, ``/anchored``, ``a/**/b``, negation ``!``) and the configuration's
  ``exclude`` globs. Files found this way are linted only when they plausibly are launch
  configurations (:func:`relevant`): a GitHub workflow or a Helm values file is skipped, not
  linted into a pile of ARG001s.
- A path with ``*``, ``?`` or ``[`` that names no file is a glob (``examples/**/*.yaml``).
- Duplicates are dropped; the order is sorted and stable.
"""

from __future__ import annotations

import functools
import glob
import os
from collections.abc import Iterable
from dataclasses import dataclass

LINT_SUFFIXES = (".yaml", ".yml", ".sh", ".bash", ".txt", ".cmd")
SKIP_DIRS = frozenset({"node_modules", "__pycache__", "venv", "site-packages"})


@dataclass(frozen=True)
class Candidate:
    path: str
    explicit: bool  # named (or matched by a glob) on the command line: always linted


# --- gitignore-style patterns -------------------------------------------------------------


class Glob:
    """A gitignore glob matched the way git's wildmatch does, in linear time: the pattern is a
    small NFA run over the path one character at a time (no backtracking regex: a line like
    ``****************x`` costs what a short one does). Tokens: a character, ``?``, ``*``
    (no ``/``), ``**`` (anything), a class ``[...]``, and ``**/`` (zero or more folders).
    An unterminated class (``[!]``, ``[a``) makes the line match nothing, and a reversed range
    (``[z-a]``) is empty, as in git's wildmatch (checked against git: tests/test_fuzz_targets.py)."""

    __slots__ = ("tokens", "unanchored")

    def __init__(self, pat: str, unanchored: bool) -> None:
        self.tokens = _tokens(pat)
        self.unanchored = unanchored

    def match(self, path: str) -> bool:
        if self.tokens is None:
            return False
        starts = [0] + [i + 1 for i, c in enumerate(path) if c == "/"] if self.unanchored else [0]
        return any(self._match_from(path, s) for s in starts)

    def _match_from(self, path: str, start: int) -> bool:
        toks = self.tokens
        assert toks is not None
        n = len(toks)

        def closure(states: set[int]) -> set[int]:
            out, todo = set(states), list(states)
            while todo:
                i = todo.pop()
                if i < n and toks[i][0] in ("star", "dstar", "dirs"):
                    nxt = i + 1
                    if nxt not in out:
                        out.add(nxt)
                        todo.append(nxt)
            return out

        states = closure({0})
        for c in path[start:]:
            nxt: set[int] = set()
            for i in states:
                if i >= n:
                    continue
                kind, arg = toks[i]
                if kind == "char":
                    if c == arg:
                        nxt.add(i + 1)
                elif kind == "any":
                    if c != "/":
                        nxt.add(i + 1)
                elif kind == "class":
                    neg, chars, ranges = arg  # type: ignore[misc]
                    inside = c in chars or any(lo <= c <= hi for lo, hi in ranges)  # type: ignore[has-type]
                    if c != "/" and inside != neg:  # type: ignore[has-type]
                        nxt.add(i + 1)
                elif kind == "star":
                    if c != "/":
                        nxt.add(i)
                elif kind == "dstar":
                    nxt.add(i)
                elif kind == "dirs":  # (anything/)* : stay, and leave after a '/'
                    nxt.add(i)
                    if c == "/":
                        nxt.add(i + 1)
            if not nxt:
                return False
            states = closure(nxt)
        return n in states


def _tokens(pat: str) -> list[tuple[str, object]] | None:
    out: list[tuple[str, object]] = []
    i, n = 0, len(pat)
    while i < n:
        c = pat[i]
        if pat.startswith("**/", i) and (i == 0 or pat[i - 1] == "/"):
            out.append(("dirs", None))
            i += 3
        elif pat.startswith("**", i) and i + 2 == n and (i == 0 or pat[i - 1] == "/"):
            out.append(("dstar", None))
            i += 2
        elif c == "*":
            if not out or out[-1][0] != "star":  # a run of stars is one star
                out.append(("star", None))
            i += 1
        elif c == "?":
            out.append(("any", None))
            i += 1
        elif c == "[":
            parsed = _class(pat, i)
            if parsed is None:
                return None  # an unterminated class: the line matches nothing
            out.append(("class", parsed[0]))
            i = parsed[1]
        elif c == "\\" and i + 1 < n:
            out.append(("char", pat[i + 1]))
            i += 2
        else:
            out.append(("char", c))
            i += 1
    return out


def _class(pat: str, i: int) -> tuple[tuple[bool, frozenset[str], tuple[tuple[str, str], ...]], int] | None:
    """``[...]`` at ``i``: ((negated, characters, ranges), index after it), or None when it is
    unterminated (git's wildmatch then matches nothing). A reversed range (``z-a``) is empty,
    as in git: ``[z-a]`` matches nothing, ``[!z-a]`` any character but ``/``."""
    j = i + 1
    neg = j < len(pat) and pat[j] in "!^"
    if neg:
        j += 1
    chars: set[str] = set()
    ranges: list[tuple[str, str]] = []
    first = True
    while j < len(pat) and (pat[j] != "]" or first):
        first = False
        c = pat[j]
        if c == "\\" and j + 1 < len(pat):
            c = pat[j + 1]
            j += 1
        if j + 2 < len(pat) and pat[j + 1] == "-" and pat[j + 2] != "]":
            ranges.append((c, pat[j + 2]))  # kept as a pair: no set of 65,536 characters
            j += 3
            continue
        chars.add(c)
        j += 1
    if j >= len(pat):
        return None
    return (neg, frozenset(chars), tuple(ranges)), j + 1


@dataclass(frozen=True)
class Pattern:
    base: str  # absolute folder the pattern is relative to
    glob: Glob
    negate: bool
    dir_only: bool
    source: str


MAX_PATTERN = 4096  # characters of one .gitignore line


def compile_pattern(line: str, base: str, source: str = "") -> Pattern | None:
    """One ``.gitignore`` line (or one ``exclude`` glob) relative to ``base``."""
    line = line.rstrip("\r\n")[:MAX_PATTERN]
    while line.endswith(" ") and not line.endswith("\\ "):
        line = line[:-1]
    if not line or line.startswith("#"):
        return None
    negate = line.startswith("!")
    if negate or line.startswith(("\\!", "\\#")):
        line = line[1:]
    dir_only = line.endswith("/")
    line = line[:-1] if dir_only else line  # one trailing slash: ``a//`` is ``a/`` for folders only, as git reads it
    if not line:
        return None
    anchored = "/" in line
    line = line[1:] if line.startswith("/") else line  # git drops one leading slash, not all (``//*`` matches nothing)
    return Pattern(os.path.abspath(base), Glob(line, not anchored), negate, dir_only, source)


@functools.cache
def _gitignore(folder: str) -> tuple[Pattern, ...]:
    path = os.path.join(folder, ".gitignore")
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            lines = f.read().splitlines()
    except OSError:
        return ()
    return tuple(p for p in (compile_pattern(ln, folder, path) for ln in lines) if p is not None)


@functools.cache
def git_root(folder: str) -> str | None:
    """The git top level holding ``folder`` (where a ``.git`` folder or file is), if any."""
    d = os.path.abspath(folder)
    while True:
        if os.path.exists(os.path.join(d, ".git")):
            return d
        parent = os.path.dirname(d)
        if parent == d:
            return None
        d = parent


def ignored(path: str, is_dir: bool, patterns: Iterable[Pattern]) -> bool:
    """Git's rule: the last pattern that matches decides."""
    result = False
    apath = os.path.abspath(path)
    for p in patterns:
        if p.dir_only and not is_dir:
            continue
        rel = os.path.relpath(apath, p.base)
        if rel.startswith(os.pardir):
            continue
        if p.glob.match(rel.replace(os.sep, "/")):
            result = not p.negate
    return result


def _inherited(folder: str) -> list[Pattern]:
    """Patterns from ``.git/info/exclude`` and the ``.gitignore`` files above ``folder``,
    up to the repository's top level."""
    folder = os.path.abspath(folder)
    root = git_root(folder)
    if root is None:
        return []
    out: list[Pattern] = []
    exclude = os.path.join(root, ".git", "info", "exclude")
    if os.path.isfile(exclude):
        with open(exclude, encoding="utf-8", errors="replace") as f:
            out += [p for p in (compile_pattern(ln, root, exclude) for ln in f) if p is not None]
    chain = []
    d = os.path.dirname(folder)
    while len(d) >= len(root):
        chain.append(d)
        if d == root:
            break
        d = os.path.dirname(d)
    for d in reversed(chain):
        out += _gitignore(d)
    return out


MAX_ENTRIES = 200_000  # files and folders one folder search visits


def walk(folder: str, exclude: Iterable[Pattern] = ()) -> list[str]:
    """Lintable files under ``folder``, honouring ``.gitignore`` files and ``exclude``."""
    exclude = list(exclude)
    found: list[str] = []
    start = list(_inherited(folder))  # a folder named on the command line is searched even if ignored
    stack: dict[str, list[Pattern]] = {os.path.abspath(folder): start + list(_gitignore(os.path.abspath(folder)))}
    seen = 0
    for root, dirs, files in os.walk(folder):
        seen += 1 + len(files)
        if seen > MAX_ENTRIES:
            from kdacheck.findings import InputError

            raise InputError(f"{folder}: over {MAX_ENTRIES:,} files and folders to search; lint a smaller folder (or exclude some)")
        pats = stack.pop(os.path.abspath(root), [])
        checks = pats + exclude
        keep = []
        for d in sorted(dirs):
            full = os.path.join(root, d)
            if d.startswith(".") or d in SKIP_DIRS or ignored(full, True, checks):
                continue
            if os.path.islink(full):
                continue
            keep.append(d)
            stack[os.path.abspath(full)] = pats + list(_gitignore(os.path.abspath(full)))
        dirs[:] = keep
        for name in sorted(files):
            if not name.lower().endswith(LINT_SUFFIXES) or name.startswith("."):
                continue
            full = os.path.join(root, name)
            if not ignored(full, False, checks):
                found.append(os.path.normpath(full))
    return found


def _is_glob(p: str) -> bool:
    return any(c in p for c in "*?[")


def discover(paths: list[str], exclude: Iterable[Pattern] = ()) -> list[Candidate]:
    """The files to lint, deduplicated and sorted (``-`` for standard input comes last)."""
    exclude = list(exclude)
    by_key: dict[str, Candidate] = {}
    stdin = False

    def add(path: str, explicit: bool) -> None:
        key = os.path.normcase(os.path.abspath(path))
        old = by_key.get(key)
        if old is None or (explicit and not old.explicit):
            by_key[key] = Candidate(os.path.normpath(path), explicit)

    for p in paths:
        if p == "-":
            stdin = True
        elif os.path.isdir(p):
            for f in walk(p, exclude):
                add(f, False)
        elif not os.path.exists(p) and _is_glob(p):
            matches = sorted(glob.glob(p, recursive=True))
            if not matches:
                add(p, True)  # reported as "no such file"
            for m in matches:
                if os.path.isdir(m):
                    for f in walk(m, exclude):
                        add(f, False)
                else:
                    add(m, True)
        else:
            add(p, True)
    out = sorted(by_key.values(), key=lambda c: c.path)
    if stdin:
        out.append(Candidate("-", True))
    return out


def collect(paths: list[str]) -> list[str]:
    """The paths :func:`discover` yields, as strings."""
    return [c.path for c in discover(paths)]
