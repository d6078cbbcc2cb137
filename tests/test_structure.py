"""The project's structure as docs/architecture.md states it, held by tests."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

import kdacheck.resolve as resolve
from kdacheck import messages, versions
from kdacheck.rules import all_rules

ROOT = Path(__file__).resolve().parent.parent
PKG = ROOT / "kdacheck"


def _module(path: Path) -> str:
    rel = path.relative_to(ROOT).with_suffix("")
    parts = list(rel.parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _imports(source: str, module: str, is_package: bool, known: set[str]) -> set[str]:
    """The kdacheck modules ``module`` imports, every kind counted: at the top, inside functions
    (they run when the function does), under ``if TYPE_CHECKING:`` (the types of one module are
    still another's dependency) and by a literal name (``import_module("kdacheck.x")``,
    ``importlib.import_module(...)``, ``__import__(...)``). ``from P import n`` counts ``P.n``
    where that is a module of ``known``, else ``P``."""
    pkg = module if is_package else module.rpartition(".")[0]
    out: set[str] = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            out.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = pkg.split(".")[: len(pkg.split(".")) - node.level + 1]
                base = ".".join(parts + ([base] if base else []))
            subs = [f"{base}.{a.name}" for a in node.names if f"{base}.{a.name}" in known]
            out.update(subs if len(subs) == len(node.names) else [base, *subs])
        elif isinstance(node, ast.Call) and node.args and isinstance(node.args[0], ast.Constant) \
                and isinstance(node.args[0].value, str) and ast.unparse(node.func) in _LITERAL_IMPORTS:
            out.add(node.args[0].value)
    return {m for m in out if m in known and m != module}


_LITERAL_IMPORTS = ("import_module", "importlib.import_module", "__import__")


def import_graph(sources: dict[str, tuple[str, bool]]) -> dict[str, set[str]]:
    """module → the modules it imports, of ``sources`` (module → (its text, is a package))."""
    known = set(sources)
    return {m: _imports(text, m, is_package, known) for m, (text, is_package) in sources.items()}


def find_circle(graph: dict[str, set[str]]) -> list[str] | None:
    """One import circle of ``graph`` (``[a, b, ..., a]``), or None: a depth-first search."""
    state: dict[str, int] = {}  # 1: on the stack, 2: done
    stack: list[str] = []

    def visit(m: str) -> list[str] | None:
        state[m] = 1
        stack.append(m)
        for n in sorted(graph[m]):
            if state.get(n) == 1:
                return [*stack[stack.index(n):], n]
            if n not in state and (circle := visit(n)):
                return circle
        stack.pop()
        state[m] = 2
        return None

    for m in sorted(graph):
        if m not in state and (circle := visit(m)):
            return circle
    return None


def _package_sources() -> dict[str, tuple[str, bool]]:
    return {_module(p): (p.read_text(encoding="utf-8"), p.name == "__init__.py") for p in PKG.rglob("*.py")}


def test_no_import_circle() -> None:
    """No circle among kdacheck's modules, whatever kind of import makes it: a circle behind a
    function-level import, ``TYPE_CHECKING`` or ``import_module`` is still a circle (the result
    types sit below the drivers and the renderers, ``kdacheck/results.py``)."""
    circle = find_circle(import_graph(_package_sources()))
    assert circle is None, "import circle: " + " → ".join(circle or [])


# One circle of each kind, planted: a → b at the top, b → a in the way named.
_PLANTED = {
    "top-level": "from kdacheck import a\n",
    "function-level": "def f():\n    from kdacheck import a\n    return a\n",
    "TYPE_CHECKING": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from kdacheck.a import X\n",
    "import_module": "from importlib import import_module\n\ndef f():\n    return import_module(\"kdacheck.a\")\n",
    "importlib.import_module": "import importlib\nA = importlib.import_module(\"kdacheck.a\")\n",
    "relative": "from . import a\n",
}


@pytest.mark.parametrize("kind", list(_PLANTED))
def test_a_planted_circle_is_found(kind: str) -> None:
    sources = {"kdacheck": ("", True), "kdacheck.a": ("from kdacheck.b import Y\n", False),
               "kdacheck.b": (_PLANTED[kind], False), "kdacheck.c": ("import kdacheck.a\n", False)}
    assert find_circle(import_graph(sources)) == ["kdacheck.a", "kdacheck.b", "kdacheck.a"]
    sources["kdacheck.b"] = ("import os\nfrom importlib import import_module\nM = import_module(name)\n", False)
    assert find_circle(import_graph(sources)) is None  # a computed name is not read


def test_a_circle_planted_in_the_package_is_found() -> None:
    """The checker on the package's sources with ``kdacheck/results.py`` importing a renderer
    inside a function: the circle results → report → results is found."""
    sources = _package_sources()
    text, is_package = sources["kdacheck.results"]
    sources["kdacheck.results"] = (text + "\n\ndef _planted():\n    from kdacheck import report\n    return report\n", is_package)
    circle = find_circle(import_graph(sources))
    assert circle is not None and "kdacheck.results" in circle and "kdacheck.report" in circle, circle


def test_rule_codes_only_in_the_rule_layer() -> None:
    code = re.compile(r"\"(ARG|PAR|BUILD|ATTN|SPEC|KDA|MEM|RADIX|RSSM|HSP|SGLANG)[0-9]{3}\"")
    bad = [f"{p.relative_to(ROOT)}:{n}" for p in PKG.rglob("*.py") if "rules" not in p.parts
           for n, line in enumerate(p.read_text(encoding="utf-8").splitlines(), 1) if code.search(line)]
    assert not bad, bad


def test_version_literals_only_in_versions_py() -> None:
    literal = re.compile(r'"0\.5\.[0-9]+"')
    bad = [f"{p.relative_to(ROOT)}:{n}" for p in PKG.rglob("*.py") if p.name != "versions.py"
           for n, line in enumerate(p.read_text(encoding="utf-8").splitlines(), 1) if literal.search(line)]
    assert not bad, bad


def test_resolution_modules_stay_small() -> None:
    for p in (PKG / "resolve").glob("*.py"):
        assert len(p.read_text(encoding="utf-8").splitlines()) <= 300, p.name


def test_resolve_reads_as_sglang_steps() -> None:
    names = [s.name for s in resolve.STEPS]
    assert names.index("parallelism") < names.index("speculative decoding") < names.index("speculative scratch")
    assert all(s.mirrors for s in resolve.STEPS)
    for s in resolve.STEPS:
        assert s.fn.__doc__ is None or s.fn.__doc__  # steps document their module
        assert (PKG / "resolve" / f"{s.fn.__module__.rsplit('.', 1)[-1]}.py").is_file()


def test_undeclared_names_cannot_be_read() -> None:
    import pytest

    from tests.helpers import resolved

    cfg = resolved("python -m sglang.launch_server --model-path moonshotai/Kimi-Linear-48B-A3B-Instruct --speculative-algorithm EAGLE")
    with pytest.raises(KeyError):
        cfg.v("stpes")


def test_every_name_a_rule_reads_is_declared() -> None:
    reads = re.compile(r'cfg\.v\("([a-z_0-9]+)"|cfg\["([a-z_0-9]+)"\]|"([a-z_0-9]+)" (?:not )?in cfg\b')
    for p in (PKG / "rules").glob("*.py"):
        for m in reads.finditer(p.read_text(encoding="utf-8")):
            name = next(g for g in m.groups() if g)
            assert name in resolve.DECLARED, f"{p.name}: {name}"


def test_evidence_names_are_values_or_flags() -> None:
    from kdacheck import flags

    dests = {f.dest for v in versions.KNOWN for f in flags.table(v).flags}
    values = re.compile(r"values=\(([^)]*)\)")
    for p in (PKG / "rules").glob("*.py"):
        for m in values.finditer(p.read_text(encoding="utf-8")):
            for name in re.findall(r'"([a-zA-Z_0-9]+)"', m.group(1)):
                assert name in resolve.DECLARED or name in dests, f"{p.name}: {name}"


def test_messages_have_one_home() -> None:
    pytest.importorskip("torch")  # the kernels' modules import torch and triton
    pytest.importorskip("triton")
    from kdacheck.rules import hsp, kda

    kv = __import__("kdacheck.kernels.kda_verify", fromlist=["x"])
    hg = __import__("kdacheck.kernels.hisparse_gather", fromlist=["x"])
    assert kda.KDA001_MESSAGE is messages.KDA001_MESSAGE is kv.KDA001_MESSAGE
    assert kda.KDA002_MESSAGE is messages.KDA002_MESSAGE is kv.KDA002_MESSAGE
    assert hsp.HSP003_MESSAGE is messages.HSP003_MESSAGE is hg.HSP003_CAPACITY_MESSAGE
    assert hsp.HSP001_MESSAGE is messages.HSP001_MESSAGE is hg.HSP001_MESSAGE


def test_rules_have_readable_unique_names() -> None:
    names = [r.name for r in all_rules()]
    assert len(set(names)) == len(names)
    assert all(re.fullmatch(r"[a-z0-9]+(-[a-z0-9]+)+|[a-z0-9]+", n) and n != r.code.lower() for n, r in zip(names, all_rules(), strict=True))


def test_run_reports_only_in_the_report_layer() -> None:
    """``kdacheck run`` renders through ``kdacheck/report/`` (run_full, run_json, junit): the
    runner plans, runs and hands over its results, and writes no format of its own."""
    src = (PKG / "runner.py").read_text(encoding="utf-8")
    for mark in ("rich", "xml", "json.dump", "quoteattr", "Table("):
        assert mark not in src, mark
    for name in ("run_full", "run_json", "junit"):
        assert (PKG / "report" / f"{name}.py").is_file()


def test_kernels_are_dispatched_by_their_op() -> None:
    """The runner and the harness reach a kernel through its op (``kernels/ops.py``), never by
    a kernel's or a gate's name in a string."""
    kinds = re.compile(r'''["'](verify|mamba2|gather|head|channel)["']''')
    for path in (PKG / "runner.py", ROOT / "kernels" / "harness.py"):
        bad = [n for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1) if kinds.search(line)]
        assert not bad, f"{path.name}: {bad}"


def test_every_package_is_installed() -> None:
    """A non-editable install (pre-commit, the container image, pip from a commit) ships only the
    packages pyproject.toml lists: a new package missing there is an ImportError there alone."""
    try:
        import tomllib
    except ImportError:  # Python 3.10
        import tomli as tomllib

    listed = set(tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["packages"])
    found = {_module(p) for p in PKG.rglob("__init__.py")}
    assert found <= listed, sorted(found - listed)


MAX_FUNCTION_LINES = 100


def long_functions(source: str, where: str, limit: int = MAX_FUNCTION_LINES) -> dict[str, int]:
    """``where:name`` → lines, of every function (nested ones and methods too) in ``source``
    longer than ``limit``, counted from its ``def`` to its last line."""
    return {f"{where}:{n.name}": n.end_lineno - n.lineno + 1 for n in ast.walk(ast.parse(source))
            if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)) and n.end_lineno is not None
            and n.end_lineno - n.lineno + 1 > limit}


def test_no_function_over_100_lines() -> None:
    found: dict[str, int] = {}
    for p in sorted(PKG.rglob("*.py")):
        found.update(long_functions(p.read_text(encoding="utf-8"), p.relative_to(ROOT).as_posix()))
    assert not found, found


def test_a_long_nested_function_is_found() -> None:
    body = "".join(f"        x{i} = {i}\n" for i in range(MAX_FUNCTION_LINES))
    source = f"def outer():\n    def inner():\n{body}    return inner\n"
    assert long_functions(source, "m.py") == {"m.py:outer": MAX_FUNCTION_LINES + 3, "m.py:inner": MAX_FUNCTION_LINES + 1}
    assert long_functions("def f():\n" + "    pass\n" * (MAX_FUNCTION_LINES - 1), "m.py") == {}
