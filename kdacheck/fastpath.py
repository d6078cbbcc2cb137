"""A fast start for ``kdacheck lint``: parse its options without Typer's coercion layer.

Typer (0.29) coerces every parameter through a Pydantic ``TypeAdapter``: importing Pydantic
and building the adapters costs about 200 ms per run, twice the cost of everything else a
one-file lint does. ``kdacheck lint`` runs in pre-commit hooks and CI steps over and over, so
``main()`` first tries this path: an ``argparse`` parser built *from the signature of*
``cli.lint`` (its ``typer.Option``/``typer.Argument`` declarations, so the two cannot drift
apart), then a direct call of ``cli.lint``. Anything this parser does not understand exactly
(``--help``, an unknown option, a bad choice, shell completion, a missing value) goes to
Typer instead, which gives the usual messages: the fast path only ever handles command lines
Typer would accept, and does the same with them (tests/test_lint_imports.py compares both).
"""

from __future__ import annotations

import argparse
import enum
import os
import sys
import types
import typing
from collections.abc import Callable, Sequence
from typing import Any


class _Unsure(Exception):
    """The fast parser is not sure: let Typer handle the command line."""


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> typing.NoReturn:
        raise _Unsure(message)


def _base(annotation: Any) -> tuple[Any, bool]:
    """The element type of ``X``, ``X | None`` or ``list[X] | None``, and whether it is a list."""
    args = [a for a in typing.get_args(annotation) if a is not type(None)]
    if typing.get_origin(annotation) in (typing.Union, types.UnionType) and len(args) == 1:
        annotation = args[0]
    if typing.get_origin(annotation) is list:
        return typing.get_args(annotation)[0], True
    return annotation, False


def build_parser(func: Callable[..., Any]) -> tuple[argparse.ArgumentParser, dict[str, Any]]:
    """An argparse parser equivalent to the Typer declarations of ``func``."""
    import typer.models as tm

    hints = typing.get_type_hints(func, include_extras=True)
    parser = _Parser(add_help=False, allow_abbrev=False, prog="kdacheck lint")
    converters: dict[str, Any] = {}
    envvars: dict[str, str] = {}
    for name, hint in hints.items():
        if name == "return":
            continue
        meta = [m for m in getattr(hint, "__metadata__", ()) if isinstance(m, (tm.OptionInfo, tm.ArgumentInfo))]
        if len(meta) != 1:
            raise _Unsure(f"parameter {name} has no Typer declaration")
        info = meta[0]
        base, is_list = _base(typing.get_args(hint)[0])
        if isinstance(getattr(info, "envvar", None), str):
            envvars[name] = info.envvar  # type: ignore[assignment]
        if isinstance(info, tm.ArgumentInfo):
            parser.add_argument(name, nargs="*" if is_list else None, default=None)
            continue
        # Under Annotated, Typer reads a string first argument of Option() as a declaration.
        given = ([info.default] if isinstance(info.default, str) else []) + list(info.param_decls or ())
        if any("/" in d or not d.startswith("-") for d in given):
            raise _Unsure(f"option {name}: declarations this parser does not copy")
        decls = given or [f"--{name.replace('_', '-')}"]
        if base is bool:
            if not given:
                decls = [*decls, f"--no-{name.replace('_', '-')}"]  # Typer's --x/--no-x pair
                parser.add_argument(decls[0], dest=name, action="store_true", default=None)
                parser.add_argument(decls[1], dest=name, action="store_false", default=None)
            else:
                parser.add_argument(*decls, dest=name, action="store_true", default=None)
            continue
        if isinstance(base, type) and issubclass(base, enum.Enum):
            converters[name] = base
            parser.add_argument(*decls, dest=name, choices=[m.value for m in base], default=None, action="append" if is_list else "store")
            continue
        if base not in (str, int):
            raise _Unsure(f"option {name}: type {base!r}")
        parser.add_argument(*decls, dest=name, type=base, default=None, action="append" if is_list else "store")
    converters["__envvars__"] = envvars
    return parser, converters


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
            if action is None:
                raise _Unsure(f"unknown option {word}")
            expect_value = action.nargs != 0 and not eq


def parse(argv: Sequence[str], func: Callable[..., Any]) -> dict[str, Any]:
    """The keyword arguments Typer would pass to ``func`` for ``argv`` (raises _Unsure)."""
    if any(a in ("-h", "--help") for a in argv):
        raise _Unsure("help")
    parser, converters = build_parser(func)
    _check_words(argv, parser)
    ns = parser.parse_intermixed_args(list(argv))
    kwargs = vars(ns)
    import inspect

    envvars = converters.pop("__envvars__")
    for name, p in inspect.signature(func).parameters.items():
        value = kwargs.get(name)
        if (value is None or value == []) and os.environ.get(envvars.get(name, "")):
            value = os.environ[envvars[name]]  # KDACHECK_*: between the command line and the settings file, as Typer reads it
            if name in converters:
                choices = {m.value for m in converters[name]}
                if value not in choices:
                    raise _Unsure(f"{envvars[name]}={value!r}")
            kwargs[name] = converters[name](value) if name in converters else value
            continue
        if value is None or value == []:
            kwargs[name] = p.default if p.default is not inspect.Parameter.empty else None
        elif name in converters:
            conv = converters[name]
            kwargs[name] = [conv(v) for v in value] if isinstance(value, list) else conv(value)
    return kwargs


def try_lint(argv: Sequence[str]) -> int | None:
    """Run ``kdacheck lint`` on ``argv`` (the words after ``lint``) and return its exit code,
    or None when Typer should handle this command line."""
    if os.environ.get("_KDACHECK_COMPLETE") or os.environ.get("KDACHECK_NO_FASTPATH"):
        return None
    import typer

    from kdacheck import cli

    try:
        kwargs = parse(argv, cli.lint)
    except (_Unsure, argparse.ArgumentError, ValueError):
        return None
    try:
        cli.lint(**kwargs)
    except typer.Exit as e:
        return int(e.exit_code)
    except BrokenPipeError:
        sys.stderr.close()
        return 1
    return 0
