"""Launch commands written as shell: scripts, text files, ``--cmd`` and standard input.

Shell as a shell reads it, statically, never executing anything:

1. **Lexing** keeps each word's line and column and how each part of it was quoted: single
   and double quotes, backslash escapes, ``\\``-newline continuations, comments, the
   separators ``;``, ``&&``, ``||``, ``|``, ``&`` and newlines, redirections (``> log``,
   ``2>&1``, ``&>> f``, ``< in``, here-documents, whose bodies are not words), and the
   expansions ``$VAR``, ``${...}``, ``$(...)`` and backticks (kept whole, never run).
2. **Commands** are read in order: assignments (``VAR=x``, ``export``/``declare``/``readonly``,
   ``: "${X:=d}"``) set variables for what follows; ``VAR=x cmd`` prefixes apply to that command.
3. **Expansion** of ``$X``, ``${X}``, ``${X:-d}``, ``${X-d}``, ``${X:=d}``, ``${X:+alt}``
   from the variables set earlier in the file and ``--env``; an unquoted expansion is split
   into words. A value that stays unknown (an unset variable, a command substitution, ``$@``)
   becomes a token marked unknown, with the reason: no type error, no wrong default.
4. **Arrays**: ``NAME=(...)`` (over lines, with comments), ``NAME+=(...)``, ``declare -a
   NAME=(...)``; ``"${NAME[@]}"`` becomes its elements, each token placed where the element is
   written inside the assignment; ``${NAME[*]}``, ``${NAME[i]}``, ``$NAME`` (element 0) and
   ``${#NAME[@]}`` as bash reads them. An array used as the command (``"${CMD[@]}"`` alone) is a
   launch like any other. Arrays are bounded (``MAX_ARRAY`` elements each).
"""

from __future__ import annotations

import re
from collections import deque
from collections.abc import Iterator, Mapping, MutableMapping
from typing import TypeVar

from kdacheck.findings import InputError, Location
from kdacheck.readers import argsfiles, arith, bounds
from kdacheck.readers.base import Append, LaunchCommand, Token, Unread
from kdacheck.readers.entry import find_launch, mentions  # the entry-point table

V = TypeVar("V")
_SEPARATORS = {";", "&&", "||", "|", "&", "\n"}
SHELL_WORDS = Append(" ", "shell")  # --fix adds a flag as shell words after the last one
MAX_TOKENS = 50_000  # a real launch line has a few hundred words
MAX_VALUE = 100_000  # characters of one expanded word
MAX_EXPANSIONS = 10_000
MAX_ARRAY = 50_000  # elements of one array (appends and self-references included)
MAX_SCRIPT_DEPTH = 16  # `bash -c` inside `bash -c`: real scripts nest two or three; each level is a scope more to look through

_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_ASSIGN = re.compile(r"([A-Za-z_][A-Za-z0-9_]*)=")
_SIMPLE = re.compile(r"[^ \t\r\n'\"\\;&|<>#()$`][^ \t\r\n'\"\\;&|<>$`]*(?=[ \t\r\n;&|]|\Z)")
_PLAIN = re.compile(r"[^ \t\r\n'\"\\;&|<>$`]+")
_DQ_PLAIN = re.compile(r'[^"\\$`]+')
# An issue's or recipe's placeholder (`--model-path <GLM-5.2-FP8 MTP weights>`): `<` at a word's start,
# text without `<`, `>` or a line break that neither starts nor ends with a blank, `>`, then a blank
# or the end of the command. `< in.txt`, `<in.txt >out.txt` and `<<EOF` stay redirections.
_PLACEHOLDER = re.compile(r"<[A-Za-z0-9_](?:[^<>\n]*[^<>\s])?>(?=[\s;&|)]|\Z)")
_REDIR = re.compile(r"(\d*)(>>|>&|>\||<<<|<<-|<<|<&|<>|>|<)(&?-|&\d+)?")
_STOPS = {"(": re.compile(r"[\\'\"()]"), "{": re.compile(r"[\\'\"{}]")}  # what `closing` looks at
_ARRAY_OPEN = re.compile(r"([A-Za-z_][A-Za-z0-9_]*)(\+?=)\(")
_ASSIGNING = frozenset({"export", "declare", "typeset", "readonly", "local"})


class Part:
    __slots__ = ("expansion", "quote", "text")

    def __init__(self, text: str, quote: str = "", expansion: bool = False) -> None:
        self.text = text
        self.quote = quote  # "", "'" or '"'
        self.expansion = expansion  # $..., ${...}, $(...), `...`


class Word:
    __slots__ = ("loc", "parts")

    def __init__(self, parts: list[Part], loc: Location) -> None:
        self.parts, self.loc = parts, loc

    @property
    def literal(self) -> str | None:
        """The word's text when it has no expansion."""
        if any(p.expansion for p in self.parts):
            return None
        return "".join(p.text for p in self.parts)

    @property
    def raw(self) -> str:
        return "".join(p.text for p in self.parts)


class Op:
    __slots__ = ("loc", "needs_target", "redirect", "text")

    def __init__(self, text: str, loc: Location, redirect: bool = False, needs_target: bool = False) -> None:
        self.text = text  # a separator, or a redirection ("2>&1", ">", "<<")
        self.loc, self.redirect, self.needs_target = loc, redirect, needs_target


class ArrayAssign:
    """``NAME=(w1 w2 ...)`` or ``NAME+=(...)``: the words between the parentheses, unexpanded."""

    __slots__ = ("append", "loc", "name", "words")

    def __init__(self, name: str, append: bool, words: list[Word], loc: Location) -> None:
        self.name, self.append, self.words, self.loc = name, append, words, loc


Item = Word | Op | ArrayAssign


class _Lexer:
    def __init__(self, text: str, path: str, line: int = 1, ls: int = 0, c0: int = 1) -> None:
        self.text, self.path = text, path
        self.line, self.ls, self.c0 = line, ls, c0  # ls: index where the current line starts; c0: its column
        self.out: list[Item] = []
        self.heredocs: deque[tuple[str, bool]] = deque()  # (delimiter, strip tabs), in the order opened
        self.array: tuple[str, bool, Location, int] | None = None  # an open NAME=( : name, +=, where, index in out
        self.parts: list[Part] = []  # the current word's, since ``start``
        self.start: Location | None = None  # where the current word starts; None between words

    def loc(self, i: int) -> Location:
        return Location(self.path, self.line, self.c0 + i - self.ls)

    def newlines(self, seg: str, at: int) -> None:
        k = seg.count("\n")
        if k:
            self.line += k
            self.ls = at + seg.rfind("\n") + 1
            self.c0 = 1

    def push(self, item: Item) -> None:
        prev = self.out[-1] if self.out else None
        if isinstance(item, Word) and isinstance(prev, Op) and prev.text.lstrip("0123456789") in ("<<", "<<-"):
            self.heredocs.append((item.raw, prev.text.endswith("-")))
        self.out.append(item)
        if len(self.out) > MAX_TOKENS:
            raise InputError(f"{self.path}: more than {MAX_TOKENS:,} shell words")

    def closing(self, i: int, open_: str) -> int:
        """Index just past the bracket matching the one before ``i`` (quotes respected), found
        without a step per character in between (a regular expression jumps to the next one)."""
        depth, n, text, stops = 1, len(self.text), self.text, _STOPS[open_]
        while (m := stops.search(text, i)) is not None:
            i, ch = m.start(), m.group()
            if ch == "\\":
                i += 2
                continue
            if ch in "'\"":
                j = text.find(ch, i + 1)
                i = n if j < 0 else j + 1
                continue
            depth += 1 if ch == open_ else -1
            if depth == 0:
                return i + 1
            i += 1
        raise InputError(f"{self.path}:{self.line}: unterminated `{open_}`")

    def expansion(self, i: int) -> int:
        """The end of the expansion starting with ``$`` or a backtick at ``i``."""
        text, n = self.text, len(self.text)
        if text[i] == "`":
            j = i + 1
            while j < n and text[j] != "`":
                j += 2 if text[j] == "\\" else 1
            if j >= n:
                raise InputError(f"{self.path}:{self.line}: unterminated ` quote")
            return j + 1
        if i + 1 < n and text[i + 1] == "(":
            return self.closing(i + 2, "(")
        if i + 1 < n and text[i + 1] == "{":
            return self.closing(i + 2, "{")
        m = _NAME.match(text, i + 1)
        if m:
            return m.end()
        if i + 1 < n and text[i + 1] in "@*#?$!-0123456789":
            return i + 2
        return i + 1  # a lone $: literal

    def heredoc_bodies(self, i: int) -> int:
        """Skip the bodies of the here-documents opened on the line that ends at ``i``."""
        text, n = self.text, len(self.text)
        while self.heredocs:
            delim, strip = self.heredocs.popleft()
            while i < n:
                j = text.find("\n", i)
                line = text[i:] if j < 0 else text[i:j]
                self.newlines("\n", j if j >= 0 else n)
                i = n if j < 0 else j + 1
                if (line.lstrip("\t") if strip else line).rstrip("\r") == delim:
                    break
        return i

    def open_array(self, m: re.Match[str], i: int) -> int:
        """``NAME=(`` at ``i``: the words up to the matching ``)`` become one ArrayAssign."""
        if self.array is not None:
            raise InputError(f"{self.loc(i)}: `(` inside the array assignment `{self.array[0]}=(` opened at "
                             f"{self.array[2]} (bash refuses it too)")
        self.array = (m.group(1), m.group(2) == "+=", self.loc(i), len(self.out))
        return m.end()

    def close_array(self) -> None:
        """The ``)`` of an open array: its words (newlines and separators inside are blanks)."""
        assert self.array is not None
        name, append, loc, k = self.array
        words = [w for w in self.out[k:] if isinstance(w, Word)]
        del self.out[k:]
        self.array = None
        self.push(ArrayAssign(name, append, words, loc))

    def run(self) -> list[Item]:
        i, n = 0, len(self.text)
        while i < n:
            j = self.word_start(i) if self.start is None else None
            i = self.step(i) if j is None else j
        self.end_word()
        if self.array is not None:
            raise InputError(f"{self.array[2]}: unterminated `(` of the array `{self.array[0]}`")
        return self.out

    def begin(self, i: int) -> None:
        """A word starts at ``i`` unless one is already open."""
        if self.start is None:
            self.start = self.loc(i)

    def end_word(self) -> None:
        if self.start is not None:
            self.push(Word(self.parts, self.start))
        self.parts, self.start = [], None

    def word_start(self, i: int) -> int | None:
        """Between words: ``NAME=(`` opens an array and ``)`` closes the open one; a plain word
        (no quote, expansion or operator) is taken whole at once. Else None."""
        text = self.text
        a = _ARRAY_OPEN.match(text, i)
        if a is not None:
            return self.open_array(a, i)
        if self.array is not None and text[i] == ")":
            self.close_array()
            return i + 1
        m = _SIMPLE.match(text, i) if self.array is None else None
        if m is None:
            return None
        self.push(Word([Part(m.group())], self.loc(i)))
        return m.end()

    def step(self, i: int) -> int:
        """The piece of text at ``i`` (a blank, an escape, a quote, an expansion, a comment, an
        operator or a plain run) added to the current word or pushed: the index after it."""
        text, ch = self.text, self.text[i]
        if ch in " \t\r":
            self.end_word()
            return i + 1
        if ch == "\\":
            return self.escaped(i)
        if ch == "'":
            return self.single_quoted(i)
        if ch == '"':
            self.begin(i)
            return self.double_quoted(i + 1, self.parts)
        if ch == "$" and text.startswith(("'", '"'), i + 1):  # $'...' (ANSI-C) and $"..." (locale)
            self.begin(i)
            return self.ansi_c(i + 2, self.parts) if text[i + 1] == "'" else self.double_quoted(i + 2, self.parts)
        if ch in "$`":
            return self.unquoted_expansion(i)
        if ch == "#" and self.start is None:
            j = text.find("\n", i)
            return len(text) if j < 0 else j
        if ch == "<" and (self.start is None or self.parts[-1].text.endswith("=")) and (m := _PLACEHOLDER.match(text, i)):
            self.begin(i)  # `<your model path>`: a placeholder in a recipe, one unknown word
            self.parts.append(Part(m.group(0), "", expansion=True))
            return m.end()
        if ch in "<>" or (ch == "&" and text.startswith(">", i + 1)):
            return self.redirection(i)
        if ch == "\n" or ch in ";&|":
            return self.separator(i)
        if ch in "()" and self.start is None:
            self.push(Op(ch, self.loc(i)))  # subshells and groups: a command boundary
            return i + 1
        return self.plain(i)

    def escaped(self, i: int) -> int:
        """A backslash: a line continuation (``\\``-newline, also before CRLF), else the next
        character quoted."""
        text = self.text
        if text.startswith("\n", i + 1):
            self.newlines("\n", i + 1)
            return i + 2
        if text.startswith("\r\n", i + 1):
            self.newlines("\n", i + 2)
            return i + 3
        self.begin(i)
        if i + 1 < len(text):
            self.parts.append(Part(text[i + 1], "'"))
        return i + 2

    def single_quoted(self, i: int) -> int:
        self.begin(i)
        j = self.text.find("'", i + 1)
        if j < 0:
            raise InputError(f"{self.path}:{self.line}:{self.c0 + i - self.ls}: unterminated ' quote")
        seg = self.text[i + 1 : j]
        self.parts.append(Part(seg, "'"))
        self.newlines(seg, i + 1)
        return j + 1

    def unquoted_expansion(self, i: int) -> int:
        """``$...`` or a backtick outside quotes: one part, kept whole (a lone ``$`` is literal)."""
        self.begin(i)
        j = self.expansion(i)
        seg = self.text[i:j]
        self.parts.append(Part(seg, "", expansion=len(seg) > 1))
        self.newlines(seg, i)
        return j

    def redirection(self, i: int) -> int:
        """``>``, ``2>&1``, ``&>>``, ``<<``...: an Op; a word of unquoted digits just before it
        is its file descriptor (``2>``), not a word."""
        parts, text = self.parts, self.text
        fd = "".join(p.text for p in parts) if self.start is not None and all(p.text.isdigit() and not p.quote for p in parts) else ""
        if fd:
            self.parts, self.start = [], None
        else:
            self.end_word()
        if text[i] == "&":  # &> and &>>
            op = "&>>" if text.startswith("&>>", i) else "&>"
            self.push(Op(op, self.loc(i), redirect=True, needs_target=True))
            return i + len(op)
        m = _REDIR.match(text, i)
        assert m is not None
        self.push(Op(fd + m.group(0), self.loc(i), redirect=True, needs_target=not m.group(3)))
        return m.end()

    def separator(self, i: int) -> int:
        """A newline (then the bodies of the here-documents it ends), ``;``, ``;;``, ``&``,
        ``&&``, ``|`` or ``||``."""
        self.end_word()
        if self.text[i] == "\n":
            self.push(Op("\n", self.loc(i)))
            self.newlines("\n", i)
            return self.heredoc_bodies(i + 1)
        two = self.text[i : i + 2]
        op = two if two in ("&&", "||", ";;") else self.text[i]
        self.push(Op(op, self.loc(i)))
        return i + len(op)

    def plain(self, i: int) -> int:
        """A run of plain characters, part of the current word; ``x)`` in an array ends the
        word, then the array."""
        self.begin(i)
        ch = self.text[i]
        if ch == ")" and self.array is not None:
            self.end_word()
            self.close_array()
            return i + 1
        m = _PLAIN.match(self.text, i)
        seg = m.group() if m else ch
        if self.array is not None and ")" in seg:
            seg = seg[: seg.index(")")] or ch
        self.parts.append(Part(seg))
        return i + len(seg)

    def ansi_c(self, i: int, parts: list[Part]) -> int:
        """The body of ``$'...'`` from ``i``: one single-quoted part, its backslash escapes decoded."""
        text, n, j = self.text, len(self.text), i
        while j < n and text[j] != "'":
            j += 2 if text[j] == "\\" else 1
        if j >= n:
            raise InputError(f"{self.path}:{self.line}:{self.c0 + i - 2 - self.ls}: unterminated $' quote")
        seg = text[i:j]
        parts.append(Part(ansi_c_decode(seg), "'"))
        self.newlines(seg, i)
        return j + 1

    def double_quoted(self, i: int, parts: list[Part]) -> int:
        text, n = self.text, len(self.text)
        while i < n:
            ch = text[i]
            if ch == '"':
                return i + 1
            if ch == "\\" and i + 1 < n and text[i + 1] in '"\\$`\n':
                if text[i + 1] == "\n":
                    self.newlines("\n", i + 1)
                else:
                    parts.append(Part(text[i + 1], '"'))
                i += 2
            elif ch in "$`":
                j = self.expansion(i)
                seg = text[i:j]
                parts.append(Part(seg, '"', expansion=len(seg) > 1))
                self.newlines(seg, i)
                i = j
            else:
                m = _DQ_PLAIN.match(text, i)
                seg = m.group() if m else ch
                parts.append(Part(seg, '"'))
                self.newlines(seg, i)
                i += len(seg)
        raise InputError(f"{self.path}:{self.line}: unterminated \" quote")


def lex(text: str, path: str, line0: int = 1, col0: int = 1) -> list[Item]:
    return _Lexer(text, path, line0, 0, col0).run()


_ANSI_ESCAPE = re.compile(r"\\(?:([abeEfnrtv\\'\"?])|x([0-9A-Fa-f]{1,2})|([0-7]{1,3})|u([0-9A-Fa-f]{1,4})"
                          r"|U([0-9A-Fa-f]{1,8})|c(.))", re.S)
_ANSI_CHAR = {"a": "\a", "b": "\b", "e": "\x1b", "E": "\x1b", "f": "\f", "n": "\n", "r": "\r", "t": "\t", "v": "\v"}


def _ansi_char(m: re.Match[str]) -> str:
    simple, hex2, octal, hex4, hex8, control = m.groups()
    if simple is not None:
        return _ANSI_CHAR.get(simple, simple)
    if control is not None:
        return chr(ord(control) & 0x1F)
    if octal is not None:
        return chr(int(octal, 8) & 0xFF)  # bash keeps the low byte of \777
    code = int(hex2 or hex4 or hex8, 16)
    return chr(code) if code <= 0x10FFFF else m.group()


def ansi_c_decode(body: str) -> str:
    """The text of ``$'body'`` as bash makes it: ``\\n``, ``\\t``, ``\\xHH``, ``\\nnn``, ``\\uHHHH``, ``\\cX``
    and the like decoded, other backslashes kept, cut at a NUL (bash's strings end there)."""
    return _ANSI_ESCAPE.sub(_ansi_char, body).partition("\0")[0] if "\\" in body else body


# --- expansion ----------------------------------------------------------------------------------


class Scope(MutableMapping[str, V]):
    """Names over a base mapping that is read, never copied nor changed: what is set or unset
    goes to this layer (copy on write), so a scope made from a big one costs what it changes,
    not what it holds (a Dockerfile's ENV lines, a command's ``VAR=x`` prefixes)."""

    __slots__ = ("base", "gone", "own")

    def __init__(self, base: Mapping[str, V] | None = None) -> None:
        self.base: Mapping[str, V] = base if base is not None else {}
        self.own: dict[str, V] = {}
        self.gone: set[str] = set()

    def __getitem__(self, name: str) -> V:
        if name in self.own:
            return self.own[name]
        if name in self.gone:
            raise KeyError(name)
        return self.base[name]

    def __setitem__(self, name: str, value: V) -> None:
        self.own[name] = value
        self.gone.discard(name)

    def __delitem__(self, name: str) -> None:
        if name not in self:
            raise KeyError(name)
        self.own.pop(name, None)
        self.gone.add(name)

    def __contains__(self, name: object) -> bool:
        if name in self.own:
            return True
        return name not in self.gone and name in self.base

    def __iter__(self) -> Iterator[str]:
        yield from self.own
        yield from (k for k in self.base if k not in self.own and k not in self.gone)

    def __len__(self) -> int:
        return sum(1 for _ in self)


class Env:
    """The variables a script has set so far (and ``--env``), with where each was set. The
    initial mapping is read through, not copied (``Scope``)."""

    def __init__(self, initial: Mapping[str, str] | None = None) -> None:
        self.values: Scope[str] = Scope(initial)
        self.where: Scope[Location | None] = Scope()
        self.arrays: Scope[list[Token]] = Scope()  # bash arrays: each element a token placed where it is written
        self.unknown: Scope[str] = Scope()  # assigned a value not known here (``$(cmd)``, ``$(( A * 4 ))`` of an unknown A): why
        self.count = 0

    def copy(self) -> Env:
        """A scope for one command (its ``VAR=x`` prefixes) or one ``bash -c`` script: this one
        read through, not copied; this one is not changed while the copy is in use."""
        e = Env(self.values)
        e.where = Scope(self.where)
        e.arrays = Scope(self.arrays)  # a list is changed in place only by the scope that owns it (``+=``)
        e.unknown = Scope(self.unknown)
        return e

    def set(self, name: str, value: str, loc: Location | None) -> None:
        self.values[name] = value[:MAX_VALUE]
        self.where[name] = loc
        self.arrays.pop(name, None)  # a plain assignment makes it a plain variable again
        self.unknown.pop(name, None)

    def set_unknown(self, name: str, why: str, loc: Location | None) -> None:
        """``name`` was assigned a value this reading cannot know: unknown from here on (with
        why), never "unset", so a later ``${name:-default}`` is not taken for the default."""
        self.values.pop(name, None)
        self.arrays.pop(name, None)
        self.unknown[name] = why
        self.where[name] = loc

    def set_array(self, name: str, elements: list[Token], append: bool, loc: Location) -> None:
        """``NAME=(...)`` or ``NAME+=(...)`` (a plain variable appended to becomes element 0), its
        size checked and charged before the list is built; ``+=`` to an array this scope owns
        extends it in place, so appends cost what they add."""
        old: list[Token] = []
        if append:
            old = self.arrays.get(name) or ([Token(self.values[name], loc)] if name in self.values else [])
        _array_room(name, len(old) + len(elements), loc)
        mine = append and self.arrays.own.get(name) is old
        bounds.charge_nodes(len(elements) if mine else len(old) + len(elements), f"{loc}: the array `{name}`")
        if mine:
            old += elements
        new = old if mine else old + elements
        self.arrays[name] = new
        self.where[name] = loc
        if new and new[0].unknown is None:
            self.values[name] = new[0].text  # `$NAME` is element 0
        else:
            self.values.pop(name, None)


def _array_room(name: str, size: int, loc: Location) -> None:
    """Exit 2 before the array ``name`` is built with more than ``MAX_ARRAY`` elements."""
    if size > MAX_ARRAY:
        raise InputError(f"{loc}: the array `{name}` grows past {MAX_ARRAY:,} elements; refusing")


def _counted(env: Env, n: int, what: str) -> None:
    """``n`` more expansions, counted per scope (``MAX_EXPANSIONS``) and charged to the file's
    budget (a file makes a fresh scope per command, script and Dockerfile line)."""
    env.count += n
    if env.count > MAX_EXPANSIONS:
        raise InputError(f"more than {MAX_EXPANSIONS:,} shell expansions")
    bounds.charge_nodes(n, what)


def _grown(size: int, add: int, loc: Location, what: str) -> int:
    """A word's length once a piece of ``add`` characters is added: checked against ``MAX_VALUE``
    and charged to the file's budget before the piece is kept."""
    size += add
    if size > MAX_VALUE:
        raise InputError(f"{loc}: an expanded word of more than {MAX_VALUE:,} characters")
    bounds.charge_chars(add, what)
    return size


def _joined(texts: list[str], loc: Location, what: str) -> str:
    """``texts`` joined with blanks, the result's length checked and charged before the join."""
    _grown(0, sum(map(len, texts)) + max(len(texts) - 1, 0), loc, what)
    return " ".join(texts)


_ARRAY_REF = re.compile(r"\{(#?)([A-Za-z_][A-Za-z0-9_]*)\[([^\]]*)\]\}\Z")


def _array_ref(exp: str, env: Env, loc: Location) -> tuple[str | None, str]:
    """(value or None when unknown, why) for ``${NAME[...]}`` and ``${#NAME[@]}``."""
    m = _ARRAY_REF.match(exp[1:])
    if m is None:
        return None, f"`{exp[:40]}` is not known statically"
    count, name, index = m.groups()
    elements = env.arrays.get(name)
    if elements is None:
        if name in env.values and index in ("0", "@", "*") and not count:
            return env.values[name], ""  # a plain variable is an array of one
        return None, f"`{exp[:40]}` is unset in this file"
    if count:
        return (str(len(elements)), "") if index in ("@", "*") else (None, f"`{exp[:40]}` is not known statically")
    what = f"{loc}: `{exp[:40]}`"
    if index in ("@", "*"):
        chosen = elements
        bounds.charge_nodes(len(chosen), what)  # every element is read
    elif re.fullmatch(r"-?[0-9]+", index) and -len(elements) <= int(index) < len(elements):
        chosen = [elements[int(index)]]
    elif re.fullmatch(r"-?[0-9]+", index):
        return "", ""  # past the end: empty, as in bash
    else:
        return None, f"`{exp[:40]}`: an index kdacheck does not compute"
    unknown = next((t.unknown for t in chosen if t.unknown), None)
    if unknown:
        return None, unknown
    return _joined([t.text for t in chosen], loc, what), ""


_PARAM = re.compile(r"\{([A-Za-z_][A-Za-z0-9_]*)(?:(:?[-=+?])(.*))?\}\Z", re.S)


def _expand_one(exp: str, env: Env, loc: Location, depth: int = 0) -> tuple[str | None, str]:
    """(value or None when unknown, why) for one expansion of the word at ``loc`` (counted by
    the caller), ``depth`` defaults deep (``${A:-${B:-…}}``)."""
    if exp.startswith("$((") and exp.endswith("))"):
        number, why = arith.evaluate(exp[3:-2], env.values, env.unknown)
        return (None, why) if number is None else (str(number), "")
    if exp.startswith(("$(", "`")):
        file = argsfiles.name_of(exp)
        if file is not None:
            return argsfiles.read(file, str(loc))
        return None, f"`{exp[:40]}` is a command substitution (never run)"
    if exp.startswith("<"):  # a placeholder the author left to fill in (the lexer keeps it whole)
        return None, f"`{exp[:60]}` is a placeholder to fill in (a shell would read its `<` as a redirection)"
    body = exp[1:]
    if _ARRAY_REF.match(body):
        return _array_ref(exp, env, loc)
    m = _PARAM.match(body) if body.startswith("{") else None
    name, op, arg = (m.group(1), m.group(2), m.group(3) or "") if m else (body, None, "")
    if not _NAME.fullmatch(name):
        return None, f"`{exp[:40]}` is not known statically"
    value = env.values.get(name)
    if value is None and name in env.unknown:
        return None, f"`${name}` is set from {env.unknown[name]}"
    is_set = value is not None and (value != "" or not (op or "").startswith(":"))
    if op in ("-", ":-"):
        if is_set:
            return value, ""
        return _expand_text(arg, env, loc, depth, exp)
    if op in ("=", ":="):
        if is_set:
            return value, ""
        v, why = _expand_text(arg, env, loc, depth, exp)
        if v is not None:
            env.set(name, v, None)
        return v, why
    if op in ("+", ":+"):
        return (_expand_text(arg, env, loc, depth, exp) if is_set else ("", ""))
    if op in ("?", ":?"):
        return (value, "") if is_set else (None, f"`${name}` is unset in this file")
    if m is None and body.startswith("{"):
        return None, f"`{exp[:40]}` is not known statically"
    if value is None:
        return None, f"`${name}` is unset in this file"
    return value, ""


def _expand_text(text: str, env: Env, loc: Location, depth: int, exp: str) -> tuple[str | None, str]:
    """The default or alternative value of ``exp`` (``${X:-text}``): its own expansions, no
    splitting; lexed again one level deeper (``bounds.deeper``), what it makes charged as it grows."""
    if "$" not in text and "`" not in text:
        return text.strip("\"'"), ""
    what = f"{loc}: `{exp[:40]}`"
    depth = bounds.deeper(depth, what)
    bounds.charge_chars(len(text), what)  # lexed again: its parts are made anew
    words: list[str] = []
    size = 0
    for w in lex(text, "<expansion>"):
        if not isinstance(w, Word):
            continue
        pieces: list[str] = []
        _counted(env, sum(p.expansion for p in w.parts), what)
        for p in w.parts:
            v, why = _expand_one(p.text, env, loc, depth) if p.expansion else (p.text, "")
            if v is None:
                return None, why
            size = _grown(size, len(v), loc, what)
            pieces.append(v)
        words.append("".join(pieces))
    return " ".join(words), ""


def expand(word: Word, env: Env) -> list[Token]:
    """The tokens one word becomes: unquoted expansions split into words, unknowns marked. Its
    fields are lists of pieces joined once; the word's length is checked against ``MAX_VALUE``
    and charged before each piece, so a word past it is refused at that piece."""
    if word.literal is not None:
        return [Token(word.literal, word.loc)]
    if len(word.parts) == 1 and word.parts[0].expansion and not word.parts[0].quote:
        file = argsfiles.name_of(word.parts[0].text)  # `$(cat args.txt)`: its words, placed in the file
        placed, _why = argsfiles.words(file, str(word.loc)) if file is not None else (None, "")
        if placed is not None:
            return placed
    elements = _whole_array(word, env)
    if elements is not None:
        return elements
    fields: list[list[str]] = [[]]
    size, unknown, what = 0, "", f"{word.loc}: `{word.raw[:40]}`"
    _counted(env, sum(p.expansion for p in word.parts), what)
    for p in word.parts:
        value, why = _expand_one(p.text, env, word.loc) if p.expansion else (p.text, "")
        split = p.expansion and not p.quote and value is not None
        if value is None:
            unknown, value = unknown or why, p.text
        size = _grown(size, len(value), word.loc, what)
        if split:
            _split_onto(fields, value, what)
        else:
            fields[-1].append(value)
    texts = [t for t in ("".join(f) for f in fields) if t]
    if not texts and (unknown or any(p.quote for p in word.parts)):
        texts = [""]
    return [Token(t, word.loc, unknown=unknown or None) for t in texts]


def _split_onto(fields: list[list[str]], value: str, what: str) -> None:
    """An unquoted value split at blanks onto a word's fields: its first piece joins the field
    before it unless the value starts with a blank, its last is continued unless it ends with one."""
    pieces = value.split()
    if len(pieces) == 1 and pieces[0] is value:  # no blank in it: the common case
        fields[-1].append(value)
        return
    bounds.charge_nodes(len(pieces), what)
    if not pieces:
        if value:
            fields.append([])  # only blanks: the word breaks there
        return
    if value[:1].isspace():
        fields.append([])
    fields[-1].append(pieces[0])
    fields.extend([piece] for piece in pieces[1:])
    if value[-1:].isspace():
        fields.append([])


def _whole_array(word: Word, env: Env) -> list[Token] | None:
    """A word that is one ``${NAME[@]}`` (or unquoted ``${NAME[*]}``) of a known array: its
    elements as tokens, each where it is written (unquoted: split further); else None. The
    array's length is charged before its elements are copied."""
    if len(word.parts) != 1 or not word.parts[0].expansion:
        return None
    p = word.parts[0]
    m = _ARRAY_REF.match(p.text[1:]) if p.text.startswith("${") else None
    if m is None or m.group(1) or m.group(3) not in ("@", "*") or m.group(2) not in env.arrays:
        return None
    if p.quote and m.group(3) == "*":
        return None  # one word, the elements joined
    elements = env.arrays[m.group(2)]
    what = f"{word.loc}: `{p.text[:40]}`"
    _counted(env, 1, what)
    bounds.charge_nodes(len(elements), what)
    if p.quote:
        return list(elements)
    out: list[Token] = []
    for t in elements:
        if t.unknown:
            out.append(t)
            continue
        pieces = t.text.split()
        bounds.charge_nodes(len(pieces), what)
        out += [Token(piece, t.loc) for piece in pieces]
        if len(out) > MAX_TOKENS:
            raise InputError(f"{word.loc}: an array expanding to more than {MAX_TOKENS:,} words")
    return out


# --- commands -----------------------------------------------------------------------------------


def _simple_commands(items: list[Item]) -> list[tuple[list[Word | ArrayAssign], str | None]]:
    """Split at separators; drop redirections and their targets. With each command, the file its
    standard input reads where that is written plainly: ``< FILE``, or ``cat FILE |`` before it
    (what ``xargs`` turns into arguments)."""
    out: list[tuple[list[Word | ArrayAssign], str | None]] = [([], None)]
    target: str | None = None  # the redirection whose target comes next: "<" (standard input) or another
    for it in items:
        if isinstance(it, Op):
            if it.redirect:
                target = "<" if it.text in ("<", "0<") else "other" if it.needs_target else None
            elif out[-1][0] or it.text == "|":
                prev = [w.literal if isinstance(w, Word) else None for w in out[-1][0]]
                piped = prev[1] if it.text == "|" and len(prev) == 2 and prev[0] == "cat" else None
                out.append(([], piped))
            continue
        if target is not None:
            if target == "<" and isinstance(it, Word) and it.literal:
                out[-1] = (out[-1][0], it.literal)
            target = None
            continue
        out[-1][0].append(it)
    return [c for c in out if c[0]]


def _assignment(w: Word) -> tuple[str, Word] | None:
    first = w.parts[0] if w.parts else None
    if first is None or first.quote or first.expansion:
        return None
    m = _ASSIGN.match(first.text)
    if not m:
        return None
    rest = [Part(first.text[m.end():]), *w.parts[1:]]
    return m.group(1), Word(rest, w.loc)


def _assign_array(a: ArrayAssign, env: Env) -> None:
    """Set an array from its words, expanded now (as bash does at the assignment), its length
    checked after each word, before the next is expanded."""
    elements: list[Token] = []
    for w in a.words:
        elements += expand(w, env)
        _array_room(a.name, len(elements), a.loc)
    env.set_array(a.name, elements, a.append, a.loc)


def _value(w: Word, env: Env) -> tuple[str | None, str]:
    """An assigned value, or (None, why) when part of it is not known here."""
    toks = expand(w, env)
    why = next((t.unknown for t in toks if t.unknown), None)
    if why is not None:
        return None, why
    return _joined([t.text for t in toks], w.loc, f"{w.loc}: an assigned value"), ""


def _assign(env: Env, name: str, w: Word, value_word: Word) -> None:
    """``name=value``: set, or unknown with the reason (``Env.set_unknown``)."""
    value, why = _value(value_word, env)
    if value is not None:
        env.set(name, value, w.loc)
    else:
        env.set_unknown(name, why, w.loc)


def _command_tokens(words: list[Word | ArrayAssign], env: Env) -> list[Token]:
    """The tokens of one command's words, refused past ``MAX_TOKENS`` as they are made."""
    tokens: list[Token] = []
    for w in words:
        if isinstance(w, Word):
            tokens += expand(w, env)
            _words_room(len(tokens), w.loc)
    return tokens


def _words_room(n: int, loc: Location) -> None:
    """Exit 2 once one command holds more than ``MAX_TOKENS`` words after expansion."""
    if n > MAX_TOKENS:
        raise InputError(f"{loc}: a command of more than {MAX_TOKENS:,} words after expansion; refusing")


_SHELLS = ("sh", "bash", "dash", "zsh", "ksh")
_KEYWORDS = frozenset({"if", "then", "elif", "else", "while", "until", "do", "{", "!"})  # a command follows each


def _keyword(w: Word | ArrayAssign) -> bool:
    return isinstance(w, Word) and (w.literal or "") in _KEYWORDS


def read_shell(text: str, path: str, env: Mapping[str, str] | None = None, line0: int = 1, col0: int = 1,
               kind: str = "shell", name: str = "") -> list[LaunchCommand]:
    """Every SGLang launch of a shell text, with its variables expanded as the shell would."""
    return _launches(lex(text, path, line0, col0), Env(env), path, kind, name, 0)


def _launches(items: list[Item], env: Env, path: str, kind: str, name: str, depth: int) -> list[LaunchCommand]:
    found: list[LaunchCommand] = []
    for words, stdin in _simple_commands(items):
        local = env
        i = 0
        while i < len(words) and _keyword(words[i]):
            i += 1  # `then ARGS+=(...)`, `do python -m ...`: the command after a keyword
        while i < len(words):  # VAR=x [VAR=y] [cmd]; NAME=(...)
            w = words[i]
            if isinstance(w, ArrayAssign):
                _assign_array(w, env)
                i += 1
                continue
            a = _assignment(w)
            if a is None:
                break
            if local is env and len(words) > i + 1:
                local = env.copy()  # prefixes apply to that command alone
            _assign(local, a[0], w, a[1])
            i += 1
        rest = words[i:]
        if not rest:
            continue
        head = rest[0].literal if isinstance(rest[0], Word) else None
        if head in _ASSIGNING or head == ":":
            for w in rest[1:]:
                if isinstance(w, ArrayAssign):
                    _assign_array(w, env)  # declare -a NAME=(...), local NAME=(...)
                    continue
                a = _assignment(w)
                if a is not None:
                    _assign(env, a[0], w, a[1])
                else:
                    expand(w, env)  # `: "${X:=d}"` assigns through the expansion
            continue
        tokens = _command_tokens(rest, env)  # prefixes are not seen by the expansion
        k = find_launch(tokens)
        if k is not None:
            cmd = LaunchCommand(path, tokens[k:], kind, tokens[0].loc, name, program=tokens[:k], append=SHELL_WORDS)
            _xargs(cmd, stdin)
            cmd.env = launch_env(local)
            unknown = sorted({t.unknown for t in tokens[k:] if t.unknown})
            cmd.notes += [f"{path}:{cmd.loc.line}: {why}: its value is unknown here"
                          + ("" if "placeholder" in why else " (give it with --env NAME=VALUE)") for why in unknown]
            cmd.unread = [*cmd.unread, *unread_arguments(cmd)] if cmd.tokens else cmd.unread or unread_arguments(cmd)
            cmd.notes += [f"{u}: not read, so not checked" for u in cmd.unread]
            found.append(cmd)
            continue
        found += _inner_script(tokens, local, path, kind, name, depth)
    return found


_XARGS_SPLITS = ("-0", "--null", "-d", "--delimiter", "-n", "--max-args", "-L", "--max-lines", "-I", "-i",
                 "--replace", "-E", "-e", "--eof", "-s", "--max-chars", "-x", "--exit")


def _xargs(cmd: LaunchCommand, stdin: str | None) -> None:
    """``xargs python3 -m sglang.launch_server < args.txt`` (or ``cat args.txt | xargs ...``, ``xargs
    -a args.txt ...``): xargs appends the file's words to the command (GNU xargs's splitting,
    ``argsfiles.xargs_words``), read inside the tree and placed in the file; an xargs that splits
    otherwise or runs the command several times, or reads what is not a file named here, leaves
    the launch unread (ARG009), never passed as if it had no more arguments."""
    at = next((j for j, t in enumerate(cmd.program) if t.text.rsplit("/", 1)[-1] == "xargs"), None)
    if at is None:
        return
    xargs = cmd.program[at]
    opts = cmd.program[at + 1:]
    file = stdin
    for j, t in enumerate(opts):
        if t.text in ("-a", "--arg-file") and j + 1 < len(opts):
            file = opts[j + 1].text
        elif t.text.startswith("--arg-file="):
            file = t.text.split("=", 1)[1]
        elif t.text.startswith("-a") and len(t.text) > 2 and not t.text.startswith("--"):
            file = t.text[2:]
        elif t.text.split("=", 1)[0] in _XARGS_SPLITS or (t.text[:2] in _XARGS_SPLITS and not t.text.startswith("--")):
            cmd.unread.append(Unread(t.loc, f"`xargs {t.text[:40]}` splits its input otherwise or runs the command "
                                     "several times: its arguments were not read"))
            return
    if file is None:
        cmd.unread.append(Unread(xargs.loc, "xargs appends what its standard input holds, which is not a file named here"))
        return
    words, why = argsfiles.xargs_words(file, str(xargs.loc))
    if words is None:
        cmd.unread.append(Unread(xargs.loc, f"xargs reads `{file[:100]}`: {why}"))
        return
    cmd.tokens = cmd.tokens + words
    cmd.notes.append(f"{xargs.loc}: xargs appends the words of {file[:100]} (read as xargs splits them)")


def launch_env(env: Env) -> dict[str, str]:
    """The variables the known-bug table and the rules read (``known_bugs.env_names``: a handful, looked up by
    name, never the whole scope), as set for this launch (its ``VAR=x`` prefixes included)."""
    from kdacheck.known_bugs import env_names

    return {n: env.values[n] for n in sorted(env_names()) if n in env.values}


def _inner_script(tokens: list[Token], env: Env, path: str, kind: str, name: str, depth: int) -> list[LaunchCommand]:
    """`bash -c "..."`: the string is a script of its own, read with this file's variables, one
    level deeper (``MAX_SCRIPT_DEPTH``) and its text charged, as it is lexed again."""
    for j in range(len(tokens) - 2):
        if tokens[j].text.rsplit("/", 1)[-1] in _SHELLS and tokens[j + 1].text == "-c" \
                and looks_like_shell_launch(tokens[j + 2].text):
            inner = tokens[j + 2]
            what = f"{inner.loc}: the `{tokens[j].text[-20:]} -c` script"
            if depth >= MAX_SCRIPT_DEPTH:
                raise InputError(f"{what}: nested more than {MAX_SCRIPT_DEPTH} levels deep; refusing")
            bounds.charge_chars(len(inner.text), what)
            return _launches(lex(inner.text, path, inner.loc.line, inner.loc.col + 1), env.copy(), path, kind, name, depth + 1)
    return []


def unread_arguments(cmd: LaunchCommand) -> list[Unread]:
    """What could hide flags in a launch: no arguments at all after the program, or an unknown
    expansion standing where a flag would be (not a value after a flag), as ``$ARGS``,
    ``"${EXTRA[@]}"`` of an array this file does not set or a Kubernetes ``$(VAR)`` that is
    not in the container's env. Each with its place."""
    if not cmd.tokens:
        return [Unread(cmd.loc, "no arguments after the SGLang program")]
    out = []
    for j, t in enumerate(cmd.tokens):
        if not t.unknown or not t.text.startswith(("$", "`", "<")):
            continue
        prev = cmd.tokens[j - 1].text if j else ""
        if prev.startswith("-") and "=" not in prev:
            continue  # the value of a flag: the flag itself is read
        out.append(Unread(t.loc, f"`{t.text[:60]}` ({t.unknown})"))
    return out


def tokenize(text: str, path: str, line0: int = 1, col0: int = 1, env: dict[str, str] | None = None) -> list[Token]:
    """Shell text as tokens (variables from ``env``; separators come back as tokens too)."""
    e = Env(env)
    out: list[Token] = []
    skip_target = False
    for it in lex(text, path, line0, col0):
        if isinstance(it, ArrayAssign):
            _assign_array(it, e)
            continue
        if isinstance(it, Op):
            if it.redirect:
                skip_target = it.needs_target
            else:
                out.append(Token(it.text, it.loc))
            continue
        if skip_target:
            skip_target = False
            continue
        out += expand(it, e)
        _words_room(len(out), it.loc)
    return out


def launches_in_tokens(tokens: list[Token], path: str, kind: str, name: str = "") -> list[LaunchCommand]:
    found: list[LaunchCommand] = []
    words: list[Token] = []
    for t in [*tokens, Token("\n", tokens[-1].loc if tokens else Location(path))]:
        if t.text in _SEPARATORS and t.is_flag is None:
            if words and (k := find_launch(words)) is not None:
                found.append(LaunchCommand(path, words[k:], kind, words[0].loc, name, program=words[:k], append=SHELL_WORDS))
            words = []
        else:
            words.append(t)
    return found


def looks_like_shell_launch(text: str) -> bool:
    return mentions(text)
