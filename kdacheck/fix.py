"""``kdacheck lint --fix`` / ``--diff``: the findings' edits applied to the files as written.

An edit replaces the text a token was read from (a flag's spelling, a value, a ``--config``
key) or inserts one (a missing flag), so comments, quoting and layout stay as they were:
nothing is re-dumped. Each edit is verified against the file before it is applied (the text
at its place must be what the reader saw, maybe quoted); one that does not match, overlaps
another, or lands in a file kdacheck did not read as a linted file or its ``--config`` is
left out and counted. ``--diff`` prints a unified diff and writes nothing.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from dataclasses import dataclass, field

from kdacheck.findings import Edit, Finding, Location
from kdacheck.resolve.core import Resolved

QUOTES = ('"', "'")
MAX_PASSES = 4  # --fix: spellings, values, and what they reveal; then it stops


def set_flag(cfg: Resolved, name: str, value: str, safe: bool) -> tuple[Edit, ...]:
    """The edit that makes the launch give ``name value``: its value replaced where the flag is
    written, else the flag added (a shell line: after the launch's last word; a ``--config``
    file: a key above its first one). Nothing where the place is not plain text kdacheck can
    rewrite (a Kubernetes or Compose launch without the flag, an unknown value)."""
    flag = cfg.parsed.given.get(_dest(cfg, name))
    if flag is not None:
        if not isinstance(flag.raw, str) or flag.value_loc == flag.loc:
            return ()  # a switch or `--flag=value` inline: not rewritten
        return (Edit(flag.value_loc, flag.raw, value, safe, stage=1),)
    cmd = cfg.cmd
    if cmd.kind == "shell":
        last = next((t for t in reversed(cmd.tokens) if t.origin == "cli" and t.loc.path == cmd.path and not t.unknown), None)
        if last is None:
            return ()
        end = Location(last.loc.path, last.loc.line, last.loc.col + len(last.text))
        return (Edit(end, "", f" {name} {value}", safe, stage=1),)
    if cmd.kind == "yaml":
        first = next((t for t in cmd.tokens if t.origin == "yaml" and t.loc.path == cmd.path), None)
        if first is None:
            return ()
        return (Edit(Location(first.loc.path, first.loc.line, 1), "", " " * (first.loc.col - 1) + f"{name[2:]}: {value}\n", safe, stage=1),)
    return ()


def _dest(cfg: Resolved, name: str) -> str:
    from kdacheck import flags as flagmod

    flag = flagmod.table(cfg.version).by_option.get(name)
    return flag.dest if flag is not None else name.lstrip("-").replace("-", "_")


@dataclass
class Outcome:
    applied: int = 0
    skipped: int = 0
    unsafe_left: int = 0
    deferred: int = 0  # value edits left for the next pass, after this pass's spellings
    files: dict[str, tuple[str, str]] = field(default_factory=dict)  # path -> (before, after)


def plan(findings: Iterable[Finding], unsafe: bool, read: dict[str, str]) -> Outcome:
    """Apply every edit to the texts in ``read`` (path → text, the files as kdacheck read them
    and may write); an edit of any other file is skipped."""
    out = Outcome()
    by_path: dict[str, list[Edit]] = {}
    wanted: list[Edit] = []
    for f in findings:
        for e in f.edits:
            if not e.safe and not unsafe:
                out.unsafe_left += 1
            elif e.location.path not in read:
                out.skipped += 1
            else:
                wanted.append(e)
    # Spellings first: a renamed flag changes what the rules see, so a value edit computed
    # from the old spelling may no longer apply (or apply twice); it waits for the next pass.
    stage = min((e.stage for e in wanted), default=0)
    for e in wanted:
        if e.stage > stage:
            out.deferred += 1
        else:
            by_path.setdefault(e.location.path, []).append(e)
    for path, edits in sorted(by_path.items()):
        before = read[path]
        lines = before.splitlines(keepends=True)
        starts = [0]
        for ln in lines:
            starts.append(starts[-1] + len(ln))
        spans: list[tuple[int, int, str]] = []
        for e in sorted(set(edits), key=lambda e: (e.location.line, e.location.col)):
            span = _span(before, starts, e)
            if span is None or any((s < span[1] and span[0] < t) or (s == t == span[0]) for s, t, _ in spans):
                out.skipped += 1
                continue
            spans.append(span)
        after = before
        for s, t, new in sorted(spans, reverse=True):
            after = after[:s] + new + after[t:]
        out.applied += len(spans)
        if after != before:
            out.files[path] = (before, after)
    return out


def _span(text: str, starts: list[int], e: Edit) -> tuple[int, int, str] | None:
    line, col = e.location.line, e.location.col
    if not 1 <= line < len(starts) or col < 1:
        return None
    at = starts[line - 1] + col - 1
    if at > starts[line]:
        return None
    if not e.old:
        return at, at, e.new
    if text.startswith(e.old, at):
        return at, at + len(e.old), e.new
    for q in QUOTES:  # a quoted value or key: the text inside the quotes
        if text.startswith(q + e.old + q, at):
            return at + 1, at + 1 + len(e.old), e.new
    return None


def summary(outcome: Outcome) -> str:
    n, files = outcome.applied, len(outcome.files)
    return (f"{n} fix{'es' if n != 1 else ''} in {files} file{'s' if files != 1 else ''}"
            + (f"; {outcome.skipped} not applicable to the text as written" if outcome.skipped else "")
            + (f"; {outcome.unsafe_left} more with --unsafe-fixes" if outcome.unsafe_left else ""))


def diff(outcome: Outcome) -> str:
    import difflib

    parts: list[str] = []
    for path, (before, after) in sorted(outcome.files.items()):
        parts.extend(difflib.unified_diff(before.splitlines(keepends=True), after.splitlines(keepends=True), f"a/{path}", f"b/{path}"))
    text = "".join(parts)
    return text if not text or text.endswith("\n") else text + "\n"


def write(outcome: Outcome) -> None:
    """Write each changed file in place, atomically (a temporary file beside it, renamed),
    keeping its permissions."""
    import tempfile

    for path, (_before, after) in sorted(outcome.files.items()):
        mode = os.stat(path).st_mode & 0o7777
        folder = os.path.dirname(os.path.abspath(path))
        fd, tmp = tempfile.mkstemp(prefix=".kdacheck-fix-", dir=folder)
        try:
            with os.fdopen(fd, "w", encoding="utf-8", newline="") as fh:
                fh.write(after)
            os.chmod(tmp, mode)
            os.replace(tmp, path)
        except BaseException:
            if os.path.exists(tmp):
                os.unlink(tmp)
            raise
