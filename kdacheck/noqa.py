"""``kdacheck lint --add-noqa``: a ``# kdacheck: ignore[CODES]`` comment for every current
finding, so a tree with findings can turn the gate on and fix them one by one.

Each launch command with findings gets one comment alone on the line above its first line,
indented as that line, naming its findings' codes (``lint.py`` reads such a comment as applying
to the whole command; one already there gets the codes added, its reason kept). A comment goes
only where it is one: the file is linted again with the comments in place, and when any launch
reads differently (a ``#`` line inside a YAML quoted or block scalar is text, not a comment) the
file is left as it was, and said. JSON has no comments; findings located in another file (a
``--config`` file a script names) are suppressed in that file's own run, not here: both said.
Files are written through ``kdacheck.writes`` as ``--fix`` writes them.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field

from kdacheck.lint import SUPPRESS
from kdacheck.results import FileResult


@dataclass
class Added:
    """What ``--add-noqa`` would write: path → (bytes read, new text), the count of findings
    the comments cover, and a line per file left alone (why)."""

    files: dict[str, tuple[bytes, str]] = field(default_factory=dict)
    covered: int = 0
    notes: list[str] = field(default_factory=list)


def commented(text: str, sites: dict[int, set[str]]) -> tuple[str, list[int | None]]:
    """``text`` with a ``# kdacheck: ignore[CODES]`` line above each site (1-based line →
    codes), indented as that line; an ignore comment alone on the line above gets the codes
    added instead. Also each new line's original line number (None: a line added)."""
    lines: list[str] = text.splitlines(keepends=True)
    origin: list[int | None] = list(range(1, len(lines) + 1))
    for line in sorted(sites, reverse=True):  # from the end: earlier line numbers hold
        at = line - 1
        if not 0 <= at < len(lines) or not sites[line]:
            continue
        above = lines[at - 1] if at > 0 else ""
        m = SUPPRESS.search(above)
        if m and above.lstrip().startswith("#"):
            codes = sorted({c.strip().upper() for c in m.group(1).split(",") if c.strip()} | sites[line])
            lines[at - 1] = above[: m.start(1)] + ",".join(codes) + above[m.end(1):]
            continue
        target = lines[at]
        indent = target[: len(target) - len(target.lstrip(" \t"))]
        newline = "\r\n" if target.endswith("\r\n") else "\n"
        lines.insert(at, f"{indent}# kdacheck: ignore[{','.join(sorted(sites[line]))}]{newline}")
        origin.insert(at, None)
    return "".join(lines), origin


def _read_as(r: FileResult) -> list[list[str]]:
    """Each launch's arguments as read: what the comments must leave as it is."""
    return [[t.text for t in cfg.cmd.tokens] for cfg in r.resolved]


def _sites(r: FileResult) -> dict[int, set[str]]:
    """First try: one comment above each launch's first line, for the launch's findings."""
    sites: dict[int, set[str]] = {}
    for f, i in zip(r.findings, r.launch_of, strict=True):
        if f.location.path == r.path:
            sites.setdefault(r.resolved[i].cmd.loc.line, set()).add(f.code)
    return sites


def _refined(r: FileResult, sites: dict[int, set[str]], after: FileResult, origin: list[int | None]) -> dict[int, set[str]]:
    """Second try, from what the first left: its codes that silenced nothing dropped, and a
    comment above each finding still reported (a YAML key below a launch's first line)."""
    unused = {(origin_line, code) for line, code in after.unused_suppressions
              if 0 < line <= len(origin) and origin[line - 1] is None and (origin_line := _next(origin, line)) is not None}
    out = {line: {c for c in codes if (line, c) not in unused} for line, codes in sites.items()}
    for f in after.findings:
        line = origin[f.location.line - 1] if 0 < f.location.line <= len(origin) else None
        if f.location.path == r.path and line is not None:
            out.setdefault(line, set()).add(f.code)
    return out


def _next(origin: list[int | None], line: int) -> int | None:
    """The original line below an added comment at ``line``."""
    return next((o for o in origin[line:] if o is not None), None)


def _try(r: FileResult, text: str, sites: dict[int, set[str]],
         relint: Callable[[str, str], FileResult]) -> tuple[str, FileResult, list[int | None]] | None:
    """The text with the comments at ``sites`` and its lint, or None when a launch reads
    differently with them (a ``#`` line inside a string is text, not a comment)."""
    new, origin = commented(text, sites)
    after = relint(new, r.path)
    if after.error or _read_as(after) != _read_as(r):
        return None
    return new, after, origin


def plan(results: list[FileResult], read: Callable[[str], tuple[bytes, str]],
         relint: Callable[[str, str], FileResult]) -> Added:
    """The comments for ``results``. ``read(path)``: the file's bytes and text (InputError
    when it may not be written); ``relint(text, path)``: the file linted with ``text``."""
    from kdacheck.findings import InputError

    out = Added()
    for r in results:
        if r.error or not r.findings or r.path.startswith("<"):
            continue
        here = sum(1 for f in r.findings if f.location.path == r.path)
        if here < len(r.findings):
            out.notes.append(f"{r.path}: {len(r.findings) - here} finding(s) located in another file (a --config file): "
                             "not commented here (lint that file, or use --baseline)")
        if not here:
            continue
        if re.search(r"\.json\Z", r.path, re.I):
            out.notes.append(f"{r.path}: JSON has no comments: {here} finding(s) left (use --baseline)")
            continue
        try:
            data, text = read(r.path)
        except InputError as e:
            out.notes.append(f"{r.path}: not changed: {e}")
            continue
        sites = _sites(r)
        done = _try(r, text, sites, relint)
        if done is not None and (any(f.location.path == r.path for f in done[1].findings) or done[1].unused_suppressions):
            done = _try(r, text, _refined(r, sites, done[1], done[2]), relint) or done
        if done is None:
            out.notes.append(f"{r.path}: a comment cannot go where its launches are (inside a quoted or block "
                             f"scalar): not changed, {here} finding(s) left (use --baseline)")
            continue
        left = sum(1 for f in done[1].findings if f.location.path == r.path)
        if left:
            out.notes.append(f"{r.path}: {left} finding(s) no comment line can cover: left")
        out.files[r.path] = (data, done[0])
        out.covered += here - left
    return out
