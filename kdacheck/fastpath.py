"""A fast start for ``kdacheck lint``: parse its options without Typer.

Typer (0.29) coerces every parameter through a Pydantic ``TypeAdapter``: importing Pydantic
and building the adapters costs about 200 ms per run, and importing Typer itself (with its
Click and Rich help machinery) another 25-45 ms, most of what a one-file lint costs.
``kdacheck lint`` runs in pre-commit hooks and CI steps over and over, so ``main()`` first
tries this path: an ``argparse`` parser built from ``kdacheck.lint_options`` (the options of
``cli.lint`` as a plain table, generated from its ``typer.Option``/``typer.Argument``
declarations by :func:`declared_options`; tests/test_lint_imports.py holds the two equal),
then a call of ``kdacheck.lint_command.run_lint``, the body ``cli.lint`` calls too. Neither
module imports Typer or Rich.

Anything this parser does not understand exactly (``--help``, an unknown option, a bad
choice, shell completion, a missing value) goes to Typer instead, which gives the usual
messages: the fast path only ever handles command lines Typer would accept, and does the same
with them (tests/test_lint_imports.py compares both).

Regenerate the table after changing ``cli.lint``'s options::

    python -m kdacheck.fastpath > kdacheck/lint_options.py
"""

from __future__ import annotations

import argparse
import os
import sys
import typing
from collections.abc import Callable, Sequence
from typing import Any

from kdacheck.lint_options import OPTIONS, Option


class _Unsure(Exception):
    """The fast parser is not sure: let Typer handle the command line."""


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> typing.NoReturn:
        raise _Unsure(message)


def build_parser(options: Sequence[Option] = OPTIONS) -> argparse.ArgumentParser:
    """An argparse parser equivalent to the table (and so to the Typer declarations of ``cli.lint``)."""
    parser = _Parser(add_help=False, allow_abbrev=False, prog="kdacheck lint")
    for name, decls, kind, choices, _envvar, _default in options:
        if kind == "arguments":
            parser.add_argument(name, nargs="*", default=None)
        elif kind == "argument":
            parser.add_argument(name, default=None)
        elif kind == "flag":
            parser.add_argument(*decls, dest=name, action="store_true", default=None)
        elif kind == "count":  # -q, -qq
            parser.add_argument(*decls, dest=name, action="count", default=None)
        elif kind == "flag-pair":  # Typer's --x/--no-x pair
            parser.add_argument(decls[0], dest=name, action="store_true", default=None)
            parser.add_argument(decls[1], dest=name, action="store_false", default=None)
        elif kind in ("choice", "choices"):
            parser.add_argument(*decls, dest=name, choices=list(choices), default=None, action="append" if kind == "choices" else "store")
        elif kind in ("str", "strs", "int", "ints"):
            parser.add_argument(*decls, dest=name, type=int if kind.startswith("int") else str, default=None,
                                action="append" if kind.endswith("s") else "store")
        else:
            raise _Unsure(f"option {name}: kind {kind!r}")
    return parser


def _check_words(argv: Sequence[str], parser: argparse.ArgumentParser) -> None:
    """Refuse what argparse would read differently from Click: a dash word that is not one of
    the options (argparse takes ``-1`` as a path, Click as an unknown option)."""
    actions = parser._option_string_actions
    expect_value = False
    for word in argv:
        if expect_value:
            expect_value = False
            continue
        if word == "--":
            return
        if word.startswith("-") and word != "-":
            name, eq, _ = word.partition("=")
            action = actions.get(name)
            if action is None and len(set(word[1:])) == 1 and not word.startswith("--"):
                action = actions.get(word[:2])  # -qq: a short counted flag repeated
                if action is None or action.nargs != 0:
                    raise _Unsure(f"unknown option {word}")
            if action is None:
                raise _Unsure(f"unknown option {word}")
            expect_value = action.nargs != 0 and not eq


def parse(argv: Sequence[str], options: Sequence[Option] = OPTIONS) -> dict[str, Any]:
    """The keyword arguments for ``run_lint`` that Typer would read from ``argv`` (choices as
    their string values; raises _Unsure)."""
    if any(a in ("-h", "--help") for a in argv):
        raise _Unsure("help")
    parser = build_parser(options)
    _check_words(argv, parser)
    kwargs = vars(parser.parse_intermixed_args(list(argv)))
    for name, _decls, kind, choices, envvar, default in options:
        value = kwargs.get(name)
        if (value is None or value == []) and envvar and os.environ.get(envvar):
            value = os.environ[envvar]  # KDACHECK_*: between the command line and the settings file, as Typer reads it
            if choices and value not in choices:
                raise _Unsure(f"{envvar}={value!r}")
            kwargs[name] = int(value) if kind == "int" else value  # a bad int: ValueError, Typer's message
        elif value is None or value == []:
            kwargs[name] = list(default) if isinstance(default, tuple) else default
    return kwargs


def try_lint(argv: Sequence[str]) -> int | None:
    """Run ``kdacheck lint`` on ``argv`` (the words after ``lint``) and return its exit code,
    or None when Typer should handle this command line."""
    if os.environ.get("_KDACHECK_COMPLETE") or os.environ.get("KDACHECK_NO_FASTPATH"):
        return None
    try:
        kwargs = parse(argv)
    except (_Unsure, argparse.ArgumentError, ValueError):
        return None
    from kdacheck.lint_command import run_lint

    try:
        return run_lint(**kwargs)
    except BrokenPipeError:
        sys.stderr.close()
        return 1


# --- the table, from cli.lint's Typer declarations --------------------------------------------


def _base(annotation: Any) -> tuple[Any, bool]:
    """The element type of ``X``, ``X | None`` or ``list[X] | None``, and whether it is a list."""
    import types

    args = [a for a in typing.get_args(annotation) if a is not type(None)]
    if typing.get_origin(annotation) in (typing.Union, types.UnionType) and len(args) == 1:
        annotation = args[0]
    if typing.get_origin(annotation) is list:
        return typing.get_args(annotation)[0], True
    return annotation, False


def declared_options(func: Callable[..., Any]) -> tuple[Option, ...]:
    """The table of ``func``'s Typer declarations (imports Typer: for the test and for
    regenerating ``kdacheck/lint_options.py``, never on the fast path). Raises ValueError on a
    declaration the fast parser does not copy."""
    import enum
    import inspect

    import typer.models as tm

    hints = typing.get_type_hints(func, include_extras=True)
    params = inspect.signature(func).parameters
    rows: list[Option] = []
    for name, hint in hints.items():
        if name == "return":
            continue
        meta = [m for m in getattr(hint, "__metadata__", ()) if isinstance(m, (tm.OptionInfo, tm.ArgumentInfo))]
        if len(meta) != 1:
            raise ValueError(f"parameter {name} has no Typer declaration")
        info = meta[0]
        base, is_list = _base(typing.get_args(hint)[0])
        envvar = getattr(info, "envvar", None)
        if envvar is not None and (not isinstance(envvar, str) or is_list):
            raise ValueError(f"option {name}: an environment variable this parser does not copy")
        default = params[name].default
        default = None if default is inspect.Parameter.empty else default
        if isinstance(default, list):
            default = tuple(default)
        if isinstance(default, enum.Enum):
            default = default.value
        if isinstance(info, tm.ArgumentInfo):
            if base is not str:
                raise ValueError(f"argument {name}: type {base!r}")
            rows.append((name, (), "arguments" if is_list else "argument", (), envvar, default))
            continue
        # Under Annotated, Typer reads a string first argument of Option() as a declaration.
        given = ([info.default] if isinstance(info.default, str) else []) + list(info.param_decls or ())
        if any("/" in d or not d.startswith("-") for d in given):
            raise ValueError(f"option {name}: declarations this parser does not copy")
        decls = tuple(given) or (f"--{name.replace('_', '-')}",)
        choices: tuple[str, ...] = ()
        if base is int and getattr(info, "count", False):
            kind = "count"
        elif base is bool:
            kind = "flag" if given else "flag-pair"
            if not given:
                decls = (*decls, f"--no-{name.replace('_', '-')}")
        elif isinstance(base, type) and issubclass(base, enum.Enum):
            kind, choices = ("choices" if is_list else "choice"), tuple(str(m.value) for m in base)
        elif base in (str, int):
            kind = ("str" if base is str else "int") + ("s" if is_list else "")
        else:
            raise ValueError(f"option {name}: type {base!r}")
        rows.append((name, decls, kind, choices, envvar, default))
    return tuple(rows)


def render_table(rows: Sequence[Option]) -> str:
    """``kdacheck/lint_options.py`` holding ``rows``."""
    lines = [
        '"""The options of ``kdacheck lint`` as plain data, for its fast start (``kdacheck.fastpath``).',
        "",
        "Generated from ``cli.lint``'s Typer declarations: ``python -m kdacheck.fastpath > kdacheck/lint_options.py``.",
        "tests/test_lint_imports.py fails when the two differ. Importing this module imports nothing.",
        "",
        "Each row: (parameter name, option strings, kind, choices, environment variable, default).",
        'Kinds: "arguments" (positional, any number), "argument", "str", "int", "strs"/"ints"',
        '(repeatable), "choice"/"choices" (one of the choices; repeatable), "flag" (store true),',
        '"flag-pair" (--x/--no-x), "count" (a flag counted: -q, -qq).',
        '"""',
        "",
        "from __future__ import annotations",
        "",
        "Option = tuple[str, tuple[str, ...], str, tuple[str, ...], str | None, object]",
        "",
        "OPTIONS: tuple[Option, ...] = (",
        *(f"    {row!r}," for row in rows),
        ")",
    ]
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    from kdacheck import cli

    sys.stdout.write(render_table(declared_options(cli.lint)))
