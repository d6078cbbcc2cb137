"""Hostile text on every output path: a finding that carries a safe fix is sanitised like any
other (JUnit read a second, stale copy of the findings), no GitHub workflow command (``::`` at a
line's start, the legacy ``##[`` anywhere) reaches a CI log from a file name, a role name or a
value, ``plan --emit shell`` sends no escape sequence to the terminal, ``plan --sglang``'s JSON
says why SGLang did not start, an architecture kdacheck does not know is said, a model name of
1,500 quantisation suffixes is refused by name, and the Action, the pre-commit hook and the
container start kdacheck isolated from a ``PYTHONPATH=.`` tree."""

from __future__ import annotations

import io
import json
import os
import re
import shutil
import subprocess
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from typer.testing import CliRunner

from kdacheck.cli import app
from kdacheck.flags import NEWEST
from kdacheck.lint import Options, lint_text
from kdacheck.report import FORMATS, RenderContext, render
from kdacheck.results import FileResult, Results
from kdacheck.sanitize import CONTROL, visible, visible_name

ROOT = Path(__file__).resolve().parent.parent
MODELS = ROOT / "tests" / "data" / "models"
runner = CliRunner()

HOSTILE = "decode\n::error file=x::pwned\r\u202e\x1b[2J\x07##[error]legacy"
RAW = ("\x1b", "\x07", "\r", "\u202e", "##[")
KIMI = "python3 -m sglang.launch_server --model-path moonshotai/Kimi-Linear-48B-A3B-Instruct"
SPEC = "--speculative-algorithm EAGLE --speculative-eagle-topk 1 --speculative-num-draft-tokens 4"  # SPEC001: no steps


def _compose(name: str) -> str:  # `--tp`: ARG003, a safe fix (`--tp-size`) --fix writes
    return f"services:\n  {json.dumps(name)}:\n    image: lmsysorg/sglang:v0.5.23\n    command: {KIMI} --tp 4\n"


def _kubernetes(name: str) -> str:  # `--cuda-graph-max-bs` at 0.5.19: ARG005, a deprecated spelling
    return ("apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: d}\nspec:\n  template:\n    spec:\n      containers:\n"
            f"        - name: {json.dumps(name)}\n          image: lmsysorg/sglang:v0.5.19-cu129\n          args: [python3, -m, "
            "sglang.launch_server, --model-path, Qwen/Qwen3-Next-80B-A3B-Instruct, --tp-size, '4', --cuda-graph-max-bs, '32']\n")


def _lint_in_repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, name: str, text: str) -> FileResult:
    """``name`` written in a repository that is the working directory, so --fix would write it."""
    (tmp_path / ".git").mkdir(exist_ok=True)
    monkeypatch.chdir(tmp_path)
    (tmp_path / name).write_text(text)
    return lint_text(text, name, Options(version=NEWEST), ".")


def _rendered(fmt: str, result: FileResult) -> str:
    out = io.StringIO()
    render(fmt, Results([result]), out, RenderContext(NEWEST, color="never"))
    return out.getvalue()


def _no_command(out: str) -> None:
    """Nothing raw from the input: no control or format character, no legacy command, no line
    that opens with the hostile `::error`."""
    for raw in RAW:
        assert raw not in out, (raw, out)
    assert not [ln for ln in out.splitlines() if re.match(r"\s*::error file=[xy]\b", ln)], out


@pytest.mark.parametrize("fmt", sorted(FORMATS))
@pytest.mark.parametrize("manifest", [_compose, _kubernetes])
def test_a_fixable_finding_of_a_hostile_launch_is_sanitised_in_every_format(fmt: str, manifest, tmp_path: Path,  # type: ignore[no-untyped-def]
                                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    # before: JUnit read `by_launch`, the findings as they were before `[*]` was marked, raw
    r = _lint_in_repo(tmp_path, monkeypatch, "deploy.yaml", manifest(HOSTILE))
    assert r.error is None, r.error
    assert any(f.fixable for f in r.findings), [(f.code, f.fixes) for f in r.findings]
    assert [f for group in r.by_launch for f in group] == r.findings  # one home: by_launch is read from findings
    out = _rendered(fmt, r)
    _no_command(out)
    if fmt == "junit":
        ET.fromstring(out)
    elif fmt in ("json", "sarif", "gitlab"):
        json.loads(out)
    assert "pwned" in out or fmt in ("github", "gitlab")  # the name is shown, escaped (an info fact's role is not, there)


def test_the_quiet_filter_keeps_each_finding_with_its_launch(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from kdacheck.findings import Severity
    from kdacheck.report import failing_only

    text = _compose("a") + _compose("b").split("\n", 1)[1].replace("--tp 4", SPEC)
    r = _lint_in_repo(tmp_path, monkeypatch, "compose.yaml", text)
    (q,) = failing_only([r], Severity.WARNING)
    # before: by_launch kept the unfiltered copy (service a's ARG003 info in JUnit under -q)
    a, b = q.by_launch
    assert a == [] and "SPEC001" in [f.code for f in b] and b == q.findings


@pytest.mark.parametrize("fmt", sorted(FORMATS))
def test_a_legacy_workflow_command_in_a_name_or_a_value_never_reaches_the_log(fmt: str, tmp_path: Path,
                                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    """The runner reads `##[error]` anywhere in a line (actions/runner ActionCommandManager), `::`
    at a line's start: a file name, a value with a newline, in every format a CI log may show."""
    # before: `kdacheck info: a##[error]X.sh:1:...` in the github format, the name raw in every one
    (tmp_path / ".git").mkdir()
    monkeypatch.chdir(tmp_path)
    value = "org/m\n::error file=y::pwned ##[stop-commands]tok"
    (tmp_path / "a##[error]X.sh").write_text(f'{KIMI} --tp 4\npython3 -m sglang.launch_server --model-path "{value}"\n')
    r = runner.invoke(app, ["lint", ".", "--output-format", fmt], env={"GITHUB_ACTIONS": "", "NO_COLOR": "1"})
    assert r.exit_code == 1, r.output
    out = r.stdout
    _no_command(out)
    if fmt == "github":
        assert "kdacheck info: a##\\x5berror]X.sh:1:" in out
        ours = ("::error ", "::warning ", "::notice ", "::group::", "::endgroup::")
        assert all(ln.startswith(ours) for ln in out.splitlines() if ln.lstrip().startswith("::")), out
    if fmt in ("json", "sarif", "gitlab"):
        doc = json.loads(out)
        if fmt == "json":  # JSON escapes `[` (`\u005b`): the data read back is as written
            values = [c["values"]["input.model_path"]["value"] for c in doc["files"][0]["commands"]]
            assert values[1] == value


@pytest.mark.parametrize("text", ["a::b", "::error::x", "x\n  ::warning::y", "###[", "##[##[", "a\n\u3000::e", ":::x"])
def test_visible_leaves_no_workflow_command(text: str) -> None:
    for shown in (visible(text), visible_name(text)):
        assert "##[" not in shown
        assert not any(ln.lstrip().startswith("::") for ln in shown.splitlines()), shown
    assert "::" not in visible_name(text)


def test_json_text_escapes_and_reads_back_as_written() -> None:
    from kdacheck.sanitize import json_text

    doc = {"k\u202e": ["\x1b[2J", "##[error]x", "\x85\u2028\U000e0041", "plain ·"]}
    text = json_text(doc)
    assert not CONTROL.search(text) and "##[" not in text and "·" in text
    assert json.loads(text) == doc
    assert json.loads(json_text(doc, ensure_ascii=True)) == doc


# --- kdacheck plan ---------------------------------------------------------------------------

def _plan(*extra: str) -> object:
    return runner.invoke(app, ["plan", "--model", str(MODELS / "deepseek-v3.2"), "--gpu", "h200", "--tp", "8",
                               "--sglang-version", "0.5.23", "--budget-s", "120", *extra])


def test_plan_emit_shell_to_standard_output_sends_no_escape_sequence(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # before: `--served-model-name 'x<ESC>]0;pwned<BEL>y'` on standard output
    (tmp_path / ".git").mkdir()
    monkeypatch.chdir(tmp_path)
    (tmp_path / "run.sh").write_text("python3 -m sglang.launch_server --model-path deepseek-ai/DeepSeek-V3.2 "
                                     "--served-model-name \"x\x1b]0;pwned\x07y\u202ez\"\n")
    shown = _plan("--args", "run.sh", "--emit", "shell")
    assert shown.exit_code == 0, shown.output  # type: ignore[attr-defined]
    assert not CONTROL.search(shown.stdout), shown.stdout  # type: ignore[attr-defined]
    written = _plan("--args", "run.sh", "--emit", "shell", "-o", "plan.sh")
    assert written.exit_code == 0, written.output  # type: ignore[attr-defined]
    file = (tmp_path / "plan.sh").read_text()
    assert "'x\x1b]0;pwned\x07y\u202ez'" in file  # the file: the value's very bytes, as pasted
    if shutil.which("bash") is None:
        return
    # both, run by bash, give SGLang the same words
    def words(script: str) -> bytes:
        body = script.replace("python3 -m sglang.launch_server", "printf '%s|'").replace("set -euo pipefail\n", "")
        return subprocess.run(["bash", "-c", body], capture_output=True, timeout=60).stdout

    assert words(shown.stdout) == words(file) and "x\x1b]0;pwned\x07y\u202ez|".encode() in words(file)  # type: ignore[attr-defined]


def test_plan_sglang_json_and_table_say_why_sglang_did_not_start(monkeypatch: pytest.MonkeyPatch) -> None:
    """SGLang is not installed here: the probe is told it is, so the child runs and cannot import it."""
    # before: `"sglang": {"verdict": "harness_error", "error": null}` and nothing in the table
    from kdacheck import sglang

    monkeypatch.setattr(sglang, "importable", lambda _python: "0.5.23")
    r = _plan("--sglang", "--top", "1", "--output-format", "json")
    assert r.exit_code == 1, r.output  # type: ignore[attr-defined]
    got = json.loads(r.stdout)["candidates"][0]["sglang"]  # type: ignore[attr-defined]
    assert got["verdict"] == "harness_error"
    assert got["error"] and "ModuleNotFoundError" in got["error"] and "sglang" in got["error"], got
    table = _plan("--sglang", "--top", "1")
    assert "--sglang #1: harness_error: ModuleNotFoundError" in table.stdout, table.stdout  # type: ignore[attr-defined]


# --- models ----------------------------------------------------------------------------------

CONFIG = {"model_type": "llama", "num_hidden_layers": 32, "hidden_size": 4096, "num_attention_heads": 32,
          "num_key_value_heads": 8, "vocab_size": 32000, "intermediate_size": 11008}


@pytest.mark.parametrize("model_type", ["llama", "foo_bar"])
def test_an_architecture_kdacheck_does_not_know_is_said_and_not_checked(model_type: str, tmp_path: Path,
                                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    # before: "✓ starts", no note, every rule run on a model class nothing is known of
    (tmp_path / "foo").mkdir()
    (tmp_path / "foo" / "config.json").write_text(json.dumps({**CONFIG, "model_type": model_type, "architectures": ["FooForCausalLM"]}))
    launch = "python3 -m sglang.launch_server --model-path ./foo --tp-size 2\n"
    r = _lint_in_repo(tmp_path, monkeypatch, "run.sh", launch)
    (cfg,) = r.resolved
    notes = [f for f in r.findings if f.code == "MODEL001"]
    assert notes and "architecture not known: `FooForCausalLM`" in notes[0].message, [f.message for f in r.findings]
    assert cfg.not_checked and all(c in notes[0].message for c in cfg.not_checked)
    full = _rendered("full", r)
    assert "✓ starts as far as checked" in full and "✓ starts\n" not in full
    # the same config under an architecture SGLang implements: read and checked, no note
    (tmp_path / "foo" / "config.json").write_text(json.dumps({**CONFIG, "architectures": ["LlamaForCausalLM"]}))
    known = lint_text(launch, "run.sh", Options(version=NEWEST), ".")
    assert not [f for f in known.findings if f.code == "MODEL001"] and not known.resolved[0].not_checked


DEEP = "moonshotai/Kimi-Linear-48B-A3B-Instruct" + "-FP8" * 1500


def test_a_model_name_of_1500_suffixes_is_refused_by_name() -> None:
    # before: RecursionError ("internal error") in lint, --cmd and plan
    from kdacheck import model_index
    from kdacheck.findings import InputError

    with pytest.raises(InputError, match="more than 8 quantisation suffixes"):
        model_index.match(DEEP)
    r = lint_text(f"python3 -m sglang.launch_server --model-path /mnt/{DEEP}\n", "<cmd>", Options(version=NEWEST), ".")
    assert r.error is not None and "more than 8 quantisation suffixes" in r.error and "internal" not in r.error
    p = runner.invoke(app, ["plan", "--model", DEEP, "--gpu", "h200", "--tp", "4"])
    assert p.exit_code == 2 and "more than 8 quantisation suffixes" in p.stderr, p.output
    # real names as before: a suffix or two, and eight still match
    one = model_index.match("moonshotai/Kimi-Linear-48B-A3B-Instruct-FP8")
    assert one is not None and one.repo == "moonshotai/Kimi-Linear-48B-A3B-Instruct" and one.weight_bytes_per_param == 1.0
    eight = model_index.match("moonshotai/Kimi-Linear-48B-A3B-Instruct" + "-FP8" * 7 + "-NVFP4")
    assert eight is not None and eight.weight_bytes_per_param == 0.5625


# --- how CI starts kdacheck --------------------------------------------------------------------

@pytest.fixture(scope="module")
def venv_bin(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A Python that imports kdacheck from its site-packages (``python -I`` ignores PYTHONPATH),
    with the console script pip would write beside it."""
    from tests.helpers import console_script, python_with

    python = python_with(tmp_path_factory.mktemp("py"))
    console_script(python, python.parent)
    return python.parent


def _tree(tmp_path: Path) -> Path:
    (tmp_path / "yaml.py").write_text("print('MARKER: the tree was imported')\nraise SystemExit(3)\n")
    (tmp_path / "run.sh").write_text(f"{KIMI} --tp-size 4\n")
    return tmp_path


def _ci_env(bin_dir: Path, tmp_path: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "GITHUB_ACTIONS", "GITHUB_STEP_SUMMARY")}
    return {**env, "PATH": f"{bin_dir}{os.pathsep}{env['PATH']}", "PYTHONPATH": ".", "NO_COLOR": "1",
            "KDA_PATHS": "run.sh", "KDA_ARGS": "--offline", "KDA_SGLANG": "", "KDA_GPU": "", "KDA_THRESHOLD": "",
            "KDA_UPLOAD": "false", "KDA_SARIF": "", "GITHUB_OUTPUT": str(tmp_path / "github_output"), "RUNNER_TEMP": str(tmp_path)}


@pytest.mark.skipif(shutil.which("bash") is None, reason="needs bash")
def test_the_action_pre_commit_and_the_image_never_import_the_trees_yaml(venv_bin: Path, tmp_path: Path) -> None:
    # before: the console script, with PYTHONPATH=., imported ./yaml.py in place of PyYAML
    import yaml

    from tests.test_action import lint_script

    tree = _tree(tmp_path)
    env = _ci_env(venv_bin, tmp_path)
    action = subprocess.run(["bash", "-e", "-c", lint_script()], cwd=tree, env=env, capture_output=True, text=True, timeout=300)
    (hook,) = yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text())
    lines = [ln.strip() for ln in (ROOT / "Dockerfile").read_text().splitlines()]
    image = [w for ln in lines if ln.startswith(("ENTRYPOINT", "CMD")) for w in json.loads(ln.split(None, 1)[1])]
    runs = {"action": action}
    for what, argv in (("pre-commit", [*hook["entry"].split(), "run.sh"]), ("image", [*image[:-1], "run.sh", "--offline"])):
        runs[what] = subprocess.run(argv, cwd=tree, env=env, capture_output=True, text=True, timeout=300)
    for what, p in runs.items():
        assert "MARKER" not in p.stdout + p.stderr, (what, p.stdout, p.stderr)
        assert "Checked 1 file, 1 launch command" in p.stdout, (what, p.stdout, p.stderr)
    assert "exit-code=0" in (tmp_path / "github_output").read_text()


@pytest.mark.parametrize("fraction", ["6.829068635574144e+16", "1e308", "-3", "0.9"])
def test_a_huge_memory_fraction_draws_no_huge_memory_picture(fraction: str) -> None:
    """Found by tests/test_fuzz.py: the memory picture's bar was as long as KV GiB / GPU GiB × 32,
    so a fraction of 6.8e16 asked for ~10^17 characters (a MemoryError, or the CI machine's memory)."""
    from kdacheck.gpus import GPUS

    text = ("python3 -m sglang.launch_server --model-path moonshotai/Kimi-Linear-48B-A3B-Instruct --tp-size 4 "
            "--speculative-algorithm EAGLE --speculative-num-steps 3 --speculative-eagle-topk 1 --speculative-num-draft-tokens 4 "
            f"--mem-fraction-static {fraction}\n")
    result = lint_text(text, "serve.sh", Options(version=NEWEST, gpu=GPUS["h200"]), "/nonexistent")
    buf = io.StringIO()
    render("full", [result], buf, RenderContext(NEWEST, show_resolved=True))
    out = buf.getvalue()
    assert len(out) < 50_000 and max(len(line) for line in out.splitlines()) < 2_000
    assert ("memory per rank" in out) == (fraction == "0.9")
