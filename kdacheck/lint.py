"""The lint pipeline for one input: read → parse → resolve → check → suppress."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from kdacheck import args as argmod
from kdacheck import rules as rulemod
from kdacheck.findings import Finding, InputError
from kdacheck.gpus import GPU
from kdacheck.models import Model, load_model
from kdacheck.readers import LaunchCommand, read_text
from kdacheck.readers.detect import decode, read_bytes
from kdacheck.resolve import Resolved, RuleOptions, resolve
from kdacheck.rules import Rule

SUPPRESS = re.compile(r"#\s*kdacheck:\s*ignore\[([A-Za-z0-9_, ]+)\]")


@dataclass
class Options:
    version: str
    model: str | None = None
    gpu: GPU | None = None
    rules: list[Rule] | None = None
    max_bytes: int = 10 * 1024 * 1024
    mem005_share: float = 0.10


@dataclass
class FileResult:
    path: str
    resolved: list[Resolved] = field(default_factory=list)
    findings: list[Finding] = field(default_factory=list)
    error: str | None = None
    notes: list[str] = field(default_factory=list)
    suppressed: int = 0
    rules: list[str] = field(default_factory=list)  # codes checked (applicable and selected)
    unused_suppressions: list[tuple[int, str]] = field(default_factory=list)  # (line, code)


def suppression_sites(text: str) -> list[tuple[int, str, bool]]:
    """Every (comment line, code or prefix, comment alone on its line) in
    ``# kdacheck: ignore[CODE,...]`` comments (1-based lines)."""
    if "kdacheck:" not in text:
        return []
    out: list[tuple[int, str, bool]] = []
    for n, line in enumerate(text.splitlines(), 1):
        m = SUPPRESS.search(line)
        if m:
            alone = line.lstrip().startswith("#")
            out += [(n, c.strip().upper(), alone) for c in m.group(1).split(",") if c.strip()]
    return out


def suppressions(text: str) -> dict[int, set[str]]:
    """Codes suppressed by the line they apply to: a trailing comment applies to its own
    line, a comment alone on its line to the next line too (a YAML key below it)."""
    out: dict[int, set[str]] = {}
    for n, code, alone in suppression_sites(text):
        out.setdefault(n, set()).add(code)
        if alone:
            out.setdefault(n + 1, set()).add(code)
    return out


def _suppresses(pattern: str, code: str) -> bool:
    """A suppression names a code or a prefix of codes (``SPEC`` covers ``SPEC002``)."""
    return code.startswith(pattern)


class _Suppressor:
    """Applies the comments of one file and remembers which of them silenced something.

    Where a comment may go: at the end of the finding's line (the YAML key, the flag's token),
    alone on the line above it, or, as shellcheck's directives, alone on the line above a
    command, for the whole command: after a ``\\`` continuation no comment can follow, and
    a comment line inside a continued command would end it.
    """

    def __init__(self, text: str, path: str) -> None:
        self.path = path
        self.sites = suppression_sites(text)
        self.by_line: dict[int, list[tuple[int, str]]] = {}
        self.alone: dict[int, list[tuple[int, str]]] = {}
        for n, code, alone in self.sites:
            self.by_line.setdefault(n, []).append((n, code))
            if alone:
                self.by_line.setdefault(n + 1, []).append((n, code))
                self.alone.setdefault(n, []).append((n, code))
        self.used: set[tuple[int, str]] = set()

    def command_sites(self, cmd: LaunchCommand) -> tuple[int, int, list[tuple[int, str]]]:
        lines = [t.loc.line for t in cmd.tokens if t.loc.path == self.path] + [cmd.loc.line]
        start, end = min(lines), max(lines)
        return start, end, self.alone.get(cmd.loc.line - 1, [])

    def suppressed(self, f: Finding, span: tuple[int, int, list[tuple[int, str]]]) -> bool:
        if not self.sites or f.location.path != self.path:
            return False
        line = f.location.line
        start, end, cmd_sites = span
        hits = [s for s in self.by_line.get(line, []) if _suppresses(s[1], f.code)]
        if start <= line <= end:
            hits += [s for s in cmd_sites if _suppresses(s[1], f.code)]
        self.used.update(hits)
        return bool(hits)

    def report_unused(self, result: FileResult) -> None:
        """Suppressions that silenced nothing (ruff's RUF100): a note, not a rule."""
        for n, code, _alone in self.sites:
            if (n, code) in self.used:
                continue
            if not any(_suppresses(code, c) for c in rulemod.REGISTRY):
                result.unused_suppressions.append((n, code))
                result.notes.append(f"{self.path}:{n}: suppression names unknown rule {code}")
            elif any(_suppresses(code, c) for c in result.rules):  # unchecked codes: not judged
                result.unused_suppressions.append((n, code))
                result.notes.append(f"{self.path}:{n}: unused suppression: no {code} finding here")


def lint_command(cmd: LaunchCommand, opts: Options, model_cache: dict[tuple[str | None, str | None], tuple[Model | None, str]] | None = None) -> tuple[Resolved, list[Finding]]:
    parsed = argmod.parse(cmd, opts.version)
    mp = parsed.value("model_path")
    key = (opts.model, mp if isinstance(mp, str) else None)
    if model_cache is not None and key in model_cache:
        model, note = model_cache[key]
    else:
        model, note = load_model(*key)
        if model_cache is not None:
            model_cache[key] = (model, note)
    cfg = resolve(parsed, cmd, model, note, opts.gpu, RuleOptions(mem005_share=opts.mem005_share))
    return cfg, rulemod.check(cfg, opts.rules)


# C0/C1 control characters but newline and tab, Unicode line separators and bidirectional
# overrides: a hostile file must not send terminal escape sequences (ESC [2J, OSC 0;title BEL)
# through a message to the reader's terminal, break a report's lines, or reorder its text.
_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]")


def _visible(text: str) -> str:
    return _CONTROL.sub(lambda m: f"\\x{ord(m.group()):02x}" if ord(m.group()) < 256 else f"\\u{ord(m.group()):04x}", text)


def _sanitize(result: FileResult) -> FileResult:
    """Show control characters from the input as ``\\x1b`` in messages, fixes, evidence, notes."""
    import dataclasses

    from kdacheck.findings import Evidence

    for i, f in enumerate(result.findings):
        if _CONTROL.search(f.message) or (f.fix and _CONTROL.search(f.fix)) or any(_CONTROL.search(e.value) for e in f.evidence):
            result.findings[i] = dataclasses.replace(
                f, message=_visible(f.message), fix=_visible(f.fix) if f.fix else f.fix,
                evidence=tuple(Evidence(e.name, _visible(e.value), _visible(e.provenance)) for e in f.evidence),
            )
    if result.error:
        result.error = _visible(result.error)
    result.notes = [_visible(n) for n in result.notes]
    return result


def lint_text(text: str, path: str, opts: Options, base_dir: str | None = None) -> FileResult:
    return _sanitize(_lint_text(text, path, opts, base_dir))


def _lint_text(text: str, path: str, opts: Options, base_dir: str | None = None) -> FileResult:
    result = FileResult(path)
    try:
        cmds = read_text(text, path, base_dir, opts.max_bytes)
    except InputError as e:
        result.error = str(e)
        return result
    except Exception as e:  # a bug: one file's crash must not take the others' report with it
        result.error = internal_error(e, path)
        return result
    if not cmds:
        result.notes.append(f"{path}: no SGLang launch command found")
    sup = _Suppressor(text, path)
    checked = opts.rules if opts.rules is not None else rulemod.all_rules()
    result.rules = [r.code for r in checked if r.applies_to(opts.version)]
    cache: dict[tuple[str | None, str | None], tuple[Model | None, str]] = {}
    for cmd in cmds:
        result.notes += cmd.notes
        try:
            cfg, findings = lint_command(cmd, opts, cache)
        except InputError as e:
            result.error = str(e)
            return result
        except Exception as e:  # a bug: report it in place of a traceback
            result.error = internal_error(e, cmd.name or path)
            return result
        result.resolved.append(cfg)
        span = sup.command_sites(cmd)
        for f in findings:
            if sup.suppressed(f, span):
                result.suppressed += 1
                continue
            result.findings.append(f)
    result.findings.sort(key=Finding.sort_key)
    sup.report_unused(result)
    return result


def internal_error(e: BaseException, where: str) -> str:
    """The message for an unexpected exception while checking one input (exit code 2)."""
    detail = str(e).splitlines()[0][:200] if str(e) else ""
    return (
        f"internal error while checking {where}: {type(e).__name__}" + (f": {detail}" if detail else "")
        + " (a kdacheck bug: please report it with this file)"
    )


def lint_path(path: str, opts: Options) -> FileResult:
    import os

    try:
        text = decode(read_bytes(path, opts.max_bytes), path)
    except InputError as e:
        return FileResult(path, error=str(e))
    return lint_text(text, path, opts, os.path.dirname(path) or ".")
