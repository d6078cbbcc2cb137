"""Jupyter notebooks (``.ipynb``): the SGLang launches of their code cells, never executed.

A notebook is JSON with a ``cells`` list (nbformat 4) or ``worksheets[].cells`` (nbformat 3).
It is read by a scanner of its own that keeps only what a launch needs (the cells' type and
source, the kernel's language) and where each source string stands in the file, so every
finding names the ``.ipynb`` at the line and column of the raw file (what GitHub shows, and a
SARIF region it accepts) and its launch is named ``cell N, line L`` (line ``L`` of that cell).
Invalid JSON, nesting past ``bounds.MAX_DEPTH`` and more than ``MAX_CELLS`` cells are exit 2,
naming the file and the field.

In a code cell, as IPython runs it:

- a ``%%bash``, ``%%sh`` or ``%%script bash`` cell is a shell script (``shell.read_shell``);
  a notebook whose kernel is bash reads every code cell so;
- ``!cmd`` and ``%sx``/``%system`` lines (continued with ``\\``) are shell commands; IPython's
  ``{expr}`` and ``$name`` are Python values: known when a literal assignment of the notebook
  (or ``%env``) sets them, else unknown (the launch is "not checked" where they stand);
- ``subprocess`` calls (``Popen``, ``run``, ``call``, ``check_call``, ``check_output``; an argv
  list, or a string: a shell line), ``os.system`` and SGLang's own notebook helper
  ``launch_server_cmd("…")`` (``sglang.utils``, ``sglang.test.doc_patch``: its string is
  split on whitespace, backslashes dropped, as SGLang's ``execute_shell_command`` does), read
  with Python's ``ast``: literal strings, lists and f-strings only, a name assigned such a
  literal before; anything else stands as an unknown word;
- other magics are skipped; a cell that is not valid Python is read for its ``!`` lines only.

A code cell that names SGLang's launcher where no launch could be read from it gives a launch
with nothing read (``LaunchCommand.unread``: "not checked"), never a silent pass; a notebook
whose code never names it is not a launch configuration. ``--fix`` adds a flag as a shell word
inside the source string (JSON-safe words only) where every character of the launch is placed
exactly; an argv list, or a string kdacheck cannot place, says it cannot.
"""

from __future__ import annotations

import ast
import bisect
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from json.decoder import JSONDecodeError, scanstring  # type: ignore[attr-defined]
from typing import NamedTuple

from kdacheck.findings import InputError, Location
from kdacheck.readers import bounds
from kdacheck.readers.base import Append, LaunchCommand, Token, Unread
from kdacheck.readers.shell import (
    find_launch,
    looks_like_shell_launch,
    read_shell,
    unread_arguments,
)

MAX_CELLS = 20_000  # cells in one notebook (large real ones hold a few hundred)
KIND = "notebook"


# --- JSON, with the places of the cells' sources -----------------------------------------------

class Src(NamedTuple):
    """One string of a cell's source: its text, and where its quotes stand in the file."""

    text: str
    start: int  # offset of the opening quote
    end: int  # offset after the closing quote


# What the scanner keeps (``#``: any index); everything else is checked as JSON and dropped.
_CELL = (("cells", "#"), ("cells", "#", "cell_type"), ("cells", "#", "source"), ("cells", "#", "source", "#"),
         ("cells", "#", "input"), ("cells", "#", "input", "#"))
_KEEP = frozenset({(), ("cells",), ("nbformat",), ("worksheets",), ("worksheets", "#"), *_CELL,
                   *(("worksheets", "#", *p) for p in (("cells",), *_CELL)),
                   ("metadata",), ("metadata", "kernelspec"), ("metadata", "kernelspec", "language"),
                   ("metadata", "kernelspec", "name"), ("metadata", "language_info"), ("metadata", "language_info", "name")})
_SOURCE_KEYS = ("source", "input")
_WS = re.compile(r"[ \t\n\r]*")
_NUMBER = re.compile(r"-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][-+]?\d+)?")
_WORDS = {"true": True, "false": False, "null": None, "NaN": None, "Infinity": None, "-Infinity": None}
_CLOSE = {"{": "}", "[": "]"}


def _shape(path: tuple[str | int, ...]) -> tuple[str, ...]:
    return tuple("#" if isinstance(p, int) else p for p in path)


def field_name(path: tuple[str | int, ...]) -> str:
    """``cells[3].source[2]``, as a finding names a field (``the top level`` for ``()``)."""
    out = ""
    for p in path:
        out += f"[{p}]" if isinstance(p, int) else (f".{p}" if out else str(p))
    return out[:200] or "the top level"


def _place(text: str, i: int, path: str) -> str:
    line = text.count("\n", 0, i) + 1
    return f"{path}:{line}:{i - (text.rfind(chr(10), 0, i) + 1) + 1}"


@dataclass
class _Frame:
    box: dict[str, object] | list[object] | None  # None: not kept
    path: tuple[str | int, ...]
    close: str
    key: str = ""
    count: int = 0


def parse(text: str, path: str) -> object:
    """The notebook's JSON as far as ``_KEEP`` goes, its source strings as ``Src``; exit 2 on
    anything that is not JSON (naming the place and the field) or nests past ``MAX_DEPTH``.
    A field's path is built only inside what is kept (a few levels), so the work is linear in
    the text however deep the rest nests."""
    frames: list[_Frame] = []
    where: tuple[str | int, ...] | None = ()  # the field of the value next read; None: inside what is dropped

    def bad(i: int, what: str) -> InputError:
        field = tuple(f.key if f.close == "}" else f.count for f in frames)
        return InputError(f"{_place(text, i, path)}: not valid JSON in {field_name(field)}: {what}")

    i = _WS.match(text).end()  # type: ignore[union-attr]
    while True:
        kept = where is not None and _shape(where) in _KEEP
        c = text[i:i + 1]
        value: object = None
        if c in ("{", "["):
            if len(frames) >= bounds.MAX_DEPTH:
                raise bad(i, f"nested more than {bounds.MAX_DEPTH} levels deep; refusing")
            frame = _Frame(({} if c == "{" else []) if kept else None, where or (), _CLOSE[c])
            frames.append(frame)
            i = _WS.match(text, i + 1).end()  # type: ignore[union-attr]
            if text[i:i + 1] != frame.close:
                i, where = _member(text, i, frame, bad)
                continue
            i += 1
            frames.pop()
            value = frame.box
        elif c == '"':
            try:
                s, end = scanstring(text, i + 1, True)
            except JSONDecodeError as e:
                raise bad(e.pos, e.msg) from None
            value = Src(s, i, end) if kept and where and _is_source(where) else s
            i = end
        else:
            m = _NUMBER.match(text, i)
            word = None if m else next((w for w in _WORDS if text.startswith(w, i)), None)
            if m is None and word is None:
                raise bad(i, "expected a value" if c else "the text ends where a value should be")
            value, i = (0.0, m.end()) if m else (_WORDS[word or ""], i + len(word or ""))  # a number's value is never read
        while True:  # the value is complete: store it, then a comma opens the next, a bracket closes
            if not frames:
                i = _WS.match(text, i).end()  # type: ignore[union-attr]
                if i != len(text):
                    raise bad(i, "more text after the JSON document")
                return value
            top = frames[-1]
            if top.box is not None and kept:
                if isinstance(top.box, dict):
                    top.box[top.key] = value
                else:
                    top.box.append(value)
            top.count += 1
            i = _WS.match(text, i).end()  # type: ignore[union-attr]
            c = text[i:i + 1]
            if c == ",":
                i, where = _member(text, _WS.match(text, i + 1).end(), top, bad)  # type: ignore[union-attr]
                break
            if c != top.close:
                raise bad(i, f"expected `,` or `{top.close}`")
            i += 1
            frames.pop()
            value, kept = top.box, top.box is not None


def _is_source(where: tuple[str | int, ...]) -> bool:
    return len(where) > 1 and (where[-1] in _SOURCE_KEYS or (isinstance(where[-1], int) and where[-2] in _SOURCE_KEYS))


def _member(text: str, i: int, frame: _Frame, bad: Callable[[int, str], InputError]) -> tuple[int, tuple[str | int, ...] | None]:
    """Where the next member's value starts, and its field (None inside what is dropped): in an
    object, after its key."""
    if frame.close == "]":
        return i, None if frame.box is None else (*frame.path, frame.count)
    if text[i:i + 1] != '"':
        raise bad(i, "expected a quoted key")
    try:
        key, end = scanstring(text, i + 1, True)
    except JSONDecodeError as e:
        raise bad(e.pos, e.msg) from None
    i = _WS.match(text, end).end()  # type: ignore[union-attr]
    if text[i:i + 1] != ":":
        raise bad(i, "expected `:` after a key")
    frame.key = key
    return _WS.match(text, i + 1).end(), None if frame.box is None else (*frame.path, key)  # type: ignore[union-attr]


# --- cells, and their places in the file --------------------------------------------------------

_ESCAPE = re.compile(r"\\(?:u[dD][89abAB][0-9a-fA-F]{2}\\u[dD][c-fC-F][0-9a-fA-F]{2}|u[0-9a-fA-F]{4}|.)", re.S)


class _File:
    """The notebook as written: an offset in it as a Location (lines split on ``\\n``)."""

    def __init__(self, text: str, path: str) -> None:
        self.text, self.path = text, path
        self._starts: list[int] = []

    def loc(self, offset: int) -> Location:
        if not self._starts:
            self._starts = [0, *(m.end() for m in re.finditer("\n", self.text))]
        k = bisect.bisect_right(self._starts, offset) - 1
        return Location(self.path, k + 1, offset - self._starts[k] + 1)


@dataclass
class Cell:
    """One cell: its source joined, and how a character of it maps back to the file."""

    number: int  # 1-based, counted from the top of the notebook, every kind of cell included
    kind: str
    pieces: list[Src]
    file: _File
    text: str = ""
    starts: list[int] = field(default_factory=list)  # offset of each piece in ``text``
    lines: list[int] = field(default_factory=list)  # offset of each line of ``text``
    _breaks: dict[int, tuple[list[int], list[int]]] = field(default_factory=dict)

    def __post_init__(self) -> None:
        at = 0
        for p in self.pieces:
            self.starts.append(at)
            at += len(p.text)
        self.text = "".join(p.text for p in self.pieces)
        self.lines = [0, *(m.end() for m in re.finditer("\n", self.text))]

    def offset(self, loc: Location) -> int:
        """A place in the cell's text given as (line, col) of that text."""
        line = min(max(loc.line, 1), len(self.lines))
        return min(self.lines[line - 1] + max(loc.col, 1) - 1, len(self.text))

    def line_of(self, offset: int) -> int:
        return bisect.bisect_right(self.lines, offset)

    def at(self, offset: int) -> Location:
        """Where the character at ``offset`` of the cell's text is written in the file (the
        escape that makes it, for an escaped one)."""
        if not self.pieces:
            return self.file.loc(0)
        k = max(bisect.bisect_right(self.starts, offset) - 1, 0)
        piece = self.pieces[k]
        if k not in self._breaks:  # where each run of unescaped characters starts: (in the text, in the file)
            decs, raws, d, last = [0], [piece.start + 1], 0, piece.start + 1
            for m in _ESCAPE.finditer(self.file.text, piece.start + 1, piece.end - 1):
                d += m.start() - last
                decs += [d, d + 1]
                raws += [m.start(), m.end()]
                d, last = d + 1, m.end()
            bounds.charge_nodes(len(decs), f"{self.file.path}: the escapes of cell {self.number}")
            self._breaks[k] = (decs, raws)
        decs, raws = self._breaks[k]
        d = min(offset - self.starts[k], len(piece.text))
        j = bisect.bisect_right(decs, d) - 1
        return self.file.loc(raws[j] + d - decs[j])


def _kind_of(value: object) -> str:
    return "an object" if isinstance(value, dict) else "a list" if isinstance(value, list) else \
        "a string" if isinstance(value, (str, Src)) else "a number or literal"


def cells_of(doc: object, text: str, path: str) -> tuple[list[Cell], bool]:
    """The cells of a parsed notebook (nbformat 4 ``cells``, nbformat 3 ``worksheets[].cells``)
    and whether its kernel is a shell; exit 2 naming the field that is not a notebook's."""
    if not isinstance(doc, dict):
        raise InputError(f"{path}: not a Jupyter notebook: the top level is {_kind_of(doc)}, not an object")
    raw = doc.get("cells")
    if raw is None and isinstance(doc.get("worksheets"), list):
        raw = [c for ws in doc["worksheets"] if isinstance(ws, dict) and isinstance(ws.get("cells"), list) for c in ws["cells"]]
    if not isinstance(raw, list):
        raise InputError(f"{path}: not a Jupyter notebook: no `cells` list (nbformat 4) nor `worksheets[].cells` (nbformat 3)")
    if len(raw) > MAX_CELLS:
        raise InputError(f"{path}: cell {MAX_CELLS + 1:,}: over {MAX_CELLS:,} cells in one notebook; cells past it were not read")
    meta = doc.get("metadata")
    spec = meta.get("kernelspec") if isinstance(meta, dict) else None
    info = meta.get("language_info") if isinstance(meta, dict) else None
    names = [d.get(k) for d, k in ((spec, "language"), (spec, "name"), (info, "name")) if isinstance(d, dict)]
    shell = any(isinstance(n, str) and n.lower() in ("bash", "sh") for n in names)
    f = _File(text, path)
    out = []
    for n, c in enumerate(raw, 1):
        if not isinstance(c, dict):
            raise InputError(f"{path}: cells[{n - 1}]: a cell is an object, not {_kind_of(c)}")
        src = c.get("source", c.get("input", []))
        pieces = [src] if isinstance(src, Src) else src
        if not isinstance(pieces, list) or not all(isinstance(p, Src) for p in pieces):
            raise InputError(f"{path}: cells[{n - 1}].source: a string or a list of strings, not {_kind_of(src)}")
        kind = c.get("cell_type")
        out.append(Cell(n, kind if isinstance(kind, str) else "", pieces, f))
    return out, shell


def names_launcher(text: str) -> bool:
    """Whether a cell's text names SGLang's launcher (a launch may be in it)."""
    return looks_like_shell_launch(text) or "launch_server_cmd" in text


def relevant(path: str, text: str) -> bool:
    """A notebook found in a folder is linted when a code cell names SGLang's launcher (or it is
    not readable JSON and names SGLang: the error is said); one without the launcher's name in
    its text is not parsed at all."""
    if not names_launcher(text):
        return False
    try:
        cells, _shell = cells_of(parse(text, path), text, path)
    except InputError:
        return "sglang" in text
    return any(c.kind == "code" and names_launcher(c.text) for c in cells)


# --- reading the cells ----------------------------------------------------------------------------

# `%%bash`, `%%sh`, `%%script bash`, `%%script /bin/sh`; `%%writefile x.sh` (a script a later `!bash x.sh` runs)
_SHELL_MAGIC = re.compile(r"%%(?:bash|sh|script[ \t]+(?:\S*/)?(?:ba|da|z)?sh|writefile[ \t]+(?:-a[ \t]+)?\S+\.(?:sh|bash))(?:[ \t]|$)")
_PYTHON_MAGICS = ("%%capture", "%%time", "%%timeit", "%%prun")  # the body is Python
# `!cmd`, `!!cmd`, `x = !cmd`, `%sx cmd`, `%system cmd`: a shell command (IPython's escapes)
_BANG = re.compile(r"(?P<indent>[ \t]*)(?:(?P<target>[A-Za-z_][\w.]*(?:[ \t]*,[ \t]*[A-Za-z_][\w.]*)*)[ \t]*=[ \t]*)?"
                   r"(?:!!?|%sx\b|%system\b)[ \t]*(?P<cmd>.*)")
_LINE_MAGIC = re.compile(r"(?P<indent>[ \t]*)%(?P<name>\w+)[ \t]*(?P<rest>.*)")
_ENV_MAGIC = re.compile(r"([A-Za-z_]\w*)(?:=|[ \t]+)(.*)")
_PY_EXPR = re.compile(r"\{([^{}]*)\}")  # IPython's `{expr}` in a `!` line, an f-string's field
UNKNOWN_PY = "a Python value kdacheck does not evaluate"
_SUBPROCESS = frozenset({"Popen", "run", "call", "check_call", "check_output"})
_SHELL_CALLS = frozenset({("os", "system"), ("os", "popen"), ("subprocess", "getoutput"), ("subprocess", "getstatusoutput")})


@dataclass
class _Notebook:
    """What reading the cells in order knows."""

    path: str
    env: dict[str, str]  # given with --env
    py: dict[str, str] = field(default_factory=dict)  # names a literal assignment (or %env) set
    literals: dict[str, tuple[ast.expr, Cell]] = field(default_factory=dict)  # name -> the literal assigned, in its cell
    used: set[int] = field(default_factory=set)  # ids of literal nodes read as launches
    mentions: list[tuple[ast.expr, Cell]] = field(default_factory=list)  # literals naming the launcher
    launches: list[tuple[int, int, LaunchCommand]] = field(default_factory=list)  # (cell, offset, launch)

    def add(self, cell: Cell, offset: int, cmd: LaunchCommand) -> None:
        self.launches.append((cell.number, offset, cmd))

    def shell_env(self) -> dict[str, str]:
        return {**self.env, **self.py}  # IPython expands `$name` from Python first


def read_notebook(text: str, path: str, env: dict[str, str] | None = None, max_commands: int = 1_000) -> list[LaunchCommand]:
    """Every SGLang launch of a notebook's code cells, each named ``cell N, line L`` and placed
    in the file as written; exit 2 when none is there."""
    from kdacheck.readers.carriers import not_a_launch_configuration

    cells, shell_kernel = cells_of(parse(text, path), text, path)
    nb = _Notebook(path, dict(env or {}))
    for cell in cells:
        if cell.kind != "code" or not cell.text.strip():
            continue
        first, _, rest = cell.text.partition("\n")
        if shell_kernel or _SHELL_MAGIC.match(first):
            _shell_part(cell, rest if not shell_kernel else cell.text, 1 if shell_kernel else 2, 1, nb)
        elif first.startswith("%%") and first.split()[0] not in _PYTHON_MAGICS:
            if names_launcher(rest):
                _unread(cell, len(first) + 1, f"cell {cell.number}: a `{first.split()[0][:40]}` cell: kdacheck does not read it", nb)
        else:
            _python_cell(cell, first.startswith("%%"), nb)
        if len(nb.launches) > max_commands:
            raise InputError(f"{path}: cell {cell.number}: over {max_commands:,} launch commands in one notebook; refusing")
    for node, cell in nb.mentions:
        if id(node) not in nb.used:
            _unread(cell, _node_offset(cell, node), f"cell {cell.number}: a string naming SGLang's launcher that no runner "
                    "kdacheck knows is given (subprocess, os.system, launch_server_cmd, `!`)", nb)
    if not nb.launches:
        told = next((c for c in cells if c.kind != "code" and names_launcher(c.text)), None)
        raise InputError(not_a_launch_configuration(path, "a notebook whose code cells start no SGLang server" + (
            f"; cell {told.number}, a {told.kind or 'untyped'} cell, names the launcher: documentation, never run" if told else "")))
    return [c for _n, _o, c in sorted(nb.launches, key=lambda x: (x[0], x[1]))]


def _unread(cell: Cell, offset: int, what: str, nb: _Notebook) -> None:
    """A launch nothing of which was read: where the launcher is named, and why."""
    loc = cell.at(offset)
    cmd = LaunchCommand(nb.path, [], KIND, loc, f"cell {cell.number}, line {cell.line_of(offset)}", append=None,
                        append_why="nothing of the launch was read")
    cmd.unread = [Unread(loc, what)]
    cmd.notes.append(f"{cmd.unread[0]}: not read, so not checked")
    nb.add(cell, offset, cmd)


def _placed(cmds: list[LaunchCommand], cell: Cell, to_cell: Callable[[Location], int], nb: _Notebook,
            exact: bool, why: str = "", fields: bool = True) -> None:
    """Launches read from part of a cell (their places given in that part's own lines and
    columns: ``to_cell`` makes them offsets of the cell's text) named after the cell, their
    Python values known or unknown, and placed in the file."""
    from kdacheck.readers.yamlfiles import relocate

    for cmd in cmds:
        _python_values(cmd, nb, fields)
        start = to_cell(cmd.loc)
        old = f"{nb.path}:{cmd.loc.line}: "
        relocate([cmd], lambda loc: cell.at(to_cell(loc)))
        cmd.notes = [str(cmd.loc) + ": " + n[len(old):] if n.startswith(old) else n for n in cmd.notes]
        cmd.kind, cmd.name = KIND, f"cell {cell.number}, line {cell.line_of(start)}"
        cmd.append, cmd.append_why = (Append(" ", "shell"), "") if exact else (None, why)
        nb.add(cell, start, cmd)


def _python_values(cmd: LaunchCommand, nb: _Notebook, fields: bool) -> None:
    """IPython's ``{expr}`` (and an f-string's fields, with ``fields``): a name a literal set is
    its value, any other expression an unknown word (not checked where a flag would stand)."""
    toks: list[Token] = []
    for t in cmd.tokens:
        if fields and "{" in t.text and _PY_EXPR.search(t.text):
            text = _PY_EXPR.sub(lambda m: nb.py.get(m.group(1).strip(), m.group(0)), t.text)
            t = Token(text, t.loc, t.origin, t.is_flag, t.unknown or (UNKNOWN_PY if _PY_EXPR.search(text) else None))
        toks.append(t)
    cmd.tokens = toks
    seen = {u.loc for u in cmd.unread}
    extra = [Unread(t.loc, f"`{t.text[:60]}` ({t.unknown})") for j, t in enumerate(toks)
             if t.unknown == UNKNOWN_PY and t.loc not in seen and not _value_of_flag(toks, j)]
    cmd.unread += extra
    cmd.notes += [f"{u}: not read, so not checked" for u in extra]
    cmd.notes += [f"{t.loc}: `{t.text[:60]}`: {UNKNOWN_PY}" for j, t in enumerate(toks) if t.unknown == UNKNOWN_PY and _value_of_flag(toks, j)]


def _value_of_flag(toks: list[Token], j: int) -> bool:
    prev = toks[j - 1].text if j else ""
    return prev.startswith("-") and "=" not in prev


def _shell_part(cell: Cell, text: str, line0: int, col0: int, nb: _Notebook) -> None:
    """A shell script (a ``%%bash`` cell's body, a ``!`` line's command) starting at line
    ``line0``, column ``col0`` of the cell."""
    cmds = read_shell(text, nb.path, nb.shell_env(), line0, col0, KIND)
    start = cell.lines[min(line0, len(cell.lines)) - 1] + col0 - 1
    if not cmds:
        body = "\n".join(ln for ln in text.split("\n") if not ln.lstrip().startswith("#"))
        if names_launcher(body):
            _unread(cell, start, f"cell {cell.number}: names SGLang's launcher, but no launch kdacheck can read", nb)
        return
    _placed(cmds, cell, cell.offset, nb, True)


def _python_cell(cell: Cell, skip_first: bool, nb: _Notebook) -> None:
    """A Python cell as IPython runs it: its ``!`` lines are shell, its other magics skipped,
    the rest read with ``ast`` (never run); not Python: its ``!`` lines alone."""
    lines = cell.text.split("\n")
    py = list(lines)
    if skip_first:
        py[0] = ""
    j = 1 if skip_first else 0
    while j < len(lines):
        bang, magic = _BANG.fullmatch(lines[j]), _LINE_MAGIC.fullmatch(lines[j])
        end = j
        while end + 1 < len(lines) and (bang or magic) and _continued(lines[end]):
            end += 1
        if bang:
            command = "\n".join([bang.group("cmd"), *lines[j + 1:end + 1]])
            _shell_part(cell, command, j + 1, bang.start("cmd") + 1, nb)
            py[j] = bang.group("indent") + (f"{bang.group('target')} = None" if bang.group("target") else "pass")
        elif magic:
            if magic.group("name") == "env" and (m := _ENV_MAGIC.fullmatch(magic.group("rest").strip())):
                nb.py[m.group(1)] = m.group(2).strip()  # `%env NAME=VALUE`: the environment of later `!` lines
            py[j] = magic.group("indent") + "pass"
        for k in range(j + 1, end + 1):
            py[k] = ""
        j = end + 1
    try:
        tree = ast.parse("\n".join(py))
    except (SyntaxError, ValueError, RecursionError, MemoryError) as e:
        rest = "\n".join(ln for ln, p in zip(lines, py, strict=True) if ln == p and not ln.lstrip().startswith("#"))
        if names_launcher(rest):
            line = getattr(e, "lineno", None) or 1
            _unread(cell, cell.lines[min(line, len(cell.lines)) - 1],
                    f"cell {cell.number}: not valid Python ({type(e).__name__}), so only its `!` lines were read", nb)
        return
    _learn(tree, cell, nb)
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            _call(node, cell, nb)
        elif isinstance(node, (ast.Constant, ast.JoinedStr)) and names_launcher(_constant_text(node)):
            nb.mentions.append((node, cell))


def _continued(line: str) -> bool:
    return (len(line) - len(line.rstrip("\\"))) % 2 == 1


def _constant_text(node: ast.expr) -> str:
    if isinstance(node, ast.Constant):
        return node.value if isinstance(node.value, str) else ""
    if isinstance(node, ast.JoinedStr):
        return "".join(v.value for v in node.values if isinstance(v, ast.Constant) and isinstance(v.value, str))
    return ""


def _learn(tree: ast.Module, cell: Cell, nb: _Notebook) -> None:
    """The cell's top-level assignments of literals, in order: names later cells may use
    (``MODEL = "…"`` in ``!… {MODEL}``, ``cmd = [...]`` in ``Popen(cmd)``), and
    ``os.environ["X"] = "…"``."""
    for st in tree.body:
        target, value = (st.targets[0], st.value) if isinstance(st, ast.Assign) and len(st.targets) == 1 else \
            (st.target, st.value) if isinstance(st, ast.AnnAssign) and st.value is not None else (None, None)
        if isinstance(target, ast.Name) and value is not None:
            nb.literals.pop(target.id, None)
            nb.py.pop(target.id, None)
            if isinstance(value, (ast.Constant, ast.List, ast.Tuple, ast.JoinedStr)):
                nb.literals[target.id] = (value, cell)
            if isinstance(value, ast.Constant) and isinstance(value.value, (str, int, float)) and not isinstance(value.value, bool):
                nb.py[target.id] = str(value.value)
        elif isinstance(target, ast.Subscript) and isinstance(value, ast.Constant) and isinstance(value.value, str) \
                and ast.unparse(target.value) == "os.environ" and isinstance(target.slice, ast.Constant):
            nb.py[str(target.slice.value)] = value.value


def _runner(call: ast.Call) -> str | None:
    """How a call runs its argument: ``split`` (SGLang's ``launch_server_cmd``: on whitespace),
    ``argv`` (subprocess: a list, or a string a shell runs), ``shell`` (``os.system``), None."""
    f = call.func
    name = f.attr if isinstance(f, ast.Attribute) else f.id if isinstance(f, ast.Name) else ""
    base = f.value.id if isinstance(f, ast.Attribute) and isinstance(f.value, ast.Name) else ""
    if name == "launch_server_cmd":
        return "split"
    if name in _SUBPROCESS and (base == "subprocess" or (not base and name in ("Popen", "check_call", "check_output"))):
        return "argv"
    return "shell" if (base, name) in _SHELL_CALLS else None


def _call(call: ast.Call, cell: Cell, nb: _Notebook) -> None:
    style = _runner(call)
    if style is None:
        return
    arg: ast.expr | None = call.args[0] if call.args else next(
        (k.value for k in call.keywords if k.arg in ("args", "command", "cmd")), None)
    if isinstance(arg, ast.Call) and isinstance(arg.func, ast.Attribute) and not arg.args and arg.func.attr == "split":
        arg, style = arg.func.value, "split"  # "python -m sglang.launch_server ...".split()
    elif isinstance(arg, ast.Call) and ast.unparse(arg.func) == "shlex.split" and arg.args:
        arg = arg.args[0]
    home = cell
    if isinstance(arg, ast.Name) and arg.id in nb.literals:
        arg, home = nb.literals[arg.id]
    if isinstance(arg, (ast.List, ast.Tuple)):
        nb.used.update(id(e) for e in ast.walk(arg))
        _argv(arg.elts, home, nb)
    elif isinstance(arg, (ast.Constant, ast.JoinedStr)) and _constant_text(arg):
        nb.used.update(id(e) for e in ast.walk(arg))
        _string(arg, home, nb, style)
    elif style == "split":
        _unread(cell, _node_offset(cell, call), f"cell {cell.number}: `launch_server_cmd({ast.unparse(arg)[:60] if arg else ''})`: "
                "its argument is not a literal kdacheck can read", nb)


def _node_offset(cell: Cell, node: ast.expr, end: bool = False) -> int:
    """A node's place as an offset of the cell's text (``ast`` counts UTF-8 bytes in a line)."""
    line, col = (node.end_lineno or node.lineno, node.end_col_offset or 0) if end else (node.lineno, node.col_offset)
    start = cell.lines[min(line, len(cell.lines)) - 1]
    text = cell.text[start:start + col + 1]  # a column in bytes is at most as many characters
    return start + len(text.encode()[:col].decode(errors="ignore"))


def _argv(elts: list[ast.expr], cell: Cell, nb: _Notebook) -> None:
    """``Popen(["python3", "-m", "sglang.launch_server", ...])``: one word per item, placed
    where the item is written; an item that is not a literal is an unknown word."""
    words = []
    for e in elts:
        offset = _node_offset(cell, e)
        if isinstance(e, ast.Constant) and isinstance(e.value, (str, int, float)):
            words.append(Token(str(e.value), Location(nb.path, 1, offset + 1)))
        elif isinstance(e, ast.Name) and e.id in nb.py:
            words.append(Token(nb.py[e.id], Location(nb.path, 1, offset + 1)))
        else:
            words.append(Token("{" + ast.unparse(e)[:100] + "}", Location(nb.path, 1, offset + 1), unknown=UNKNOWN_PY))
    k = find_launch(words)
    if k is None:
        if names_launcher(" ".join(w.text for w in words)):
            _unread(cell, _node_offset(cell, elts[0]), f"cell {cell.number}: names SGLang's launcher, but no launch kdacheck can read", nb)
        return
    cmd = LaunchCommand(nb.path, words[k:], KIND, words[0].loc, program=words[:k], append=None)  # placed below
    cmd.unread = unread_arguments(cmd)
    cmd.notes += [f"{u}: not read, so not checked" for u in cmd.unread]
    _placed([cmd], cell, lambda loc: loc.col - 1, nb, False, "a Python list in a notebook cell: --fix does not write "
            "Python items inside the notebook's JSON", fields=False)


_OPEN = re.compile(r"([rRuUfFbB]{0,2})('''|\"\"\"|'|\")")
_BETWEEN = re.compile(r"(?:\s|\\\n|#[^\n]*)*")
_PY_ESCAPES = {"\n": "", "\\": "\\", "'": "'", '"': '"', "a": "\a", "b": "\b", "f": "\f", "n": "\n", "r": "\r", "t": "\t", "v": "\v"}


def _decoded(seg: str) -> tuple[str, list[int]] | None:
    """A Python string literal's value (implicit concatenation, raw and f-strings, an f-string's
    fields kept as written) and the offset in ``seg`` of each of its characters; None for an
    escape kdacheck does not place (``\\x``, ``\\u``, ``\\N``, octal)."""
    chars: list[str] = []
    offs: list[int] = []
    i = 0
    while (i := _BETWEEN.match(seg, i).end()) < len(seg):  # type: ignore[union-attr]
        m = _OPEN.match(seg, i)
        if m is None:
            return None
        raw, fstr, q, i = "r" in m.group(1).lower(), "f" in m.group(1).lower(), m.group(2), m.end()
        while not seg.startswith(q, i):
            if i >= len(seg):
                return None
            c, n = seg[i], 1
            if c == "\\" and raw:
                n = 2  # kept, and never the end of the literal
            elif c == "\\":
                if seg[i + 1:i + 2] not in _PY_ESCAPES:
                    return None
                c, n = _PY_ESCAPES[seg[i + 1]], 2
            elif fstr and c in "{}":
                if seg.startswith(c * 2, i):
                    n = 2
                elif c == "}" or (n := _field_end(seg, i) - i) <= 0:
                    return None
                else:
                    c = seg[i:i + n]
            for k, ch in enumerate(c):
                chars.append(ch)
                offs.append(i + (k if len(c) == n else 0))
            i += n
        i += len(q)
    return "".join(chars), offs


def _field_end(seg: str, i: int) -> int:
    depth = 0
    for k in range(i, len(seg)):
        depth += {"{": 1, "}": -1}.get(seg[k], 0)
        if depth == 0:
            return k + 1
    return -1


def _string(node: ast.Constant | ast.JoinedStr, cell: Cell, nb: _Notebook, style: str) -> None:
    """A launch written as one Python string: run by a shell (``os.system``, ``shell=True``),
    or split on whitespace (``launch_server_cmd``), each word placed where it is written."""
    start = _node_offset(cell, node)
    got = _decoded(cell.text[start:_node_offset(cell, node, end=True)])
    if got is None or (isinstance(node, ast.Constant) and got[0] != node.value):
        text, offs, exact = _constant_text(node), None, False  # its words all placed at the literal
    else:
        (text, offs), exact = got, True
    lines = [0, *(m.end() for m in re.finditer("\n", text))]

    def to_cell(loc: Location) -> int:
        if offs is None:
            return start
        at = lines[min(max(loc.line, 1), len(lines)) - 1] + loc.col - 1
        return start + (offs[at] if at < len(offs) else (offs[-1] + 1 if offs else 0))

    if style == "split":  # sglang.utils.execute_shell_command: "\\\n" and "\\" become spaces, then str.split()
        spaced = text.replace("\\\n", "  ").replace("\\", " ")
        words = [Token(m.group(), Location(nb.path, bisect.bisect_right(lines, m.start()), m.start() - lines[bisect.bisect_right(lines, m.start()) - 1] + 1))
                 for m in re.finditer(r"\S+", spaced)]
        k = find_launch(words)
        cmds = [] if k is None else [LaunchCommand(nb.path, words[k:], KIND, words[0].loc, program=words[:k], append=None)]
    else:
        cmds = read_shell(text, nb.path, nb.shell_env(), 1, 1, KIND)
    if not cmds:
        if names_launcher(text):
            _unread(cell, start, f"cell {cell.number}: names SGLang's launcher, but no launch kdacheck can read", nb)
        return
    _placed(cmds, cell, to_cell, nb, exact, "the string's escapes: kdacheck does not place an addition in it",
            isinstance(node, ast.JoinedStr))
