"""The YAML layer every YAML reader shares, and SGLang's own ``--config`` YAML.

YAML is composed into nodes with PyYAML's safe loader (no object construction, no tags
executed), walked with a node budget so that alias bombs cost nothing, and every token keeps
the line and column of its node. The carriers' readers (kubernetes.py, compose.py,
carriers.py, finder.py) build on it: argv lists, scripts held in strings and the
substitutions their formats make, and where ``--fix`` may add an item.
"""

from __future__ import annotations

import io
import json
import re
from collections.abc import Callable
from typing import Any

import yaml

from kdacheck.findings import InputError, Location
from kdacheck.readers import bounds
from kdacheck.readers.base import Append, LaunchCommand, Token
from kdacheck.readers.shell import tokenize

MAX_NODES = 200_000  # nodes walked, alias re-visits included
MAX_EVENTS = 200_000  # parser events in one file (scalars, collection starts and ends)
MAX_DEPTH = 64
Pair = tuple[yaml.Node, yaml.Node]

# libyaml when PyYAML was built with it (about ten times faster); the pure-Python one otherwise.
LOADER: Any = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
_SCALARS = yaml.constructor.SafeConstructor()
_RESOLVER = yaml.resolver.Resolver()

_STD = "tag:yaml.org,2002:"
# The tags yaml.safe_load (what SGLang's --config loader uses) understands, plus "!".
ALLOWED_TAGS = frozenset(
    {"!"} | {_STD + t for t in ("str", "int", "float", "bool", "null", "seq", "map", "timestamp", "binary", "set", "omap", "pairs", "merge", "value")}
)


def _short_tag(tag: str) -> str:
    return "!!" + tag[len(_STD) :] if tag.startswith(_STD) else tag


class Budget:
    """The nodes one walk visits (alias re-visits included), each also charged to the file's
    budget (``bounds``), so a walk repeated over an aliased node costs the file, not a fresh 200,000."""

    def __init__(self, path: str) -> None:
        self.path = path
        self.nodes = 0

    def spend(self, node: yaml.Node, depth: int, n: int = 1) -> None:
        self.nodes += n
        if self.nodes > MAX_NODES:
            raise InputError(
                f"{self.path}: YAML too large or alias-expanding (over {MAX_NODES:,} nodes); refusing"
            )
        if depth > MAX_DEPTH:
            raise InputError(f"{node_loc(self.path, node)}: YAML nested deeper than {MAX_DEPTH} levels")
        file = bounds.current()
        if file.nodes + n > bounds.MAX_FILE_NODES:  # the place is formatted only when it is said
            file.charge_nodes(n, f"{node_loc(self.path, node)}: a YAML node")
        file.nodes += n


class _Memo:
    """What the reading of one file works out once per node: a mapping's pairs with its merge
    keys expanded, an env map's variables. An alias or a merge key used many times is then read
    once (each use still charged to the file's budget by its reader). Owned by the file's
    budget: ``bounds.start`` opens a new budget, so a new file never sees another's entries,
    and the nodes it holds (keys, so never a reused id) live only as long as that file's read."""

    __slots__ = ("busy", "envs", "flat", "found", "owner", "pairs")

    def __init__(self, owner: bounds.Budget) -> None:
        self.owner = owner
        self.flat: dict[yaml.Node, list[Pair]] = {}  # merged pairs as PyYAML flattens them, own pairs last
        self.pairs: dict[yaml.Node, list[Pair]] = {}  # what ``pairs`` gives
        self.found: dict[tuple[yaml.Node, str], yaml.Node | None] = {}  # (mapping, key) -> its value
        self.envs: dict[tuple[str, yaml.Node], Any] = {}  # (reader, env node) -> its variables
        self.busy: set[yaml.Node] = set()  # mappings whose merges are being expanded (a cycle, the depth)


_memo = _Memo(bounds.current())


def memo() -> _Memo:
    """The memo of the file being read (the one ``bounds.current()`` charges)."""
    global _memo
    if _memo.owner is not bounds.current():
        _memo = _Memo(bounds.current())
    return _memo


def ordinal(n: int) -> str:
    """``1st``, ``2nd``, ``65th``, ``10,001st``."""
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n:,}{suffix}"


def node_loc(path: str, node: yaml.Node) -> Location:
    return Location(path, node.start_mark.line + 1, node.start_mark.column + 1)


def node_at(node: yaml.Node) -> Location:
    """Where a node is written: ``compose_all`` names its stream after the file, so every mark
    carries the file's path (readers that are not given one, like ``pairs``, name it too)."""
    return node_loc(node.start_mark.name, node)


def _mark_loc(path: str, mark: Any) -> Location:
    return Location(path, mark.line + 1, mark.column + 1) if mark is not None else Location(path)


def precheck(text: str, path: str) -> None:
    """One streaming pass over the parser's events, before anything is built: refuse
    documents that are too big, nested too deeply (PyYAML's composer recurses) or carry a
    tag that ``yaml.safe_load`` would refuse (``!!python/object/apply:...``)."""
    depth = 0
    starts = (yaml.SequenceStartEvent, yaml.MappingStartEvent)
    ends = (yaml.SequenceEndEvent, yaml.MappingEndEvent)
    for n, ev in enumerate(yaml.parse(text, Loader=LOADER), 1):
        if n > MAX_EVENTS:
            raise InputError(f"{path}: YAML too large (over {MAX_EVENTS:,} nodes); refusing")
        if isinstance(ev, starts):
            depth += 1
            if depth > MAX_DEPTH:
                raise InputError(f"{_mark_loc(path, ev.start_mark)}: YAML nested deeper than {MAX_DEPTH} levels")
        elif isinstance(ev, ends):
            depth -= 1
        tag = getattr(ev, "tag", None)
        if tag is not None and tag not in ALLOWED_TAGS:
            raise InputError(
                f"{_mark_loc(path, ev.start_mark)}: YAML tag `{_short_tag(tag)}` is not allowed: "
                "launch configurations are plain YAML (SGLang's yaml.safe_load refuses it too); nothing was run"
            )


PRECHECK_FROM = 64 * 1024  # characters; below, libyaml's own depth limit and the walks' budget suffice
_last: tuple[str, str, list[yaml.Node]] | None = None  # discover's relevance test, then the lint


def compose_all(text: str, path: str, keep: bool = True) -> list[yaml.Node]:
    """The documents of ``text`` as nodes (nothing constructed), every mark naming ``path``.
    Big texts, texts with a ``!`` (a possible tag) and the pure-Python loader (its composer
    recurses) get the streaming pre-check first. With ``keep``, the result is kept: a file found
    in a folder is composed once for the relevance test and once for the lint."""
    global _last
    if _last is not None and _last[0] == path and _last[1] == text:
        return _last[2]
    try:
        if len(text) > PRECHECK_FROM or "!" in text or LOADER is yaml.SafeLoader:
            precheck(text, path)
        stream = io.StringIO(text)
        stream.name = path  # the loaders name every mark after it
        docs = [n for n in yaml.compose_all(stream, Loader=LOADER) if n is not None]
        if keep:
            _last = (path, text, docs)
        return docs
    except yaml.YAMLError as e:
        mark = getattr(e, "problem_mark", None)
        where = f"{path}:{mark.line + 1}:{mark.column + 1}" if mark else path
        problem = getattr(e, "problem", None) or str(e).splitlines()[0]
        raise InputError(f"{where}: invalid YAML: {problem}") from None
    except RecursionError:
        raise InputError(f"{path}: YAML nested too deeply") from None


def compose_one(text: str, path: str) -> yaml.Node | None:
    """The single document of an SGLang ``--config`` file (None when empty); not kept (its
    nodes are read into tokens once, then let go)."""
    docs = compose_all(text, path, keep=False)
    if len(docs) > 1:
        raise InputError(f"{path}: several YAML documents in an SGLang --config file")
    return docs[0] if docs else None


def scalar(node: yaml.ScalarNode, path: str = "") -> Any:
    """A scalar node's Python value (safe: str, int, float, bool, None, dates as str).

    A value with an explicit standard tag that does not fit it (``!!int abc``) is an input
    error, as it is for ``yaml.safe_load``; an untagged one that merely looks like a date or a
    number stays a string.
    """
    try:
        value = _SCALARS.construct_object(node)
        _SCALARS.constructed_objects.pop(node, None)  # the constructor keeps every node it made: not here
    except Exception:
        _SCALARS.recursive_objects.pop(node, None)
        if node.tag in ALLOWED_TAGS and node.tag not in (_STD + "str", "!") and _explicit(node):
            raise InputError(
                f"{node_loc(path, node)}: `{_short_tag(node.tag)} {node.value[:40]!r}` is not a valid {_short_tag(node.tag)} value"
            ) from None
        return node.value
    return value if isinstance(value, (str, int, float, bool, type(None))) else node.value


def _explicit(node: yaml.ScalarNode) -> bool:
    """Whether the node's tag was written in the file (not resolved from its look)."""
    implicit = _RESOLVER.resolve(yaml.ScalarNode, node.value, (True, False))
    return bool(node.tag != implicit)


MERGE_TAG = "tag:yaml.org,2002:merge"
MAX_MERGED_PAIRS = 200_000  # key/value pairs one mapping may expand to through merge keys


def pairs(node: yaml.MappingNode) -> list[Pair]:
    """A mapping's key/value nodes with ``<<`` merge keys expanded as ``yaml.safe_load`` does
    (SafeConstructor.flatten_mapping): merged pairs first, so that the mapping's own keys win;
    in ``<<: [*a, *b]`` the mappings are merged in order, so *b's keys win (PyYAML 6.0.4, checked
    against ``yaml.safe_load`` in tests/test_readers.py). A merged pair that a later key
    overrides is dropped (only the pair that applies is read); the mapping's own keys are all
    kept, so a key written twice is still seen twice. A mapping with merge keys is worked out
    once per file (``memo``), so one read many times, or merged into many, is expanded once;
    one without is its own list (nothing kept: a --config's nodes are let go once read)."""
    if not any(k.tag == MERGE_TAG for k, _v in node.value):
        return node.value
    m = memo()
    done = m.pairs.get(node)
    if done is not None:
        return done
    flat = _flat(node, m)
    own = [p for p in node.value if p[0].tag != MERGE_TAG]
    later = {k.value for k, _v in own if isinstance(k, yaml.ScalarNode)}
    kept: list[Pair] = []
    for pair in reversed(flat[: len(flat) - len(own)]):
        k = pair[0]
        if not isinstance(k, yaml.ScalarNode):
            kept.append(pair)
        elif k.value not in later:
            later.add(k.value)
            kept.append(pair)
    m.pairs[node] = done = kept[::-1] + own
    return done


def _flat(node: yaml.MappingNode, m: _Memo) -> list[Pair]:
    """The pairs merged in through ``<<`` (in order, as PyYAML flattens them) then the mapping's
    own: ``node.value`` itself where it merges nothing. Memoised per mapping, and each expansion
    charged to the file's budget once, before it is built."""
    if not any(k.tag == MERGE_TAG for k, _v in node.value):
        return node.value
    done = m.flat.get(node)
    if done is not None:
        return done
    if node in m.busy or len(m.busy) >= MAX_DEPTH:
        why = "merges a mapping into itself" if node in m.busy else f"nested deeper than {MAX_DEPTH} levels"
        raise InputError(f"{node_at(node)}: YAML merge keys {why}; refusing")
    m.busy.add(node)
    try:
        merged = _merged(node, m)
    finally:
        m.busy.discard(node)
    m.flat[node] = done = merged + [p for p in node.value if p[0].tag != MERGE_TAG]
    return done


def _merged(node: yaml.MappingNode, m: _Memo) -> list[Pair]:
    """The pairs a mapping's ``<<`` keys merge in, in order (see ``_flat``)."""
    merged: list[Pair] = []
    for k, v in node.value:
        if k.tag != MERGE_TAG:
            continue
        sources = v.value if isinstance(v, yaml.SequenceNode) else [v]
        if not all(isinstance(s, yaml.MappingNode) for s in sources):
            raise InputError(f"{node_at(k)}: a `<<` merge key needs a mapping or a list of mappings")
        for source in sources:  # in order: a later mapping's keys win
            more = _flat(source, m)
            if len(merged) + len(more) > MAX_MERGED_PAIRS:
                raise InputError(f"{node_at(k)}: YAML merge keys expand to over {MAX_MERGED_PAIRS:,} keys; refusing")
            bounds.charge_nodes(len(more), f"{node_at(k)}: a `<<` merge key")
            merged += more
    return merged


def to_python(node: yaml.Node, budget: Budget, depth: int = 0) -> Any:
    budget.spend(node, depth)
    if isinstance(node, yaml.ScalarNode):
        return scalar(node, budget.path)
    if isinstance(node, yaml.SequenceNode):
        return [to_python(n, budget, depth + 1) for n in node.value]
    if isinstance(node, yaml.MappingNode):
        return {str(to_python(k, budget, depth + 1)): to_python(v, budget, depth + 1) for k, v in pairs(node)}
    return None


def mapping_get(node: yaml.Node, key: str) -> yaml.Node | None:
    """The value of ``key`` in a mapping as ``yaml.safe_load`` gives it (the last one wins, its
    own keys over merged ones, a later merged mapping over an earlier), None where absent. Looked
    up through the mappings ``<<`` merges rather than a flattened copy, and memoised per file,
    so ``<<: *base`` in many mappings reads ``base`` once per key."""
    if not isinstance(node, yaml.MappingNode):
        return None
    return _lookup(node, key, memo(), 0)


def _lookup(node: yaml.MappingNode, key: str, m: _Memo, depth: int) -> yaml.Node | None:
    if (node, key) in m.found:
        return m.found[node, key]
    if depth > MAX_DEPTH:
        raise InputError(f"{node_at(node)}: YAML merge keys nested deeper than {MAX_DEPTH} levels; refusing")
    found = None
    merges = []
    for k, v in reversed(node.value):
        if k.tag == MERGE_TAG:
            merges.append((k, v))
        elif isinstance(k, yaml.ScalarNode) and k.value == key:
            found = v
            break
    for k, v in merges if found is None else ():  # the last merged mapping that has it
        sources = v.value if isinstance(v, yaml.SequenceNode) else [v]
        if not all(isinstance(s, yaml.MappingNode) for s in sources):
            raise InputError(f"{node_at(k)}: a `<<` merge key needs a mapping or a list of mappings")
        for source in reversed(sources):
            found = _lookup(source, key, m, depth + 1)
            if found is not None:
                break
        if found is not None:
            break
    m.found[node, key] = found
    return found


def _yaml_text(value: Any) -> str:
    """How SGLang's config merger turns a YAML value into an argv string: ``str(value)``."""
    return str(value)


# --- SGLang --config files --------------------------------------------------------------


class NotAMapping(InputError):
    """An SGLang --config whose root is no mapping (SGLang's merger refuses it: ``detect.expand_config``)."""


def config_tokens(doc: yaml.Node, path: str, off: list[Token] | None = None) -> list[Token]:
    """Tokens of an SGLang ``--config`` YAML, with SGLang's semantics.

    Each key becomes ``--KEY`` verbatim (underscores stay underscores); ``true`` becomes the
    bare flag and ``false`` drops it; a list becomes the flag followed by its items; a mapping
    becomes one JSON string. A key set to ``false`` is still read by SGLang's merger, which
    refuses some keys whatever their value: with ``off``, those keys' flags are put there
    (``LaunchCommand.config_off``).
    """
    if not isinstance(doc, yaml.MappingNode):
        raise NotAMapping(
            f"{node_loc(path, doc)}: an SGLang --config YAML must be a mapping of flag names to values"
        )
    budget = Budget(path)
    tokens: list[Token] = []
    for key_node, value_node in pairs(doc):
        budget.spend(key_node, 1)
        if not isinstance(key_node, yaml.ScalarNode):
            raise InputError(f"{node_loc(path, key_node)}: a --config key must be a plain name")
        key = str(scalar(key_node, path))
        flag = Token(f"--{key}", node_loc(path, key_node), "yaml", True)
        vloc = node_loc(path, value_node)
        if isinstance(value_node, yaml.ScalarNode):
            value = scalar(value_node, path)
            if isinstance(value, bool):
                if value:
                    tokens.append(flag)
                elif off is not None:
                    off.append(flag)
                continue
            tokens += [flag, Token(_yaml_text(value), vloc, "yaml", False)]
        elif isinstance(value_node, yaml.SequenceNode):
            tokens.append(flag)
            for item in value_node.value:
                v = to_python(item, budget, 1)
                text = json.dumps(v) if isinstance(v, (dict, list)) else _yaml_text(v)
                tokens.append(Token(text, node_loc(path, item), "yaml", False))
        else:
            value = to_python(value_node, budget, 1)
            tokens += [flag, Token(json.dumps(value), vloc, "yaml", False)]
    return tokens


def read_config(doc: yaml.Node, path: str) -> LaunchCommand:
    off: list[Token] = []
    tokens = config_tokens(doc, path, off)
    return LaunchCommand(path, tokens, "yaml", Location(path, 1, 1), "SGLang --config", config_off=off,
                         append=None, append_why="edited as a key of the mapping (fix.set_flag)")


# --- argv lists and scripts held in YAML (the carriers' shared layer) -----------------


def argv_words(node: yaml.Node | None, path: str, budget: Budget) -> list[Token]:
    """Exec-form words of a ``command``/``args`` list (no shell processing)."""
    if node is None:
        return []
    if isinstance(node, yaml.ScalarNode):
        budget.spend(node, 0)
        return [Token(str(scalar(node, path)), node_loc(path, node))]
    if isinstance(node, yaml.SequenceNode):
        budget.spend(node, 0, len(node.value) + 1)
        return [Token(str(scalar(n, path)), node_loc(path, n)) for n in node.value if isinstance(n, yaml.ScalarNode)]
    return []


_BLOCK_ITEM = re.compile(r"[ \t]*-[ \t]+$")


def list_append(node: yaml.Node | None, lines: list[str] | None) -> tuple[Append | None, str]:
    """How ``--fix`` adds items after the last one of a ``command``/``args`` list, in its
    style (flow or block, the last item's quoting and indentation); (None, why) where it
    cannot: the last item spans lines, is a block scalar, or shares its line with more."""
    if not isinstance(node, yaml.SequenceNode) or not node.value:
        return None, "the launch's list is empty or not a list"
    last = node.value[-1]
    if not isinstance(last, yaml.ScalarNode) or last.style in ("|", ">") or last.start_mark.line != last.end_mark.line:
        return None, "the last item of the launch's list spans lines"
    quoting = {'"': "double", "'": "single"}.get(last.style or "", "plain")
    if node.flow_style:
        return Append(", ", quoting), ""
    if lines is None and last.start_mark.buffer:
        lines = last.start_mark.buffer.split("\n")
    line = lines[last.start_mark.line].rstrip("\r") if lines is not None and last.start_mark.line < len(lines) else ""
    prefix = line[: last.start_mark.column]
    if not _BLOCK_ITEM.match(prefix):
        return None, "the last item of the launch's list shares its line with more"
    return Append("\n" + prefix, quoting, eol=True), ""


Shifts = dict[int, list[tuple[int, int]]]  # file line → (column in the expanded text from which, how far it moved)


def text_origin(node: yaml.ScalarNode, lines: list[str] | None) -> tuple[int, int, int]:
    """(line, column, indent) where a YAML string's text starts: a block scalar on the next
    line at the block's indentation (every line of it at that indentation), a quoted one after
    its quote."""
    line, col = node.start_mark.line + 1, node.start_mark.column + 1
    if node.style in ("|", ">"):
        if lines is None and node.start_mark.buffer:
            lines = node.start_mark.buffer.splitlines()
        raw = lines[line] if lines is not None and line < len(lines) else ""
        indent = len(raw) - len(raw.lstrip(" ")) if raw else 0
        return line + 1, 1, indent
    return line, col + (node.style in ("'", '"')), 0


MAX_REFS = 10_000  # references in one YAML string
MAX_EXPANDED = 1 << 20  # characters of one YAML string once its references are substituted

Refs = list[tuple[re.Match[str], str | None]]  # each reference and its value (None: left as written)


def substituted(text: str, pattern: re.Pattern[str], value_of: Callable[[re.Match[str]], str | None],
                what: str) -> tuple[str, Refs]:
    """``text`` with ``pattern``'s references replaced by ``value_of`` (None: left as written),
    the one builder of every substitution (the kubelet's ``$(VAR)``, Compose's ``${VAR}``,
    GitHub's ``${{ env.X }}``): its pieces joined once, the running length checked against
    ``MAX_EXPANDED`` before each piece is kept, and each reference charged to the file's budget
    before it is, so the cost is linear and an overrun is exit 2 naming ``what`` (the string's
    place and the construct)."""
    pieces: list[str] = []
    refs: Refs = []
    last = size = 0
    for m in pattern.finditer(text):
        value = value_of(m)
        new = m.group(0) if value is None else value
        size += m.start() - last + len(new)
        if len(refs) >= MAX_REFS:
            raise InputError(f"{what}: more than {MAX_REFS:,} variable references in one YAML string; refusing")
        if size > MAX_EXPANDED:
            raise InputError(f"{what}: the YAML string expands to over {MAX_EXPANDED:,} characters at its "
                             f"{ordinal(len(refs) + 1)} reference `{m.group(0)[:100]}`; refusing")
        bounds.charge_nodes(1, what)
        bounds.charge_chars(len(new), what)
        pieces += (text[last:m.start()], new)
        refs.append((m, value))
        last = m.end()
    if not refs:
        return text, refs
    pieces.append(text[last:])
    return "".join(pieces), refs


def expand_refs(text: str, pattern: re.Pattern[str], value_of: Callable[[re.Match[str]], str | None],
                line0: int, col0: int, indent: int, what: str) -> tuple[str, Shifts]:
    """``text`` substituted before it is split (``substituted``), and how it moved the
    characters after each reference on its line: file line → ``(column, delta)``, a character
    at that column of the expanded text or later stood ``delta`` columns further (accumulated
    on the line)."""
    out, refs = substituted(text, pattern, value_of, what)
    shifts: Shifts = {}
    last = row = row_start = acc = 0
    for m, value in refs:
        breaks = text.count("\n", last, m.start())
        if breaks:
            row += breaks
            row_start = text.rfind("\n", last, m.start()) + 1
            acc = 0
        last = m.end()
        new = m.group(0) if value is None else value
        if len(new) != len(m.group(0)) and "\n" not in new:
            acc += len(new) - len(m.group(0))
            base = (col0 if row == 0 else 1) + indent
            shifts.setdefault(line0 + row, []).append((base + m.start() - row_start + acc + len(m.group(0)), acc))
    return out, shifts


def unshift(loc: Location, shifts: Shifts) -> Location:
    """Where a word of an expanded text is written in the file (see ``expand_refs``)."""
    for end, delta in reversed(shifts.get(loc.line, ())):
        if loc.col >= end:
            return Location(loc.path, loc.line, loc.col - delta)
    return loc


def moved(cmds: list[LaunchCommand], shifts: Shifts, indent: int = 0, after: int = 0) -> None:
    """Every place of ``cmds`` put back where it is written: the expansion's shifts undone, and
    ``indent`` added on the lines after ``after`` (a block scalar's lines, read from column 1)."""
    if not shifts and not indent:
        return

    def at(loc: Location) -> Location:
        loc = Location(loc.path, loc.line, loc.col + (indent if loc.line > after else 0))
        return unshift(loc, shifts)

    relocate(cmds, at)


def relocate(cmds: list[LaunchCommand], at: Callable[[Location], Location]) -> None:
    """Every place of ``cmds`` (tokens, program, start, unread places and the notes naming
    them) moved by ``at``."""
    for c in cmds:
        c.tokens = [Token(t.text, at(t.loc), t.origin, t.is_flag, t.unknown) for t in c.tokens]
        c.program = [Token(t.text, at(t.loc), t.origin, t.is_flag, t.unknown) for t in c.program]
        c.loc = at(c.loc)
        was = [str(u) for u in c.unread]
        c.unread = [type(u)(at(u.loc), u.what) for u in c.unread]
        for a, b in zip(was, c.unread, strict=True):  # the notes that name them
            c.notes = [n.replace(a, str(b), 1) for n in c.notes]


def refold(cmds: list[LaunchCommand], node: yaml.ScalarNode, lines: list[str] | None, line: int, indent: int) -> None:
    """A folded (``>``) block's places put on the lines they are written on: read as its value,
    row ``r`` of the value stands at file line ``line + r`` (as a literal ``|`` block's does),
    but folding joined several file lines into one row."""
    if node.style != ">" or not cmds:
        return
    if lines is None and node.start_mark.buffer:
        lines = node.start_mark.buffer.splitlines()
    rows = _folded_rows(node.value, lines or [], line, indent)
    if not rows:
        return

    def at(loc: Location) -> Location:
        for col, file_line, file_col in reversed(rows.get(loc.line, ())):
            if loc.col >= col:
                return Location(loc.path, file_line, file_col + loc.col - col)
        return loc

    relocate(cmds, at)


def _folded_rows(value: str, lines: list[str], line: int, indent: int) -> dict[int, list[tuple[int, int, int]]]:
    """Where each file line of a folded block starts in its value, as read: the value's row
    (``line + r``) → (column from which, file line, file column). Each file line's text, less
    the block's indentation, is in the value as written; only the breaks between them fold
    (into a space, or fewer line breaks). Empty where the text is not found as expected."""
    rows: dict[int, list[tuple[int, int, int]]] = {}
    pos = row = row_start = 0
    for i in range(line - 1, len(lines)):
        raw = lines[i]
        if not raw.strip():
            continue
        if len(raw) - len(raw.lstrip(" ")) < indent:
            break  # the block has ended
        text = raw[indent:]
        q = pos
        while q < len(value) and value[q] in " \n" and not value.startswith(text, q):
            q += 1
        if not value.startswith(text, q):
            return {}
        breaks = value.count("\n", pos, q)
        if breaks:
            row += breaks
            row_start = value.rfind("\n", pos, q) + 1
        rows.setdefault(line + row, []).append((q - row_start + 1 + indent, i + 1, indent + 1))
        pos = q + len(text)
    return rows


def scalar_shell_tokens(node: yaml.ScalarNode, path: str, budget: Budget, lines: list[str] | None = None,
                         env: dict[str, str] | None = None, text: str | None = None) -> list[Token]:
    """Shell-tokenize a YAML string (``sh -c "..."``), placing words inside the file; ``text``:
    the string after a substitution (its places are the expanded text's: see ``moved``)."""
    budget.spend(node, 0, 1 + len(node.value) // 16)  # an aliased script costs each time
    line, col, indent = text_origin(node, lines)
    toks = tokenize(node.value if text is None else text, path, line, col, env)
    if not indent:
        return toks
    return [Token(t.text, Location(path, t.loc.line, t.loc.col + indent), t.origin, t.is_flag, t.unknown) for t in toks]


def substitute(words: list[Token], pattern: re.Pattern[str], value_of: Callable[[re.Match[str]], str | None],
                why_missing: Callable[[re.Match[str]], str], construct: str) -> list[Token]:
    """Each word with ``pattern``'s references replaced by ``value_of`` (``substituted``: an
    overrun is exit 2 naming the word's place and ``construct``); a reference not known (None)
    stays as written, and its word is marked unknown with ``why_missing`` of the first such."""
    out = []
    for t in words:
        if "$" not in t.text:
            out.append(t)
            continue
        text, refs = substituted(t.text, pattern, value_of, f"{t.loc}: {construct}")
        missing = next((m for m, value in refs if value is None), None)
        out.append(Token(text, t.loc, t.origin, t.is_flag, why_missing(missing) if missing else t.unknown))
    return out


def script_launches(node: yaml.ScalarNode, path: str, budget: Budget, lines: list[str] | None,
                     values: dict[str, str], name: str, kind: str,
                     pattern: re.Pattern[str] | None = None, value_of: Callable[[re.Match[str]], str | None] | None = None,
                     shell_env: dict[str, str] | None = None) -> list[LaunchCommand]:
    """A shell script held in one YAML string, read as shell (its assignments, quoting and
    redirections) with ``shell_env`` (default ``values``: the container's env), after the
    substitution its format makes before the shell sees it: the kubelet's ``$(VAR)`` from
    ``values`` by default; ``pattern`` with ``value_of`` for another (Compose's ``${VAR}``);
    none for a carrier (``kind`` other than kubernetes and no ``pattern``)."""
    from kdacheck.readers.shell import read_shell

    budget.spend(node, 0, 1 + len(node.value) // 16)
    line, col, indent = text_origin(node, lines)
    what = f"{node_loc(path, node)}: {SUBSTITUTIONS.get(kind, 'a substitution')}"
    text, shifts = (node.value, {}) if pattern is None or value_of is None else \
        expand_refs(node.value, pattern, value_of, line, col, indent, what)
    cmds = read_shell(text, path, values if shell_env is None else shell_env, line, col + indent, kind, name)
    moved(cmds, shifts, indent, line)  # the first line starts at the indentation already
    refold(cmds, node, lines, line, indent)
    return cmds


SUBSTITUTIONS = {"kubernetes": "the kubelet's `$(VAR)` in a script", "compose": "Compose's `${VAR}` in a script",
                 "github": "`${{ env.NAME }}` in a script"}  # what a script's substitution is called
