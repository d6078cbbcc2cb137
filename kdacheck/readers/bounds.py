"""One budget per file read: every expansion charges it while it builds, never after.

A launch file can make a little text into a lot: ``"$X$X$X…"`` in shell, ``ENV B=$A$A`` in a
Dockerfile, ``${A}`` x 4,000 in Compose, ``$(A)`` in Kubernetes ``args``, an array spliced into
itself, a YAML alias or merge key used on every line. Each reader charges what it is about to
build (characters made, pieces and elements kept, scope entries copied, alias re-visits) to
the budget of the file being read, *before* it builds it, so the work and the memory of one
file are linear in its bytes plus at most these bounds, and an overrun is exit 2 naming the
construct and where it stands.

``start(path)`` opens the budget of one file (``detect.read_text`` and ``--cmd`` call it);
readers call ``charge_chars`` and ``charge_nodes`` with what they build and ``deeper`` when
they descend into nested input.
"""

from __future__ import annotations

from kdacheck.findings import InputError

MAX_FILE_CHARS = 8_000_000  # characters all expansions of one file may make (about 60 MB of Python str at worst)
MAX_FILE_NODES = 2_000_000  # pieces, elements, scope entries and alias re-visits of one file
MAX_DEPTH = 200  # nested expansions (``${A:-${A:-…}}``), nested suffixes, nested scripts


class Budget:
    """What one file's expansions have made so far."""

    __slots__ = ("chars", "nodes", "path")

    def __init__(self, path: str) -> None:
        self.path = path
        self.chars = 0
        self.nodes = 0

    def charge_chars(self, n: int, what: str) -> None:
        self.chars += n
        if self.chars > MAX_FILE_CHARS:
            raise InputError(f"{what}: the expansions of {self.path} make more than {MAX_FILE_CHARS:,} "
                             "characters (a launch file expands to far less); refusing")

    def charge_nodes(self, n: int, what: str) -> None:
        self.nodes += n
        if self.nodes > MAX_FILE_NODES:
            raise InputError(f"{what}: the expansions of {self.path} make more than {MAX_FILE_NODES:,} "
                             "pieces (words, elements, variables, alias uses); refusing")


_current = Budget("<input>")


def start(path: str) -> Budget:
    """A fresh budget for the file ``path``; what readers charge from now on goes to it."""
    global _current
    _current = Budget(path)
    return _current


def current() -> Budget:
    return _current


def charge_chars(n: int, what: str) -> None:
    _current.charge_chars(n, what)


def charge_nodes(n: int, what: str) -> None:
    _current.charge_nodes(n, what)


def deeper(depth: int, what: str) -> int:
    """``depth + 1``, or exit 2 naming ``what`` when input nests past ``MAX_DEPTH``."""
    if depth >= MAX_DEPTH:
        raise InputError(f"{what}: nested more than {MAX_DEPTH} levels deep; refusing")
    return depth + 1
