"""``kdacheck lint``'s body as a plain function: :func:`run_lint` takes the options (choices as
plain strings) and returns the exit code.

Both ways in call it: the Typer command ``cli.lint`` (a thin wrapper) and the fast start of
``kdacheck.fastpath``, which parses the command line with argparse from the plain table in
``kdacheck.lint_options``. Nothing here imports Typer or Rich (``tests/test_lint_imports.py``
holds it), so a one-file lint loads neither.
"""

from __future__ import annotations

import contextlib
import functools
import os
import re
import sys
from collections.abc import Callable, Iterator
from typing import IO, ParamSpec

P = ParamSpec("P")


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


def _exit_code(body: Callable[P, None]) -> Callable[P, int]:
    """``body`` ends by raising :class:`Exit`; the wrapped function returns its code instead."""

    @functools.wraps(body)
    def run(*args: P.args, **kwargs: P.kwargs) -> int:
        try:
            body(*args, **kwargs)
        except Exit as e:
            return e.exit_code
        return 0

    return run


@_exit_code
def run_lint(
    *,
    paths: list[str] | None = None,
    cmd: str | None = None,
    model: str | None = None,
    gpu: str | None = None,
    sglang_version: str | None = None,
    select: list[str] | None = None,
    ignore: list[str] | None = None,
    extend_select: list[str] | None = None,
    failure_threshold: str | None = None,
    output_format: str | None = None,
    output_file: str | None = None,
    show_resolved: bool = False,
    exit_zero: bool = False,
    run_after: bool = False,
    env: list[str] | None = None,
    env_file: str | None = None,
    stdin_filename: str | None = None,
    allow_outside: bool = False,
    only_launch_files: bool = False,
    strict: bool = False,
    sglang: bool = False,
    fix: bool = False,
    unsafe_fixes: bool = False,
    show_diff: bool = False,
    quiet: int = 0,
    statistics: bool = False,
    show_settings: bool = False,
    color: str | None = None,
    offline: bool = False,
    isolated: bool = False,
    per_file_ignores: list[str] | None = None,
) -> None:
    """Lint SGLang launch configurations and report every finding at once; returns the exit
    code (:func:`_exit_code`). The parameters are ``cli.lint``'s, by name (a test holds it);
    the choices (``failure_threshold``, ``output_format``, ``color``) are plain strings."""
    from kdacheck import config, report
    from kdacheck.findings import InputError
    from kdacheck.lint import LintRun

    def failed(message: str) -> Exit:
        from kdacheck.versions import NEWEST

        with _output(output_file, allow_outside) as out:
            report.render_failure(output_format, message, out, sglang_version or NEWEST)
        return fail(message)

    if not paths and cmd is None:
        raise failed("nothing to lint: give paths, - for standard input, or --cmd")
    try:
        variables = config.environment(env or [], env_file, allow_outside)
        file_ignores = tuple(_per_file(v) for v in per_file_ignores or ())
    except (config.ConfigError, ValueError) as e:
        raise failed(str(e)) from None
    overrides = config.Overrides(
        select=tuple(_split(select) or ()) or None, ignore=tuple(_split(ignore) or ()),
        extend_select=tuple(_split(extend_select) or ()), gpu=gpu, sglang_version=sglang_version, model=model,
        sglang=sglang, env=tuple(variables.items()), allow_outside=allow_outside, isolated=isolated, offline=offline,
        per_file_ignores=file_ignores,
    )
    threshold = failure_threshold
    if show_settings:
        try:
            echo(config.describe(paths or [], overrides, threshold, output_format))
        except (config.ConfigError, InputError) as e:
            raise failed(str(e)) from None
        raise Exit(0)
    if (fix or show_diff) and "-" in (paths or []) and (len(paths or []) > 1 or cmd is not None):
        raise failed("--fix and --diff read standard input alone: give - without other paths or --cmd")
    from kdacheck import confine

    # --fix/--diff: note what each file held when read; only those bytes are ever rewritten
    reads = confine.record_reads() if fix or show_diff else None

    def _lint_and_fix() -> None:
        """Lint, fix, render and exit (raises Exit)."""
        # --fix -: standard input is read here, whole, and handed to the lint; its fixed text goes
        # to standard output, the report to standard error (as ruff's), and no file is touched
        source = None
        try:
            session = LintRun(paths or [], cmd, overrides, only_launch_files, stdin_filename)
            if statistics and session.output_format(output_format) in report.NO_STATISTICS:
                raise InputError(f"--statistics does not apply to --output-format {session.output_format(output_format)} "
                                 "(use full, concise, json, sarif or github)")
            if (fix or show_diff) and paths == ["-"]:
                source = _stdin_bytes(config.options(session.for_file("-"), overrides).max_bytes)
            results = session.lint()
            fmt = session.output_format(output_format)
            run_docs, run_failed = session.run_kernels(fmt) if run_after and not any(r.error for r in results) else (None, False)
        except (config.ConfigError, InputError) as e:
            raise failed(str(e)) from None
        refused: dict[str, str] = {}
        if fix or show_diff:
            from kdacheck import fix as fixmod
            from kdacheck.readers.detect import decode
            from kdacheck.sanitize import visible_name

            stdin_name = visible_name(stdin_filename) if stdin_filename else "<stdin>"

            def planned(session: LintRun) -> fixmod.Outcome:
                stdin = None
                if source is not None:
                    try:
                        stdin = (stdin_name, decode(source, stdin_name))
                    except InputError:  # binary or not UTF-8: the lint said so; nothing to edit
                        stdin = (stdin_name, "")
                outcome: fixmod.Outcome = session.fixes(unsafe_fixes, reads, stdin)
                return outcome

            outcome = planned(session)
            if show_diff:
                with _output(output_file, allow_outside) as out:
                    out.write(fixmod.diff(outcome))
                more = f"; {outcome.deferred} more once these are applied" if outcome.deferred else ""
                for message in outcome.changed.values():
                    echo(f"kdacheck: {message}", err=True)
                echo(f"kdacheck: would apply {fixmod.summary(outcome)}{more}", err=True)
                for message in outcome.refused.values():
                    echo(f"kdacheck: error: {message}", err=True)
                raise Exit(2 if outcome.refused else 1 if outcome.files else 0)
            root = confine.repository_root(os.getcwd())  # --fix writes here only, never outside
            for _pass in range(fixmod.MAX_PASSES):  # spellings, then values: each pass lints the fixed files again
                changes = bool(outcome.files)
                if source is not None:  # standard input: the fixed text is the next pass's input
                    for _before, after in outcome.files.values():
                        source = (fixmod.BOM if source.startswith(fixmod.BOM) else b"") + after.encode("utf-8", "surrogatepass")
                else:
                    fixmod.write(outcome, root)
                for message in outcome.changed.values():  # left alone, counted; the next pass reads them again
                    echo(f"kdacheck: {message}", err=True)
                refused.update(outcome.refused)
                if not changes:
                    if _pass == 0:
                        echo(f"kdacheck: applied {fixmod.summary(outcome)}", err=True)
                    break
                echo(f"kdacheck: applied {fixmod.summary(outcome)}", err=True)
                if reads is not None:
                    reads.clear()
                session = LintRun(paths or [], cmd, overrides, only_launch_files, stdin_filename)
                if source is not None:
                    _feed_stdin(source)
                try:
                    results = session.lint()
                except (config.ConfigError, InputError) as e:
                    raise failed(str(e)) from None
                outcome = planned(session)
            for message in refused.values():
                echo(f"kdacheck: error: {message}", err=True)
            if source is not None:  # the fixed text, byte for byte (a BOM and CRLF kept)
                sys.stdout.flush()
                out_bytes = getattr(sys.stdout, "buffer", None)
                if out_bytes is not None:
                    out_bytes.write(source)
                    out_bytes.flush()
                else:
                    sys.stdout.write(source.decode("utf-8", "replace"))
        ctx = report.RenderContext(session.version, show_resolved, run_docs if fmt == "json" else None, session.threshold(threshold),
                                   color=color or "auto", strict=strict, quiet=bool(quiet))
        if quiet and fmt in ("full", "concise", "github"):
            results = report.failing_only(results, ctx.threshold)
        if quiet >= 2 and not output_file:  # -qq: nothing on standard output, the exit code only
            code = session.exit_code(threshold, exit_zero, run_failed, strict)
            raise Exit(2 if refused else code)
        with _output(output_file, allow_outside, sys.stderr if fix and source is not None else None) as out:
            if statistics:
                report.statistics(results, out, fmt, ctx)
            else:
                report.render(fmt, results, out, ctx)
        for note in [] if quiet else session.notes:
            echo(f"kdacheck: {note}", err=True)
        code = session.exit_code(threshold, exit_zero, run_failed, strict)
        raise Exit(2 if refused else code)

    try:
        _lint_and_fix()
    finally:
        confine.reads = None
