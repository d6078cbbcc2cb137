"""Which files ``kdacheck lint`` reads: paths, folders, globs, ``.gitignore``, relevance.

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
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING

import yaml

from kdacheck.findings import InputError
from kdacheck.lint import FileResult
from kdacheck.readers.detect import YAML_SUFFIXES

if TYPE_CHECKING:
    from kdacheck.lint import Options

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
    """The paths to lint (compatibility with the first CLI): see :func:`discover`."""
    return [c.path for c in discover(paths)]


# --- relevance of files found in folders ---------------------------------------------------


@functools.cache
def _flag_names() -> tuple[frozenset[str], frozenset[str]]:
    """SGLang flag names without dashes, in dash and underscore spelling: (multi-word, one-word)."""
    from kdacheck import flags

    names: set[str] = set()
    for v in flags.KNOWN_VERSIONS:
        for opt in flags.table(v).by_option:
            if opt.startswith("--"):
                names.add(opt[2:])
                names.add(opt[2:].replace("-", "_"))
    multi = frozenset(n for n in names if "-" in n or "_" in n)
    return multi, frozenset(names - multi)


def plausible_config_keys(keys: list[str]) -> bool:
    """A mapping is plausibly an SGLang ``--config`` when a key is a multi-word SGLang flag
    (``model-path``, ``tp_size``), or when more than half its keys (two or more) are one-word flags
    (``model``, ``port``, ``host`` alone are too common elsewhere)."""
    multi, single = _flag_names()
    if any(k in multi for k in keys):
        return True
    return len(keys) >= 2 and 2 * sum(k in single for k in keys) > len(keys)


_TOP_KEY = re.compile(r"^([A-Za-z0-9_-]+)\s*:", re.M)


def relevant(path: str, text: str) -> bool:
    """Whether a file found in a folder is worth linting (named files always are)."""
    from kdacheck.readers import yamlfiles
    from kdacheck.readers.shell import looks_like_shell_launch

    if not path.lower().endswith(YAML_SUFFIXES):
        return looks_like_shell_launch(text) or text.lstrip().startswith("--")
    try:  # libyaml, after the size/depth/tag pre-pass: hostile files cost no more here
        docs = yamlfiles.compose_all(text, path)
    except InputError:
        # Broken YAML: report it only if it looks like it was meant for SGLang.
        return "sglang" in text or plausible_config_keys(_TOP_KEY.findall(text))
    if not docs:
        return False
    if any(yamlfiles.is_kubernetes(d) or yamlfiles.is_compose(d) for d in docs):
        return "sglang" in text
    if len(docs) == 1 and isinstance(docs[0], yaml.MappingNode):
        keys = [k.value for k, _v in docs[0].value if isinstance(k, yaml.ScalarNode)]
        return plausible_config_keys(keys)
    return False


# --- reading and linting many files -----------------------------------------------------------

# Measured (600 files, 2 cores, warm page cache): reading all of them takes 0.12 s, linting
# them 2.4–3.8 s, and a thread pool of 4 or 8 readers changed the total by less than the noise
# (2.34 s vs 2.45 s, 4.2 s vs 3.8 s). Parsing and checking hold the GIL and PyYAML's
# constructor is not thread-safe, so only reading could run in parallel, and reading is not
# where the time goes: files are read on one thread unless ``workers`` asks otherwise (a slow
# network file system might).
PROGRESS_FROM = 50  # files; a progress bar on a terminal's stderr above this


def _read(c: Candidate, max_bytes: int) -> tuple[str | None, str | None]:
    """(text, error) of one candidate; binary or non-UTF-8 files found in folders are
    skipped silently (text and error both None)."""
    from kdacheck.findings import InputError
    from kdacheck.readers.detect import decode, read_bytes

    try:
        data = read_bytes(c.path, max_bytes)
    except InputError as e:
        return None, str(e)
    try:
        return decode(data, c.path), None
    except InputError as e:
        return (None, str(e)) if c.explicit else (None, None)


def lint_many(
    cands: list[Candidate],
    options_for: Callable[[str], Options],
    progress: bool | None = None,
    workers: int | None = None,
) -> list[FileResult]:
    """Lint every candidate, in order; files found in folders that are not launch
    configurations are skipped. ``workers > 1`` reads files in a thread pool (parsing and
    checking stay on this thread): it did not pay off when measured, see above."""
    import sys
    from concurrent.futures import ThreadPoolExecutor

    from kdacheck.lint import lint_text

    if progress is None:
        progress = len(cands) > PROGRESS_FROM and sys.stderr.isatty()
    if workers is None:
        workers = 1

    def read(c: Candidate) -> tuple[str | None, str | None]:
        if c.path == "-":
            return sys.stdin.read(), None
        return _read(c, options_for(c.path).max_bytes)

    results: list[FileResult] = []
    pool = ThreadPoolExecutor(max_workers=workers) if workers > 1 else None
    texts: Iterator[tuple[str | None, str | None]] = pool.map(read, cands) if pool else map(read, cands)
    bar = None
    if progress:
        from rich.console import Console
        from rich.progress import Progress

        bar = Progress(console=Console(stderr=True), transient=True)
        bar.start()
        task = bar.add_task("kdacheck lint", total=len(cands))
    try:
        for c, (text, error) in zip(cands, texts, strict=True):
            if bar is not None:
                bar.advance(task)
            name = "<stdin>" if c.path == "-" else c.path
            if error is not None:
                results.append(FileResult(name, error=error))
                continue
            if text is None or (not c.explicit and not relevant(c.path, text)):
                continue
            base = "." if c.path == "-" else (os.path.dirname(c.path) or ".")
            results.append(lint_text(text, name, options_for(c.path), base))
    finally:
        if bar is not None:
            bar.stop()
        if pool is not None:
            pool.shutdown(cancel_futures=True)
    return results
