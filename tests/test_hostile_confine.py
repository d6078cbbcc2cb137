"""Side files a pull request controls, as processes: every one is read through
``kdacheck.confine`` (inside the repository, a regular file, bounded) or refused by name.

Each test builds a repository (``repo/`` with a ``.git``) beside an ``outside/`` folder,
hashes ``outside/`` before and after, and runs the console entry point as CI does, with a
canary in kdacheck's own environment that must never reach any output.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.helpers import tree_state

CANARY = "kdacheck-canary-5b1e9f"
LAUNCH = "python -m sglang.launch_server"
KIMI_CONFIG = Path(__file__).parent / "data" / "models"


def kdacheck(args: list[str], cwd: Path, stdin: bytes | None = None) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "KDACHECK_TEST_SECRET": CANARY, "PYTHONHASHSEED": "0"}
    env.pop("GITHUB_ACTIONS", None)
    code = "import sys; from kdacheck.main import main; sys.argv[0] = 'kdacheck'; main()"
    p = subprocess.run([sys.executable, "-P", "-c", code, *args], cwd=cwd, input=stdin, capture_output=True, env=env, timeout=120)
    out = subprocess.CompletedProcess(p.args, p.returncode, p.stdout.decode("utf-8", "replace"), p.stderr.decode("utf-8", "replace"))
    both = out.stdout + out.stderr
    assert CANARY not in both, "kdacheck's own environment reached its output"
    assert "Traceback" not in both and "internal error" not in both, both
    return out


@pytest.fixture
def tree(tmp_path: Path) -> tuple[Path, Path]:
    repo, outside = tmp_path / "repo", tmp_path / "outside"
    (repo / ".git").mkdir(parents=True)
    outside.mkdir()
    (outside / "secrets.env").write_text(f"PASSWORD={CANARY}-password\nTP=2\n")
    (outside / "run.sh").write_text(f"{LAUNCH} --model-path outside/model --tp-size 2\n")
    return repo, outside


COMPOSE = """services:
  sglang:
    image: lmsysorg/sglang:v0.5.23
    command: ["python3", "-m", "sglang.launch_server", "--model-path", "${PASSWORD}", "--tp-size", "${TP}"]
"""


@pytest.mark.parametrize("target", ["/proc/self/environ", "../../outside/secrets.env"])
@pytest.mark.parametrize("fmt", ["full", "github", "json", "sarif"])
def test_a_compose_env_file_that_links_out_is_refused_by_name(tree: tuple[Path, Path], target: str, fmt: str) -> None:
    repo, outside = tree
    deploy = repo / "deploy"
    deploy.mkdir()
    (deploy / "compose.yaml").write_text(COMPOSE)
    (deploy / ".env").symlink_to(target)
    before = tree_state(outside)
    p = kdacheck(["lint", "deploy/compose.yaml", "--output-format", fmt, "--show-resolved"], repo)
    assert p.returncode == 2
    assert ".env" in p.stdout + p.stderr and "outside the repository" in p.stdout + p.stderr
    assert "password" not in (p.stdout + p.stderr).lower()
    assert tree_state(outside) == before


def test_a_compose_env_file_that_is_a_device_is_refused(tree: tuple[Path, Path]) -> None:
    repo, _ = tree
    (repo / "compose.yaml").write_text(COMPOSE)
    os.mkfifo(repo / "fifo")
    (repo / ".env").symlink_to("fifo")
    p = kdacheck(["lint", "compose.yaml"], repo)
    assert p.returncode == 2 and ".env" in p.stderr + p.stdout and "not a regular file" in p.stderr + p.stdout


def test_a_compose_env_file_inside_is_still_read(tree: tuple[Path, Path]) -> None:
    repo, _ = tree
    (repo / "compose.yaml").write_text(COMPOSE)
    (repo / ".env").write_text("PASSWORD=org/model\nTP=2\n")
    p = kdacheck(["lint", "compose.yaml", "--output-format", "json", "--show-resolved"], repo)
    assert p.returncode in (0, 1) and '"input.tp_size"' in p.stdout and '"value": "org/model"' in p.stdout


@pytest.mark.parametrize("how", ["named", "folder"])
def test_a_launch_file_that_links_out_is_refused_not_read(tree: tuple[Path, Path], how: str) -> None:
    repo, outside = tree
    (repo / "deploy").mkdir()
    (repo / "deploy" / "run.sh").symlink_to(outside / "run.sh")
    before = tree_state(outside)
    p = kdacheck(["lint", "deploy/run.sh" if how == "named" else "deploy"], repo)
    assert p.returncode == 2 and "run.sh" in p.stdout + p.stderr and "outside the repository" in p.stdout + p.stderr
    assert tree_state(outside) == before
    assert "outside/model" not in p.stdout + p.stderr  # not read
    assert "outside/model" in kdacheck(["lint", "deploy/run.sh", "--allow-outside"], repo).stdout


def test_a_model_folder_whose_config_json_links_out_is_refused(tree: tuple[Path, Path]) -> None:
    repo, outside = tree
    (outside / "config.json").write_text('{"architectures": ["KimiLinearForCausalLM"], "model_type": "kimi_linear"}')
    (repo / "model").mkdir()
    (repo / "model" / "config.json").symlink_to(outside / "config.json")
    (repo / "run.sh").write_text(f"{LAUNCH} --model-path ./model --tp-size 2\n")
    p = kdacheck(["lint", "run.sh"], repo)
    assert p.returncode == 2 and "config.json" in p.stdout + p.stderr and "outside the repository" in p.stdout + p.stderr


def test_a_settings_model_path_outside_is_refused_naming_the_key(tree: tuple[Path, Path]) -> None:
    repo, outside = tree
    (outside / "config.json").write_text('{"architectures": ["KimiLinearForCausalLM"]}')
    (repo / "pyproject.toml").write_text('[tool.kdacheck]\nmodel = "../outside/config.json"\n')
    (repo / "run.sh").write_text(f"{LAUNCH} --tp-size 2\n")
    p = kdacheck(["lint", "run.sh"], repo)
    assert p.returncode == 2 and "pyproject.toml:2" in p.stderr and "outside the repository" in p.stderr


@pytest.mark.parametrize("name", ["kdacheck.toml", "pyproject.toml"])
@pytest.mark.parametrize("target", ["/dev/zero", "../outside/secrets.env"])
def test_a_settings_file_that_links_out_or_to_a_device_is_refused(tree: tuple[Path, Path], name: str, target: str) -> None:
    repo, _ = tree
    (repo / name).symlink_to(target)
    (repo / "run.sh").write_text(f"{LAUNCH} --tp-size 2\n")
    p = kdacheck(["lint", "run.sh"], repo)
    assert p.returncode == 2 and name in p.stderr
    assert "outside the repository" in p.stderr or "not a regular file" in p.stderr


def test_an_env_file_outside_the_working_directory_repository_is_refused(tree: tuple[Path, Path]) -> None:
    repo, _ = tree
    (repo / "run.sh").write_text(f"{LAUNCH} --tp-size $TP\n")
    (repo / "vars.env").symlink_to("../outside/secrets.env")
    p = kdacheck(["lint", "run.sh", "--env-file", "vars.env"], repo)
    assert p.returncode == 2 and "--env-file vars.env" in p.stderr and "outside the repository" in p.stderr
    assert kdacheck(["lint", "run.sh", "--env-file", "vars.env", "--allow-outside"], repo).returncode in (0, 1)


def test_deeply_nested_settings_are_a_clear_error(tree: tuple[Path, Path]) -> None:
    repo, _ = tree
    (repo / "pyproject.toml").write_text("[tool.kdacheck]\nselect = " + "[" * 3000 + "]" * 3000 + "\n")
    (repo / "run.sh").write_text(f"{LAUNCH} --tp-size 2\n")
    p = kdacheck(["lint", "run.sh"], repo)
    assert p.returncode == 2 and "pyproject.toml" in p.stderr and "nested too deeply" in p.stderr


def test_closed_stdin_is_exit_2(tree: tuple[Path, Path]) -> None:
    repo, _ = tree
    code = "import sys; from kdacheck.main import main; sys.argv[0] = 'kdacheck'; main()"
    p = subprocess.run([sys.executable, "-P", "-c", code, "lint", "-"], cwd=repo, stdin=subprocess.DEVNULL, capture_output=True,
                       text=True, timeout=60, preexec_fn=lambda: os.close(0))
    assert p.returncode == 2 and "standard input" in p.stdout + p.stderr and "internal error" not in p.stderr


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="no /dev/full")
@pytest.mark.parametrize("fmt", ["full", "json"])
def test_a_full_stdout_is_exit_2_with_a_message(tree: tuple[Path, Path], fmt: str) -> None:
    repo, _ = tree
    (repo / "run.sh").write_text(f"{LAUNCH} --tp-size 2\n")
    code = "import sys; from kdacheck.main import main; sys.argv[0] = 'kdacheck'; main()"
    with open("/dev/full", "w") as full:
        p = subprocess.run([sys.executable, "-P", "-c", code, "lint", "run.sh", "--output-format", fmt], cwd=repo, stdout=full,
                           stderr=subprocess.PIPE, text=True, timeout=60)
    assert p.returncode == 2 and "cannot write the report to standard output" in p.stderr and "internal error" not in p.stderr


@pytest.mark.parametrize("char", ["\x1b[2J", "\u200b", "\u202e", "\ufeff", "\U000e0041"])
def test_show_resolved_escapes_control_and_format_characters(tree: tuple[Path, Path], char: str) -> None:
    repo, _ = tree
    (repo / "run.sh").write_text(f'{LAUNCH} --model-path "evil{char}name" --tp-size 2\n', encoding="utf-8")
    p = kdacheck(["lint", "run.sh", "--show-resolved"], repo)
    assert char not in p.stdout + p.stderr
    assert "evil\\" in p.stdout


def test_the_sanitiser_escapes_every_format_character() -> None:
    import unicodedata

    from kdacheck.sanitize import visible

    cf = [chr(c) for c in range(sys.maxunicode + 1) if unicodedata.category(chr(c)) == "Cf"]
    assert cf and all(visible(c) != c for c in cf)
    assert visible("plain text: ✓ · é 中\n") == "plain text: ✓ · é 中\n"


def test_lint_run_refuses_many_heavy_commands_before_any_kernel(tree: tuple[Path, Path]) -> None:
    """The work of every command is summed before the first kernel: each of these is under
    the budget alone (~4 s estimated), 100 of them are not."""
    repo, _ = tree
    one = (f"{LAUNCH} --model-path moonshotai/Kimi-Linear-48B-A3B-Instruct --tp-size 1 --speculative-algorithm EAGLE "
           "--speculative-num-steps 8 --speculative-eagle-topk 8 --speculative-num-draft-tokens 64\n")
    (repo / "run.sh").write_text(one * 100)
    p = kdacheck(["lint", "run.sh", "--run", "--output-format", "concise"], repo)
    assert p.returncode == 2 and "estimated work" in p.stderr and "kernel checks passed" not in p.stdout
    (repo / "one.sh").write_text(one)
    from kdacheck.kernels.ops import work

    from kdacheck.config import EMPTY, Overrides, options
    from kdacheck.lint import lint_path
    from kdacheck.runner import WORK_BUDGET_S, plan_from_resolved

    r = lint_path(str(repo / "one.sh"), options(EMPTY, Overrides()))
    alone = sum(w.seconds for cfg in r.resolved for c in plan_from_resolved(cfg, None, None, None, True).cases for w in work(c.spec, True))
    assert alone < WORK_BUDGET_S["cpu"] < 100 * alone


def test_helm_templates_are_known_by_content_and_counted(tree: tuple[Path, Path]) -> None:
    repo, _ = tree
    (repo / "chart" / "templates").mkdir(parents=True)
    (repo / "chart" / "Chart.yaml").write_text("apiVersion: v2\nname: x\n")
    manifest = ("apiVersion: apps/v1\nkind: Deployment\nspec:\n  template:\n    spec:\n      containers:\n      - name: sglang\n"
                "        image: lmsysorg/sglang\n        command: [\"python\", \"-m\", \"sglang.launch_server\", \"--tp-size\", \"{tp}\"]\n")
    (repo / "chart" / "templates" / "dep.yaml").write_text(manifest.format(tp="{{ .Values.tp }}"))
    (repo / "plain.yaml").write_text("# values come from {{ .Values.tp }} upstream\n" + manifest.format(tp="2"))
    (repo / "other" / "templates").mkdir(parents=True)
    (repo / "other" / "templates" / "dep.yaml").write_text(manifest.format(tp="2").replace("image:", "# {{ not helm }}\n        image:"))
    p = kdacheck(["lint", ".", "--output-format", "concise"], repo)
    assert "1 unrendered Helm template skipped" in p.stdout
    assert "Checked 2 files" in p.stdout
