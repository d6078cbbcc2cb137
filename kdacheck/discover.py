"""Which files ``kdacheck lint`` reads: paths, folders, globs, ``.gitignore`` (file system only).

- A file named on the command line is always linted.
- A folder is searched (iteratively, at most :data:`MAX_DEPTH` levels and :data:`MAX_ENTRIES`
  entries, no symlinked folder followed) for ``*.yaml``, ``*.yml``, ``*.sh``, ``*.bash``,
  ``*.txt``, ``*.cmd`` and ``*.ipynb`` files and Dockerfiles by name (``Dockerfile``, ``Containerfile``,
  ``*.Dockerfile``, ``Dockerfile.*``), skipping ``.git``, hidden folders, ``node_modules``,
  ``__pycache__``, whatever the ``.gitignore`` files on the way ignore (read as git reads them:
  lines split on ``\\n`` only, git's wildmatch, POSIX classes; checked against git in
  tests/test_fuzz_targets.py) and the configuration's ``exclude`` globs. Files found this way
  are linted only when they plausibly are launch configurations (:func:`relevant`): a GitHub
  workflow or a Helm values file is skipped, not linted into a pile of ARG001s.
- A path with ``*``, ``?`` or ``[`` that names no file is a glob (``examples/**/*.yaml``),
  expanded by kdacheck's own walk: a symlinked folder is never gone through.
- Duplicates are dropped; the order is sorted and stable.
"""

from __future__ import annotations

import functools
import os
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from kdacheck.findings import InputError

LINT_SUFFIXES = (".yaml", ".yml", ".sh", ".bash", ".txt", ".cmd", ".ipynb")
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


# --- gitignore-style patterns -------------------------------------------------------------

_SLASH, _STAR, _BSL, _LBR, _RBR = b"/*\\[]"
_ALL = (1 << 256) - 1


def _byteset(chars: Iterable[int]) -> int:
    out = 0
    for c in chars:
        out |= 1 << c
    return out


# git's wildmatch classes, ASCII only (git's own ctype: [:space:] is tab, LF, CR and space,
# not VT or FF; a byte >= 0x80 is in none). Measured against git 2.39 for every byte 1-127.
_ALNUM = _byteset(b"0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz")
_GRAPH = _byteset(range(0x21, 0x7F))
POSIX_CLASSES = {
    b"alnum": _ALNUM,
    b"alpha": _byteset(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"),
    b"blank": _byteset(b" \t"),
    b"cntrl": _byteset([*range(0x20), 0x7F]),
    b"digit": _byteset(b"0123456789"),
    b"graph": _GRAPH,
    b"lower": _byteset(b"abcdefghijklmnopqrstuvwxyz"),
    b"print": _GRAPH | 1 << 0x20,
    b"punct": _GRAPH & ~_ALNUM,
    b"space": _byteset(b" \t\n\r"),
    b"upper": _byteset(b"ABCDEFGHIJKLMNOPQRSTUVWXYZ"),
    b"xdigit": _byteset(b"0123456789ABCDEFabcdef"),
}

NFA_RUNS = [0]  # patterns run through the NFA since the last reset (tests count operations, not seconds)


class Glob:
    """A gitignore glob matched the way git's wildmatch does (``WM_PATHNAME``), on the path's
    bytes as git does, in time linear in the path: the pattern is an NFA whose states are the
    bits of one integer, advanced a byte at a time with a few shifts and masks (no
    backtracking: ``****************x`` costs what a short line does, and a 4,000-token line
    costs 4,000 bits per byte, not 4,000 recursive calls).

    Tokens: a byte, ``?``, a class ``[...]`` (POSIX classes ``[:digit:]`` ... included),
    ``*`` (no ``/``), ``**`` bounded by ``/`` or the ends (anything), and ``**/`` (zero or
    more folders: ``(.*/)?``). As in git: an unterminated class (``[!]``, ``[a``), an unknown
    POSIX class or a trailing backslash make the line match nothing; a reversed range
    (``[z-a]``) holds no range (``z`` itself still matches); ``**`` right after the literal
    start of an anchored line counts as bounded (``a**/b`` matches ``ab``, because git
    compares the literal prefix first and wildmatches the rest). Checked against git:
    tests/test_fuzz_targets.py."""

    __slots__ = ("accept", "anyc", "classes", "dirs", "dirsin", "eps", "head", "lits", "loop", "masks", "min_len", "star", "tail", "valid")

    def __init__(self, pat: bytes, prefix: int = 0) -> None:
        toks = _tokens(pat, prefix)
        self.valid = toks is not None
        toks = toks or []
        self.accept = 1 << len(toks)
        self.min_len = sum(1 for k, _a in toks if k in ("char", "any", "class"))
        # the literal bytes a match must start and end with: what PatternSet indexes it by
        lead = next((i for i, (k, _a) in enumerate(toks) if k != "char"), len(toks))
        trail = next((i for i, (k, _a) in enumerate(reversed(toks)) if k != "char"), len(toks))
        self.head = bytes(a for _k, a in toks[:lead])
        self.tail = bytes(a for _k, a in toks[len(toks) - trail :])
        self.lits: dict[int, int] = {}
        self.anyc = self.star = self.loop = self.dirs = self.dirsin = self.eps = 0
        self.classes: list[tuple[int, int]] = []  # (bit, byte set)
        for i, (kind, arg) in enumerate(toks):
            bit = 1 << i
            if kind == "char":
                self.lits[arg] = self.lits.get(arg, 0) | bit
            elif kind == "any":
                self.anyc |= bit
            elif kind == "class":
                self.classes.append((bit, arg))
            elif kind == "star":
                self.star |= bit
                self.eps |= bit
            elif kind == "dstar":
                self.loop |= bit
                self.eps |= bit
            elif kind == "dirs":
                self.dirs |= bit
            else:  # dirsin: inside a folder name of ``**/``
                self.loop |= bit
                self.dirsin |= bit
        self.masks: dict[int, int] = {}  # byte -> the tokens it is consumed by (filled lazily: at most 256)

    def _mask(self, c: int) -> int:
        m = self.masks.get(c)
        if m is None:
            m = self.lits.get(c, 0)
            if c != _SLASH:
                m |= self.anyc
                for bit, members in self.classes:
                    if members >> c & 1:
                        m |= bit
            self.masks[c] = m
        return m

    def _close(self, d: int) -> int:
        """Add the states reachable without reading: past a star, past ``**/`` (two bits on)."""
        while True:
            n = d | (d & self.eps) << 1 | (d & self.dirs) << 2
            if n == d:
                return d
            d = n

    def match(self, path: bytes) -> bool:
        if not self.valid or len(path) < self.min_len:
            return False
        NFA_RUNS[0] += 1
        d = self._close(1)
        star, loop, dirs, dirsin = self.star, self.loop, self.dirs, self.dirsin
        for c in path:
            n = (d & self._mask(c)) << 1 | (d & loop) | (d & dirs) << 1
            if c == _SLASH:
                n |= (d & dirs) | (d & dirsin) >> 1  # a folder name ends: ``**/`` may stop here
            else:
                n |= d & star
            if not n:
                return False
            d = self._close(n)
        return bool(d & self.accept)


def _tokens(pat: bytes, prefix: int) -> list[tuple[str, int]] | None:
    """wildmatch's tokens of ``pat``, or None when it matches nothing. ``prefix``: where git's
    wildmatch starts reading an anchored line (after its literal prefix)."""
    out: list[tuple[str, int]] = []
    i, n = 0, len(pat)
    while i < n:
        c = pat[i]
        if c == _STAR:
            j = i
            while j < n and pat[j] == _STAR:
                j += 1
            bounded_before = i == 0 or i == prefix or pat[i - 1] == _SLASH
            if j - i >= 2 and bounded_before and (j == n or pat[j] == _SLASH or pat[j : j + 2] == b"\\/"):
                if j < n and pat[j] == _SLASH:
                    if not (out and out[-1][0] == "dirsin"):  # ``**/**/`` is ``**/``
                        out += [("dirs", 0), ("dirsin", 0)]
                    j += 1
                else:
                    out.append(("dstar", 0))  # anything, ``/`` included
            elif not (out and out[-1][0] == "star"):
                out.append(("star", 0))
            i = j
        elif c == ord("?"):
            out.append(("any", 0))
            i += 1
        elif c == _LBR:
            parsed = _class(pat, i)
            if parsed is None:
                return None
            out.append(("class", parsed[0]))
            i = parsed[1]
        elif c == _BSL:
            if i + 1 >= n:
                return None  # a trailing backslash: git matches nothing
            out.append(("char", pat[i + 1]))
            i += 2
        else:
            out.append(("char", c))
            i += 1
    return out


def _class(pat: bytes, i: int) -> tuple[int, int] | None:
    """``[...]`` at ``i``, read as git's wildmatch reads it: (the set of bytes it accepts, the
    index after it), or None when the line matches nothing (unterminated, unknown POSIX class)."""
    n = len(pat)
    j = i + 1
    neg = j < n and pat[j] in b"!^"
    if neg:
        j += 1
    members, prev = 0, 0
    while True:
        if j >= n:
            return None
        p = pat[j]
        if p == _BSL:
            j += 1
            if j >= n:
                return None
            p = pat[j]
            members |= 1 << p
        elif p == ord("-") and prev and j + 1 < n and pat[j + 1] != _RBR:
            j += 1
            hi = pat[j]
            if hi == _BSL:
                j += 1
                if j >= n:
                    return None
                hi = pat[j]
            if prev <= hi:
                members |= ((1 << (hi + 1)) - 1) & ~((1 << prev) - 1)
            p = 0  # no range starts at a range's end
        elif p == _LBR and j + 1 < n and pat[j + 1] == ord(":"):
            k = j + 2
            while k < n and pat[k] != _RBR:
                k += 1
            if k >= n:
                return None
            if k - (j + 2) - 1 < 0 or pat[k - 1] != ord(":"):
                members |= 1 << _LBR  # no ``:]``: a plain ``[``
            else:
                cls = POSIX_CLASSES.get(pat[j + 2 : k - 1])
                if cls is None:
                    return None  # git: a malformed [:class:] aborts the match
                members |= cls
                p = 0
                j = k
        else:
            members |= 1 << p
        prev = p
        j += 1
        if j >= n:
            return None
        if pat[j] == _RBR:
            break
    accepted = (_ALL & ~members) if neg else members
    return accepted & ~(1 << _SLASH), j + 1


@functools.lru_cache(maxsize=1 << 17)
def _glob(pat: bytes, prefix: int) -> Glob:
    """Compiled once per pattern text: the same line in many ``.gitignore`` files, or the same
    ``per-file-ignores`` glob for every file, is one Glob."""
    return Glob(pat, prefix)


@dataclass(frozen=True)
class Pattern:
    base: str  # absolute folder the pattern is relative to
    text: bytes  # the glob, its leading ``/``, ``!`` and trailing ``/`` removed
    prefix: int  # where git's wildmatch starts reading an anchored line (its literal prefix)
    negate: bool
    dir_only: bool
    source: str
    unanchored: bool = False  # no ``/``: matched against the name only, as git does
    literal: bytes | None = None  # no wildcard: the name (unanchored) or path it equals
    suffix: bytes | None = None  # ``*.ext`` (unanchored, nothing else): the name ends with it

    @property
    def glob(self) -> Glob:
        """Compiled on first use (a literal or ``*.ext`` pattern is matched by look-up, never
        compiled), once per pattern text."""
        return _glob(self.text, self.prefix)


_WILDCARD = re.compile(rb"[*?\[\\]")


def _simple_length(line: bytes) -> int:
    """git's ``simple_length``: bytes before the first wildcard (``*?[\\``)."""
    m = _WILDCARD.search(line)
    return m.start() if m else len(line)


def _trim_trailing_spaces(line: bytes) -> bytes:
    """git's ``trim_trailing_spaces``: drop the trailing spaces a backslash does not escape
    (``a\\\\ `` loses its space: the backslash escapes the backslash)."""
    if not line.endswith(b" "):
        return line
    last_space = None
    i = 0
    while i < len(line):
        c = line[i]
        if c == 0x20:
            if last_space is None:
                last_space = i
        elif c == _BSL:
            i += 1
            if i >= len(line):
                return line
            last_space = None
        else:
            last_space = None
        i += 1
    return line if last_space is None else line[:last_space]


def compile_pattern(line: str | bytes, base: str, source: str = "") -> Pattern | None:
    """One ``.gitignore`` line (or one ``exclude`` glob) relative to ``base``, read as git's
    ``add_pattern`` does; never shortened (a long line is matched as written)."""
    raw = line.encode("utf-8", "surrogateescape") if isinstance(line, str) else line
    raw = raw.split(b"\0", 1)[0]  # git reads a line as a C string
    if not raw or raw.startswith(b"#"):
        return None
    raw = _trim_trailing_spaces(raw)
    negate = raw.startswith(b"!")
    if negate:
        raw = raw[1:]
    dir_only = raw.endswith(b"/")
    raw = raw[:-1] if dir_only else raw  # one trailing slash: ``a//`` is ``a/`` for folders only, as git reads it
    if not raw:
        return None
    unanchored = b"/" not in raw
    raw = raw[1:] if raw.startswith(b"/") else raw  # git drops one leading slash, not all (``//*`` matches nothing)
    simple = _simple_length(raw)
    literal = raw if simple == len(raw) else None
    suffix = raw[1:] if unanchored and raw.startswith(b"*") and _simple_length(raw[1:]) == len(raw) - 1 else None
    return Pattern(os.path.abspath(base), raw, 0 if unanchored else simple, negate, dir_only, source, unanchored, literal, suffix)


MAX_NFA_RUNS = 5_000_000  # patterns run through the NFA in one kdacheck run (seconds of work, not hours)


def _run(p: Pattern, target: bytes) -> bool:
    """``p`` against ``target`` through the NFA, within the run's budget."""
    if NFA_RUNS[0] >= MAX_NFA_RUNS:
        raise InputError(f"{_shown(p.source or p.base)}: over {MAX_NFA_RUNS:,} wildcard matches in this run: "
                         "too many patterns with wildcards for this tree (lint a smaller folder, or use fewer patterns)")
    return p.glob.match(target)


class PatternSet:
    """Patterns that share one base folder (one ``.gitignore``, one settings file's
    ``exclude``), indexed so that a path runs only the patterns that could match it: a literal
    name or path is a dictionary look-up, ``*.ext`` a look-up of the name's ending, a pattern
    with a literal start (``build-*``) or end (``*-old.sh``) runs only for the paths that
    start or end so, and only what has neither runs for every path. The last pattern that
    matches decides, as in git: candidates are tried newest first."""

    def __init__(self, patterns: Sequence[Pattern]) -> None:
        self.patterns = tuple(patterns)
        self.base = self.patterns[0].base if self.patterns else ""
        self.literal: dict[tuple[bool, bytes], list[int]] = {}  # (unanchored, text) -> indices
        self.suffix: dict[bytes, list[int]] = {}
        self.heads: dict[tuple[bool, bytes], list[int]] = {}
        self.tails: dict[tuple[bool, bytes], list[int]] = {}
        self.rest: list[int] = []  # run through the NFA for every path
        for i, p in enumerate(self.patterns):
            if p.literal is not None:
                self.literal.setdefault((p.unanchored, p.literal), []).append(i)
            elif p.suffix is not None:
                self.suffix.setdefault(p.suffix, []).append(i)
            elif p.glob.head:
                self.heads.setdefault((p.unanchored, p.glob.head), []).append(i)
            elif p.glob.tail:
                self.tails.setdefault((p.unanchored, p.glob.tail), []).append(i)
            else:
                self.rest.append(i)
        self.suffix_lengths = sorted({len(k) for k in self.suffix})
        self.head_keys = sorted({(u, len(k)) for u, k in self.heads})
        self.tail_keys = sorted({(u, len(k)) for u, k in self.tails})

    def _candidates(self, rel: bytes, name: bytes) -> tuple[list[int], list[int]]:
        """(indices that match by construction, indices to run through the NFA, newest first)."""
        sure: list[int] = [*self.literal.get((True, name), ()), *self.literal.get((False, rel), ())]
        for n in self.suffix_lengths:
            if n > len(name):
                break
            sure += self.suffix.get(name[len(name) - n :], ())
        maybe = list(self.rest)
        for u, n in self.head_keys:
            t = name if u else rel
            if n <= len(t):
                maybe += self.heads.get((u, t[:n]), ())
        for u, n in self.tail_keys:
            t = name if u else rel
            if n <= len(t):
                maybe += self.tails.get((u, t[len(t) - n :]), ())
        maybe.sort(reverse=True)
        return sure, maybe

    def last_match(self, rel: bytes, name: bytes, is_dir: bool) -> Pattern | None:
        """The pattern that decides for ``rel`` (relative to ``base``, ``/``-separated;
        ``name``: its last part), or None."""
        sure, maybe = self._candidates(rel, name)
        best = max((i for i in sure if is_dir or not self.patterns[i].dir_only), default=-1)
        for i in maybe:
            if i <= best:
                break
            p = self.patterns[i]
            if (is_dir or not p.dir_only) and _run(p, name if p.unanchored else rel):
                best = i
                break
        return self.patterns[best] if best >= 0 else None

    def matching(self, rel: bytes, name: bytes, is_dir: bool) -> list[Pattern]:
        """Every pattern that matches (``per-file-ignores``: each adds its codes)."""
        sure, maybe = self._candidates(rel, name)
        hits = [i for i in sure if is_dir or not self.patterns[i].dir_only]
        for i in maybe:
            p = self.patterns[i]
            if (is_dir or not p.dir_only) and _run(p, name if p.unanchored else rel):
                hits.append(i)
        return [self.patterns[i] for i in sorted(hits)]


def pattern_sets(patterns: Iterable[Pattern]) -> list[PatternSet]:
    """``patterns`` in order, cut into runs that share a base folder."""
    out: list[PatternSet] = []
    run: list[Pattern] = []
    for p in patterns:
        if run and p.base != run[0].base:
            out.append(PatternSet(run))
            run = []
        run.append(p)
    if run:
        out.append(PatternSet(run))
    return out


def _relative(apath: str, base: str) -> bytes | None:
    """``apath`` below ``base``, as ``/``-separated bytes (git's view), or None."""
    prefix = base.rstrip(os.sep) + os.sep
    if not apath.startswith(prefix):
        return None
    return os.fsencode(apath[len(prefix) :].replace(os.sep, "/"))


def ignored_by(path: str, is_dir: bool, sets: Sequence[PatternSet]) -> bool:
    """Git's rule over several sets, the later ones winning: the last pattern that matches decides."""
    apath = path if os.path.isabs(path) else os.path.abspath(path)
    for s in reversed(sets):
        rel = _relative(apath, s.base)
        if rel is None:
            continue
        p = s.last_match(rel, rel.rsplit(b"/", 1)[-1], is_dir)
        if p is not None:
            return not p.negate
    return False


def matching(path: str, is_dir: bool, sets: Sequence[PatternSet]) -> list[Pattern]:
    """Every pattern of ``sets`` that matches ``path``."""
    apath = path if os.path.isabs(path) else os.path.abspath(path)
    out: list[Pattern] = []
    for s in sets:
        rel = _relative(apath, s.base)
        if rel is not None:
            out += s.matching(rel, rel.rsplit(b"/", 1)[-1], is_dir)
    return out


def ignored(path: str, is_dir: bool, patterns: Iterable[Pattern]) -> bool:
    """Git's rule: the last pattern that matches decides."""
    return ignored_by(path, is_dir, pattern_sets(patterns))


MAX_IGNORE_BYTES = 1 << 20  # one .gitignore or .git/info/exclude
MAX_PATTERNS = 100_000  # patterns in all: .gitignore lines of one search, exclude globs, per-file-ignores


def _lines(data: bytes) -> list[bytes]:
    """The lines of a ``.gitignore`` as git splits them: on ``\\n`` only (a form feed, a lone
    CR, U+2028 or U+0085 is part of the line), one ``\\r`` before the ``\\n`` dropped, a UTF-8
    BOM at the start dropped."""
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    return [ln[:-1] if ln.endswith(b"\r") else ln for ln in data.split(b"\n")]


def _read_patterns(path: str, base: str, root: str) -> tuple[Pattern, ...]:
    """The patterns of one ignore file, read through :mod:`kdacheck.confine` (a regular file
    inside the repository, at most 1 MiB). A ``.gitignore`` that is a symbolic link is not
    read, as git (2.32+) does not read it; one that points outside is refused by name."""
    from kdacheck import confine

    name = os.path.basename(path)
    if name == ".gitignore" and os.path.islink(path):
        confine.check(path, root, path)  # a link out: refused by name, exit 2
        return ()
    data = confine.read(path, root, MAX_IGNORE_BYTES, path, missing_ok=True)
    if data is None:
        return ()
    out = []
    for ln in _lines(data):
        p = compile_pattern(ln, base, path)
        if p is not None:
            out.append(p)
            if len(out) > MAX_PATTERNS:
                raise InputError(f"{_shown(path)}: over {MAX_PATTERNS:,} patterns: not read (git reads them; kdacheck keeps its matching bounded)")
    return tuple(out)


def _shown(path: str) -> str:
    from kdacheck.sanitize import visible

    return visible(path[:300])


@functools.cache
def _gitignore_set(folder: str) -> PatternSet:
    from kdacheck import confine

    return PatternSet(_read_patterns(os.path.join(folder, ".gitignore"), folder, confine.repository_root(folder)))


def _gitignore(folder: str) -> tuple[Pattern, ...]:
    return _gitignore_set(folder).patterns


def reset() -> None:
    """Forget the ``.gitignore`` files and repository roots read (files may have changed)."""
    _gitignore_set.cache_clear()
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


def _inherited_sets(folder: str) -> list[PatternSet]:
    """``.git/info/exclude`` and the ``.gitignore`` files above ``folder``, up to the
    repository's top level (lowest precedence first)."""
    from kdacheck import confine

    folder = os.path.abspath(folder)
    root = git_root(folder)
    if root is None:
        return []
    out: list[PatternSet] = []
    exclude = os.path.join(root, ".git", "info", "exclude")
    if os.path.isdir(os.path.join(root, ".git")) and os.path.lexists(exclude):
        out.append(PatternSet(_read_patterns(exclude, root, confine.repository_root(root))))
    chain = []
    d = os.path.dirname(folder)
    while len(d) >= len(root):
        chain.append(d)
        if d == root:
            break
        d = os.path.dirname(d)
    out += [_gitignore_set(d) for d in reversed(chain)]
    return out


def _inherited(folder: str) -> list[Pattern]:
    return [p for s in _inherited_sets(folder) for p in s.patterns]


MAX_ENTRIES = 200_000  # files and folders one folder search visits
MAX_DEPTH = 256  # folder levels one search descends


def _too_many(folder: str) -> InputError:
    return InputError(f"{_shown(folder)}: over {MAX_ENTRIES:,} files and folders to search; lint a smaller folder (or exclude some)")


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
        g = _gitignore_set(d)
        if not g.patterns:
            return sets
        counted[0] += len(g.patterns)
        if counted[0] > MAX_PATTERNS:
            raise InputError(f"{_shown(os.path.join(d, '.gitignore'))}: the .gitignore files of this search hold over {MAX_PATTERNS:,} patterns")
        return [*sets, g]

    found: list[str] = []
    # a folder named on the command line is searched even if ignored
    stack: list[tuple[str, str, list[PatternSet], int]] = [(folder, top, sets_for(_inherited_sets(folder), top), 0)]
    seen = 0
    while stack:
        shown, real, sets, depth = stack.pop()
        entries = _entries(shown)
        seen += 1 + len(entries)
        if seen > MAX_ENTRIES:
            raise _too_many(folder)
        checks = sets + excl
        subdirs = []
        for name, is_dir, link in entries:
            full = os.path.join(shown, name)
            afull = os.path.join(real, name)
            if is_dir:
                if name.startswith(".") or name in SKIP_DIRS or ignored_by(afull, True, checks):
                    continue
                if depth + 1 > MAX_DEPTH:
                    raise InputError(f"{_shown(full)}: folders nested deeper than {MAX_DEPTH} levels: not searched (lint a deeper folder by name)")
                subdirs.append((full, afull, sets_for(sets, afull), depth + 1))
            elif (not (link and os.path.isdir(full))  # a link to a file is the reader's to confine
                  and lintable_name(name) and not ignored_by(afull, False, checks)):
                found.append(os.path.normpath(full))
        stack += reversed(subdirs)  # depth first, in sorted order
    return found


def _is_glob(p: str) -> bool:
    return any(c in p for c in "*?[")


def expand_glob(pattern: str) -> list[str]:
    """The paths a command-line glob matches, by kdacheck's own walk (git's wildmatch, ``**``
    across folders): bounded like a folder search, and never through a symbolic link to a
    folder, so ``deploy/**/*.sh`` with ``deploy/linked -> /elsewhere`` lists nothing there.
    As the shell and Python's glob do, a wildcard does not match a leading ``.`` unless the
    pattern spells one."""
    parts = pattern.split("/")
    k = 0
    while k < len(parts) - 1 and not _is_glob(parts[k]):
        k += 1
    fixed, rest = parts[:k], parts[k:]
    base = "/".join(fixed) or ("/" if fixed else ".")  # ["", "etc"] is /etc; [""] is /
    if not os.path.isdir(base):
        return []
    if not os.path.isabs(base):  # a relative base must not go through a link either (``deploy`` made a link)
        acc = ""
        for part in fixed:
            acc = os.path.join(acc, part) if acc else part
            if part not in (".", "..") and os.path.islink(acc):
                return []
    want = "/".join(rest)
    glob = _glob(want.encode("utf-8", "surrogateescape"), 0)
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
                    raise InputError(f"{_shown(full)}: folders nested deeper than {MAX_DEPTH} levels: not searched")
                stack.append((full, r, depth + 1))
    return sorted(out)


def discover(paths: list[str], exclude: Iterable[Pattern] = ()) -> list[Candidate]:
    """The files to lint, deduplicated and sorted (``-`` for standard input comes last)."""
    exclude = list(exclude)
    NFA_RUNS[0] = 0  # the run's matching budget starts here
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
            matches = expand_glob(p)
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
