"""What may reach a terminal or a report from the input: every string kdacheck shows passes here.

C0/C1 control characters but newline (a tab too: its width after a wide character differs
between terminals), Unicode line separators, bidirectional overrides and every other format
character (category Cf: U+200B, U+FEFF, U+2060, ...) are escaped, so a hostile file cannot
send terminal escape sequences (ESC [2J, OSC 0;title BEL) through a message to the reader's
terminal, break a report's lines, reorder its text or hide a character in a name.

Nor can it write a GitHub Actions workflow command into a CI log, whatever the format: the
runner (actions/runner ``ActionCommandManager``) reads ``::command::`` at the start of a line
(after white space) and the legacy ``##[command]`` anywhere in one, so ``##[`` is shown as
``##\\x5b`` everywhere and ``::`` as ``:\\x3a`` where a line starts with it (in a name, everywhere).
"""

from __future__ import annotations

import re

# The Cf code points of Unicode 15 as ranges (a superset of unicodedata's on Python 3.10-3.13;
# tests/test_hostile_sanitize.py checks every one of them is escaped).
_FORMAT_RANGES = (
    "\u00ad\u0600-\u0605\u061c\u06dd\u070f\u0890\u0891\u08e2\u180e\u200b-\u200f\u202a-\u202e"
    "\u2060-\u2064\u2066-\u206f\ufeff\ufff9-\ufffb\U000110bd\U000110cd\U00013430-\U0001343f"
    "\U0001bca0-\U0001bca3\U0001d173-\U0001d17a\U000e0001\U000e0020-\U000e007f"
)
CONTROL = re.compile(f"[\x00-\x09\x0b-\x1f\x7f-\x9f\u2028\u2029{_FORMAT_RANGES}]")


def _escape(m: re.Match[str]) -> str:
    c = ord(m.group())
    return f"\\x{c:02x}" if c < 256 else f"\\u{c:04x}" if c < 0x10000 else f"\\U{c:08x}"


_LINE_COMMAND = re.compile(r"^([^\S\n]*)::", re.MULTILINE)  # `::` opening a line, after white space
LEGACY_COMMAND = "##["  # the runner's legacy form, read anywhere in a line
LEGACY_SHOWN = "##\\x5b"


def no_commands(text: str) -> str:
    """``text`` with no GitHub Actions workflow command in any of its lines."""
    return _LINE_COMMAND.sub(r"\1:\\x3a", text.replace(LEGACY_COMMAND, LEGACY_SHOWN))


def visible(text: str) -> str:
    """``text`` with every control and format character escaped (newlines kept) and no
    workflow command in any line."""
    return no_commands(CONTROL.sub(_escape, text))


SHOWN_CHARS = 300  # how much of a path or line from the input a message quotes


def shown(text: str) -> str:
    """A path or text from the input as a message quotes it: its first ``SHOWN_CHARS``
    characters, made :func:`visible`."""
    return visible(text[:SHOWN_CHARS])


def visible_line(text: str) -> str:
    """As :func:`visible`, newlines escaped too: one line of a report."""
    return visible(text).replace("\n", "\\n")


def visible_name(text: str) -> str:
    """A file path or a name from the input as every report may show it: bytes that are not
    UTF-8 as ``\\xNN``, control and format characters escaped, no newline and no ``::`` (a
    GitHub Actions workflow command) anywhere in it."""
    text = text.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")
    return visible_line(text).replace("::", ":\\x3a")  # every `::`: a name may open a line


def _json_escape(m: re.Match[str]) -> str:
    c = ord(m.group())
    if c < 0x10000:
        return f"\\u{c:04x}"
    c -= 0x10000
    return f"\\u{0xD800 + (c >> 10):04x}\\u{0xDC00 + (c & 0x3FF):04x}"


def json_text(doc: object, indent: int | None = 2, ensure_ascii: bool = False) -> str:
    """``doc`` as JSON text with no control or format character and no ``##[`` in it, the data
    unchanged: each is written as a ``\\uXXXX`` escape, which every JSON reader reads back as it was."""
    import json

    return json_clean(json.dumps(doc, indent=indent, ensure_ascii=ensure_ascii))


def json_clean(text: str) -> str:
    """JSON text with every control or format character and ``##[`` written as an escape (the
    data unchanged), as :func:`json_text` writes it."""
    return CONTROL.sub(_json_escape, text).replace(LEGACY_COMMAND, "##\\u005b")
