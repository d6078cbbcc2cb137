"""``kdacheck lint --fix`` / ``--diff``: the findings' edits applied to the files as written.

An edit replaces the text a token was read from (a flag's spelling, a value, a ``--config``
key) or inserts one (a missing flag: after the launch's last word, in the style the reader
says the launch is written in, ``LaunchCommand.append``), so comments, quoting and layout
stay as they were: nothing is re-dumped. Each edit is verified against the file before it is
applied (the text at its place must be what the reader saw, maybe quoted; an addition checks
the word it follows); one that does not match, overlaps another, lies inside a YAML anchor
(an alias elsewhere is the same node), or lands in a file kdacheck did not read as a linted
file or its ``--config`` is left out and counted. ``mark`` gives each finding the
replacements ``--fix`` would write (the ``[*]`` marker). ``--diff`` prints a unified diff and
writes nothing.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Callable, Collection, Iterable
from dataclasses import dataclass, field
from typing import Any

from kdacheck import flags as flagmod
from kdacheck.confine import Refused
from kdacheck.findings import Edit, Finding, InputError, Location, Replacement
from kdacheck.resolve.core import Resolved
from kdacheck.sanitize import visible, visible_name

QUOTES = ('"', "'")
MAX_PASSES = 4  # --fix: spellings, values, and what they reveal; then it stops
BOM = b"\xef\xbb\xbf"  # the readers drop one (utf-8-sig); a fixed file keeps it

# Where a reader's line numbers come from: the shell lexer counts "\n" only, as git does;
# PyYAML's marks also end a line at a lone "\r", NEL, U+2028 and U+2029; the Dockerfile reader
# counts "\n" only, as Docker does. An edit that replaces text is placed with the first of
# these that finds its old text there (on a word boundary); an insertion only where they all agree.
LINE_BREAKS = (re.compile(r"\n"), re.compile(r"\r\n|[\r\n\x85\u2028\u2029]"),
               re.compile(r"\r\n|[\n\r\x0b\x0c\x1c-\x1e\x85\u2028\u2029]"))
_OTHER_BREAKS = re.compile(r"\r(?!\n)|[\x0b\x0c\x1c-\x1e\x85\u2028\u2029]")
# What may follow a replaced token: the end of the text, a space or line break, `=` (`--tp=2`),
# `:` (a YAML key), a quote, or shell and YAML punctuation; never a letter, digit, `-`, `_`, `.`.
_ENDS_WORD = set(" \t\r\n\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029=:\"',;#)]}|&<>\\")
_IN_WORD = re.compile(r"[\w\-.]")


def set_flag(cfg: Resolved, name: str, value: str, safe: bool) -> tuple[Edit, ...]:
    """The edit that makes the launch give ``name value``: its value replaced where the flag is
    written, else the flag added after the launch's last word in the launch's own style (a
    shell word; a JSON exec-form item; a YAML flow or block list item, quoted as the last one
    is; a ``--config`` file: a key above its first one). Nothing where the reader says it
    cannot (``LaunchCommand.append`` None: a script inside one exec-form word, a list whose
    last item spans lines) or the words would need escapes."""
    flag = cfg.written(_dest(name))
    if flag is not None:
        if not isinstance(flag.raw, str) or flag.value_loc == flag.loc:
            return ()  # a switch or `--flag=value` inline: not rewritten
        if flag.origin == "yaml" and cfg.cmd.held:
            return ()  # a --config key where kdacheck does not write it (cannot_set says why)
        return (Edit(flag.value_loc, flag.raw, value, safe, stage=1),)
    name = flagmod.spell(_dest(name), cfg.version)  # added as the target version spells it
    cmd = cfg.cmd
    if cmd.kind == "yaml":
        first = next((t for t in cmd.tokens if t.origin == "yaml" and t.loc.path == cmd.path), None)
        if first is None:
            return ()
        return (Edit(Location(first.loc.path, first.loc.line, 1), "", " " * (first.loc.col - 1) + f"{name[2:]}: {value}\n", safe, stage=1),)
    how = cmd.append
    mine = [t for t in cmd.tokens if t.origin == "cli" and t.loc.path == cmd.path]
    # after the launch's last word as written (in shell, its last known one; in a list, the
    # list's last item itself, or the new items would land elsewhere)
    last = next((t for t in reversed(mine) if not t.unknown), None) if how is not None and how.quoting == "shell" else (
        cmd.tokens[-1] if cmd.tokens and mine and cmd.tokens[-1] is mine[-1] else None)
    words = [_quoted(w, how.quoting) for w in (name, value)] if how is not None else []
    if how is None or last is None or None in words:
        return ()
    return (Edit(last.loc, last.text, "".join(how.sep + str(w) for w in words), safe, stage=1, after=True, eol=how.eol),)


def cannot_set(cfg: Resolved, name: str) -> str:
    """Why ``set_flag`` gave no edit for ``name`` in this launch, said with the finding's fix."""
    flag = cfg.written(_dest(name))
    if flag is not None and flag.origin == "yaml" and cfg.cmd.held:
        why = cfg.cmd.held
    elif flag is not None:
        why = "the flag is written inline (`--flag=value`) or as a switch"
    elif cfg.cmd.append is None:
        why = cfg.cmd.append_why or "the launch is not written as words kdacheck can add to"
    else:
        why = "the launch's last word is not plain text (an expansion, or a word that needs quoting)"
    return f"--fix cannot write it here: {why}"


_PLAIN = re.compile(r"[A-Za-z0-9_./=+-]+")
_SHELL_SAFE = re.compile(r"[A-Za-z0-9_./=+:,@%-]+")


def _quoted(word: str, quoting: str) -> str | None:
    """``word`` as one item or word of the launch's own style; None where that style would
    need an escape kdacheck does not write (a shell word with quotes or spaces)."""
    if quoting == "shell":
        return word if _SHELL_SAFE.fullmatch(word) else None
    if quoting in ("json", "double"):
        return json.dumps(word)
    if quoting == "single":
        return "'" + word.replace("'", "''") + "'"
    import yaml

    plain = _PLAIN.fullmatch(word) and yaml.resolver.Resolver().resolve(yaml.ScalarNode, word, (True, False)) == "tag:yaml.org,2002:str"
    return word if plain else json.dumps(word)  # `4` plain would be a YAML int: Kubernetes wants strings


def _dest(name: str) -> str:
    """The dest of the option ``name`` as the newest SGLang names it (a rule spells the newest options;
    ``Resolved.written`` and ``flags.spell`` map it to the target version)."""
    flag = flagmod.table(flagmod.NEWEST).by_option.get(name)
    return flag.dest if flag is not None else name.lstrip("-").replace("-", "_")


@dataclass
class Outcome:
    applied: int = 0
    skipped: int = 0
    unsafe_left: int = 0
    deferred: int = 0  # value edits left for the next pass, after this pass's spellings
    shared: int = 0  # of the skipped: inside a YAML anchor that aliases elsewhere share
    files: dict[str, tuple[str, str]] = field(default_factory=dict)  # path -> (before, after)
    counts: dict[str, int] = field(default_factory=dict)  # path -> edits applied to it
    sources: dict[str, tuple[str, bool]] = field(default_factory=dict)  # path -> (sha256 of its bytes, had a BOM)
    changed: dict[str, str] = field(default_factory=dict)  # path -> message: changed since it was read
    refused: dict[str, str] = field(default_factory=dict)  # path -> why kdacheck will not write it


def gather(findings: Iterable[Finding], unsafe: bool, reads: dict[str, set[str]], root: str,
           stdin: tuple[str, str] | None = None) -> Outcome:
    """The findings' edits planned on the files they name, as they are now, when those still
    hold the bytes the lint read (``reads``: absolute path -> sha256s, see
    ``confine.record_reads``) and may be written (inside ``root``, no link on the way:
    ``kdacheck.writes``). ``stdin``: (name, text) of standard input, the only text edited then."""
    from kdacheck import writes
    from kdacheck.readers.detect import decode

    findings = list(findings)
    texts: dict[str, str] = {}
    sources: dict[str, tuple[str, bool]] = {}
    changed: dict[str, str] = {}
    refused: dict[str, str] = {}
    if stdin is not None:
        texts[stdin[0]] = stdin[1]
    for path in [] if stdin is not None else sorted({e.location.path for f in findings for e in f.edits if e.safe or unsafe}):
        seen = reads.get(os.path.abspath(path))
        if not seen:
            continue  # not a file this run read (`<cmd>`, a name shown escaped): its edits are skipped
        try:
            data = writes.read(path, root)
        except writes.Changed as e:
            changed[path] = str(e)
            continue
        except Refused as e:
            refused[path] = str(e)
            continue
        digest = writes.sha256(data)
        if seen != {digest}:
            changed[path] = f"{visible_name(path)}: file changed since it was read, not fixed"
            continue
        try:
            texts[path] = decode(data, path)
        except InputError:
            continue
        sources[path] = (digest, data.startswith(BOM))
    out = plan(findings, unsafe, texts, held={*refused, *changed})
    out.sources, out.changed, out.refused = sources, changed, refused
    return out


def plan(findings: Iterable[Finding], unsafe: bool, read: dict[str, str], held: Collection[str] = ()) -> Outcome:
    """Apply every edit to the texts in ``read`` (path → text, the files as kdacheck read them
    and may write); an edit of any other file is skipped (counted, unless its file is in
    ``held``: read, but changed since or not writable, and reported as such)."""
    out = Outcome()
    by_path: dict[str, list[Edit]] = {}
    wanted: list[Edit] = []
    for f in findings:
        for e in f.edits:
            if not e.safe and not unsafe:
                out.unsafe_left += 1
            elif e.location.path not in read:
                out.skipped += e.location.path not in held
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
        conventions = LINE_BREAKS if _OTHER_BREAKS.search(before) else LINE_BREAKS[:1]
        starts = [_starts(before, brk) for brk in conventions]
        spans: list[tuple[int, int, str]] = []
        shared = shared_spans(before, path)
        for e in sorted(set(edits), key=lambda e: (e.location.line, e.location.col)):
            span = _span(before, starts, e)
            if span is not None and _in_shared(span, shared):
                out.shared += 1
                span = None
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
            out.counts[path] = len(spans)
    return out


def _starts(text: str, breaks: re.Pattern[str]) -> list[tuple[int, int]]:
    """(start, end) of each line's text, its line break left out, for one convention."""
    lines, at = [], 0
    for m in breaks.finditer(text):
        lines.append((at, m.start()))
        at = m.end()
    lines.append((at, len(text)))
    return lines


def _offset(lines: list[tuple[int, int]], line: int, col: int) -> int | None:
    if not 1 <= line <= len(lines) or col < 1:
        return None
    start, end = lines[line - 1]
    at = start + col - 1
    return at if at <= end else None


def _bounded(text: str, s: int, t: int) -> bool:
    """Whether ``text[s:t]`` is a whole word: nothing that continues one on either side."""
    return (t == len(text) or text[t] in _ENDS_WORD) and (s == 0 or not _IN_WORD.match(text[s - 1]))


def _span(text: str, starts: list[list[tuple[int, int]]], e: Edit) -> tuple[int, int, str] | None:
    line, col = e.location.line, e.location.col
    places = [_offset(lines, line, col) for lines in starts]
    if not e.old:  # an insertion: where every reading of the lines agrees
        return (places[0], places[0], e.new) if places[0] is not None and len(set(places)) == 1 else None
    for lines, at in zip(starts, places, strict=True):
        if at is None:
            continue
        found = None
        if text.startswith(e.old, at) and _bounded(text, at, at + len(e.old)):
            found = (at, at + len(e.old), 0)
        else:
            for q in QUOTES:  # a quoted value or key: the text inside the quotes
                if text.startswith(q + e.old + q, at) and _bounded(text, at, at + len(e.old) + 2):
                    found = (at + 1, at + 1 + len(e.old), 1)
                    break
        if found is None:
            continue
        s, t, quote = found
        if not e.after:
            return s, t, e.new
        return _after(text, lines[line - 1][1], t + quote, e)
    return None


_REST_OF_LINE = re.compile(r"[ \t]*(?:(?<=[ \t])#.*)?")


def _after(text: str, line_end: int, at: int, e: Edit) -> tuple[int, int, str] | None:
    """An insertion after the old text (ending at ``at``): there, or at its line's end for a new
    YAML block item, when nothing but blanks and a comment follows it on the line; a line break
    in ``new`` written as the file writes this line's."""
    if not e.eol:
        return at, at, e.new
    if line_end > at and text[line_end - 1] == "\r":
        line_end -= 1  # a CRLF file read with "\n" lines: its "\r" ends the line too
    if not _REST_OF_LINE.fullmatch(text, at, line_end):
        return None  # more on the line after the last item: not a block list's own line
    brk = "\r\n" if text.startswith("\r\n", line_end) else "\n"
    return line_end, line_end, e.new.replace("\n", brk)


def mark(findings: list[Finding], text_of: Callable[[str], str | None]) -> list[Finding]:
    """Each finding with its ``fixes``: its safe edits as they apply to the texts as written
    (``text_of(path)``: the text of the file an edit names, None where kdacheck would not
    write it); empty where any safe edit does not apply, so ``[*]`` means ``--fix`` writes it."""
    import dataclasses

    cache: dict[str, tuple[str, list[list[tuple[int, int]]], list[int], list[tuple[int, int]]] | None] = {}
    out = []
    for f in findings:
        safe = [e for e in f.edits if e.safe]
        reps: list[Replacement] = []
        for e in safe:
            path = e.location.path
            if path not in cache:
                text = text_of(path)
                cache[path] = None if text is None else (
                    text, [_starts(text, brk) for brk in (LINE_BREAKS if _OTHER_BREAKS.search(text) else LINE_BREAKS[:1])],
                    [0] + [m.end() for m in LINE_BREAKS[0].finditer(text)], shared_spans(text, path))
            held = cache[path]
            span = _span(held[0], held[1], e) if held is not None else None
            if held is None or span is None or _in_shared(span, held[3]):
                reps = []
                break
            at = held[2]
            reps.append(Replacement(_place(path, at, span[0]), _place(path, at, span[1]), span[2]))
        out.append(dataclasses.replace(f, fixes=tuple(reps)) if reps else f)
    return out


MAX_YAML_EVENTS = 200_000


def shared_spans(text: str, path: str) -> list[tuple[int, int]]:
    """The (start, end) offsets of every anchored YAML node (``&name``) in ``text``: an alias
    (``*name``, a ``<<:`` merge) elsewhere is the same node, so an edit inside one would change
    every place that names it. Empty for a text that is not YAML or holds no anchor."""
    from kdacheck.readers.detect import _looks_like_yaml
    from kdacheck.suffixes import YAML_SUFFIXES

    if "&" not in text or not (path.lower().endswith(YAML_SUFFIXES) or _looks_like_yaml(text)):
        return []
    import yaml

    from kdacheck.readers.yamlfiles import LOADER

    lines = [start for start, _end in _starts(text, LINE_BREAKS[1])]  # PyYAML's marks count its own breaks

    def at(mark: Any) -> int:
        return lines[mark.line] + mark.column if mark is not None and mark.line < len(lines) else len(text)

    spans: list[tuple[int, int]] = []
    open_: list[int | None] = []
    try:
        for n, ev in enumerate(yaml.parse(text, Loader=LOADER), 1):
            if n > MAX_YAML_EVENTS:
                return [(0, len(text))]  # too big to tell: every edit is held back
            if isinstance(ev, (yaml.SequenceStartEvent, yaml.MappingStartEvent)):
                open_.append(at(ev.start_mark) if ev.anchor else None)
            elif isinstance(ev, (yaml.SequenceEndEvent, yaml.MappingEndEvent)):
                start = open_.pop() if open_ else None
                if start is not None:
                    spans.append((start, at(ev.end_mark)))
            elif isinstance(ev, yaml.ScalarEvent) and ev.anchor:
                spans.append((at(ev.start_mark), at(ev.end_mark)))
    except yaml.YAMLError:
        return []  # not YAML after all (a shell script): no anchors
    except (UnicodeError, RecursionError):
        return [(0, len(text))]  # a lone surrogate, nesting past Python's limit: cannot tell, every edit held back
    return spans


def _in_shared(span: tuple[int, int, str], shared: list[tuple[int, int]]) -> bool:
    return any(s <= span[0] <= t or s <= span[1] <= t for s, t in shared)


def _place(path: str, line_starts: list[int], offset: int) -> Location:
    import bisect

    k = bisect.bisect_right(line_starts, offset) - 1
    return Location(path, k + 1, offset - line_starts[k] + 1)


def summary(outcome: Outcome) -> str:
    n, files = outcome.applied, len(outcome.files)
    return (f"{n} fix{'es' if n != 1 else ''} in {files} file{'s' if files != 1 else ''}"
            + (f"; {outcome.skipped} not applicable to the text as written" if outcome.skipped else "")
            + (f" ({outcome.shared} inside a YAML anchor that aliases share)" if outcome.shared else "")
            + (f"; {len(outcome.changed)} file{'s' if len(outcome.changed) != 1 else ''} changed since read, not fixed" if outcome.changed else "")
            + (f"; {len(outcome.refused)} file{'s' if len(outcome.refused) != 1 else ''} not writable here" if outcome.refused else "")
            + (f"; {outcome.unsafe_left} more with --unsafe-fixes" if outcome.unsafe_left else ""))


def _lines(text: str) -> list[str]:
    """``text``'s lines as git splits them: at "\n" only, each keeping its end."""
    return [ln for ln in re.split(r"(?<=\n)", text) if ln]


def _shown(line: str) -> str:
    """One diff line for a terminal: its text through the sanitiser (ESC as ``\x1b``, a lone CR
    as ``\x0d``), but for tabs (indentation a patch must keep; a tab moves the cursor only) and
    its own line end ("\n" or "\r\n")."""
    body = line[:-2] if line.endswith("\r\n") else line[:-1] if line.endswith("\n") else line
    return "\t".join(visible(part) for part in body.split("\t")) + line[len(body):]


def diff(outcome: Outcome) -> str:
    import difflib

    parts: list[str] = []
    for path, (before, after) in sorted(outcome.files.items()):
        name = visible_name(path)
        for ln in difflib.unified_diff(_lines(before), _lines(after), f"a/{name}", f"b/{name}"):
            parts.append(ln if ln.startswith(("---", "+++", "@@")) else ln[0] + _shown(ln[1:]))
    text = "".join(parts)
    return text if not text or text.endswith("\n") else text + "\n"


def write(outcome: Outcome, root: str) -> None:
    """Write each changed file in place (``kdacheck.writes.replace``: by rename, its owner,
    mode and BOM kept, only while it holds what was read); a file that changed meanwhile moves
    to ``outcome.changed``, one that may not be written to ``outcome.refused``."""
    from kdacheck import writes

    for path, (_before, after) in sorted(outcome.files.items()):
        digest, bom = outcome.sources[path]
        try:
            writes.replace(path, (BOM if bom else b"") + after.encode("utf-8", "surrogatepass"), root, expect=digest)
            continue
        except writes.Changed as e:
            outcome.changed[path] = str(e)
        except Refused as e:
            outcome.refused[path] = str(e)
        outcome.applied -= outcome.counts.pop(path, 0)
        del outcome.files[path]
