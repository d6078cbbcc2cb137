"""Launches wherever people put them: bash arrays in scripts, and YAML documents that carry an
SGLang launch (srt-slurm recipes, Truss, SkyPilot, GitHub workflows); a YAML that is none of
these is "not a launch configuration", once; a launch whose arguments were not read is "not
checked", never "✓ starts"."""

from __future__ import annotations

from pathlib import Path

import pytest

from kdacheck.findings import Severity
from kdacheck.readers import read_text
from tests.helpers import lint

DATA = Path(__file__).resolve().parent / "data" / "carriers"
QWEN = "python3 -m sglang.launch_server --model-path Qwen/Qwen3-Next-80B-A3B-Instruct --tp-size 4"
SPEC = "--speculative-algorithm NEXTN --speculative-eagle-topk 1 --speculative-num-draft-tokens 4"


def loud(result):  # type: ignore[no-untyped-def]
    """Codes at warning level and above."""
    return sorted({f.code for f in result.findings if f.severity >= Severity.WARNING})


MULTI_LINE = f"""SPEC_ARGS=({SPEC})
CMD=(
  # the server
  python3 -m sglang.launch_server
  --model-path Qwen/Qwen3-Next-80B-A3B-Instruct --tp-size 4 \\
  "${{SPEC_ARGS[@]}}"
)
"${{CMD[@]}}"
"""


def test_array_as_the_command_gives_spec001_at_its_place() -> None:
    r = lint(MULTI_LINE, path="a.sh")
    assert r.error is None and loud(r) == ["SPEC001"]
    f = next(f for f in r.findings if f.code == "SPEC001")
    assert (f.location.line, f.location.col) == (1, 42)  # inside SPEC_ARGS=(...), where topk is written


@pytest.mark.parametrize("script", [
    f"CMD=({QWEN} {SPEC})\n\"${{CMD[@]}}\"\n",
    f"declare -a CMD=({QWEN} {SPEC})\n${{CMD[*]}}\n",
    f"SPEC_ARGS=({SPEC})\n{QWEN} \"${{SPEC_ARGS[@]}}\"\n",
    f"A=(--speculative-algorithm NEXTN)\nA+=(--speculative-eagle-topk 1)\nA+=(--speculative-num-draft-tokens 4)\n{QWEN} \"${{A[@]}}\"\n",
    f"setup() {{\n  ARGS=({SPEC})\n}}\nsetup\n{QWEN} \"${{ARGS[@]}}\"\n",
    f"A=(x 4)\n{QWEN} --speculative-algorithm NEXTN --speculative-eagle-topk 1 --speculative-num-draft-tokens \"${{A[1]}}\"\n",
], ids=["one-line", "declare-star", "in-a-command", "appends", "function", "index"])
def test_array_forms(script: str) -> None:
    r = lint(script, path="a.sh")
    assert r.error is None and loud(r) == ["SPEC001"], (r.error, r.findings)
    assert not [c for c in r.resolved if c.cmd.unread]


def test_unknown_array_is_said_and_not_checked() -> None:
    from kdacheck.report.full import verdict

    r = lint(f'{QWEN} "${{EXTRA[@]}}"\n', path="a.sh")
    assert r.error is None and any("EXTRA" in n and "not read" in n for n in r.notes)
    assert "not checked" in "".join(t for t, _s in verdict(r)) and "✓" not in "".join(t for t, _s in verdict(r))


def test_no_arguments_is_not_checked() -> None:
    from kdacheck.report.full import verdict

    r = lint("python3 -m sglang.launch_server\n", path="a.sh")
    assert "not checked" in "".join(t for t, _s in verdict(r))
    clean = lint(f"{QWEN} --speculative-algorithm NEXTN --speculative-num-steps 3 --speculative-eagle-topk 1 "
                 "--speculative-num-draft-tokens 4\n", path="a.sh")
    assert "✓" in "".join(t for t, _s in verdict(clean))


def test_empty_array_is_nothing() -> None:
    r = lint(f'EXTRA=()\n{QWEN}\n"${{EXTRA[@]}}"\n', path="a.sh")
    assert r.error is None and not [c for c in r.resolved if c.cmd.unread]


def read(name: str):  # type: ignore[no-untyped-def]
    path = DATA / name
    return read_text(path.read_text(encoding="utf-8"), str(path), str(DATA))


def test_recipe_roles() -> None:
    cmds = read("recipe-1p1d.yaml")
    assert [c.name for c in cmds] == ["prefill", "decode"]
    assert cmds[0].tokens[:2][1].text == "Qwen/Qwen3-Next-80B-A3B-Instruct"  # model.path
    r = lint((DATA / "recipe-1p1d.yaml").read_text(), path=str(DATA / "recipe-1p1d.yaml"))
    assert loud(r) == ["SPEC001"] and "ARG001" not in {f.code for f in r.findings}
    clean = lint((DATA / "recipe-1p1d-clean.yaml").read_text(), path=str(DATA / "recipe-1p1d-clean.yaml"))
    assert loud(clean) == []


@pytest.mark.parametrize(("name", "label"), [
    ("truss-config.yaml", "docker_server.start_command"),
    ("skypilot-task.yaml", "run"),
    ("workflow.yml", "job serve, step start server"),
])
def test_script_carriers(name: str, label: str) -> None:
    cmds = read(name)
    assert [c.name for c in cmds] == [label]
    r = lint((DATA / name).read_text(), path=str(DATA / name))
    assert loud(r) == ["SPEC001"], r.findings


def test_truss_clean() -> None:
    r = lint((DATA / "truss-config-clean.yaml").read_text(), path=str(DATA / "truss-config-clean.yaml"))
    assert r.error is None and loud(r) == []


@pytest.mark.parametrize("name", ["workflow-no-launch.yml", "helm-values.yaml", "arbitrary.yaml"])
def test_not_a_launch_configuration(name: str) -> None:
    import subprocess
    import sys

    r = lint((DATA / name).read_text(), path=str(DATA / name))
    assert r.error is not None and "not a launch configuration" in r.error and not r.findings
    p = subprocess.run([sys.executable, "-m", "kdacheck", "lint", str(DATA / name)], capture_output=True, text=True, timeout=120)
    assert p.returncode == 2 and "ARG0" not in p.stdout + p.stderr
    assert (p.stdout + p.stderr).count("not a launch configuration") == 1


def test_folder_walk_skips_non_launch_yaml(tmp_path: Path) -> None:
    from kdacheck.readers.relevance import relevant

    for name in ("workflow-no-launch.yml", "helm-values.yaml", "arbitrary.yaml"):
        assert not relevant(str(DATA / name), (DATA / name).read_text())
    for name in ("recipe-1p1d.yaml", "truss-config.yaml", "skypilot-task.yaml", "workflow.yml"):
        assert relevant(str(DATA / name), (DATA / name).read_text()), name


def test_a_config_with_one_flag_is_still_a_config() -> None:
    r = lint("tp-size: 4\nmodel-path: Qwen/Qwen3-Next-80B-A3B-Instruct\nfoo: 1\n", path="c.yaml")
    assert r.error is None and "ARG001" in {f.code for f in r.findings}


def test_folder_walk_counts_non_launch_yaml_once() -> None:
    import subprocess
    import sys

    p = subprocess.run([sys.executable, "-m", "kdacheck", "lint", "--output-format", "concise", str(DATA)],
                       capture_output=True, text=True, timeout=120)
    assert "1 non-launch YAML file skipped" in p.stdout  # helm-values.yaml names SGLang; arbitrary.yaml does not
    assert "ARG001" not in p.stdout and p.returncode == 1
