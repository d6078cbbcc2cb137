"""``kdacheck lint``'s body: :class:`LintCommand` owns one ``kdacheck lint`` from its options
to its exit code, one method per phase (settings, read, lint, diff, fix passes, report, exit
code); :func:`run_lint` takes the options (choices as plain strings) and returns that code.

Both ways in call it: the Typer command ``cli.lint`` (a thin wrapper) and the fast start of
``kdacheck.fastpath``, which parses the command line with argparse from the plain table in
``kdacheck.lint_options``. Each pass over the files is a ``lint.LintRun`` (settings, files,
results, verdict); ``--fix`` makes one per pass. Nothing here imports Typer or Rich
(``tests/test_lint_imports.py`` holds it), so a one-file lint loads neither.
"""

from __future__ import annotations

import contextlib
import io
import os
import re
import sys
from collections.abc import Iterator
from typing import IO, TYPE_CHECKING, Any

from kdacheck import config, confine, report
from kdacheck.findings import InputError
from kdacheck.lint import LintRun
from kdacheck.results import FileResult, Results

if TYPE_CHECKING:
    from kdacheck.fix import Outcome


class Exit(Exception):
    """End the lint with this exit code (what ``typer.Exit`` was inside ``cli.lint``)."""

    def __init__(self, code: int = 0) -> None:
        super().__init__(code)
        self.exit_code = code


_ANSI = re.compile(r"\033\[[;?0-9]*[a-zA-Z]")  # click.echo's own pattern (click._compat._ansi_re)


def echo(message: str, err: bool = False) -> None:
    """A line on standard output or standard error, as ``typer.echo`` writes it: flushed, and
    without ANSI sequences when the stream is not a terminal."""
    stream = sys.stderr if err else sys.stdout
    if stream is None:
        return
    isatty = getattr(stream, "isatty", None)
    try:
        terminal = bool(isatty()) if isatty is not None else False
    except (OSError, ValueError):
        terminal = False
    if not terminal:
        message = _ANSI.sub("", message)
    stream.write(message + "\n")
    stream.flush()


def fail(message: str) -> Exit:
    """Report that kdacheck could not do its job (exit code 2)."""
    echo(f"kdacheck: error: {message}", err=True)
    return Exit(2)


@contextlib.contextmanager
def _output(path: str | None, allow_outside: bool = False, stream: IO[str] | None = None) -> Iterator[IO[str]]:
    """Standard output (or ``stream``), or ``--output-file``: written whole once the report is
    done, by a temporary file renamed over it (``kdacheck.writes``), never onto or through a
    link nor outside the working directory's repository (there only with ``--allow-outside``);
    a refusal or a failure is exit 2 naming the file."""
    if path is None:
        yield stream or sys.stdout
        return
    import io

    from kdacheck import confine, writes

    buf = io.StringIO()
    yield buf
    try:
        writes.replace(path, buf.getvalue().encode("utf-8"), confine.repository_root(os.getcwd()), allow_outside=allow_outside)
    except confine.Refused as e:
        raise fail(f"--output-file {e}") from None


STDIN_CHUNK = 1 << 20


def _stdin_bytes(max_bytes: int) -> bytes | None:
    """``--fix -``: standard input whole, in 1 MiB chunks (as the lint reads it), put back as
    ``sys.stdin`` for the lint; None when it is over ``max_bytes`` or unreadable (the lint then
    reports that, and no fixed text is printed)."""
    stream = getattr(sys.stdin, "buffer", None)
    if stream is None:
        return None
    chunks: list[bytes] = []
    got = 0
    try:
        while got <= max_bytes:
            chunk = stream.read(min(STDIN_CHUNK, max_bytes + 1 - got))
            if not chunk:
                break
            chunks.append(chunk)
            got += len(chunk)
    except (OSError, ValueError):
        return None
    data = b"".join(chunks)
    _feed_stdin(data)
    return data if len(data) <= max_bytes else None


def _feed_stdin(data: bytes) -> None:
    import io

    sys.stdin = io.TextIOWrapper(io.BytesIO(data), encoding="utf-8", errors="surrogateescape")


def _per_file(value: str) -> tuple[str, tuple[str, ...]]:
    glob, sep, codes = value.rpartition(":")
    if not sep or not glob or not codes.strip():
        raise ValueError(f"--per-file-ignores {value!r}: write GLOB:CODES, e.g. 'legacy/*.sh:ARG003'")
    return glob, tuple(_split([codes]) or ())


def _split(values: list[str] | None) -> list[str] | None:
    if not values:
        return None
    return [p.strip().upper() for v in values for p in v.split(",") if p.strip()]


class LintOptions:
    """``cli.lint``'s options by name, as plain values (the choices ``failure_threshold``,
    ``output_format`` and ``color`` as strings), each with ``cli.lint``'s default (a test holds
    the two equal). A plain class: nothing is built at import on the lint path."""

    paths: list[str] | None = None
    cmd: str | None = None
    model: str | None = None
    gpu: str | None = None
    sglang_version: str | None = None
    select: list[str] | None = None
    ignore: list[str] | None = None
    extend_select: list[str] | None = None
    failure_threshold: str | None = None
    output_format: str | None = None
    output_file: str | None = None
    show_resolved: bool = False
    exit_zero: bool = False
    run_after: bool = False
    env: list[str] | None = None
    env_file: str | None = None
    stdin_filename: str | None = None
    allow_outside: bool = False
    only_launch_files: bool = False
    force_exclude: bool = False
    deployment: bool = False
    strict: bool = False
    sglang: bool = False
    fix: bool = False
    unsafe_fixes: bool = False
    show_diff: bool = False
    quiet: int = 0
    statistics: bool = False
    show_settings: bool = False
    color: str | None = None
    offline: bool = False
    isolated: bool = False
    per_file_ignores: list[str] | None = None
    ignore_noqa: bool = False
    add_noqa: bool = False
    baseline: str | None = None
    write_baseline: str | None = None

    def __init__(self, **given: Any) -> None:
        unknown = sorted(set(given) - set(LintOptions.__annotations__))
        if unknown:
            raise TypeError(f"not an option of kdacheck lint: {', '.join(unknown)}")
        self.__dict__.update(given)


def run_lint(**options: Any) -> int:
    """Lint SGLang launch configurations and report every finding at once; returns the exit
    code. ``options``: :class:`LintOptions`, by name."""
    return LintCommand(LintOptions(**options)).run()


class LintCommand:
    """One ``kdacheck lint``, from its options to its exit code. :meth:`run` goes through the
    phases; each ends the command early by raising :class:`Exit` (a refusal, ``--show-settings``,
    ``--diff``). ``--fix -`` reads standard input whole (:meth:`read`), lints it, and writes its
    fixed text to standard output and the report to standard error (as ruff's): no file is
    touched."""

    def __init__(self, options: LintOptions) -> None:
        self.o = options
        self.fixing = options.fix or options.show_diff
        self.overrides: config.Overrides  # set by settings(), the first phase
        self.session: LintRun  # the latest pass over the files (--fix makes one per pass)
        self.results: list[FileResult] = Results()
        self.fmt = "full"
        self.run_docs: list[dict[str, object]] | None = None  # --run: the kernels' reports
        self.run_failed = False
        self.run_text = io.StringIO()  # --run with full or concise: the kernels' tables, after the report
        self.source: bytes | None = None  # --fix -: standard input, as the latest pass fixed it
        self.reads: dict[str, set[str]] | None = None  # --fix/--diff: what each file held when read
        self.refused: dict[str, str] = {}  # --fix: the files not written, and why

    def run(self) -> int:
        try:
            self.settings()
            # --fix/--diff: note what each file held when read; only those bytes are ever rewritten
            self.reads = confine.record_reads() if self.fixing else None
            try:
                self.lint()
                if self.o.show_diff:
                    self.diff()
                elif self.o.fix:
                    self.fix_passes()
                if self.o.add_noqa:
                    self.add_noqa()
                self.baseline()
                self.report()
                if self.run_text.getvalue():
                    echo(self.run_text.getvalue().rstrip("\n"))
            finally:
                confine.reads = None
        except Exit as e:
            return e.exit_code
        return self.exit_code()

    # --- the phases ---------------------------------------------------------------------------

    def settings(self) -> None:
        """The command line and the environment as the lint's overrides; ``--show-settings``
        prints what applies and ends the command."""
        o = self.o
        if not o.paths and o.cmd is None:
            raise self.failed("nothing to lint: give paths, - for standard input, or --cmd")
        try:
            variables = config.environment(o.env or [], o.env_file, o.allow_outside)
            file_ignores = tuple(_per_file(v) for v in o.per_file_ignores or ())
        except (config.ConfigError, ValueError) as e:
            raise self.failed(str(e)) from None
        self.overrides = config.Overrides(
            select=tuple(_split(o.select) or ()) or None, ignore=tuple(_split(o.ignore) or ()),
            extend_select=tuple(_split(o.extend_select) or ()), gpu=o.gpu, sglang_version=o.sglang_version, model=o.model,
            sglang=o.sglang, env=tuple(variables.items()), allow_outside=o.allow_outside, isolated=o.isolated, offline=o.offline,
            per_file_ignores=file_ignores, ignore_noqa=o.ignore_noqa, deployment=o.deployment,
        )
        if o.show_settings:
            with self.refusals():
                echo(config.describe(o.paths or [], self.overrides, o.failure_threshold, o.output_format))
            raise Exit(0)
        if o.add_noqa and (self.fixing or "-" in (o.paths or []) or o.cmd is not None):
            raise self.failed("--add-noqa writes comments into the files named: not with --fix, --diff, - or --cmd")
        if self.fixing and "-" in (o.paths or []) and (len(o.paths or []) > 1 or o.cmd is not None):
            raise self.failed("--fix and --diff read standard input alone: give - without other paths or --cmd")

    def read(self) -> None:
        """``--fix -``/``--diff -``: standard input, read here whole and handed to the lint."""
        if self.fixing and self.o.paths == ["-"]:
            self.source = _stdin_bytes(config.options(self.session.for_file("-"), self.overrides).max_bytes)

    def lint(self) -> None:
        """The first pass over the files, then ``--run``'s kernels on every launch command."""
        o = self.o
        with self.refusals():
            self.session = self.new_session()
            self.fmt = self.session.output_format(o.output_format)
            if o.statistics and self.fmt in report.NO_STATISTICS:
                raise InputError(f"--statistics does not apply to --output-format {self.fmt} "
                                 f"(use {report.spoken([n for n in report.FORMATS if n not in report.NO_STATISTICS])})")
            self.read()
            self.results = self.session.lint()
            if o.run_after and not any(r.error for r in self.results):
                tables = self.run_text if self.fmt in ("full", "concise") else None
                self.run_docs, self.run_failed = self.session.run_kernels(self.fmt, tables)

    def diff(self) -> None:
        """``--diff``: the fixes as a unified diff, nothing written; exit 1 when there is one."""
        from kdacheck import fix as fixmod

        outcome = self.planned()
        with _output(self.o.output_file, self.o.allow_outside) as out:
            out.write(fixmod.diff(outcome))
        more = f"; {outcome.deferred} more once these are applied" if outcome.deferred else ""
        for message in outcome.changed.values():
            echo(f"kdacheck: {message}", err=True)
        echo(f"kdacheck: would apply {fixmod.summary(outcome)}{more}", err=True)
        for message in outcome.refused.values():
            echo(f"kdacheck: error: {message}", err=True)
        raise Exit(2 if outcome.refused else 1 if outcome.files else 0)

    def fix_passes(self) -> None:
        """``--fix``: spellings, then values: each pass writes its fixes and lints the fixed
        files again, until nothing changes (at most ``fix.MAX_PASSES``); only inside the working
        directory's repository. ``--fix -``: the fixed text to standard output."""
        from kdacheck import fix as fixmod

        root = confine.repository_root(os.getcwd())
        outcome = self.planned()
        for n in range(fixmod.MAX_PASSES):
            if not self.apply(outcome, root, first=n == 0):
                break
            self.relint()
            outcome = self.planned()
        for message in self.refused.values():
            echo(f"kdacheck: error: {message}", err=True)
        if self.source is not None:
            self.write_fixed_text()

    def add_noqa(self) -> None:
        """``--add-noqa``: a ``# kdacheck: ignore[CODES]`` comment above every launch with
        findings (``kdacheck.noqa``), written as ``--fix`` writes; then the files linted again,
        so the report shows them suppressed. What could take no comment is said, file by file."""
        from kdacheck import lint, noqa, writes
        from kdacheck.fix import BOM
        from kdacheck.readers.detect import decode

        root = confine.repository_root(os.getcwd())

        def read(path: str) -> tuple[bytes, str]:
            try:
                data = writes.read(path, root)
            except writes.Changed as e:
                raise InputError(str(e)) from None
            return data, decode(data, path)

        def relint(text: str, path: str) -> FileResult:
            opts = config.options(self.session.for_file(path), self.overrides)
            return lint.lint_text(text, path, opts, os.path.dirname(path) or ".")

        added = noqa.plan(self.results, read, relint)
        for path, (data, text) in sorted(added.files.items()):
            try:
                writes.replace(path, (BOM if data.startswith(BOM) else b"") + text.encode("utf-8", "surrogatepass"), root,
                               expect=writes.sha256(data))
            except (writes.Changed, confine.Refused) as e:
                self.refused[path] = str(e)
        for note in added.notes:
            echo(f"kdacheck: {note}", err=True)
        for message in self.refused.values():
            echo(f"kdacheck: error: {message}", err=True)
        echo(f"kdacheck: added suppressions for {added.covered} findings in {len(added.files) - len(self.refused)} files", err=True)
        self.relint()

    def baseline(self) -> None:
        """``--write-baseline``: every current finding written to the baseline file; then
        ``--baseline`` (else the settings' ``baseline``, or the file just written): the findings it holds left out of the report
        and the exit code, counted in the summary (``kdacheck.baseline``)."""
        o = self.o
        top = self.session.top  # `baseline` in the settings: relative to their file
        path = o.write_baseline or o.baseline or (os.path.join(top.folder, top.baseline) if top.baseline else None)
        if path is None:
            return
        from kdacheck import baseline, writes

        if o.write_baseline and o.baseline:
            raise self.failed("--baseline and --write-baseline: give one of them")
        root = confine.repository_root(os.getcwd())
        if o.write_baseline:
            try:
                writes.replace(path, baseline.dump(self.results, root), root, allow_outside=o.allow_outside)
            except confine.Refused as e:
                raise self.failed(f"--write-baseline {e}") from None
            echo(f"kdacheck: wrote {sum(len(r.findings) for r in self.results)} findings to {path}", err=True)
        with self.refusals():
            known = baseline.load(path, None if o.allow_outside else root)
        baseline.apply(self.results, known, root)

    def report(self) -> None:
        """The report in its format (``--quiet``: the failing findings; ``-qq``: none), and the
        run's notes on standard error."""
        o = self.o
        ctx = report.RenderContext(self.session.version, o.show_resolved, self.run_docs if self.fmt == "json" else None,
                                   self.session.threshold(o.failure_threshold), color=o.color or "auto", strict=o.strict,
                                   quiet=bool(o.quiet))
        results: list[FileResult] = self.results
        if o.quiet and self.fmt in ("full", "concise", "github"):
            results = report.failing_only(results, ctx.threshold)
        if o.quiet >= 2 and not o.output_file:  # -qq: nothing on standard output, the exit code only
            return
        with _output(o.output_file, o.allow_outside, sys.stderr if o.fix and self.source is not None else None) as out:
            if o.statistics:
                report.statistics(results, out, self.fmt, ctx)
            else:
                report.render(self.fmt, results, out, ctx)
        for note in [] if o.quiet else self.session.notes:
            echo(f"kdacheck: {note}", err=True)
        unread = self.session.unread()
        if unread and o.quiet < 2:
            echo(f"kdacheck: error: {unread} place{'s' if unread != 1 else ''} in launches not read (ARG009): exit 2, a launch "
                 "kdacheck did not read never passes; write them out, give the variables with --env, or suppress ARG009 "
                 "with a reason where that is intended", err=True)

    def exit_code(self) -> int:
        """2 when a fix was refused, else the verdict of the last pass (``LintRun.exit_code``)."""
        o = self.o
        code = self.session.exit_code(o.failure_threshold, o.exit_zero, self.run_failed, o.strict)
        return 2 if self.refused else code

    # --- helpers of the phases ----------------------------------------------------------------

    def new_session(self) -> LintRun:
        o = self.o
        return LintRun(o.paths or [], o.cmd, self.overrides, o.only_launch_files, o.stdin_filename, o.force_exclude)

    def relint(self) -> None:
        """The next ``--fix`` pass: the fixed files (or text) linted afresh."""
        if self.reads is not None:
            self.reads.clear()
        self.session = self.new_session()
        if self.source is not None:
            _feed_stdin(self.source)
        with self.refusals():
            self.results = self.session.lint()

    def planned(self) -> Outcome:
        """The fixes of the latest pass (nothing written): ``LintRun.fixes``."""
        from kdacheck.readers.detect import decode
        from kdacheck.sanitize import visible_name

        stdin = None
        if self.source is not None:
            name = visible_name(self.o.stdin_filename) if self.o.stdin_filename else "<stdin>"
            try:
                stdin = (name, decode(self.source, name))
            except InputError:  # binary or not UTF-8: the lint said so; nothing to edit
                stdin = (name, "")
        outcome: Outcome = self.session.fixes(self.o.unsafe_fixes, self.reads, stdin)
        return outcome

    def apply(self, outcome: Outcome, root: str, first: bool) -> bool:
        """Write one pass's fixes (``--fix -``: into the text the next pass reads); whether any
        file changed."""
        from kdacheck import fix as fixmod

        changes = bool(outcome.files)
        if self.source is not None:  # standard input: the fixed text is the next pass's input
            for _before, after in outcome.files.values():
                self.source = (fixmod.BOM if self.source.startswith(fixmod.BOM) else b"") + after.encode("utf-8", "surrogatepass")
        else:
            fixmod.write(outcome, root)
        for message in outcome.changed.values():  # left alone, counted; the next pass reads them again
            echo(f"kdacheck: {message}", err=True)
        self.refused.update(outcome.refused)
        if changes or first:
            echo(f"kdacheck: applied {fixmod.summary(outcome)}", err=True)
        return changes

    def write_fixed_text(self) -> None:
        """``--fix -``: the fixed text on standard output, byte for byte (a BOM and CRLF kept)."""
        assert self.source is not None
        sys.stdout.flush()
        out_bytes = getattr(sys.stdout, "buffer", None)
        if out_bytes is not None:
            out_bytes.write(self.source)
            out_bytes.flush()
        else:
            sys.stdout.write(self.source.decode("utf-8", "replace"))

    @contextlib.contextmanager
    def refusals(self) -> Iterator[None]:
        """A configuration or input error inside the block ends the command: exit 2, said."""
        try:
            yield
        except (config.ConfigError, InputError) as e:
            raise self.failed(str(e)) from None

    def failed(self, message: str) -> Exit:
        """Exit 2 with ``message``; a machine format still writes its document saying why."""
        from kdacheck.versions import NEWEST

        with _output(self.o.output_file, self.o.allow_outside) as out:
            report.render_failure(self.o.output_format, message, out, self.o.sglang_version or NEWEST)
        return fail(message)
