"""Launch commands written as shell: scripts, text files, ``--cmd`` and standard input.

A small POSIX-shell tokenizer that keeps each word's line and column: quotes (single,
double, ``$'...'`` is not needed by launch lines), backslash escapes, ``\\``-newline
continuations, comments, and the separators ``;``, ``&&``, ``||``, ``|``, ``&`` and newlines.
Nothing is executed or expanded.
"""

from __future__ import annotations

from kdacheck.findings import InputError, Location
from kdacheck.readers.base import LaunchCommand, Token

_SEPARATORS = {";", "&&", "||", "|", "&", "\n"}

MAX_TOKENS = 200_000


def tokenize(text: str, path: str, line0: int = 1, col0: int = 1) -> list[Token]:
    """Split shell text into words and separators (separators come back as tokens too).

    ``line0``/``col0`` place the text inside a larger file (a YAML scalar, for instance).
    """
    tokens: list[Token] = []
    i, n = 0, len(text)
    line, col = line0, col0
    word: list[str] = []
    start: Location | None = None
    quote: str | None = None

    def advance(k: int = 1) -> None:
        nonlocal i, line, col
        for _ in range(k):
            if i < n and text[i] == "\n":
                line += 1
                col = 1
            else:
                col += 1
            i += 1

    def flush() -> None:
        nonlocal word, start
        if start is not None:
            tokens.append(Token("".join(word), start))
            if len(tokens) > MAX_TOKENS:
                raise InputError(f"{path}: more than {MAX_TOKENS} shell words")
        word, start = [], None

    while i < n:
        ch = text[i]
        if quote == "'":
            if ch == "'":
                quote = None
            else:
                word.append(ch)
            advance()
            continue
        if quote == '"':
            if ch == '"':
                quote = None
                advance()
            elif ch == "\\" and i + 1 < n and text[i + 1] in '"\\$`\n':
                if text[i + 1] != "\n":
                    word.append(text[i + 1])
                advance(2)
            else:
                word.append(ch)
                advance()
            continue
        if ch == "\\":
            if i + 1 < n and text[i + 1] == "\n":  # continuation
                advance(2)
                continue
            if i + 1 < n and text[i + 1] == "\r" and i + 2 < n and text[i + 2] == "\n":
                advance(3)
                continue
            if start is None:
                start = Location(path, line, col)
            if i + 1 < n:
                word.append(text[i + 1])
            advance(2)
            continue
        if ch in "'\"":
            if start is None:
                start = Location(path, line, col)
            quote = ch
            advance()
            continue
        if ch == "#" and start is None:
            while i < n and text[i] != "\n":
                advance()
            continue
        if ch in " \t\r":
            flush()
            advance()
            continue
        if ch == "\n":
            flush()
            tokens.append(Token("\n", Location(path, line, col)))
            advance()
            continue
        if ch in ";&|":
            flush()
            two = text[i : i + 2]
            op = two if two in ("&&", "||") else ch
            tokens.append(Token(op, Location(path, line, col)))
            advance(len(op))
            continue
        if ch in "()" and start is None:
            advance()
            continue
        if start is None:
            start = Location(path, line, col)
        word.append(ch)
        advance()
    if quote is not None:
        raise InputError(f"{path}:{line}:{col}: unterminated {quote} quote")
    flush()
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
