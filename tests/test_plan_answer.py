"""What ``kdacheck plan`` prints can be pasted and trusted: the chosen launch as bash reads it,
an 80-column table with near-duplicates collapsed, KV tokens per request for the presets,
DSPARK/DFLASH planned or refused by name, Hub ids validated, no placeholder figure, a refusal
for a model with no known weights, a JSON error document on exit 2, progress on standard error
only, and no backend linted that the flag table refuses."""

from __future__ import annotations

import io
import json
import shlex
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from kdacheck.cli import app
from kdacheck.plan import PlanError, Request, engine, run
from kdacheck.plan import emit as plan_emit
from kdacheck.plan.judge import LAUNCHER, argv

ROOT = Path(__file__).resolve().parent.parent
MODELS = ROOT / "tests" / "data" / "models"
VERSION = "0.5.23"
runner = CliRunner()


def _plan(model: str, gpu: str = "h200", tp: int = 4, **kw: Any) -> Any:
    return run(Request(model=model, gpu=gpu, tp=tp, sglang_version=VERSION, budget_s=120.0, **kw))


@pytest.fixture(scope="module")
def qwen() -> Any:
    return _plan(str(MODELS / "qwen3-next-80b"))


def test_the_chosen_launch_pastes_as_one_command(qwen: Any) -> None:
    out = io.StringIO()
    plan_emit.render_table(qwen, out)
    lines = out.getvalue().splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith(LAUNCHER[0]))
    block = []
    for line in lines[start:]:
        block.append(line)
        if not line.endswith(" \\"):
            break
    pasted = " ".join(line.removesuffix(" \\") for line in block)
    assert shlex.split(pasted) == [*LAUNCHER, *argv(qwen.candidates[0].verdict.flags)]
    assert all(len(line) <= plan_emit.WIDTH for line in block[1:] if " " in line.strip())  # a flag and its value a line
    # with lint's per-rank memory picture (report/full.py memory_lines)
    assert any("memory per rank" in line for line in lines[start:]) and any("KV cache" in line for line in lines[start:])


def test_the_default_table_is_80_columns_and_collapses_near_duplicates(qwen: Any) -> None:
    narrow, wide = io.StringIO(), io.StringIO()
    plan_emit.render_table(qwen, narrow)
    plan_emit.render_table(qwen, wide, wide=True)
    assert max(len(line) for line in narrow.getvalue().splitlines()) <= 80
    assert max(len(line) for line in wide.getvalue().splitlines()) > 80 and "spec reserve" in wide.getvalue()
    rows = plan_emit.collapsed(qwen.candidates)
    assert sum(1 + n for _c, n in rows) == len(qwen.candidates)
    keys = [(round(c.score.throughput, 3), round(c.score.latency_s * 1e6, 3), round(c.score.tau, 6)) for c, _n in rows]
    assert len(keys) == len(set(keys)) and len(rows) < len(qwen.candidates)


@pytest.mark.parametrize("preset", ["kimi-linear", "deepseek-v3.2"])
def test_presets_get_kv_tokens_per_request(preset: str) -> None:
    res = _plan(preset, tp=8 if preset.startswith("deepseek") else 4)
    assert all(c.kv_tokens_per_request is not None for c in res.candidates)
    assert not any(n.startswith("--min-context could not be checked") for n in res.notes)


def test_dspark_is_planned_with_its_draft_and_dflash_refused_by_name() -> None:
    res = _plan("kimi-linear", drafts={"DSPARK": "/models/kimi-dspark", "DFLASH": "/models/kimi-dflash"})
    assert any("--speculative-algorithm DSPARK" in c.text for c in res.candidates)
    assert any(n.startswith("cannot plan DFLASH: SPEC015") for n in res.notes)
    r = runner.invoke(app, ["plan", "--model", "kimi-linear", "--gpu", "h200", "--tp", "4", "--draft", "DSPARK=/models/d",
                            "--output-format", "json"])
    assert r.exit_code == 0, r.output
    assert json.loads(r.stdout)["candidates"]


def test_a_misspelled_hub_id_exits_2_naming_it_and_offline_plans_from_the_index(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    bad = "Qwen/Qwen3-Next-80B-A3B-Instrct"
    r = runner.invoke(app, ["plan", "--model", bad, "--gpu", "h200", "--tp", "4", "--offline"])
    assert r.exit_code == 2 and f"--model {bad}: unknown model id" in r.output
    res = _plan("Qwen/Qwen3-Next-80B-A3B-Instruct", offline=True, max_candidates=40)
    assert "--model-path Qwen/Qwen3-Next-80B-A3B-Instruct " in res.candidates[0].text


def test_no_placeholder_weights_in_the_no_plan_message() -> None:
    with pytest.raises(PlanError) as e:
        _plan("deepseek-v3.2", gpu="h100", tp=8)
    assert "GiB per rank, assumed" in str(e.value) and "(-" not in str(e.value).split("GiB per rank")[0][-12:]
    assert "the weights alone (78.1 GiB per rank" in str(e.value)


def test_a_model_without_known_weights_exits_2_saying_so() -> None:
    folder = ROOT / "tests" / "data" / "lfm2-handmade" / "lfm2-two-layers"
    r = runner.invoke(app, ["plan", "--model", str(folder), "--gpu", "h100", "--tp", "1"])
    assert r.exit_code == 2 and "its weights are not known" in r.output and "internal error" not in r.output


def test_exit_2_with_json_writes_an_error_document() -> None:
    r = runner.invoke(app, ["plan", "--model", "deepseek-v3.2", "--gpu", "h100", "--tp", "8", "--output-format", "json"])
    assert r.exit_code == 2
    doc = json.loads(r.stdout)
    assert doc["schema"] == "kdacheck-plan/1" and doc["exit_code"] == 2 and "binding constraint" in doc["error"]
    r = runner.invoke(app, ["plan", "--model", "kimi-linear", "--gpu", "h200", "--tp", "2", "--gpus", "4", "--output-format", "json"])
    assert r.exit_code == 2 and "give one of them" in json.loads(r.stdout)["error"]


class _Clock:
    """A clock that advances a second per reading: progress is counted, never timed."""

    def __init__(self) -> None:
        self.t = 0.0

    def __call__(self) -> float:
        self.t += 1.0
        return self.t


@pytest.mark.parametrize("progress", [True, False])
def test_progress_goes_to_stderr_only_when_asked(progress: bool, monkeypatch: pytest.MonkeyPatch,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setattr(engine.time, "monotonic", _Clock())
    res = run(Request(model="kimi-linear", gpu="h200", tp=4, sglang_version=VERSION, budget_s=600, max_candidates=30,
                      progress=progress))
    plan_emit.render_json(res, __import__("sys").stdout)
    out, err = capsys.readouterr()
    json.loads(out)  # standard output stays the JSON document
    assert ("kdacheck plan: searching:" in err) is progress


def test_nv_cutedsl_is_never_linted_as_a_decode_backend(monkeypatch: pytest.MonkeyPatch) -> None:
    seen: list[Any] = []
    real = engine.judge

    def spy(flags: Any, opts: Any) -> Any:
        seen.append(flags)
        return real(flags, opts)

    monkeypatch.setattr(engine, "judge", spy)
    res = _plan("kimi-linear", max_candidates=200)
    assert not any(("--linear-attn-decode-backend", "nv_cutedsl") in f for f in seen)
    assert any(("--linear-attn-verify-backend", "nv_cutedsl") in f for f in seen) or \
        any("verify backend" in k for k in res.counts.why_pruned)
    assert any(k.startswith("decode backend nv_cutedsl: not a choice") for k in res.counts.why_pruned)


def test_targets_keep_the_lines_that_reach_them_and_refuse_when_none_does(qwen: Any) -> None:
    per_user = sorted(c.score.per_user for c in qwen.candidates)
    target = per_user[len(per_user) // 2]
    res = _plan(str(MODELS / "qwen3-next-80b"), min_tokens_per_user=target)
    assert res.candidates and all(c.score.per_user >= target for c in res.candidates)
    assert res.counts.kept == len(res.candidates) and any("below the target" in n for n in res.notes)
    with pytest.raises(PlanError, match="meets the target"):
        _plan(str(MODELS / "qwen3-next-80b"), min_tokens_per_gpu=qwen.candidates[0].score.throughput * 10, max_candidates=60)
    doc = plan_emit.document(qwen)
    est = doc["candidates"][0]["estimate"]
    assert est["tokens_per_s_per_user"] == pytest.approx(1 / est["latency_s_per_token"], rel=1e-3)
