"""Launch commands written as shell: scripts, text files, ``--cmd`` and standard input.

A small POSIX-shell tokenizer that keeps each word's line and column: quotes (single,
double, ``$'...'`` is not needed by launch lines), backslash escapes, ``\\``-newline
continuations, comments, and the separators ``;``, ``&&``, ``||``, ``|``, ``&`` and newlines.
Nothing is executed or expanded.
"""

from __future__ import annotations

import re

from kdacheck.findings import InputError, Location
from kdacheck.readers.base import LaunchCommand, Token

_SEPARATORS = {";", "&&", "||", "|", "&", "\n"}

MAX_TOKENS = 50_000  # a real launch line has a few hundred words


# A run of ordinary word characters (no quote, escape, blank, newline or operator). Inside a
# word ``#``, ``(`` and ``)`` are ordinary; at the start of one they are handled apart.
_PLAIN = re.compile(r"[^ \t\r\n'\"\\;&|]+")
_DQ_PLAIN = re.compile(r'[^"\\]+')
# A whole unquoted word that ends at a blank, a newline, an operator or the end (the common
# case: taken in one step), and the blanks after it.
_SIMPLE_WORD = re.compile(r"([^ \t\r\n'\"\\;&|#()][^ \t\r\n'\"\\;&|]*)(?=[ \t\r\n;&|]|\Z)[ \t\r]*")


def tokenize(text: str, path: str, line0: int = 1, col0: int = 1) -> list[Token]:
    """Split shell text into words and separators (separators come back as tokens too).

    ``line0``/``col0`` place the text inside a larger file (a YAML scalar, for instance).
    Runs of ordinary characters are taken a whole regex match at a time, and a column is
    computed only where a word starts, so a long file costs little more than one ``re`` pass.
    """
    tokens: list[Token] = []
    append = tokens.append
    i, n = 0, len(text)
    line = line0
    ls = 0  # index where the current line starts
    c0 = col0  # the column of index ``ls``
    word: list[str] = []
    start: Location | None = None
    quote: str | None = None
    plain = _PLAIN.match
    dq_plain = _DQ_PLAIN.match
    simple = _SIMPLE_WORD.match

    def newlines(seg: str, at: int) -> None:
        """Account for the newlines of ``seg``, read from index ``at``."""
        nonlocal line, ls, c0
        k = seg.count("\n")
        if k:
            line += k
            ls = at + seg.rfind("\n") + 1
            c0 = 1

    def too_many() -> InputError:
        return InputError(f"{path}: more than {MAX_TOKENS:,} shell words")

    while i < n:
        if start is None and quote is None:
            m = simple(text, i)
            if m is not None:
                append(Token(m.group(1), Location(path, line, c0 + i - ls)))
                if len(tokens) > MAX_TOKENS:
                    raise too_many()
                i = m.end()
                continue
        ch = text[i]
        if quote == "'":
            j = text.find("'", i)
            seg = text[i:] if j < 0 else text[i:j]
            word.append(seg)
            newlines(seg, i)
            if j < 0:
                i = n
                break
            i = j + 1
            quote = None
            continue
        if quote == '"':
            if ch == '"':
                quote = None
                i += 1
            elif ch == "\\" and i + 1 < n and text[i + 1] in '"\\$`\n':
                if text[i + 1] == "\n":
                    newlines("\n", i + 1)
                else:
                    word.append(text[i + 1])
                i += 2
            elif ch == "\\":
                word.append(ch)
                i += 1
            else:
                m = dq_plain(text, i)
                seg = m.group() if m else ch
                word.append(seg)
                newlines(seg, i)
                i += len(seg)
            continue
        if ch == " " or ch == "\t" or ch == "\r":
            if start is not None:
                append(Token("".join(word), start))
                if len(tokens) > MAX_TOKENS:
                    raise too_many()
                word, start = [], None
            i += 1
            continue
        if ch == "\\":
            if i + 1 < n and text[i + 1] == "\n":  # continuation
                newlines("\n", i + 1)
                i += 2
                continue
            if i + 1 < n and text[i + 1] == "\r" and i + 2 < n and text[i + 2] == "\n":
                newlines("\n", i + 2)
                i += 3
                continue
            if start is None:
                start = Location(path, line, c0 + i - ls)
            if i + 1 < n:
                word.append(text[i + 1])
            i += 2
            continue
        if ch in "'\"":
            if start is None:
                start = Location(path, line, c0 + i - ls)
            quote = ch
            i += 1
            continue
        if ch == "#" and start is None:
            j = text.find("\n", i)
            i = n if j < 0 else j
            continue
        if ch == "\n" or ch in ";&|":
            if start is not None:
                append(Token("".join(word), start))
                word, start = [], None
            if ch == "\n":
                append(Token("\n", Location(path, line, c0 + i - ls)))
                newlines("\n", i)
                i += 1
            else:
                two = text[i : i + 2]
                op = two if two in ("&&", "||") else ch
                append(Token(op, Location(path, line, c0 + i - ls)))
                i += len(op)
            if len(tokens) > MAX_TOKENS:
                raise too_many()
            continue
        if ch in "()" and start is None:
            i += 1
            continue
        if start is None:
            start = Location(path, line, c0 + i - ls)
        m = plain(text, i)
        seg = m.group() if m else ch
        word.append(seg)
        i += len(seg)
    if quote is not None:
        raise InputError(f"{path}:{line}:{c0 + min(i, n) - ls}: unterminated {quote} quote")
    if start is not None:
        append(Token("".join(word), start))
        if len(tokens) > MAX_TOKENS:
            raise too_many()
    return tokens


def _commands(tokens: list[Token]) -> list[list[Token]]:
    out: list[list[Token]] = [[]]
    for t in tokens:
        if t.text in _SEPARATORS and t.is_flag is None and _is_separator(t):
            if out[-1]:
                out.append([])
        else:
            out[-1].append(t)
    return [c for c in out if c]


def _is_separator(t: Token) -> bool:
    return t.text in _SEPARATORS


_PROGRAM_MODULES = {"sglang.launch_server", "sglang.launch_server.py"}


def find_launch(words: list[Token]) -> int | None:
    """Index of the first SGLang argument in one simple command, or None if not a launch.

    Recognises ``python[3] -m sglang.launch_server``, ``sglang serve``, ``sglang.launch_server``
    run as a script, behind ``ENV=val`` assignments, ``env``, ``exec``, ``nohup``, ``uv run``
    and the like (anything before the program is skipped).
    """
    for j, w in enumerate(words):
        text = w.text
        if text == "-m" and j + 1 < len(words) and words[j + 1].text in _PROGRAM_MODULES:
            return j + 2
        is_script = text.endswith("sglang/launch_server.py") or text in _PROGRAM_MODULES
        if is_script and (j == 0 or words[j - 1].text != "-m"):
            return j + 1
        is_cli = text == "sglang" or text.endswith("/sglang")
        if is_cli and j + 1 < len(words) and words[j + 1].text == "serve":
            return j + 2
    return None


def launches_in_tokens(tokens: list[Token], path: str, kind: str, name: str = "") -> list[LaunchCommand]:
    found: list[LaunchCommand] = []
    for words in _commands(tokens):
        k = find_launch(words)
        if k is not None:
            found.append(LaunchCommand(path, words[k:], kind, words[0].loc, name))
    return found


def read_shell(text: str, path: str) -> list[LaunchCommand]:
    return launches_in_tokens(tokenize(text, path), path, "shell")


def looks_like_shell_launch(text: str) -> bool:
    return "sglang.launch_server" in text or "sglang serve" in text or "sglang/launch_server" in text
