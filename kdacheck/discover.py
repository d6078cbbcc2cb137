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
import re
from collections.abc import Iterable
from dataclasses import dataclass

LINT_SUFFIXES = (".yaml", ".yml", ".sh", ".bash", ".txt", ".cmd")
SKIP_DIRS = frozenset({"node_modules", "__pycache__", "venv", "site-packages"})


@dataclass(frozen=True)
class Candidate:
    path: str
    explicit: bool  # named (or matched by a glob) on the command line: always linted


# --- gitignore-style patterns -------------------------------------------------------------


@dataclass(frozen=True)
class Pattern:
    base: str  # absolute folder the pattern is relative to
    regex: re.Pattern[str]
    negate: bool
    dir_only: bool
    source: str


def _glob_regex(pat: str) -> str:
    """A gitignore glob as a regular expression over a ``/``-separated relative path."""
    out: list[str] = []
    i, n = 0, len(pat)
    while i < n:
        c = pat[i]
        if pat.startswith("**/", i) and (i == 0 or pat[i - 1] == "/"):
            out.append("(?:.*/)?")
            i += 3
        elif pat.startswith("**", i) and i + 2 == n and (i == 0 or pat[i - 1] == "/"):
            out.append(".*")
            i += 2
        elif c == "*":
            out.append("[^/]*")
            i += 1
        elif c == "?":
            out.append("[^/]")
            i += 1
        elif c == "[":
            j = pat.find("]", i + 2)
            if j == -1:
                out.append(re.escape(c))
                i += 1
                continue
            body = pat[i + 1 : j]
            if body.startswith("!"):
                body = "^" + body[1:]
            out.append("[" + body.replace("\\", "\\\\") + "]")
            i = j + 1
        elif c == "\\" and i + 1 < n:
            out.append(re.escape(pat[i + 1]))
            i += 2
        else:
            out.append(re.escape(c))
            i += 1
    return "".join(out)


def compile_pattern(line: str, base: str, source: str = "") -> Pattern | None:
    """One ``.gitignore`` line (or one ``exclude`` glob) relative to ``base``."""
    line = line.rstrip("\r\n")
    while line.endswith(" ") and not line.endswith("\\ "):
        line = line[:-1]
    if not line or line.startswith("#"):
        return None
    negate = line.startswith("!")
    if negate or line.startswith(("\\!", "\\#")):
        line = line[1:]
    dir_only = line.endswith("/")
    line = line.rstrip("/")
    if not line:
        return None
    anchored = "/" in line
    line = line.lstrip("/")
    rx = _glob_regex(line)
    if not anchored:
        rx = "(?:.*/)?" + rx
    return Pattern(os.path.abspath(base), re.compile(rx + r"\Z", re.S), negate, dir_only, source)


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
        if p.regex.match(rel.replace(os.sep, "/")):
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


def walk(folder: str, exclude: Iterable[Pattern] = ()) -> list[str]:
    """Lintable files under ``folder``, honouring ``.gitignore`` files and ``exclude``."""
    exclude = list(exclude)
    found: list[str] = []
    start = list(_inherited(folder))  # a folder named on the command line is searched even if ignored
    stack: dict[str, list[Pattern]] = {os.path.abspath(folder): start + list(_gitignore(os.path.abspath(folder)))}
    for root, dirs, files in os.walk(folder):
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
