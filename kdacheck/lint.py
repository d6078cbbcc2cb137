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
from kdacheck.resolve import Resolved, resolve
from kdacheck.rules import Rule

SUPPRESS = re.compile(r"#\s*kdacheck:\s*ignore\[([A-Za-z0-9_, ]+)\]")


@dataclass
class Options:
    version: str
    model: str | None = None
    gpu: GPU | None = None
    rules: list[Rule] | None = None
    max_bytes: int = 10 * 1024 * 1024


@dataclass
class FileResult:
    path: str
    resolved: list[Resolved] = field(default_factory=list)
    findings: list[Finding] = field(default_factory=list)
    error: str | None = None
    notes: list[str] = field(default_factory=list)
    suppressed: int = 0


def suppressions(text: str) -> dict[int, set[str]]:
    """``# kdacheck: ignore[CODE,...]`` comments by line (1-based)."""
    out: dict[int, set[str]] = {}
    if "kdacheck:" not in text:
        return out
    for n, line in enumerate(text.splitlines(), 1):
        m = SUPPRESS.search(line)
        if m:
            out[n] = {c.strip().upper() for c in m.group(1).split(",") if c.strip()}
    return out


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
    cfg = resolve(parsed, cmd, model, note, opts.gpu)
    return cfg, rulemod.check(cfg, opts.rules)


def lint_text(text: str, path: str, opts: Options, base_dir: str | None = None) -> FileResult:
    result = FileResult(path)
    try:
        cmds = read_text(text, path, base_dir)
    except InputError as e:
        result.error = str(e)
        return result
    if not cmds:
        result.notes.append(f"{path}: no SGLang launch command found")
    sup = suppressions(text)
    cache: dict[tuple[str | None, str | None], tuple[Model | None, str]] = {}
    for cmd in cmds:
        result.notes += cmd.notes
        try:
            cfg, findings = lint_command(cmd, opts, cache)
        except InputError as e:
            result.error = str(e)
            return result
        result.resolved.append(cfg)
        for f in findings:
            if f.location.path == path and f.code in sup.get(f.location.line, ()):
                result.suppressed += 1
                continue
            result.findings.append(f)
    result.findings.sort(key=Finding.sort_key)
    return result


def lint_path(path: str, opts: Options) -> FileResult:
    import os

    try:
        text = decode(read_bytes(path, opts.max_bytes), path)
    except InputError as e:
        return FileResult(path, error=str(e))
    return lint_text(text, path, opts, os.path.dirname(path) or ".")
