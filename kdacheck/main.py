"""``kdacheck``: the entry point. The fast path for ``lint`` (``kdacheck.fastpath``), else Typer."""

from __future__ import annotations

import os
import sys


def main() -> None:
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
