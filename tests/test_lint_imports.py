"""The lint path stays light: no torch, triton or numpy; its fast start (kdacheck.fastpath)
imports neither Typer nor Rich and does exactly what Typer does with the same command line;
its plain option table (kdacheck.lint_options) is cli.lint's Typer declarations."""

from __future__ import annotations

import inspect
import os
import subprocess
import sys
from pathlib import Path

import pytest

from kdacheck import cli, fastpath, lint_command, lint_options
from kdacheck.report import FORMATS

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = str(ROOT / "examples" / "kimi-linear-dspark.yaml")
HEAVY = ("torch", "triton", "numpy")


def _python(code: str, *args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", code, *args], capture_output=True, text=True, cwd=ROOT, timeout=120,
        env={**os.environ, "NO_COLOR": "1", "GITHUB_ACTIONS": "", **(env or {})},
    )


@pytest.mark.slow
@pytest.mark.parametrize("fmt", list(FORMATS))
def test_lint_never_imports_torch_triton_or_numpy(fmt: str) -> None:
    code = (
        "import sys\n"
        "from kdacheck.cli import app\n"
        "try:\n"
        f"    app(['lint', '--output-format', {fmt!r}, {EXAMPLE!r}, '--cmd', 'python -m sglang.launch_server --tp 2'], standalone_mode=False)\n"
        "except SystemExit:\n"
        "    pass\n"
        f"print('HEAVY', [m for m in {HEAVY!r} if m in sys.modules])\n"
    )
    p = _python(code)
    assert p.returncode == 0, p.stderr
    assert "HEAVY []" in p.stdout, p.stdout[-500:]


def test_a_yaml_lint_loads_only_the_readers_it_uses() -> None:
    """A clean ``--config`` YAML: the notebook and Dockerfile readers and ``--fix``'s editor are
    imported only for a notebook, a Dockerfile or a finding with an edit."""
    code = (
        "import sys, atexit\n"
        "atexit.register(lambda: sys.__stderr__.write('LOADED ' + str(sorted(m for m in sys.modules if m in "
        "('kdacheck.readers.notebook', 'kdacheck.readers.dockerfile', 'kdacheck.fix')))))\n"
        f"sys.argv = ['kdacheck', 'lint', {EXAMPLE!r}]\n"
        "from kdacheck.main import main\n"
        "main()\n"
    )
    p = _python(code)
    assert p.returncode == 0, p.stderr
    assert "LOADED []" in p.stderr


def test_the_console_script_path_imports_nothing_heavy() -> None:
    code = (
        "import sys, atexit\n"
        f"atexit.register(lambda: sys.__stderr__.write('HEAVY ' + str([m for m in {HEAVY!r} if m in sys.modules])))\n"
        f"sys.argv = ['kdacheck', 'lint', {EXAMPLE!r}]\n"
        "from kdacheck.main import main\n"
        "main()\n"
    )
    p = _python(code)
    assert p.returncode == 0, p.stderr
    assert "HEAVY []" in p.stderr
    assert "pydantic" not in p.stderr


def _both(*argv: str, stdin: str | None = None) -> tuple[subprocess.CompletedProcess[str], subprocess.CompletedProcess[str]]:
    runs = []
    for env in ({}, {"KDACHECK_NO_FASTPATH": "1"}):
        runs.append(subprocess.run(
            [sys.executable, "-m", "kdacheck", "lint", *argv], input=stdin, capture_output=True, text=True, cwd=ROOT,
            timeout=120, env={**os.environ, "NO_COLOR": "1", "GITHUB_ACTIONS": "", "COLUMNS": "120", **env},
        ))
    return runs[0], runs[1]


@pytest.mark.slow
@pytest.mark.parametrize(
    "argv",
    [
        (EXAMPLE,),
        ("--output-format", "json", EXAMPLE, "--select", "SPEC,KDA", "--select=MEM"),
        ("--cmd", "python -m sglang.launch_server --tp-size 0 --speculative-algorithm EAGLE", "--failure-threshold", "error"),
        ("--output-format=concise", "--ignore", "ARG", "--exit-zero", "tests/data/hostile/counts-zero-negative.sh"),
        ("--show-resolved", EXAMPLE, "--gpu", "h200", "--sglang-version", "0.5.22"),
        ("--gpu", "nosuchgpu", EXAMPLE),
        ("--output-format", "xml", EXAMPLE),  # Typer's own error either way
        ("--no-such-option", EXAMPLE),
        ("-1",),
        (),
        ("--help",),
        ("-", "--output-format", "github"),
    ],
)
def test_fast_path_matches_typer(argv: tuple[str, ...]) -> None:
    fast, slow = _both(*argv, stdin="python -m sglang.launch_server --tp-size 2 --tp-size 4\n")
    assert (fast.returncode, fast.stdout, fast.stderr) == (slow.returncode, slow.stdout, slow.stderr)


def test_fast_parser_declines_what_it_does_not_copy() -> None:
    for argv in (["--help"], ["-h"], ["--sel", "A"], ["--output-format", "xml"], ["--cmd"], ["-1"], ["--run-after"]):
        with pytest.raises(fastpath._Unsure):
            fastpath.parse(argv)


def test_fast_parser_reads_what_typer_reads() -> None:
    kw = fastpath.parse(["a.sh", "--select", "A,B", "--select=C", "--run", "b.yaml", "--output-format", "json", "--", "-x.sh"])
    assert kw["paths"] == ["a.sh", "b.yaml", "-x.sh"]
    assert kw["select"] == ["A,B", "C"]
    assert kw["run_after"] is True and kw["show_resolved"] is False
    assert kw["output_format"] == "json"
    assert kw["failure_threshold"] is None


def test_option_table_is_cli_lints_typer_declarations() -> None:
    """kdacheck/lint_options.py is generated from cli.lint; regenerate it when this fails:
    python -m kdacheck.fastpath > kdacheck/lint_options.py"""
    assert fastpath.declared_options(cli.lint) == lint_options.OPTIONS, fastpath.render_table(fastpath.declared_options(cli.lint))


def test_lint_options_are_cli_lints_parameters() -> None:
    """``run_lint(**options)`` takes :class:`LintOptions`: cli.lint's parameters, by name and
    default, in order; any other name is refused."""
    typer_side = inspect.signature(cli.lint).parameters
    plain_side = lint_command.LintOptions.__annotations__
    assert list(plain_side) == list(typer_side) == [row[0] for row in lint_options.OPTIONS]
    for name in plain_side:
        assert getattr(lint_command.LintOptions, name) == typer_side[name].default, name
    assert lint_command.LintOptions(cmd="x").cmd == "x" and lint_command.LintOptions().cmd is None
    with pytest.raises(TypeError, match="not an option"):
        lint_command.LintOptions(paht=["x"])


FAST = ["concise", *(pytest.param(f, marks=pytest.mark.slow) for f in FORMATS if f != "concise")]


@pytest.mark.parametrize("fmt", FAST)
def test_the_fast_path_imports_neither_typer_nor_rich(fmt: str) -> None:
    """`kdacheck lint FILE` (not a terminal) loads no Typer, Click, Rich or Pydantic module:
    read from ``-X importtime``, which names every module imported."""
    p = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "kdacheck", "lint", EXAMPLE, "--output-format", fmt],
        capture_output=True, text=True, cwd=ROOT, timeout=120, env={**os.environ, "NO_COLOR": "1", "GITHUB_ACTIONS": ""},
    )
    assert p.returncode in (0, 1), p.stderr[-2000:]
    imported = {line.rsplit("|", 1)[-1].strip() for line in p.stderr.splitlines() if line.startswith("import time:")}
    assert "kdacheck.lint_command" in imported  # the fast path ran
    heavy = sorted(m for m in imported if m.split(".")[0] in ("typer", "rich", "click", "pydantic", "kdacheck.cli") or m == "kdacheck.cli")
    assert heavy == [], heavy


def test_kernel_cases_and_run_plans_need_no_torch() -> None:
    """kdacheck.kernels.cases and .ops (the case records, the op registry, their memory) and
    the run planner are plain Python: the runner sizes a run before torch is imported."""
    code = (
        "import sys\n"
        "from kdacheck import runner\n"
        "from kdacheck.kernels.ops import bytes_needed\n"
        "plan = runner.plan_from_options(4, 8, None, None, None, 1, None, None, True)\n"
        "print(sum(bytes_needed(c.spec) for c in plan.cases) > 0, [m for m in ('torch', 'triton') if m in sys.modules])\n"
    )
    p = _python(code)
    assert p.returncode == 0, p.stderr
    assert p.stdout.strip() == "True []", p.stdout


def test_lint_imports_no_network_module_unless_it_fetches() -> None:
    """A launch whose model is a preset (the bundled index), a Hub id with the Hub off, and a
    local path: nothing loads huggingface_hub, urllib.request or http.client (kdacheck imports
    them only inside model_source.fetch_hub_config / hub_url)."""
    launch = ("python -m sglang.launch_server --model-path {} --tp-size 2 --speculative-algorithm EAGLE "
              "--speculative-num-steps 3 --speculative-eagle-topk 1 --speculative-num-draft-tokens 4")
    for model, env in (("moonshotai/Kimi-Linear-48B-A3B-Instruct", {}), ("acme/private-model", {"HF_HUB_OFFLINE": "1"}),
                       ("/mnt/models/prod", {})):
        p = subprocess.run(
            [sys.executable, "-X", "importtime", "-m", "kdacheck", "lint", "--cmd", launch.format(model)],
            capture_output=True, text=True, cwd=ROOT, timeout=120, env={**os.environ, "NO_COLOR": "1", "GITHUB_ACTIONS": "", **env},
        )
        assert p.returncode in (0, 1), p.stderr[-2000:]
        imported = {line.rsplit("|", 1)[-1].strip() for line in p.stderr.splitlines() if line.startswith("import time:")}
        network = sorted(m for m in imported if m.split(".")[0] == "huggingface_hub" or m in ("urllib.request", "http.client"))
        assert network == [], (model, network)
