#!/usr/bin/env python3
"""Every place SGLang refuses a launch on its start-up path, read from a wheel (or its unpacked folder).

    python benchmarks/sglang_diff/refusal_census.py /work/sglang/whl/sglang-0.5.23-*.whl \
        > kdacheck/data/refusals-0.5.23.json

A refusal site is a ``raise`` of a new exception (a bare ``raise`` re-raising the one being
handled is not one), an ``assert``, or a call that ends the process from argument handling
(``parser.error(...)``, ``sys.exit(...)``/``exit(...)``). The files read (``SCOPE``) are SGLang's
argument pipeline and the start-up steps after it that kdacheck models:

- ``srt/server_args.py``, every ``srt/arg_groups/**`` module (the hooks, ``overrides.py``,
  ``pipeline.py``, ``model_overrides/``, the field validators) and
  ``srt/utils/server_args_config_parser.py`` (the ``--config`` merger);
- the hybrid / Mamba state pools: the classes of ``srt/mem_cache/memory_pool.py`` whose name holds
  ``Mamba`` or ``Hybrid`` (``MambaPool``, ``HybridReqToTokenPool``, ``HybridLinearKVPool``), and all of
  ``srt/mem_cache/kv_cache_configurator.py`` and ``srt/model_executor/pool_configurator.py``;
- speculative worker set-up: ``srt/speculative/spec_registry.py`` and the constructors
  (``__init__``) and ``*init*`` / ``*setup*`` / ``*validate*`` functions of ``srt/speculative/*.py``;
- model-init: ``srt/model_executor/model_runner.py`` and ``model_runner_components/*.py``.

Each site has a stable ``id``: ``<file>::<qualname>#<n>``, the n-th site (from 1, in source order)
of the innermost function (``<module>`` at module level), so ids survive line shifts; its line,
kind, exception type, message (a string, an f-string with ``{expr}`` placeholders, else the
expression's source) and ``fields``: the attributes of ``server_args`` / ``cfg`` / ``view`` / ``self`` / ``args`` read by
the test that leads to it (the assert's test, or the ``if`` tests enclosing the raise), with
``config``: the attributes of the config objects (``*config*``) read there.

Only the source is read (``ast``; nothing imported, standard library only).
"""

from __future__ import annotations

import ast
import fnmatch
import json
import os
import re
import sys
import zipfile

SRT = "sglang/srt/"
# (file glob under srt/, class-name pattern or None, function-name pattern or None)
SCOPE: tuple[tuple[str, str | None, str | None], ...] = (
    ("server_args.py", None, None),
    ("arg_groups/*.py", None, None),
    ("arg_groups/*/*.py", None, None),
    ("utils/server_args_config_parser.py", None, None),
    ("mem_cache/memory_pool.py", r"Mamba|Hybrid", None),
    ("mem_cache/kv_cache_configurator.py", None, None),
    ("model_executor/pool_configurator.py", None, None),
    ("speculative/spec_registry.py", None, None),
    ("speculative/*.py", None, r"^__init__$|init|setup|validate"),
    ("model_executor/model_runner.py", None, None),
    ("model_executor/model_runner_components/*.py", None, None),
)
OWNERS = {"server_args", "self", "args", "sa", "cfg", "view"}  # the hooks read ServerArgs as cfg (ResolvingConfig) and view
EXITS = {"parser.error", "self.parser.error", "sys.exit", "exit", "os._exit"}


def read_sources(where: str) -> dict[str, str]:
    """srt-relative path -> source text, from a wheel or from a folder holding ``sglang/``."""
    out: dict[str, str] = {}
    if os.path.isdir(where):
        base = os.path.join(where, "sglang", "srt") if os.path.isdir(os.path.join(where, "sglang")) else where
        for root, _, files in os.walk(base):
            for f in files:
                if f.endswith(".py"):
                    p = os.path.join(root, f)
                    with open(p, encoding="utf-8-sig") as fh:
                        out[os.path.relpath(p, base).replace(os.sep, "/")] = fh.read()
        return out
    with zipfile.ZipFile(where) as z:
        for n in z.namelist():
            if n.startswith(SRT) and n.endswith(".py"):
                out[n[len(SRT):]] = z.read(n).decode("utf-8-sig")
    return out


def _dotted(node: ast.expr) -> str:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return f"{_dotted(node.value)}.{node.attr}"
    if isinstance(node, ast.Call):
        return _dotted(node.func)
    return "?"


def render(node: ast.expr | None) -> str:
    """A message as text: strings joined, f-string values as ``{expr}``."""
    if node is None:
        return ""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.JoinedStr):
        parts = []
        for v in node.values:
            if isinstance(v, ast.Constant):
                parts.append(str(v.value))
            elif isinstance(v, ast.FormattedValue):
                parts.append("{" + ast.unparse(v.value) + "}")
        return "".join(parts)
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        return render(node.left) + render(node.right)
    return ast.unparse(node)


def reads(nodes: list[ast.expr]) -> tuple[list[str], list[str]]:
    """The server_args/self attributes and the config attributes the expressions read."""
    fields: set[str] = set()
    config: set[str] = set()
    for top in nodes:
        for n in ast.walk(top):
            if not isinstance(n, ast.Attribute):
                continue
            owner = n.value
            if isinstance(owner, ast.Attribute) and owner.attr == "server_args":
                fields.add(n.attr)
            elif isinstance(owner, ast.Name) and owner.id in OWNERS:
                if n.attr not in ("server_args",) and "config" not in n.attr:
                    fields.add(n.attr)
            elif "config" in _dotted(owner).rsplit(".", 1)[-1]:
                config.add(n.attr)
    return sorted(fields), sorted(config)


class Census(ast.NodeVisitor):
    def __init__(self, path: str, cls_pat: str | None, fn_pat: str | None) -> None:
        self.path, self.cls_pat, self.fn_pat = path, cls_pat, fn_pat
        self.stack: list[tuple[str, str]] = []  # (kind, name)
        self.tests: list[ast.expr] = []
        self.counts: dict[str, int] = {}
        self.sites: list[dict[str, object]] = []

    def _in_scope(self) -> bool:
        if self.cls_pat and not any(k == "class" and re.search(self.cls_pat, n) for k, n in self.stack):
            return False
        return not (self.fn_pat and not any(k == "def" and re.search(self.fn_pat, n) for k, n in self.stack))

    def _scoped(self, kind: str, node: ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef) -> None:
        self.stack.append((kind, node.name))
        saved, self.tests = self.tests, []
        self.generic_visit(node)
        self.tests = saved
        self.stack.pop()

    def visit_ClassDef(self, node: ast.ClassDef) -> None:
        self._scoped("class", node)

    def visit_FunctionDef(self, node: ast.FunctionDef) -> None:
        self._scoped("def", node)

    visit_AsyncFunctionDef = visit_FunctionDef  # type: ignore[assignment]

    def visit_If(self, node: ast.If) -> None:
        self.visit(node.test)
        self.tests.append(node.test)
        for s in node.body:
            self.visit(s)
        self.tests.pop()
        self.tests.append(ast.UnaryOp(op=ast.Not(), operand=node.test))
        for s in node.orelse:
            self.visit(s)
        self.tests.pop()

    def _add(self, node: ast.stmt | ast.expr, kind: str, exc: str, msg: ast.expr | None, tests: list[ast.expr]) -> None:
        if not self._in_scope():
            return
        qual = ".".join(n for _, n in self.stack) or "<module>"
        n = self.counts[qual] = self.counts.get(qual, 0) + 1
        fields, config = reads(tests)
        self.sites.append({"id": f"{self.path}::{qual}#{n}", "file": self.path, "line": node.lineno,
                           "function": qual, "kind": kind, "exception": exc, "message": render(msg),
                           "fields": fields, "config": config})

    def visit_Raise(self, node: ast.Raise) -> None:
        if node.exc is not None:
            exc = node.exc
            msg = exc.args[0] if isinstance(exc, ast.Call) and exc.args else None
            self._add(node, "raise", _dotted(exc), msg, list(self.tests))
        self.generic_visit(node)

    def visit_Assert(self, node: ast.Assert) -> None:
        self._add(node, "assert", "AssertionError", node.msg if node.msg is not None else node.test,
                  [*self.tests, node.test])
        self.generic_visit(node)

    def visit_Call(self, node: ast.Call) -> None:
        name = _dotted(node.func)
        if name in EXITS or name.endswith("parser.error"):
            self._add(node, "call", name, node.args[0] if node.args else None, list(self.tests))
        self.generic_visit(node)


def census(sources: dict[str, str]) -> list[dict[str, object]]:
    sites: list[dict[str, object]] = []
    seen: set[str] = set()
    for glob, cls_pat, fn_pat in SCOPE:
        for path in sorted(p for p in sources if fnmatch.fnmatchcase(p, glob) and p.count("/") == glob.count("/")):
            key = f"{path}|{cls_pat}|{fn_pat}"
            if path in seen and key not in seen:
                continue  # an earlier, wider scope line already read the file
            seen |= {path, key}
            visitor = Census(path, cls_pat, fn_pat)
            visitor.visit(ast.parse(sources[path]))
            sites.extend(visitor.sites)
    return sites


def main(where: str) -> dict[str, object]:
    version = re.search(r"(\d+\.\d+\.\d+)", os.path.basename(where.rstrip("/")))
    sites = census(read_sources(where))
    return {"version": version.group(1) if version else "?",
            "source": "sglang wheel, the start-up path (benchmarks/sglang_diff/refusal_census.py SCOPE)",
            "scope": [list(s) for s in SCOPE], "count": len(sites), "sites": sites}


if __name__ == "__main__":
    json.dump(main(sys.argv[1]), sys.stdout, indent=1, sort_keys=False)
    sys.stdout.write("\n")
