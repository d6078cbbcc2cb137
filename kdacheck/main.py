"""``kdacheck``: the entry point. The fast path for ``lint`` (``kdacheck.fastpath``), else Typer."""

from __future__ import annotations

import contextlib
import os
import sys


class _PipeSafe:
    """Standard output that a closed pipe (``kdacheck lint . | head``) does not break: later
    writes are dropped, so the run ends with its own exit code, not a BrokenPipeError. Any
    other failure to write (a full disk, an I/O error) is remembered: the report is incomplete,
    so the run ends with exit 2 and says why (:func:`main`)."""

    def __init__(self, stream: object) -> None:
        self._stream = stream
        self.broken = False
        self.failed: OSError | None = None

    def _failed(self, e: OSError) -> None:
        self.failed = self.failed or e
        self._closed()

    def _closed(self) -> None:
        self.broken = True
        with contextlib.suppress(OSError, AttributeError, ValueError):  # the last flush at exit too
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, self._stream.fileno())  # type: ignore[attr-defined]

    def write(self, text: str) -> int:
        if not self.broken:
            try:
                return int(self._stream.write(text))  # type: ignore[attr-defined]
            except BrokenPipeError:
                self._closed()
            except OSError as e:
                self._failed(e)
        return len(text)

    def flush(self) -> None:
        if not self.broken:
            try:
                self._stream.flush()  # type: ignore[attr-defined]
            except BrokenPipeError:
                self._closed()
            except OSError as e:
                self._failed(e)

    def __getattr__(self, name: str) -> object:
        return getattr(self._stream, name)


def _streams() -> None:
    """Characters the terminal's encoding lacks (an ASCII locale) are escaped, not a crash;
    a closed pipe on standard output is not an error."""
    for stream in (sys.stdout, sys.stderr):
        reconfigure = getattr(stream, "reconfigure", None)
        if reconfigure is not None:
            with contextlib.suppress(ValueError, OSError):
                reconfigure(errors="backslashreplace")
    sys.stdout = _PipeSafe(sys.stdout)  # type: ignore[assignment]


def main() -> None:
    _streams()
    try:
        _main()
    except SystemExit as e:
        out = sys.stdout
        if isinstance(out, _PipeSafe):
            out.flush()
            if out.failed is not None:
                sys.stderr.write(f"kdacheck: error: cannot write the report to standard output: {out.failed.strerror or out.failed}\n")
                sys.exit(2)
        raise e


def _main() -> None:
    try:
        if len(sys.argv) > 1 and sys.argv[1] == "lint":  # skip Typer's Pydantic coercion: see fastpath
            from kdacheck.fastpath import try_lint

            code = try_lint(sys.argv[2:])
            if code is not None:
                sys.exit(code)
        from kdacheck.cli import app

        app()
    except KeyboardInterrupt:
        sys.stderr.write("kdacheck: interrupted\n")
        sys.exit(130)
    except Exception as e:  # the last resort: never a traceback (exit code 2, as ruff does)
        detail = str(e).splitlines()[0][:300] if str(e) else ""
        sys.stderr.write(f"kdacheck: internal error: {type(e).__name__}" + (f": {detail}" if detail else "") + "\n")
        sys.stderr.write(
            "This is a bug in kdacheck. Please report it at https://github.com/kdacheck/kdacheck/issues "
            "with the command line and the input file (set KDACHECK_TRACEBACK=1 to see the traceback).\n"
        )
        if os.environ.get("KDACHECK_TRACEBACK"):
            import traceback

            traceback.print_exc()
        sys.exit(2)
