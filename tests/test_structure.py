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


def _top_level_imports(path: Path, lazy: bool = False) -> set[str]:
    """kdacheck modules imported when ``path`` is imported (not inside functions or TYPE_CHECKING);
    with ``lazy``, the imports inside functions too (those run when the function does)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    out: set[str] = set()
    pkg = _module(path) if path.name == "__init__.py" else _module(path).rpartition(".")[0]
    typing_only = {id(s) for n in ast.walk(tree) if isinstance(n, ast.If) and "TYPE_CHECKING" in ast.unparse(n.test)
                   for s in ast.walk(n)}
    nodes = [n for n in ast.walk(tree) if id(n) not in typing_only] if lazy else tree.body
    for node in nodes:
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            continue
        for sub in ast.walk(node) if isinstance(node, (ast.Import, ast.ImportFrom, ast.If, ast.Try)) else ():
            if id(sub) in typing_only:
                continue
            if isinstance(sub, ast.Import):
                out.update(a.name for a in sub.names if a.name.startswith("kdacheck"))
            elif isinstance(sub, ast.ImportFrom):
                base = sub.module or ""
                if sub.level:
                    base = ".".join(pkg.split(".")[: len(pkg.split(".")) - sub.level + 1] + ([base] if base else []))
                if base.startswith("kdacheck"):
                    subs = [f"{base}.{a.name}" for a in sub.names]
                    mods = [m for m in subs if (ROOT / m.replace(".", "/")).with_suffix(".py").is_file()
                            or (ROOT / m.replace(".", "/") / "__init__.py").is_file()]
                    out.update(mods if len(mods) == len(subs) else [base, *mods])
    return out


@pytest.mark.parametrize("lazy", [False, True], ids=["module-level", "function-level too"])
def test_no_import_circle(lazy: bool) -> None:
    """No circle among kdacheck's modules, counting the imports inside functions (a circle
    hidden behind a function-level import is still a circle); TYPE_CHECKING ones do not count."""
    files = {_module(p): p for p in PKG.rglob("*.py")}
    graph = {m: {i for i in _top_level_imports(p, lazy) if i in files and i != m} for m, p in files.items()}
    state: dict[str, int] = {}
    stack: list[str] = []

    def visit(m: str) -> None:
        state[m] = 1
        stack.append(m)
        for n in sorted(graph[m]):
            if state.get(n) == 1:
                raise AssertionError("import circle: " + " → ".join([*stack[stack.index(n):], n]))
            elif n not in state:
                visit(n)
        stack.pop()
        state[m] = 2

    for m in sorted(graph):
        if m not in state:
            visit(m)


def test_rule_codes_only_in_the_rule_layer() -> None:
    code = re.compile(r"\"(ARG|PAR|ATTN|SPEC|KDA|MEM|RADIX|RSSM|HSP|SGLANG)[0-9]{3}\"")
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
