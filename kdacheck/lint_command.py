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
def _output(path: str | None) -> Iterator[IO[str]]:
    """Standard output, or ``--output-file`` (written whole; a failure to open it is exit 2)."""
    if path is None:
        yield sys.stdout
        return
    try:
        fh = open(path, "w", encoding="utf-8")  # noqa: SIM115  (closed below)
    except OSError as e:
        raise fail(f"cannot write --output-file {path}: {e.strerror}") from None
    with fh:
        yield fh


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
    quiet: bool = False,
    statistics: bool = False,
    show_settings: bool = False,
    color: str | None = None,
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

        with _output(output_file) as out:
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
        sglang=sglang, env=tuple(variables.items()), allow_outside=allow_outside, isolated=isolated,
        per_file_ignores=file_ignores,
    )
    threshold = failure_threshold
    if show_settings:
        try:
            echo(config.describe(paths or [], overrides, threshold, output_format))
        except (config.ConfigError, InputError) as e:
            raise failed(str(e)) from None
        raise Exit(0)
    try:
        session = LintRun(paths or [], cmd, overrides, only_launch_files, stdin_filename)
        results = session.lint()
        fmt = session.output_format(output_format)
        run_docs, run_failed = session.run_kernels(fmt) if run_after and not any(r.error for r in results) else (None, False)
    except (config.ConfigError, InputError) as e:
        raise failed(str(e)) from None
    if fix or show_diff:
        from kdacheck import fix as fixmod

        outcome = session.fixes(unsafe_fixes)
        if show_diff:
            with _output(output_file) as out:
                out.write(fixmod.diff(outcome))
            more = f"; {outcome.deferred} more once these are applied" if outcome.deferred else ""
            echo(f"kdacheck: would apply {fixmod.summary(outcome)}{more}", err=True)
            raise Exit(1 if outcome.files else 0)
        for _pass in range(fixmod.MAX_PASSES):  # spellings, then values: each pass lints the fixed files again
            try:
                fixmod.write(outcome)
            except OSError as e:
                raise failed(f"cannot write a fixed file: {e}") from None
            if not outcome.files:
                if _pass == 0:
                    echo(f"kdacheck: applied {fixmod.summary(outcome)}", err=True)
                break
            echo(f"kdacheck: applied {fixmod.summary(outcome)}", err=True)
            session = LintRun(paths or [], cmd, overrides, only_launch_files, stdin_filename)
            try:
                results = session.lint()
            except (config.ConfigError, InputError) as e:
                raise failed(str(e)) from None
            outcome = session.fixes(unsafe_fixes)
    ctx = report.RenderContext(session.version, show_resolved, run_docs if fmt == "json" else None, session.threshold(threshold),
                               color=color or "auto")
    if quiet and fmt in ("full", "concise", "github"):
        results = report.failing_only(results, ctx.threshold)
    with _output(output_file) as out:
        if statistics:
            report.statistics(results, out, fmt)
        else:
            report.render(fmt, results, out, ctx)
    for note in [] if quiet else session.notes:
        echo(f"kdacheck: {note}", err=True)
    raise Exit(session.exit_code(threshold, exit_zero, run_failed, strict))
