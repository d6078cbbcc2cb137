"""Which files ``kdacheck lint`` reads: paths, folders, globs, ``.gitignore`` (file system only).

- A file named on the command line is always linted.
- A folder is searched (iteratively, at most :data:`MAX_DEPTH` levels and :data:`MAX_ENTRIES`
  entries, no symlinked folder followed) for ``*.yaml``, ``*.yml``, ``*.sh``, ``*.bash``,
  ``*.txt``, ``*.cmd`` and ``*.ipynb`` files and Dockerfiles by name (``Dockerfile``, ``Containerfile``,
  ``*.Dockerfile``, ``Dockerfile.*``), skipping ``.git``, hidden folders, ``node_modules``,
  ``__pycache__``, whatever the ``.gitignore`` files on the way ignore (read and matched as git
  does, by :mod:`kdacheck.gitignore`) and the configuration's ``exclude`` globs. Files found this way
  are linted only when they plausibly are launch configurations (:func:`relevant`): a GitHub
  workflow or a Helm values file is skipped, not linted into a pile of ARG001s.
- A path with ``*``, ``?`` or ``[`` that names no file is a glob (``examples/**/*.yaml``),
  expanded by kdacheck's own walk: a symlinked folder is never gone through. A glob chooses
  files exactly as the walk of its folder does (the same names, ``.gitignore``, ``exclude`` and
  :func:`relevant`), so ``'deploy/**/*.yaml'`` and ``deploy/`` give the same verdict and counts
  on the same YAML files; only a file named as it is is always linted.
- Duplicates are dropped; the order is sorted and stable.
"""

from __future__ import annotations

import functools
import os
from collections.abc import Iterable
from dataclasses import dataclass

from kdacheck import gitignore
from kdacheck.findings import InputError
from kdacheck.gitignore import Pattern, PatternSet, ignored_by, pattern_sets
from kdacheck.sanitize import shown
from kdacheck.suffixes import LINT_SUFFIXES

# Container builds, by name as Docker and Podman find them (``docker build -f`` aside):
# ``Dockerfile``, ``Containerfile``, ``*.Dockerfile``, ``Dockerfile.*`` (``Dockerfile.cuda``).
_CONTAINER_NAMES = ("dockerfile", "containerfile")


# ``Dockerfile.<variant>`` (``.cuda``, ``.rocm``, ``.dev``), not a source, document or template
# that merely starts so (``dockerfile.py``, ``Dockerfile.md``, ``Dockerfile.j2``).
_NOT_A_VARIANT = (".py", ".pyc", ".md", ".rst", ".txt", ".json", ".toml", ".lock", ".go", ".rs", ".js", ".ts", ".html",
                  ".sh", ".bash", ".yaml", ".yml", ".cfg", ".ini", ".j2", ".jinja", ".jinja2", ".tmpl", ".tpl", ".template",
                  ".in", ".orig", ".rej", ".bak", ".swp", ".patch", ".diff")


def is_container_file_name(name: str) -> bool:
    """Whether a file's name is one Docker or Podman reads as a build file (case-insensitive)."""
    low = name.lower()
    return (low in _CONTAINER_NAMES or low.endswith((".dockerfile", ".containerfile"))
            or (low.startswith(("dockerfile.", "containerfile.")) and not low.endswith(_NOT_A_VARIANT)))


def lintable_name(name: str) -> bool:
    """Whether a folder walk considers a file by its name (relevance decides after reading)."""
    return not name.startswith(".") and (name.lower().endswith(LINT_SUFFIXES) or is_container_file_name(name))
SKIP_DIRS = frozenset({"node_modules", "__pycache__", "venv", "site-packages"})


@dataclass(frozen=True)
class Candidate:
    path: str
    explicit: bool  # named (or matched by a glob) on the command line: always linted



def reset() -> None:
    """Forget the ``.gitignore`` files and repository roots read (files may have changed)."""
    gitignore.reset()
    git_root.cache_clear()


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


MAX_ENTRIES = 200_000  # files and folders one folder search visits
MAX_DEPTH = 256  # folder levels one search descends


def _too_many(folder: str) -> InputError:
    return InputError(f"{shown(folder)}: over {MAX_ENTRIES:,} files and folders to search; lint a smaller folder (or exclude some)")


def _entries(folder: str) -> list[tuple[str, bool, bool]]:
    """(name, is a folder, is a link) of each entry of ``folder``, sorted; unreadable: none
    (as ``os.walk`` skips a folder it cannot list)."""
    try:
        with os.scandir(folder) as it:
            out = []
            for e in it:
                try:
                    link = e.is_symlink()
                    out.append((e.name, not link and e.is_dir(follow_symlinks=False), link))
                except OSError:
                    continue
    except OSError:
        return []
    out.sort()
    return out


def walk(folder: str, exclude: Iterable[Pattern] = ()) -> list[str]:
    """Lintable files under ``folder``, honouring ``.gitignore`` files and ``exclude``. An
    explicit stack, not recursion: depth is bounded by :data:`MAX_DEPTH` (exit 2 naming the
    folder), never by Python's recursion limit."""
    excl = pattern_sets(exclude)
    top = os.path.abspath(folder)
    counted = [sum(len(s.patterns) for s in excl)]

    def sets_for(sets: list[PatternSet], d: str) -> list[PatternSet]:
        g = gitignore.folder_set(d)
        if not g.patterns:
            return sets
        counted[0] += len(g.patterns)
        if counted[0] > gitignore.MAX_PATTERNS:
            raise InputError(f"{shown(os.path.join(d, '.gitignore'))}: the .gitignore files of this search hold over "
                             f"{gitignore.MAX_PATTERNS:,} patterns")
        return [*sets, g]

    found: list[str] = []
    # a folder named on the command line is searched even if ignored
    stack: list[tuple[str, str, list[PatternSet], int]] = [(folder, top, sets_for(gitignore.inherited_sets(folder, git_root(top)), top), 0)]
    seen = 0
    while stack:
        here, real, sets, depth = stack.pop()
        entries = _entries(here)
        seen += 1 + len(entries)
        if seen > MAX_ENTRIES:
            raise _too_many(folder)
        checks = sets + excl
        subdirs = []
        for name, is_dir, link in entries:
            full = os.path.join(here, name)
            afull = os.path.join(real, name)
            if is_dir:
                if name.startswith(".") or name in SKIP_DIRS or ignored_by(afull, True, checks):
                    continue
                if depth + 1 > MAX_DEPTH:
                    raise InputError(f"{shown(full)}: folders nested deeper than {MAX_DEPTH} levels: not searched (lint a deeper folder by name)")
                subdirs.append((full, afull, sets_for(sets, afull), depth + 1))
            elif (not (link and os.path.isdir(full))  # a link to a file is the reader's to confine
                  and lintable_name(name) and not ignored_by(afull, False, checks)):
                found.append(os.path.normpath(full))
        stack += reversed(subdirs)  # depth first, in sorted order
    return found


def _is_glob(p: str) -> bool:
    return any(c in p for c in "*?[")


def glob_base(pattern: str) -> tuple[str, list[str], list[str]]:
    """(the folder a glob starts in, its fixed parts, its wildcard parts)."""
    parts = pattern.split("/")
    k = 0
    while k < len(parts) - 1 and not _is_glob(parts[k]):
        k += 1
    fixed, rest = parts[:k], parts[k:]
    return "/".join(fixed) or ("/" if fixed else "."), fixed, rest  # ["", "etc"] is /etc; [""] is /


def expand_glob(pattern: str) -> list[str]:
    """The paths a command-line glob matches, by kdacheck's own walk (git's wildmatch, ``**``
    across folders): bounded like a folder search, and never through a symbolic link to a
    folder, so ``deploy/**/*.sh`` with ``deploy/linked -> /elsewhere`` lists nothing there.
    As the shell and Python's glob do, a wildcard does not match a leading ``.`` unless the
    pattern spells one."""
    base, fixed, rest = glob_base(pattern)
    if not os.path.isdir(base):
        return []
    if not os.path.isabs(base):  # a relative base must not go through a link either (``deploy`` made a link)
        acc = ""
        for part in fixed:
            acc = os.path.join(acc, part) if acc else part
            if part not in (".", "..") and os.path.islink(acc):
                return []
    want = "/".join(rest)
    glob = gitignore.Glob(want.encode("utf-8", "surrogateescape"))
    dots = any(r.startswith(".") for r in rest)
    deep = any(r == "**" for r in rest)
    limit = len(rest) if not deep else MAX_DEPTH
    out: list[str] = []
    stack: list[tuple[str, str, int]] = [(base, "", 0)]
    seen = 0
    while stack:
        folder, rel, depth = stack.pop()
        entries = _entries(folder)
        seen += 1 + len(entries)
        if seen > MAX_ENTRIES:
            raise _too_many(base)
        for name, is_dir, link in entries:
            if name.startswith(".") and not dots:
                continue
            r = f"{rel}/{name}" if rel else name
            full = os.path.join(folder, name) if fixed or rel else name
            if link and os.path.isdir(full):
                continue  # a symbolic link to a folder: never gone through, never listed
            if glob.match(os.fsencode(r)):
                out.append(full)
            if is_dir and depth + 1 < limit:
                if depth + 1 > MAX_DEPTH:
                    raise InputError(f"{shown(full)}: folders nested deeper than {MAX_DEPTH} levels: not searched")
                stack.append((full, r, depth + 1))
    return sorted(out)


def searched_folders(paths: list[str]) -> list[tuple[str, str]]:
    """The searches a run makes, as (what was given, the folder): each folder named, and each
    glob with its own folder (``deploy`` for ``'deploy/**/*.yaml'``), whose settings and
    "nothing found" warning apply alike."""
    out = []
    for p in paths:
        if os.path.isdir(p):
            out.append((p, p))
        elif p != "-" and not os.path.exists(p) and _is_glob(p) and os.path.isdir(glob_base(p)[0]):
            out.append((p, glob_base(p)[0]))
    return out


def _key(path: str) -> str:
    return os.path.normcase(os.path.abspath(path))


def excluded(path: str, exclude: Iterable[Pattern]) -> bool:
    """Whether ``exclude`` excludes ``path`` or a folder above it, as the folder walk would."""
    sets = pattern_sets(exclude)
    full = os.path.abspath(path)
    if ignored_by(full, False, sets):
        return True
    parent = os.path.dirname(full)
    while parent != os.path.dirname(parent):
        if ignored_by(parent, True, sets):
            return True
        parent = os.path.dirname(parent)
    return False


def discover(paths: list[str], exclude: Iterable[Pattern] = (), force_exclude: bool = False) -> list[Candidate]:
    """The files to lint, deduplicated and sorted (``-`` for standard input comes last);
    ``force_exclude``: a file named as it is skipped too where ``exclude`` excludes it."""
    exclude = list(exclude)
    gitignore.NFA_RUNS[0] = 0  # the run's matching budget starts here
    by_key: dict[str, Candidate] = {}
    stdin = False

    def add(path: str, explicit: bool) -> None:
        key = _key(path)
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
            matches = expand_glob(p)
            if not matches:
                add(p, True)  # reported as "no such file"
            walked: set[str] | None = None
            for m in matches:
                if os.path.isdir(m):
                    for f in walk(m, exclude):
                        add(f, False)
                    continue
                if walked is None:  # a glob chooses files as the walk of its folder does
                    walked = {_key(f) for f in walk(glob_base(p)[0], exclude)}
                if _key(m) in walked:
                    add(m, False)
        elif not (force_exclude and exclude and excluded(p, exclude)):
            add(p, True)
    out = sorted(by_key.values(), key=lambda c: c.path)
    if stdin:
        out.append(Candidate("-", True))
    return out


def collect(paths: list[str]) -> list[str]:
    """The paths :func:`discover` yields, as strings."""
    return [c.path for c in discover(paths)]
