"""Shell arithmetic ``$(( ... ))`` evaluated statically, as bash evaluates it, where it can be.

Integers, variables (``A``, ``$A``, ``${A}``) whose values are integers, ``+ - * / %``, unary
signs and parentheses; division truncates toward zero and ``%`` takes the dividend's sign, as
in bash (C semantics). Anything else (another operator, a variable that is unset or not a
number, division by zero, a result past 64 bits) leaves the value unknown, with the reason:
never a guess, never "unset" for what is only not known. Bounded: ``MAX_CHARS`` characters and
``MAX_DEPTH`` nested parentheses.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

MAX_CHARS = 1_000
MAX_DEPTH = 32
LIMIT = 1 << 63

_TOKEN = re.compile(r"\s*(?:(0[xX][0-9A-Fa-f]+|[0-9]+)|\$\{([A-Za-z_][A-Za-z0-9_]*)\}|\$?([A-Za-z_][A-Za-z0-9_]*)|(.))")
_INTEGER = re.compile(r"\s*[-+]?[0-9]+\s*\Z")


class Unknown(Exception):
    """Why an expression's value is not known here."""


def evaluate(body: str, values: Mapping[str, str], unknown: Mapping[str, str] | None = None) -> tuple[int | None, str]:
    """(the value of the expression ``body`` (what stands between ``$((`` and ``))``), or None; why not).
    ``unknown``: variables assigned a value not known here, with why (``shell.Env.unknown``)."""
    if len(body) > MAX_CHARS:
        return None, f"an arithmetic expansion of {len(body):,} characters (over {MAX_CHARS:,}) is not evaluated"
    try:
        tokens = _tokens(body, values, unknown or {})
        parser = _Parser(tokens)
        value = parser.expr(0)
        if parser.i != len(tokens):
            raise Unknown(f"`{tokens[parser.i]}` in `$(({body.strip()[:60]}))` is not evaluated")
    except Unknown as e:
        return None, str(e)
    return value, ""


def _tokens(body: str, values: Mapping[str, str], unknown: Mapping[str, str]) -> list[int | str]:
    out: list[int | str] = []
    for m in _TOKEN.finditer(body):
        number, braced, name, other = m.groups()
        if number is not None:
            out.append(int(number, 16) if number[:2] in ("0x", "0X") else int(number, 8) if len(number) > 1 and number[0] == "0"
                       and number.isdigit() and set(number) <= set("01234567") else int(number))
        elif braced or name:
            var = braced or name
            value = values.get(var)
            if value is None and var in unknown:
                raise Unknown(f"`{var}` in an arithmetic expansion is set from {unknown[var]}")
            if value is None:
                raise Unknown(f"`{var}` in an arithmetic expansion is unset in this file (its value is unknown here)")
            if not _INTEGER.match(value):
                raise Unknown(f"`{var}` is `{value[:40]}`, not a number kdacheck evaluates in an arithmetic expansion")
            out.append(int(value))
        elif other is not None and not other.isspace():
            out.append(other)
    return out


class _Parser:
    def __init__(self, tokens: list[int | str]) -> None:
        self.tokens, self.i = tokens, 0

    def peek(self) -> int | str | None:
        return self.tokens[self.i] if self.i < len(self.tokens) else None

    def expr(self, depth: int) -> int:
        value = self.term(depth)
        while self.peek() in ("+", "-"):
            op = self.tokens[self.i]
            self.i += 1
            value = _checked(value + self.term(depth) if op == "+" else value - self.term(depth))
        return value

    def term(self, depth: int) -> int:
        value = self.unary(depth)
        while self.peek() in ("*", "/", "%"):
            op = self.tokens[self.i]
            self.i += 1
            right = self.unary(depth)
            if op == "*":
                value = _checked(value * right)
            elif right == 0:
                raise Unknown("division by zero in an arithmetic expansion (bash stops with an error)")
            else:
                q = abs(value) // abs(right) * (1 if (value < 0) == (right < 0) else -1)  # toward zero
                value = q if op == "/" else value - right * q
        return value

    def unary(self, depth: int) -> int:
        tok = self.peek()
        if tok in ("+", "-"):
            self.i += 1
            v = self.unary(depth)
            return v if tok == "+" else -v
        if tok == "(":
            if depth >= MAX_DEPTH:
                raise Unknown(f"an arithmetic expansion nested more than {MAX_DEPTH} levels is not evaluated")
            self.i += 1
            v = self.expr(depth + 1)
            if self.peek() != ")":
                raise Unknown("an unbalanced `(` in an arithmetic expansion")
            self.i += 1
            return v
        if isinstance(tok, int):
            self.i += 1
            return tok
        raise Unknown(f"`{tok}` in an arithmetic expansion is not evaluated" if tok is not None else "an empty arithmetic expansion")


def _checked(v: int) -> int:
    if not -LIMIT <= v < LIMIT:
        raise Unknown("an arithmetic expansion past 64 bits is not evaluated")
    return v
