"""The lint pipeline for one input: read → parse → resolve → check → suppress."""

from __future__ import annotations

import dataclasses
import os
import re
import sys
from collections.abc import Callable, Iterator
from typing import IO, Any

from kdacheck import args as argmod
from kdacheck import config, discover
from kdacheck import rules as rulemod
from kdacheck.config import Options
from kdacheck.findings import Finding, InputError, Severity
from kdacheck.model_source import draft_block_size, load_model
from kdacheck.models import Model, guess_family
from kdacheck.readers import LaunchCommand, read_text, relevance
from kdacheck.readers.detect import decode, is_helm_template
from kdacheck.resolve import Resolved, RuleOptions, resolve
from kdacheck.results import FileResult, Results, Suppressed
from kdacheck.sanitize import visible as _visible
from kdacheck.sanitize import visible_name
from kdacheck.suffixes import YAML_SUFFIXES

REASON = r"(?:\s+--\s*(?P<reason>.*\S))?"  # `-- why` after the codes, to the line's end
SUPPRESS = re.compile(r"#\s*kdacheck:\s*ignore\[([A-Za-z0-9_, ]+)\]" + REASON)
SUPPRESS_FILE = re.compile(r"#\s*kdacheck:\s*ignore-file\[([A-Za-z0-9_, ]+)\]" + REASON)  # the whole file
DIRECTIVE = re.compile(r"#\s*kdacheck\s*:")


def directives(text: str) -> tuple[list[tuple[int, str, bool]], list[tuple[int, str]], list[int], dict[int, str]]:
    """One pass over the ``# kdacheck:`` comments (1-based lines): the ``ignore[CODE,...]``
    sites (line, code or prefix, comment alone on its line), the ``ignore-file[CODE,...]``
    sites (line, code), the lines of comments that are neither form (a typo such as
    ``ignore(KDA002)`` silences nothing) and the reasons given (``ignore[CODE] -- why``), by line."""
    sites: list[tuple[int, str, bool]] = []
    file_sites: list[tuple[int, str]] = []
    malformed: list[int] = []
    reasons: dict[int, str] = {}
    if "kdacheck" not in text:
        return sites, file_sites, malformed, reasons
    for n, line in enumerate(text.splitlines(), 1):
        if not DIRECTIVE.search(line):
            continue
        m = SUPPRESS.search(line)
        if m:
            alone = line.lstrip().startswith("#")
            sites += [(n, c.strip().upper(), alone) for c in m.group(1).split(",") if c.strip()]
        elif m := SUPPRESS_FILE.search(line):
            file_sites += [(n, c.strip().upper()) for c in m.group(1).split(",") if c.strip()]
        else:
            malformed.append(n)
        if m and m.group("reason"):
            reasons[n] = _visible(m.group("reason"))
    return sites, file_sites, malformed, reasons


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
        self.sites, self.file_sites, self.malformed, self.reasons = directives(text)
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

    def suppressed(self, f: Finding, span: tuple[int, int, list[tuple[int, str]]]) -> Suppressed | None:
        """The comment that silences ``f`` (its line and reason), or None."""
        if not (self.sites or self.file_sites) or f.location.path != self.path:
            return None
        hits = self.hits(f, span)
        self.used.update(hits)
        if not hits:
            return None
        line = min(n for n, _code in hits)
        return Suppressed(f, line, self.reasons.get(line, ""))

    def hits(self, f: Finding, span: tuple[int, int, list[tuple[int, str]]]) -> list[tuple[int, str]]:
        whole = [s for s in self.file_sites if _suppresses(s[1], f.code)]
        if whole:
            return whole
        line = f.location.line
        start, end, cmd_sites = span
        hits = [s for s in self.by_line.get(line, []) if _suppresses(s[1], f.code)]
        if start <= line <= end:
            hits += [s for s in cmd_sites if _suppresses(s[1], f.code)]
        return hits

    def report_unused(self, result: FileResult) -> None:
        """Suppressions that silenced nothing (ruff's RUF100): a note, not a rule."""
        for n in self.malformed:
            result.notes.append(
                f"{self.path}:{n}: `# kdacheck:` comment is not a directive kdacheck knows (write "
                "`# kdacheck: ignore[CODE]` or `# kdacheck: ignore-file[CODE]`): it suppresses nothing"
            )
        for n, code in [(n, c) for n, c, _alone in self.sites] + self.file_sites:
            if (n, code) in self.used:
                continue
            if not any(_suppresses(code, c) for c in rulemod.REGISTRY):
                result.unused_suppressions.append((n, code))
                result.notes.append(f"{self.path}:{n}: suppression names unknown rule {code}")
            elif any(_suppresses(code, c) for c in result.rules):  # unchecked codes: not judged
                result.unused_suppressions.append((n, code))
                result.notes.append(f"{self.path}:{n}: unused suppression: no {code} finding here")


# The flags whose value SGLang reads as a local folder or file: given to SGLang as the absolute
# path kdacheck resolved (the child's working directory is a private, empty one).
_SGLANG_PATH_FLAGS = ("--model-path", "--model", "--tokenizer-path", "--speculative-draft-model-path",
                      "--speculative-draft-model", "--config")


def _sglang_argv(cmd: LaunchCommand, opts: Options, local: tuple[str | None, str | None] | None = None) -> list[str]:
    """The launch's arguments as SGLang receives them; a local ``--model`` folder stands in for
    the model path (SGLang runs offline here and reads only its config.json). A local path the
    launch names is made absolute where kdacheck finds it (beside the launch file, else at the
    repository root, and inside the repository: ``local``; ``--cmd``: the working directory);
    anything else stays as written and names nothing in the child's empty working directory."""
    from kdacheck.model_source import launch_local_path

    argv = [t.text for t in cmd.tokens]
    for i, word in enumerate(argv):
        flag, eq, value = word.partition("=")
        if flag not in _SGLANG_PATH_FLAGS or (not eq and i + 1 == len(argv)):
            continue
        at, value = (i, value) if eq else (i + 1, argv[i + 1])
        if opts.model and os.path.isdir(opts.model) and flag in ("--model-path", "--model"):
            found = opts.model
        elif local is None:
            found = value
        else:
            try:
                found = launch_local_path(value, *local, flag=flag)
            except InputError:
                continue  # outside the repository: SGLang gets the name, which resolves to nothing
            if found == value and not os.path.isabs(value):
                continue  # not found beside the launch: a hub name, or nothing
        if found and os.path.exists(found):
            argv[at] = (flag + "=" if eq else "") + os.path.abspath(found)
    return argv


def _model_root(cmd: LaunchCommand, opts: Options) -> tuple[str | None, str | None] | None:
    """Where a launch file's local model folders are looked up: its folder, and the repository
    they must stay inside (None with --allow-outside). None for ``--cmd``: the user typed it."""
    from kdacheck.readers.detect import repository_root

    if cmd.path == "<cmd>":
        return None
    base = "." if cmd.path.startswith("<") or cmd.path == "-" else (os.path.dirname(cmd.path) or ".")
    return base, None if opts.allow_outside else repository_root(base)


def lint_launch(cmd: LaunchCommand, opts: Options, model_cache: dict[tuple[str | None, str | None], tuple[Model | None, str]] | None = None) -> tuple[Resolved, list[Finding]]:
    version = opts.version
    if cmd.version_hint is not None and opts.version_why != "--sglang-version":
        from kdacheck import versions
        from kdacheck.flags import normalize_version

        tagged, where = cmd.version_hint
        tagged = normalize_version(tagged)
        if tagged in versions.KNOWN and tagged != version:
            cmd.notes.append(f"{where}: SGLang {tagged}, from the image tag (not {version}); --sglang-version overrides it")
            version = tagged
    parsed = argmod.parse(cmd, version)
    mp = parsed.value("model_path")
    key = (opts.model, mp if isinstance(mp, str) else None)
    local = _model_root(cmd, opts)
    if model_cache is not None and key in model_cache:
        model, note = model_cache[key]
    else:
        try:
            model, note = load_model(*key, version, local, hub=not opts.offline)
        except InputError as e:
            if not opts.sglang:
                raise
            # --sglang: SGLang reads the model itself; its verdict is reported, kdacheck's rules
            # run without the model (what needs it says "could not be checked")
            from kdacheck.rules.sglang import MODEL_UNREAD

            model, note = None, f"{MODEL_UNREAD}: {e}"
            cmd.notes.append(f"{cmd.loc}: --sglang: kdacheck could not read the model ({e}); SGLang's own resolution "
                             "still ran, and its verdict is the result")
        if model_cache is not None:
            model_cache[key] = (model, note)
    guess = guess_family(mp if isinstance(mp, str) else None) if model is None else None
    draft = parsed.value("speculative_draft_model_path")
    algo = parsed.value("speculative_algorithm")
    # SGLang upper-cases the algorithm (speculative_hook.py): `dspark` is DSpark too
    dspark = isinstance(algo, str) and algo.upper() == "DSPARK"
    block = draft_block_size(draft, local) if isinstance(draft, str) and dspark else (None, "")
    weights, vocab = _draft_facts(draft, algo, local)
    cfg = resolve(parsed, cmd, model, note, opts.gpu, RuleOptions(mem005_share=opts.mem005_share), guess, block, weights, vocab)
    if cmd.version_hint is not None and opts.version_why != "--sglang-version":
        from kdacheck.flags import normalize_version

        cfg.deployed = (normalize_version(cmd.version_hint[0]), f"the image tag at {cmd.version_hint[1]}")
    if opts.sglang:
        from kdacheck import sglang

        # always a simulated GPU: the launch is judged, never the machine kdacheck runs on
        gpu_name = opts.gpu.name if opts.gpu else sglang.DEFAULT_GPU
        cfg.sglang = sglang.run(_sglang_argv(cmd, opts, local), gpu_name)
        cmd.notes += [f"{cmd.loc}: --sglang: {n}" for n in cfg.sglang.get("notes") or ()]
        from kdacheck.rules.sglang import reconcile

        return cfg, reconcile(cfg, rulemod.check(cfg, opts.rules))
    return cfg, rulemod.check(cfg, opts.rules)


DRAFT_CHECKPOINTS = ("EAGLE", "EAGLE3", "DFLASH", "DSPARK", "STANDALONE")  # algorithms that load a draft checkpoint of their own


def _draft_facts(draft: object, algo: object, local: tuple[str | None, str | None] | None) -> tuple[tuple[int | None, str], int | None]:
    """What the draft checkpoint's config.json says, for an algorithm that loads one: its weights,
    estimated (``model_source.draft_weight_bytes``; (None, why) where there is none to read), and
    its vocabulary size as SGLang's ModelConfig reads it (``hf_text_config.vocab_size``)."""
    from kdacheck.model_config import text_facts
    from kdacheck.model_source import draft_config, draft_weight_bytes

    if not isinstance(draft, str) or not isinstance(algo, str) or algo.upper() not in DRAFT_CHECKPOINTS:
        return (None, ""), None
    try:
        data, path, why = draft_config(draft, local)
    except InputError as e:  # a link out of the tree, refused by name: not read, so not counted
        return (None, f"not read: {e}"), None
    if data is None:
        return (None, why), None
    text = data.get("text_config")
    return draft_weight_bytes(data, path), text_facts(text if isinstance(text, dict) else data)["vocab_size"]


def _visible_finding(f: Finding) -> Finding:
    """``f`` as every report may show it: the control characters from the input shown as
    ``\\x1b`` and no workflow command in its message, fix, evidence and launch name."""
    import dataclasses

    from kdacheck.findings import Evidence

    return dataclasses.replace(
        f, message=_visible(f.message), fix=_visible(f.fix) if f.fix else f.fix, source=visible_name(f.source),
        evidence=tuple(Evidence(e.name, _visible(e.value), _visible(e.provenance)) for e in f.evidence),
    )


def _sanitize(result: FileResult) -> FileResult:
    """Show control characters from the input as ``\\x1b`` in findings, notes, the error and the
    launches' names: the last step of ``lint_text``, after every change to the findings, and
    ``by_launch`` is read from ``findings``, so no report sees a finding this step did not."""
    result.findings = [_visible_finding(f) for f in result.findings]
    result.silenced = [Suppressed(_visible_finding(s.finding), s.line, s.reason) for s in result.silenced]
    if result.error:
        result.error = _visible(result.error)
    result.notes = [_visible(n) for n in result.notes]
    for cfg in result.resolved:
        cfg.cmd.name = visible_name(cfg.cmd.name)
        cfg.cmd.unread = [type(u)(u.loc, visible_name(u.what)) for u in cfg.cmd.unread]
    return result


def lint_text(text: str, path: str, opts: Options, base_dir: str | None = None, explicit: bool = False) -> FileResult:
    """Lint one text; ``explicit``: named by the user (a file, ``--cmd``), so finding no launch
    command in it is an error (exit 2), not a pass."""
    return _sanitize(_lint_text(text, path, opts, base_dir, explicit))


def _lint_text(text: str, path: str, opts: Options, base_dir: str | None = None, explicit: bool = False) -> FileResult:
    result = FileResult(path)
    try:
        cmds = read_text(text, path, base_dir, opts.max_bytes, opts.env, opts.allow_outside)
    except InputError as e:
        result.error = str(e)
        return result
    except Exception as e:  # a bug: one file's crash must not take the others' report with it
        result.error = internal_error(e, path)
        return result
    if not cmds:
        result.notes.append(f"{path}: no SGLang launch command found")
        if explicit:
            from kdacheck.readers.kinds import is_dockerfile

            kind = ("a YAML document" if path.lower().endswith(YAML_SUFFIXES)
                    else "a Dockerfile" if is_dockerfile(path, text) else "shell")
            n = len(text.splitlines())
            # SGLang mentioned, no entry point named: not a launch (a file naming an entry point holds one, unread)
            said = "; it mentions SGLang but names no entry point, so it holds no launch" if "sglang" in text.lower() else ""
            result.error = f"no SGLang launch command found (read as {kind}: {n} line{'' if n == 1 else 's'}){said}"
    sup = _Suppressor("" if opts.ignore_noqa else text, path)  # --ignore-noqa: as if no comment
    checked = opts.rules if opts.rules is not None else rulemod.all_rules()
    result.rules = [r.code for r in checked if r.applies_to(opts.version)]
    cache: dict[tuple[str | None, str | None], tuple[Model | None, str]] = {}
    for cmd in cmds:
        if not cmd.unread and cmd.kind != "yaml":  # every reader: a launch with arguments not read is not checked
            from kdacheck.readers.shell import unread_arguments

            cmd.unread = unread_arguments(cmd)
            cmd.notes += [f"{u}: not read, so not checked" for u in cmd.unread]
        try:
            cfg, findings = lint_launch(cmd, opts, cache)
        except InputError as e:
            result.notes += cmd.notes
            result.error = str(e)
            return result
        except Exception as e:  # a bug: report it in place of a traceback
            result.error = internal_error(e, cmd.name or path)
            return result
        result.notes += cmd.notes
        result.resolved.append(cfg)
        span = sup.command_sites(cmd)
        kept: list[Finding] = []
        for f in findings:
            if f.code in opts.severity and not f.not_checked:  # `severity = {CODE = ...}` in the settings
                f = dataclasses.replace(f, severity=opts.severity[f.code])
            if (why := sup.suppressed(f, span)) or (opts.file_ignores and config.ignored_here(opts, path, f.code)):
                result.suppressed += 1
                result.silenced += [why] if why else []
                continue
            kept.append(f)
        result.findings += kept
        result.launch_of += [len(result.resolved) - 1] * len(kept)
    if not opts.deployment:  # --deployment: the run pairs the roles of every file at once (LintRun._deployment)
        _pairs(result, cmds, sup, checked, opts, path)
    order = sorted(range(len(result.findings)), key=lambda k: result.findings[k].sort_key())
    result.findings, result.launch_of = [result.findings[k] for k in order], [result.launch_of[k] for k in order]
    if path != "<cmd>" and any(e.safe for f in result.findings for e in f.edits):
        try:
            result.findings = _fixable(result.findings, text, path, opts)  # one for one, in order: launch_of holds
        except Exception as e:  # a bug: reported in place of a traceback, as for the reading and the rules
            result.error = internal_error(e, path)
    sup.report_unused(result)
    return result


def _pairs(result: FileResult, cmds: list[LaunchCommand], sup: _Suppressor, checked: list[rulemod.Rule], opts: Options, path: str) -> None:
    """The file's prefill and decode roles judged together (``kdacheck.pairs``), their findings
    suppressed and re-graded as any launch's."""
    from kdacheck import pairs

    start = len(result.findings)
    pairs.pair_file(result, checked)
    found, at = result.findings[start:], result.launch_of[start:]
    del result.findings[start:], result.launch_of[start:]
    for f, i in zip(found, at, strict=True):
        if f.code in opts.severity:
            f = dataclasses.replace(f, severity=opts.severity[f.code])
        if (why := sup.suppressed(f, sup.command_sites(cmds[i]))) or (opts.file_ignores and config.ignored_here(opts, path, f.code)):
            result.suppressed += 1
            result.silenced += [why] if why else []
            continue
        result.findings.append(f)
        result.launch_of.append(i)


def _fixable(findings: list[Finding], text: str, path: str, opts: Options) -> list[Finding]:
    """The findings marked with the fixes ``--fix`` would write: edits of this text, or of a
    ``--config`` file it names, in files ``kdacheck.writes`` may write (inside the working
    directory's repository, no link on the way: else not fixable)."""
    from kdacheck import confine, fix, writes

    root = confine.repository_root(os.getcwd())

    def text_of(p: str) -> str | None:
        if p == path and path.startswith("<"):
            return text  # standard input: `--fix -` edits the text given
        try:  # as --fix reads before it writes: inside the repository, no link on the way
            data = writes.read(p, root)
        except (InputError, writes.Changed):
            return None
        try:
            return text if p == path else decode(data, p)
        except InputError:
            return None

    return fix.mark(findings, text_of)


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
        text = decode(read_launch(path, opts.max_bytes, opts.allow_outside), path)
    except InputError as e:
        return FileResult(visible_name(path), error=_visible(str(e)))
    return lint_text(text, path, opts, os.path.dirname(path) or ".")


# --- reading and linting many files -----------------------------------------------------------

# Measured (600 files, 2 cores, warm page cache): reading all of them takes 0.12 s, linting
# them 2.4–3.8 s, and a thread pool of 4 or 8 readers changed the total by less than the noise
# (2.34 s vs 2.45 s, 4.2 s vs 3.8 s). Parsing and checking hold the GIL and PyYAML's
# constructor is not thread-safe, so only reading could run in parallel, and reading is not
# where the time goes: files are read on one thread unless ``workers`` asks otherwise (a slow
# network file system might).
PROGRESS_FROM = 50  # files; a progress bar on a terminal's stderr above this


def launch_root(path: str, allow_outside: bool) -> str | None:
    """The repository a launch file must lie in (None: ``--allow-outside``): the one holding
    it as named, so a file that is a link out of it is refused by name, never read."""
    from kdacheck import confine

    return None if allow_outside else confine.repository_root(os.path.dirname(os.path.abspath(path)))


def read_launch(path: str, max_bytes: int, allow_outside: bool = False) -> bytes:
    """A launch file's bytes: inside its repository (a link out is refused), bounded."""
    from kdacheck import confine
    from kdacheck.readers.detect import read_bytes

    if os.path.lexists(path):
        confine.check(path, launch_root(path, allow_outside), path)
    return read_bytes(path, max_bytes)


def _read(c: discover.Candidate, max_bytes: int, allow_outside: bool = False) -> tuple[str | None, str | None]:
    """(text, error) of one candidate; binary or non-UTF-8 files found in folders are
    skipped silently (text and error both None)."""
    from kdacheck.findings import InputError
    from kdacheck.readers.detect import decode

    try:
        data = read_launch(c.path, max_bytes, allow_outside)
    except InputError as e:
        return None, str(e)
    try:
        return decode(data, c.path), None
    except InputError as e:
        return (None, str(e)) if c.explicit else (None, None)


def _read_stdin(max_bytes: int) -> tuple[str | None, str | None]:
    """Standard input, bounded like a file (``kdacheck lint - < /dev/zero`` stops at the budget)."""
    if sys.stdin is None:  # started with standard input closed (`<&-`)
        return None, "cannot read standard input: it is closed"
    try:
        stream = getattr(sys.stdin, "buffer", None)
        if stream is None:
            data = sys.stdin.read(max_bytes + 1).encode()
        else:  # in 1 MiB chunks: a read of the whole budget would allocate it up front
            chunks: list[bytes] = []
            got = 0
            while got <= max_bytes:
                chunk = stream.read(min(1 << 20, max_bytes + 1 - got))
                if not chunk:
                    break
                chunks.append(chunk)
                got += len(chunk)
            data = b"".join(chunks)
    except (OSError, ValueError) as e:  # stdin closed or unreadable
        return None, f"cannot read standard input: {e}"
    if data is None:
        return None, "cannot read standard input"
    if len(data) > max_bytes:
        return None, f"standard input is over the {max_bytes:,}-byte limit"
    try:
        return decode(data, "<stdin>"), None
    except InputError as e:
        return None, str(e)


RUN_BYTES = 1 << 30  # everything one run reads, all files together


def lint_many(
    cands: list[discover.Candidate],
    options_for: Callable[[str], Options],
    progress: bool | None = None,
    workers: int | None = None,
    only_launch_files: bool = False,
    stdin_filename: str | None = None,
) -> Results:
    """Lint every candidate, in order; files found in folders that are not launch
    configurations are skipped. ``workers > 1`` reads files in a thread pool (parsing and
    checking stay on this thread): it did not pay off when measured, see above."""
    if progress is None:
        progress = len(cands) > PROGRESS_FROM and sys.stderr.isatty()
    if workers is None:
        workers = 1

    def read(c: discover.Candidate) -> tuple[str | None, str | None]:
        if c.path == "-":
            return _read_stdin(options_for(c.path).max_bytes)
        opts = options_for(c.path)
        return _read(c, opts.max_bytes, opts.allow_outside)

    results = Results()
    pool = None
    if workers > 1:  # concurrent.futures imports logging: ~10 ms a one-file lint does not pay
        from concurrent.futures import ThreadPoolExecutor

        pool = ThreadPoolExecutor(max_workers=workers)
    texts: Iterator[tuple[str | None, str | None]] = pool.map(read, cands) if pool else map(read, cands)
    bar = None
    if progress:
        from rich.console import Console
        from rich.progress import Progress

        bar = Progress(console=Console(stderr=True), transient=True)
        bar.start()
        task = bar.add_task("kdacheck lint", total=len(cands))
    spent = 0  # one byte budget for the run: every file read counts
    try:
        for c, (text, error) in zip(cands, texts, strict=True):
            if bar is not None:
                bar.advance(task)
            name = (visible_name(stdin_filename) if stdin_filename else "<stdin>") if c.path == "-" else visible_name(c.path)
            spent += len(text) if text else 0
            if spent > RUN_BYTES:
                error = f"not read: the run's budget of {RUN_BYTES:,} bytes is spent on the files before it (lint fewer files per run)"
            if error is not None:
                results.append(FileResult(name, error=error))
                continue
            if text is None or (not c.explicit and not relevance.relevant(c.path, text)):
                if text is not None and is_helm_template(c.path, text):
                    results.skipped["unrendered Helm template"] = results.skipped.get("unrendered Helm template", 0) + 1
                elif text is not None and "sglang" in text and c.path.lower().endswith(YAML_SUFFIXES):
                    # names SGLang but carries no launch (a Helm values file, a workflow that installs it): said once
                    results.skipped["non-launch YAML file"] = results.skipped.get("non-launch YAML file", 0) + 1
                elif text is not None and "sglang" in text and discover.is_container_file_name(os.path.basename(c.path)):
                    # an SGLang image whose CMD/ENTRYPOINT starts something else (a script): said once
                    results.skipped["non-launch Dockerfile"] = results.skipped.get("non-launch Dockerfile", 0) + 1
                continue
            base = "." if c.path == "-" else (os.path.dirname(c.path) or ".")
            if c.explicit and only_launch_files and c.path != "-" and not relevance.relevant(c.path, text):
                continue  # --only-launch-files: a named file that is no launch configuration is skipped
            results.append(lint_text(text, name, options_for(c.path), base, c.explicit))
    finally:
        if bar is not None:
            bar.stop()
        if pool is not None:
            pool.shutdown(cancel_futures=True)
    return results


# --- one ``kdacheck lint`` ---------------------------------------------------------------------


class LintRun:
    """One ``kdacheck lint`` invocation: the run-wide settings, the files, their results, the
    verdict. The CLI builds it from its options, renders ``results`` and exits with ``exit_code``.

    Settings: the working directory's configuration, else the first path's; each file is then
    linted with the configuration nearest to it, the command line (``overrides``) winning.
    """

    def __init__(self, paths: list[str], cmd: str | None, overrides: config.Overrides, only_launch_files: bool = False,
                 stdin_filename: str | None = None, force_exclude: bool = False) -> None:
        self.paths, self.cmd, self.overrides = paths, cmd, overrides
        self.only_launch_files, self.stdin_filename = only_launch_files, stdin_filename
        self.force_exclude = force_exclude  # named files the settings' `exclude` excludes are skipped too
        self.results = Results()
        self.notes: list[str] = []
        self.empty = False  # folders named, no launch command in them
        config.reset()
        # --isolated: no configuration file at all, only the command line (as ruff's)
        self.for_folder: Callable[[str], config.Settings] = (lambda _p: config.EMPTY) if overrides.isolated else config.for_folder
        self.for_file: Callable[[str], config.Settings] = (lambda _p: config.EMPTY) if overrides.isolated else config.for_file
        top = self.for_folder(os.getcwd())
        if top.path is None and paths and paths[0] != "-":
            first = paths[0] if os.path.isdir(paths[0]) else os.path.dirname(os.path.abspath(paths[0]))
            top = self.for_folder(first)
        self.top = top
        self.version = config.options(top, overrides).version
        if overrides.sglang:
            from kdacheck import sglang

            installed = sglang.importable(sys.executable)
            if installed is None:
                raise InputError(
                    f"--sglang runs SGLang's own argument resolution, but SGLang is not importable by {visible_name(sys.executable)}: "
                    "run kdacheck where SGLang is installed (the SGLang container image, a GPU node), "
                    "or pip install sglang there"
                )
            gpu = config.options(top, overrides).gpu
            self.notes.append(f"--sglang: SGLang {installed}'s own resolution, in a subprocess"
                              + ("" if installed == self.version else f" (kdacheck's tables: {self.version})")
                              + ("" if gpu is not None else f", on a simulated {sglang.DEFAULT_GPU.upper()} (no --gpu given)"))

    def lint(self) -> list[FileResult]:
        """Lint ``--cmd`` and every file found, each model id looked up once (one Hub run);
        raises ConfigError or InputError."""
        from kdacheck import model_source

        with model_source.hub_run() as hub:
            self._lint()
        note = hub.note()
        if note:
            self.notes.append(f"warning: {note}")
        return self.results

    def _lint(self) -> None:
        searched = discover.searched_folders(self.paths)
        scopes = [self.top] + [self.for_folder(folder) for _given, folder in searched]
        cands = discover.discover(self.paths, config.exclude_patterns(scopes), self.force_exclude)
        if self.cmd is not None:
            # argv reaches Python with undecodable bytes as lone surrogates: --cmd is read as a
            # file's bytes are, UTF-8 or refused by name
            try:
                text = decode(self.cmd.encode("utf-8", "surrogateescape"), "--cmd")
            except (InputError, UnicodeEncodeError) as e:
                self.results.append(FileResult("<cmd>", error=_visible(str(e) if isinstance(e, InputError) else "--cmd: not UTF-8 text")))
            else:
                self.results.append(lint_text(text, "<cmd>", config.options(self.for_file("<cmd>"), self.overrides), ".", True))
        found = lint_many(cands, lambda p: config.options(self.for_file(p), self.overrides),
                          only_launch_files=self.only_launch_files, stdin_filename=self.stdin_filename)
        self.results += found
        self.results.skipped.update(found.skipped)
        if self.overrides.deployment:
            self._deployment()
        folders = [given for given, _folder in searched]
        if folders and not any(r.resolved for r in self.results) and not any(r.error for r in self.results):
            self.notes.append(f"warning: no SGLang launch command found in {', '.join(folders)}")
            self.empty = True

    def _deployment(self) -> None:
        """``--deployment``: the prefill and decode roles of every file linted, paired as one
        deployment (``kdacheck.pairs``); each finding lands in its decode launch's file, graded
        by that file's settings (its severity and per-file-ignores; a suppression comment does
        not reach a pair found across files)."""
        from kdacheck import pairs
        from kdacheck.readers import bounds

        linted = [r for r in self.results if r.resolved and r.error is None]
        launches = [pairs.Launch(r, i) for r in linted for i in range(len(r.resolved))]
        rules = config.options(self.top, self.overrides).rules or rulemod.all_rules()
        starts = {id(r): len(r.findings) for r in linted}
        bounds.start("--deployment")
        try:
            self.notes += [_visible(n) for n in pairs.pair_launches(launches, rules, "--deployment")]
        except InputError as e:
            self.notes.append(f"warning: {_visible(str(e))}")
        for r in linted:
            opts = config.options(self.for_file(r.path), self.overrides)
            start = starts[id(r)]
            found, at = r.findings[start:], r.launch_of[start:]
            del r.findings[start:], r.launch_of[start:]
            for f, i in zip(found, at, strict=True):
                if opts.file_ignores and config.ignored_here(opts, r.path, f.code):
                    r.suppressed += 1
                    continue
                f = dataclasses.replace(f, severity=opts.severity.get(f.code, f.severity))
                r.findings.append(_visible_finding(f))
                r.launch_of.append(i)
            order = sorted(range(len(r.findings)), key=lambda k: r.findings[k].sort_key())
            r.findings, r.launch_of = [r.findings[k] for k in order], [r.launch_of[k] for k in order]

    def fixes(self, unsafe: bool, reads: dict[str, set[str]] | None = None, stdin: tuple[str, str] | None = None) -> Any:
        """``--fix``/``--diff``: every finding's edits applied to the texts of the files they
        name (a linted file or a ``--config`` file it read) that still hold the bytes the lint
        read (``reads``, from ``confine.record_reads``) and may be written: inside the working
        directory's repository, no link on the way (``kdacheck.writes``). ``stdin``: (name,
        text) of standard input, then the only text edited. Returns a ``kdacheck.fix.Outcome``
        (nothing is written here)."""
        from kdacheck import confine, fix

        findings = [f for r in self.results if not r.error for f in r.findings if f.edits]
        recorded = reads if reads is not None else confine.reads or {}
        return fix.gather(findings, unsafe, recorded, confine.repository_root(os.getcwd()), stdin)

    def output_format(self, given: str | None) -> str:
        """The option, else the configuration's, else ``github`` inside GitHub Actions, else ``full``."""
        fmt = given or self.top.output_format
        return fmt or ("github" if os.environ.get("GITHUB_ACTIONS") == "true" else "full")

    def threshold(self, given: str | None) -> Severity:
        """The lowest severity that fails the run: the option, else the configuration's, else warning."""
        return Severity.parse(given or self.top.failure_threshold or "warning")

    def failed(self, threshold: str | None) -> bool:
        from kdacheck import report

        worst = report.worst(self.results)
        return worst is not None and worst >= self.threshold(threshold)

    def run_kernels(self, output_format: str, out: IO[str] | None = None) -> tuple[list[dict[str, object]], bool]:
        """``--run``: the kernels on every resolved command; (JSON reports, any failed). The
        work of every command is estimated first and the total held to one budget, before
        torch is imported and before the first kernel (as ``run --args`` does for a file)."""
        from kdacheck.runner import check_work, guess_device, plan_from_resolved, run_resolved

        cfgs = [cfg for r in self.results for cfg in r.resolved]
        guess = guess_device("auto")
        check_work([plan_from_resolved(cfg, None, None, None, guess == "cpu") for cfg in cfgs], guess)
        docs: list[dict[str, object]] = []
        failed = False
        for r in self.results:
            for cfg in r.resolved:
                doc, code = run_resolved(cfg, output_format, out=out)
                docs.append(doc)
                failed = failed or code != 0
        return docs, failed

    def unread(self) -> int:
        """Launches with arguments kdacheck did not read (their ARG009 findings, suppressed ones
        aside): never a pass, whatever the threshold."""
        from kdacheck.rules.arg import UNREAD

        return sum(1 for r in self.results for f in r.findings if f.code == UNREAD)

    def not_checked(self) -> list[str]:
        """The rules that could not be checked somewhere (the model, the GPU, a value unknown
        statically): what ``--strict`` fails on. Suppressed findings do not count."""
        from kdacheck.report import not_checked

        return sorted(not_checked(self.results)[1])

    def exit_code(self, threshold: str | None, exit_zero: bool, run_failed: bool = False, strict: bool = False) -> int:
        """2 when a file could not be checked or a launch not read (ARG009, unless suppressed),
        1 when findings (or ``--run``) fail, or under ``--strict`` when a rule could not be
        checked, else 0."""
        if any(r.error for r in self.results) or self.unread():
            return 2
        if strict and self.empty:
            return 2
        failed = self.failed(threshold) or run_failed or (strict and bool(self.not_checked()))
        return 0 if exit_zero or not failed else 1
