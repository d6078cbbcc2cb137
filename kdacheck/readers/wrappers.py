"""Wrapper modules: ``python3 -m serve`` where ``serve`` is a module of the repository that passes
SGLang's flags through to SGLang.

A launch file may start SGLang through a module of its own (``python3 -m mycompany.serve --tp 4``)
that imports SGLang and hands it the command line: ``prepare_server_args(sys.argv[1:])``,
``ServerArgs.add_cli_args(parser)`` then ``parse_args()``, or ``launch_server(...)`` beside
``sys.argv``. Such a module is found by reading its source with ``ast`` (never importing or
running it), only inside the repository that holds the launch (``kdacheck.confine``: a regular
file, no link out, ``MAX_BYTES``), relative to the launch file's folder, then to the repository's
root: ``a/b.py`` or ``a/b/__main__.py`` for ``-m a.b``. Its source is charged to the file's
budget and at most ``MAX_MODULES`` distinct modules are looked up per launch file. A module
found this way is an entry point of the table's kind (``entry.EntryPoint``) whose note names the
wrapper and what in it passes the flags; the launch's flags are read as SGLang's.
"""

from __future__ import annotations

import ast
import os
import re

from kdacheck import confine
from kdacheck.findings import InputError
from kdacheck.readers import bounds, entry

MAX_BYTES = 256 * 1024  # a wrapper module is a few dozen lines
MAX_MODULES = 64  # distinct `python -m MODULE` looked up per launch file
MAX_NODES = 50_000  # ast nodes walked per module

_MODULE = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*){0,8}\Z")
_PASSES = {"prepare_server_args": "calls `prepare_server_args`", "add_cli_args": "adds SGLang's flags (`ServerArgs.add_cli_args`)",
           "from_cli_args": "builds `ServerArgs.from_cli_args`"}
_LAUNCHES = ("launch_server", "run_server", "Engine")

_dirs: tuple[str, ...] = ()
_root: str | None = None
_found: dict[str, entry.EntryPoint | None] = {}


def start(base_dir: str | None, root: str | None) -> None:
    """Where the launches of the next file look for wrapper modules (its folder, then ``root``);
    ``root`` None: no tree to read in, so no wrapper is looked up."""
    global _dirs, _root
    _dirs = tuple(dict.fromkeys(d for d in (base_dir, root) if d)) if root is not None else ()
    _root = root
    _found.clear()
    entry.set_wrapper_lookup(lookup if _dirs else None)


def lookup(module: str) -> entry.EntryPoint | None:
    """The entry point ``python -m module`` is when ``module`` is a wrapper in the tree, else None."""
    if module in _found:
        return _found[module]
    if not _MODULE.match(module) or module.split(".")[0] in ("sglang", "dynamo", "sglang_router") or len(_found) >= MAX_MODULES:
        return None
    _found[module] = None
    rel = module.replace(".", os.sep)
    for d in _dirs:
        for cand in (rel + ".py", os.path.join(rel, "__main__.py")):
            target = os.path.join(d, cand)
            try:
                text = confine.read_text(target, _root, MAX_BYTES, f"python -m {module}", missing_ok=True)
            except InputError:
                continue  # outside the tree, a link out, too big: not read, so not a wrapper kdacheck knows
            if text is None:
                continue
            bounds.charge_chars(len(text), f"python -m {module}: {cand}")
            why = passes_flags(text)
            if why:
                shown = os.path.relpath(target, _root) if _root else target
                _found[module] = entry.EntryPoint(
                    f"wrapper {module}", modules=(module,), source=f"{shown}: {why}",
                    parser="SGLang's parser, through the wrapper module " + module)
            return _found[module]
    return None


def passes_flags(source: str) -> str:
    """What in a module's source passes the command line to SGLang ("" when nothing does): it must
    import SGLang and either parse with SGLang's parser (``prepare_server_args``,
    ``ServerArgs.add_cli_args``, ``ServerArgs.from_cli_args``) or call its launcher beside ``sys.argv``."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return ""
    imports = argv = False
    passes: list[str] = []
    launches: list[str] = []
    for n, node in enumerate(ast.walk(tree)):
        if n >= MAX_NODES:
            return ""
        if isinstance(node, ast.Import):
            imports = imports or any(a.name.split(".")[0] == "sglang" for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            imports = imports or (node.module or "").split(".")[0] == "sglang"
        elif isinstance(node, ast.Attribute) and node.attr == "argv" and isinstance(node.value, ast.Name) and node.value.id == "sys":
            argv = True
        elif isinstance(node, ast.Call):
            name = node.func.attr if isinstance(node.func, ast.Attribute) else node.func.id if isinstance(node.func, ast.Name) else ""
            if name in _PASSES:
                passes.append(f"{_PASSES[name]} at line {node.lineno}")
            elif name in _LAUNCHES:
                launches.append(f"calls `{name}` at line {node.lineno} with `sys.argv` in the module")
    bounds.charge_nodes(n if tree else 0, "a wrapper module's syntax tree")
    if not imports:
        return ""
    if passes:
        return "imports SGLang and " + passes[0]
    if launches and argv:
        return "imports SGLang and " + launches[0]
    return ""
