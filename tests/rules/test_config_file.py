"""ARG011: what SGLang's --config merger refuses before argparse runs (ConfigArgumentMerger), in its order."""

from __future__ import annotations

from pathlib import Path

from kdacheck.lint import Options, lint_text
from kdacheck.results import FileResult
from kdacheck.versions import NEWEST
from tests.helpers import codes

LAUNCH = "python -m sglang.launch_server --model-path Qwen/Qwen3-Next-80B-A3B-Instruct "


def run(tmp_path: Path, args: str, files: dict[str, str] | None = None, version: str = NEWEST) -> FileResult:
    for name, text in (files or {}).items():
        (tmp_path / name).write_text(text)
    r = lint_text(LAUNCH + args + "\n", str(tmp_path / "run.sh"), Options(version=version), str(tmp_path))
    assert r.error is None, r.error
    return r


def arg011(r: FileResult) -> list[str]:
    return [f.message for f in r.findings if f.code == "ARG011"]


def test_the_suffix_by_name_alone(tmp_path: Path) -> None:
    assert arg011(run(tmp_path, "--config serving.json")) == ["Config file must be YAML format, got: .json"]
    assert arg011(run(tmp_path, "--config serving")) == ["Config file must be YAML format, got: "]
    # any case of .yaml / .yml is YAML; a missing YAML file is no ARG011 (where the server starts it may be there)
    assert arg011(run(tmp_path, "--config serving.YML")) == []
    assert arg011(run(tmp_path, "--config a.yaml", {"a.yaml": "tp-size: 2\n"}, version="0.5.19")) == []


def test_the_root_must_be_a_mapping(tmp_path: Path) -> None:
    r = run(tmp_path, "--config a.yaml", {"a.yaml": "- tp-size: 2\n"})
    assert arg011(r) == ["Config file must contain a dictionary at root level"]
    assert arg011(run(tmp_path, "--config b.yaml", {"b.yaml": "just a string\n"})) == [
        "Config file must contain a dictionary at root level"]
    assert arg011(run(tmp_path, "--config c.yaml", {"c.yaml": "# nothing\n"})) == []  # empty: {}


def test_one_config_word_with_a_file(tmp_path: Path) -> None:
    files = {"a.yaml": "tp-size: 2\n", "b.yaml": "tp-size: 4\n"}
    r = run(tmp_path, "--config a.yaml --config b.yaml", files)
    assert arg011(r) == ["Multiple config files specified! Only one allowed."]
    assert [f.location.col for f in r.findings if f.code == "ARG011"] == [len(LAUNCH + "--config a.yaml ") + 1]  # the second
    # the merger checks the count before the suffix, and reads only the words equal to --config
    assert arg011(run(tmp_path, "--config a.json --config b.yaml", files)) == ["Multiple config files specified! Only one allowed."]
    assert arg011(run(tmp_path, "--config=a.json")) == []
    assert arg011(run(tmp_path, "--tp-size 2 --config")) == ["No config file specified after --config flag!"]
    assert "ARG011" not in codes(run(tmp_path, "--config a.yaml", files))


def test_a_hostile_name_reaches_no_terminal_raw(tmp_path: Path) -> None:
    import subprocess
    import sys

    name = "'a.j\x1b[31mson" + "x" * 5000 + "'"
    (tmp_path / "run.sh").write_text(LAUNCH + "--config " + name + "\n")
    p = subprocess.run([sys.executable, "-m", "kdacheck", "lint", "--offline", str(tmp_path / "run.sh")], capture_output=True,
                       text=True, timeout=120, cwd=Path(__file__).resolve().parents[2])
    assert p.returncode == 1 and "ARG011" in p.stdout
    assert "\x1b" not in p.stdout + p.stderr
