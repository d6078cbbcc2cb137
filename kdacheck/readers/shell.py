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
"""

from __future__ import annotations

import re

from kdacheck.findings import InputError, Location
from kdacheck.readers.base import LaunchCommand, Token

_SEPARATORS = {";", "&&", "||", "|", "&", "\n"}
MAX_TOKENS = 50_000  # a real launch line has a few hundred words
MAX_VALUE = 100_000  # characters of one expanded word
MAX_EXPANSIONS = 10_000

_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_ASSIGN = re.compile(r"([A-Za-z_][A-Za-z0-9_]*)=")
_SIMPLE = re.compile(r"[^ \t\r\n'\"\\;&|<>#()$`][^ \t\r\n'\"\\;&|<>$`]*(?=[ \t\r\n;&|]|\Z)")
_PLAIN = re.compile(r"[^ \t\r\n'\"\\;&|<>$`]+")
_DQ_PLAIN = re.compile(r'[^"\\$`]+')
_REDIR = re.compile(r"(\d*)(>>|>&|>\||<<<|<<-|<<|<&|<>|>|<)(&?-|&\d+)?")
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


class _Lexer:
    def __init__(self, text: str, path: str, line: int = 1, ls: int = 0, c0: int = 1) -> None:
        self.text, self.path = text, path
        self.line, self.ls, self.c0 = line, ls, c0  # ls: index where the current line starts; c0: its column
        self.out: list[Word | Op] = []
        self.heredocs: list[tuple[str, bool]] = []  # (delimiter, strip tabs)

    def loc(self, i: int) -> Location:
        return Location(self.path, self.line, self.c0 + i - self.ls)

    def newlines(self, seg: str, at: int) -> None:
        k = seg.count("\n")
        if k:
            self.line += k
            self.ls = at + seg.rfind("\n") + 1
            self.c0 = 1

    def push(self, item: Word | Op) -> None:
        prev = self.out[-1] if self.out else None
        if isinstance(item, Word) and isinstance(prev, Op) and prev.text.lstrip("0123456789") in ("<<", "<<-"):
            self.heredocs.append((item.raw, prev.text.endswith("-")))
        self.out.append(item)
        if len(self.out) > MAX_TOKENS:
            raise InputError(f"{self.path}: more than {MAX_TOKENS:,} shell words")

    def closing(self, i: int, open_: str, close: str) -> int:
        """Index just past the bracket matching the one before ``i`` (quotes respected)."""
        depth, n, text = 1, len(self.text), self.text
        while i < n:
            ch = text[i]
            if ch == "\\":
                i += 2
                continue
            if ch in "'\"":
                j = text.find(ch, i + 1)
                i = n if j < 0 else j + 1
                continue
            if ch == open_:
                depth += 1
            elif ch == close:
                depth -= 1
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
            return self.closing(i + 2, "(", ")")
        if i + 1 < n and text[i + 1] == "{":
            return self.closing(i + 2, "{", "}")
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
            delim, strip = self.heredocs.pop(0)
            while i < n:
                j = text.find("\n", i)
                line = text[i:] if j < 0 else text[i:j]
                self.newlines("\n", j if j >= 0 else n)
                i = n if j < 0 else j + 1
                if (line.lstrip("\t") if strip else line).rstrip("\r") == delim:
                    break
        return i

    def run(self) -> list[Word | Op]:
        text, n, i = self.text, len(self.text), 0
        parts: list[Part] = []
        start: Location | None = None

        def end_word() -> None:
            nonlocal parts, start
            if start is not None:
                self.push(Word(parts, start))
            parts, start = [], None

        while i < n:
            if start is None:
                m = _SIMPLE.match(text, i)
                if m is not None:
                    self.push(Word([Part(m.group())], self.loc(i)))
                    i = m.end()
                    continue
            ch = text[i]
            if ch in " \t\r":
                end_word()
                i += 1
                continue
            if ch == "\\":
                if text.startswith("\n", i + 1):
                    self.newlines("\n", i + 1)
                    i += 2
                    continue
                if text.startswith("\r\n", i + 1):
                    self.newlines("\n", i + 2)
                    i += 3
                    continue
                if start is None:
                    start = self.loc(i)
                if i + 1 < n:
                    parts.append(Part(text[i + 1], "'"))
                i += 2
                continue
            if ch == "'":
                start = start or self.loc(i)
                j = text.find("'", i + 1)
                if j < 0:
                    raise InputError(f"{self.path}:{self.line}:{self.c0 + i - self.ls}: unterminated ' quote")
                seg = text[i + 1 : j]
                parts.append(Part(seg, "'"))
                self.newlines(seg, i + 1)
                i = j + 1
                continue
            if ch == '"':
                start = start or self.loc(i)
                i = self.double_quoted(i + 1, parts)
                continue
            if ch in "$`":
                start = start or self.loc(i)
                j = self.expansion(i)
                seg = text[i:j]
                parts.append(Part(seg, "", expansion=len(seg) > 1))
                self.newlines(seg, i)
                i = j
                continue
            if ch == "#" and start is None:
                j = text.find("\n", i)
                i = n if j < 0 else j
                continue
            if ch in "<>" or (ch == "&" and text.startswith(">", i + 1)):
                fd = "".join(p.text for p in parts) if start is not None and all(p.text.isdigit() and not p.quote for p in parts) else ""
                if fd:
                    parts, start = [], None
                else:
                    end_word()
                if ch == "&":  # &> and &>>
                    op = "&>>" if text.startswith("&>>", i) else "&>"
                    self.push(Op(op, self.loc(i), redirect=True, needs_target=True))
                    i += len(op)
                    continue
                m = _REDIR.match(text, i)
                assert m is not None
                dup = m.group(3)
                self.push(Op(fd + m.group(0), self.loc(i), redirect=True, needs_target=not dup))
                i = m.end()
                continue
            if ch == "\n" or ch in ";&|":
                end_word()
                if ch == "\n":
                    self.push(Op("\n", self.loc(i)))
                    self.newlines("\n", i)
                    i = self.heredoc_bodies(i + 1)
                    continue
                two = text[i : i + 2]
                op = two if two in ("&&", "||", ";;") else ch
                self.push(Op(op, self.loc(i)))
                i += len(op)
                continue
            if ch in "()" and start is None:
                self.push(Op(ch, self.loc(i)))  # subshells and groups: a command boundary
                i += 1
                continue
            start = start or self.loc(i)
            m = _PLAIN.match(text, i)
            seg = m.group() if m else ch
            parts.append(Part(seg))
            i += len(seg)
        end_word()
        return self.out

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


def lex(text: str, path: str, line0: int = 1, col0: int = 1) -> list[Word | Op]:
    return _Lexer(text, path, line0, 0, col0).run()


# --- expansion ----------------------------------------------------------------------------------


class Env:
    """The variables a script has set so far (and ``--env``), with where each was set."""

    def __init__(self, initial: dict[str, str] | None = None) -> None:
        self.values: dict[str, str] = dict(initial or {})
        self.where: dict[str, Location | None] = dict.fromkeys(self.values)
        self.count = 0

    def copy(self) -> Env:
        e = Env(self.values)
        e.where = dict(self.where)
        return e

    def set(self, name: str, value: str, loc: Location | None) -> None:
        self.values[name] = value[:MAX_VALUE]
        self.where[name] = loc


_PARAM = re.compile(r"\{([A-Za-z_][A-Za-z0-9_]*)(?:(:?[-=+?])(.*))?\}\Z", re.S)


def _expand_one(exp: str, env: Env, quoted: bool) -> tuple[str | None, str]:
    """(value or None when unknown, why) for one expansion."""
    env.count += 1
    if env.count > MAX_EXPANSIONS:
        raise InputError("more than 10,000 shell expansions")
    if exp.startswith(("$(", "`")):
        return None, f"`{exp[:40]}` is a command substitution (never run)"
    body = exp[1:]
    m = _PARAM.match(body) if body.startswith("{") else None
    name, op, arg = (m.group(1), m.group(2), m.group(3) or "") if m else (body, None, "")
    if not _NAME.fullmatch(name):
        return None, f"`{exp[:40]}` is not known statically"
    value = env.values.get(name)
    is_set = value is not None and (value != "" or not (op or "").startswith(":"))
    if op in ("-", ":-"):
        if is_set:
            return value, ""
        return _expand_text(arg, env)
    if op in ("=", ":="):
        if is_set:
            return value, ""
        v, why = _expand_text(arg, env)
        if v is not None:
            env.set(name, v, None)
        return v, why
    if op in ("+", ":+"):
        return (_expand_text(arg, env) if is_set else ("", ""))
    if op in ("?", ":?"):
        return (value, "") if is_set else (None, f"`${name}` is unset in this file")
    if m is None and body.startswith("{"):
        return None, f"`{exp[:40]}` is not known statically"
    if value is None:
        return None, f"`${name}` is unset in this file"
    return value, ""


def _expand_text(text: str, env: Env) -> tuple[str | None, str]:
    """A default or alternative value (``${X:-...}``): its own expansions, no splitting."""
    if "$" not in text and "`" not in text:
        return text.strip("\"'"), ""
    words = [w for w in lex(text, "<expansion>") if isinstance(w, Word)]
    out = []
    for w in words:
        for p in w.parts:
            if p.expansion:
                v, why = _expand_one(p.text, env, True)
                if v is None:
                    return None, why
                out.append(v)
            else:
                out.append(p.text)
    return " ".join(out) if len(words) > 1 else "".join(out), ""


def expand(word: Word, env: Env) -> list[Token]:
    """The tokens one word becomes: unquoted expansions split into words, unknowns marked."""
    if word.literal is not None:
        return [Token(word.literal, word.loc)]
    fields: list[str] = [""]
    unknown = ""
    for p in word.parts:
        if not p.expansion:
            fields[-1] += p.text
            continue
        value, why = _expand_one(p.text, env, bool(p.quote))
        if value is None:
            unknown = unknown or why
            fields[-1] += p.text
            continue
        if p.quote:
            fields[-1] += value
            continue
        pieces = value.split()
        if not pieces:
            continue
        if value[:1].isspace():
            fields.append("")
        fields[-1] += pieces[0]
        fields += pieces[1:]
        if value[-1:].isspace():
            fields.append("")
    fields = [f for f in fields if f != ""] or ([] if not unknown and all(not p.quote for p in word.parts) else [""])
    if sum(len(f) for f in fields) > MAX_VALUE:
        raise InputError(f"{word.loc}: an expanded word of more than {MAX_VALUE:,} characters")
    return [Token(f, word.loc, unknown=unknown or None) for f in fields]


# --- commands -----------------------------------------------------------------------------------


def _simple_commands(items: list[Word | Op]) -> list[list[Word]]:
    """Split at separators; drop redirections and their targets."""
    out: list[list[Word]] = [[]]
    skip_target = False
    for it in items:
        if isinstance(it, Op):
            if it.redirect:
                skip_target = it.needs_target
            elif out[-1]:
                out.append([])
            continue
        if skip_target:
            skip_target = False
            continue
        out[-1].append(it)
    return [c for c in out if c]


def _assignment(w: Word) -> tuple[str, Word] | None:
    first = w.parts[0] if w.parts else None
    if first is None or first.quote or first.expansion:
        return None
    m = _ASSIGN.match(first.text)
    if not m:
        return None
    rest = [Part(first.text[m.end():]), *w.parts[1:]]
    return m.group(1), Word(rest, w.loc)


def _value(w: Word, env: Env) -> str | None:
    toks = expand(w, env)
    if any(t.unknown for t in toks):
        return None
    return " ".join(t.text for t in toks)


_PROGRAM_MODULES = {"sglang.launch_server", "sglang.launch_server.py"}


def find_launch(words: list[Token]) -> int | None:
    """Index of the first SGLang argument in one simple command, or None if not a launch.

    Recognises ``python[3] -m sglang.launch_server``, ``sglang serve``, ``sglang.launch_server``
    run as a script, behind ``env``, ``exec``, ``nohup``, ``time``, ``numactl``, ``taskset``,
    ``docker run IMAGE``, ``torchrun``, ``srun``, ``mpirun``, ``uv run``, ``conda run`` and the
    like (anything before the program is skipped).
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


_SHELLS = ("sh", "bash", "dash", "zsh", "ksh")


def read_shell(text: str, path: str, env: dict[str, str] | None = None, line0: int = 1, col0: int = 1,
               kind: str = "shell", name: str = "") -> list[LaunchCommand]:
    """Every SGLang launch of a shell text, with its variables expanded as the shell would."""
    return _launches(lex(text, path, line0, col0), Env(env), path, kind, name, 0)


def _launches(items: list[Word | Op], env: Env, path: str, kind: str, name: str, depth: int) -> list[LaunchCommand]:
    found: list[LaunchCommand] = []
    for words in _simple_commands(items):
        local = env
        i = 0
        while i < len(words) and (a := _assignment(words[i])) is not None:  # VAR=x [VAR=y] [cmd]
            if local is env and len(words) > i + 1:
                local = env.copy()  # prefixes apply to that command alone
            value = _value(a[1], local)
            if value is not None:
                local.set(a[0], value, words[i].loc)
            else:
                local.values.pop(a[0], None)
            i += 1
        rest = words[i:]
        if not rest:
            continue
        head = rest[0].literal
        if head in _ASSIGNING or head == ":":
            for w in rest[1:]:
                a = _assignment(w)
                if a is not None:
                    value = _value(a[1], env)
                    if value is not None:
                        env.set(a[0], value, w.loc)
                else:
                    expand(w, env)  # `: "${X:=d}"` assigns through the expansion
            continue
        tokens = [t for w in rest for t in expand(w, env)]  # prefixes are not seen by the expansion
        k = find_launch(tokens)
        if k is not None:
            cmd = LaunchCommand(path, tokens[k:], kind, tokens[0].loc, name)
            unknown = sorted({t.unknown for t in tokens[k:] if t.unknown})
            cmd.notes += [f"{path}:{cmd.loc.line}: {why}: its value is unknown here (give it with --env NAME=VALUE)" for why in unknown]
            found.append(cmd)
            continue
        # `bash -c "..."`: the string is a script of its own, read with this file's variables
        if depth < 4:
            for j in range(len(tokens) - 2):
                if tokens[j].text.rsplit("/", 1)[-1] in _SHELLS and tokens[j + 1].text == "-c" \
                        and looks_like_shell_launch(tokens[j + 2].text):
                    inner = tokens[j + 2]
                    found += _launches(lex(inner.text, path, inner.loc.line, inner.loc.col + 1), local.copy(), path, kind, name, depth + 1)
                    break
    return found


def tokenize(text: str, path: str, line0: int = 1, col0: int = 1, env: dict[str, str] | None = None) -> list[Token]:
    """Shell text as tokens (variables from ``env``; separators come back as tokens too)."""
    e = Env(env)
    out: list[Token] = []
    skip_target = False
    for it in lex(text, path, line0, col0):
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
    return out


def launches_in_tokens(tokens: list[Token], path: str, kind: str, name: str = "") -> list[LaunchCommand]:
    found: list[LaunchCommand] = []
    words: list[Token] = []
    for t in [*tokens, Token("\n", tokens[-1].loc if tokens else Location(path))]:
        if t.text in _SEPARATORS and t.is_flag is None:
            if words and (k := find_launch(words)) is not None:
                found.append(LaunchCommand(path, words[k:], kind, words[0].loc, name))
            words = []
        else:
            words.append(t)
    return found


def looks_like_shell_launch(text: str) -> bool:
    return "sglang.launch_server" in text or "sglang serve" in text or "sglang/launch_server" in text
