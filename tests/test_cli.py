"""The command line as users meet it: exit codes, places, bad input, rules and explain."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from kdacheck.cli import app
from kdacheck.docs import rules_markdown
from kdacheck.rules import all_rules

ROOT = Path(__file__).resolve().parent.parent
runner = CliRunner()

SPEC001_CMD = (
    "python -m sglang.launch_server --model-path moonshotai/Kimi-Linear-48B-A3B-Instruct --tp 4 "
    "--speculative-algorithm EAGLE --speculative-eagle-topk 1 --speculative-num-draft-tokens 8"
)


def invoke(*args: str, input: str | None = None):  # type: ignore[no-untyped-def]
    return runner.invoke(app, list(args), input=input, env={"NO_COLOR": "1", "GITHUB_ACTIONS": ""})


def test_good_example_exits_0_and_shows_resolved_values() -> None:
    r = invoke("lint", str(ROOT / "examples/kimi-linear-dspark.yaml"))
    assert r.exit_code == 0, r.output
    assert "algorithm DSPARK · S 1 · K 1 · D 4 · D_max 4 · R 48" in r.output


def test_spec001_points_at_the_flag() -> None:
    r = invoke("lint", "--cmd", SPEC001_CMD)
    assert r.exit_code == 1
    col = SPEC001_CMD.index("--speculative-eagle-topk") + 1
    assert f"<cmd>:1:{col}: SPEC001 error" in r.output


def test_show_resolved_worked_figure() -> None:
    cmd = (
        "python -m sglang.launch_server --model-path moonshotai/Kimi-Linear-48B-A3B-Instruct --tp-size 4 "
        "--speculative-algorithm EAGLE --speculative-num-steps 3 --speculative-eagle-topk 1 --speculative-num-draft-tokens 4"
    )
    r = invoke("lint", "--cmd", cmd, "--show-resolved", "--output-format", "full")
    assert "2,055,208,960" in r.output
    data = json.loads(invoke("lint", "--cmd", cmd, "--output-format", "json").output)
    values = data["files"][0]["commands"][0]["values"]
    assert values["kdacheck.R"]["value"] == 48 and values["kdacheck.R"]["origin"] == "derived"
    assert values["sglang.max_running_requests"]["why"] == "SGLang default under speculative decoding"
    draft = values["sglang.speculative_num_draft_tokens"]
    assert draft["value"] == 4 and draft["origin"] == "user"
    assert draft["location"] == {"path": "<cmd>", "line": 1, "column": cmd.index("--speculative-num-draft-tokens") + 1}
    assert values["input.speculative_num_draft_tokens"]["value"] == 4
    assert values["kdacheck.intermediate_ssm_bytes"]["value"] == 2_055_208_960
    assert values["kdacheck.intermediate_ssm_bytes"]["unit"] == "bytes"


def test_resolved_view_has_sglang_names() -> None:
    """The three layers: SGLang's resolved fields under its own names (issue: DSA on H200, Kimi)."""
    def values(cmd: str) -> dict:
        doc = json.loads(invoke("lint", "--cmd", cmd, "--gpu", "h200", "--show-resolved", "--output-format", "json").output)
        return doc["files"][0]["commands"][0]["values"]

    dsa = values("python -m sglang.launch_server --model-path deepseek-ai/DeepSeek-V3.2 --tp-size 8 --speculative-algorithm EAGLE")
    assert dsa["sglang.attention_backend"]["value"] == "dsa" and dsa["sglang.page_size"]["value"] == 64
    kimi = values("python -m sglang.launch_server --model-path moonshotai/Kimi-Linear-48B-A3B-Instruct --tp-size 4 --speculative-algorithm EAGLE")
    assert kimi["sglang.linear_attn_verify_backend"]["value"] == "nv_cutedsl"
    assert kimi["kdacheck.mem_rest_gib"]["origin"] == "estimate"
    assert all(not str(v["value"]).startswith(("RowMapParams(", "MemSolve(")) for v in kimi.values())


def test_stdin() -> None:
    r = invoke("lint", "-", input=SPEC001_CMD + "\n")
    assert r.exit_code == 1 and "SPEC001" in r.output


def test_bad_input_exit_2_no_traceback(tmp_path: Path) -> None:
    bad = tmp_path / "bad.yaml"
    bad.write_text("model-path: [unclosed\n")
    for args in (
        ["lint", str(bad)],
        ["lint", str(tmp_path / "missing.yaml")],
        ["lint", "--gpu", "tpu9000", "--cmd", "sglang serve"],
        ["lint", "--sglang-version", "0.4.0", "--cmd", "sglang serve"],
        ["lint", "--model", "no-such-model", "--cmd", "sglang serve"],
        ["explain", "NOPE001"],
        ["lint"],
    ):
        r = invoke(*args)
        assert r.exit_code == 2, (args, r.output)
        assert "Traceback" not in r.output


def test_invalid_yaml_names_the_place(tmp_path: Path) -> None:
    bad = tmp_path / "bad.yaml"
    bad.write_text("model-path: x\ntp-size: [4\n")
    r = invoke("lint", str(bad))
    assert f"{bad}:" in r.output and "invalid YAML" in r.output


def test_rules_lists_every_code() -> None:
    r = invoke("rules")
    assert r.exit_code == 0
    for rule in all_rules():
        assert rule.code in r.output


def test_explain_prints_documentation() -> None:
    r = invoke("explain", "kda001")
    assert r.exit_code == 0
    assert "KDA verify needs {draft_token_num} scratch steps, but intermediate_ssm only has {scratch_steps}." in r.output
    assert "How to fix" in r.output


def test_docs_rules_md_is_current() -> None:
    assert (ROOT / "docs/rules.md").read_text(encoding="utf-8") == rules_markdown(), (
        "docs/rules.md is stale: run `python -m kdacheck.docs > docs/rules.md`"
    )


def test_version_flag() -> None:
    r = invoke("--version")
    assert r.exit_code == 0 and r.output.startswith("kdacheck ")


def test_console_script_runs() -> None:
    out = subprocess.run([sys.executable, "-m", "kdacheck", "lint", "--cmd", SPEC001_CMD, "--output-format", "json"], capture_output=True, text=True, timeout=60)
    assert out.returncode == 1
    assert json.loads(out.stdout)["summary"]["errors"] >= 1


@pytest.mark.slow
def test_lint_run_json_is_one_document() -> None:
    """``lint --run --output-format json``: the kernels' reports inside lint's one document."""
    pytest.importorskip("torch")  # --run launches the kernels
    pytest.importorskip("triton")
    p = subprocess.run(
        [sys.executable, "-m", "kdacheck", "lint", "examples/kimi-linear-dspark.yaml", "--output-format", "json", "--run"],
        cwd=ROOT, capture_output=True, text=True, timeout=300, env={**__import__("os").environ, "TRITON_INTERPRET": "1"},
    )
    doc = json.loads(p.stdout)  # the whole stdout parses: one document
    assert doc["files"][0]["path"] == "examples/kimi-linear-dspark.yaml"
    assert len(doc["run"]) == 1 and doc["run"][0]["passed"] is True
    assert p.returncode == 0, p.stderr


def test_lint_run_prints_the_run_report_after_the_lint_report() -> None:
    pytest.importorskip("torch")
    pytest.importorskip("triton")
    p = subprocess.run(
        [sys.executable, "-m", "kdacheck", "lint", "examples/kimi-linear-dspark.yaml", "--run"],
        cwd=ROOT, capture_output=True, text=True, timeout=300, env={**__import__("os").environ, "TRITON_INTERPRET": "1", "NO_COLOR": "1"},
    )
    assert p.returncode == 0, p.stderr
    out = p.stdout
    assert out.index("Checked 1 file") < out.index("kernel checks passed"), out


def test_run_args_reads_the_project_configuration(tmp_path: Path) -> None:
    """``run --args F`` takes its settings from F's [tool.kdacheck] as lint does."""
    (tmp_path / "kdacheck.toml").write_text('gpu = "not-a-gpu"\n')
    launch = tmp_path / "launch.sh"
    launch.write_text((ROOT / "examples/qwen3-next-nextn.sh").read_text())
    result = invoke("run", "--args", str(launch), "--device", "cpu")
    assert result.exit_code == 2
    assert "kdacheck.toml:1" in result.output and "not-a-gpu" in result.output


def test_nothing_to_check_is_not_a_pass(tmp_path: Path) -> None:
    """Explicit input without a launch exits 2; an empty folder warns (exit 2 with --strict)."""
    assert invoke("lint", "--cmd", "echo hi").exit_code == 2
    docker = tmp_path / "Dockerfile"
    docker.write_text('FROM python:3.11\nCMD ["python", "-m", "http.server"]\n')
    assert invoke("lint", str(docker)).exit_code == 2
    empty = tmp_path / "empty"
    empty.mkdir()
    r = invoke("lint", str(empty))
    assert r.exit_code == 0 and "no SGLang launch command found" in r.output
    assert invoke("lint", str(empty), "--strict").exit_code == 2


def test_unknown_select_codes_are_an_error_with_a_suggestion() -> None:
    for option, value in (("--select", "NOPE"), ("--ignore", "SPEC99"), ("--extend-select", "KDA02")):
        r = invoke("lint", option, value, "--cmd", "python -m sglang.launch_server --model-path x")
        assert r.exit_code == 2, (option, r.output)
        assert "did you mean" in r.output, r.output


def test_conventions_people_type_without_reading_the_help(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    assert invoke("-V").stdout.startswith("kdacheck ")
    monkeypatch.chdir(tmp_path)  # -o writes inside the working directory's repository
    assert "Usage:" in invoke("lint", "-h").stdout
    out = tmp_path / "report.sarif"
    r = invoke("lint", "--cmd", "python -m sglang.launch_server --bogus", "--output-format", "sarif", "-o", str(out))
    assert r.exit_code == 1 and r.stdout == ""
    assert json.loads(out.read_text())["runs"][0]["results"][0]["ruleId"] == "ARG001"
    r = invoke("explain", "KDA02")
    assert r.exit_code == 2 and "did you mean KDA002" in r.stderr
    assert invoke("rules", "--output-format", "csv").exit_code == 2  # rejected, not ignored


def test_fast_path_reads_short_options(tmp_path: Path) -> None:
    # `kdacheck lint -o FILE` starts through the fast parser, as Typer reads it.
    out = tmp_path / "r.txt"
    proc = subprocess.run([sys.executable, "-m", "kdacheck", "lint", "--cmd", "python -m sglang.launch_server --tp-size 2", "-o", str(out)],
                          capture_output=True, text=True, timeout=60, cwd=tmp_path)
    assert proc.returncode == 0 and proc.stdout == "" and out.read_text().startswith("<cmd>")


def test_full_report_draws_the_memory_per_rank_when_the_gpu_is_known() -> None:
    r = invoke("lint", "examples/kimi-linear-dspark.yaml", "--gpu", "h200")
    lines = r.stdout.splitlines()
    assert lines[1].startswith("  ✓ starts")  # the verdict comes first
    rows = {ln.split("  ")[2].strip(): ln for ln in lines if ln.startswith("    ") and " GiB  " in ln}
    assert set(rows) == {"weights", "draft weights", "hybrid state pool", "speculative scratch", "KV cache",
                         "prefill working set", "CUDA graphs", "rest of the slack"}
    assert "not counted: no local draft config.json" in rows["draft weights"]  # the draft path is not in the tree
    gib = [float(ln.split(" GiB")[0].split()[-1]) for ln in rows.values()]
    assert abs(sum(gib) - 143771 / 1024) < 0.05  # the parts add up to the H200's memory
    assert "memory per rank" not in invoke("lint", "examples/kimi-linear-dspark.yaml").stdout  # no GPU: no picture


def test_a_wrong_whole_number_is_named(tmp_path: Path) -> None:
    for cmd in (("plan", "--model", "kimi-linear", "--tp", "x"), ("run", "--tp", "x")):
        r = invoke(*cmd)
        assert r.exit_code == 2 and "'--tp': 'x' is not a whole number" in r.output, r.output
    one = tmp_path / "one.sh"
    one.write_text("echo hi\n")
    assert "(read as shell: 1 line)" in invoke("lint", str(one)).output


def test_rules_json_links_each_rule_to_its_documentation() -> None:
    rules = json.loads(invoke("rules", "--output-format", "json").stdout)
    assert all(r["url"].startswith("https://") and r["url"].endswith("#" + r["code"].lower()) for r in rules)
