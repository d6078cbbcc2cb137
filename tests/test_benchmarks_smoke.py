"""Smoke test of benchmarks/kernels.py: the quick sizes in Triton's interpreter on CPU."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from kdacheck.kernels import ops
from kdacheck.kernels.cases import Mamba2Case

pytest.importorskip("torch")
pytest.importorskip("triton")

ROOT = Path(__file__).resolve().parents[1]
LABEL = "interpreter wall clock"


@pytest.mark.slow
def test_quick_cpu_benchmark_writes_labelled_json(tmp_path: Path) -> None:
    out = tmp_path / "kernels.json"
    env = {k: v for k, v in os.environ.items() if k not in ("TRITON_INTERPRET", "CUDA_VISIBLE_DEVICES")}
    env["CUDA_VISIBLE_DEVICES"] = ""  # even on a GPU machine this is the interpreter run
    proc = subprocess.run(
        [sys.executable, str(ROOT / "benchmarks" / "kernels.py"), "--quick", "--device", "cpu",
         "--reps", "1", "--json", str(out)],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=240,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr[-3000:]
    doc = json.loads(out.read_text())
    assert doc["complete"] is True
    assert doc["meta"]["device"] == "cpu" and doc["meta"]["quick"] is True
    assert doc["floor"]["bandwidth_gbs"] > 0
    rows = doc["rows"]
    assert {r["kernel"] for r in rows} == {"kda_verify", "hisparse_gather", "mamba2_verify"}
    for r in rows:
        assert not r.get("error") and not r.get("skipped"), r
        assert r["label"] == LABEL
        assert r["bytes"] > 0 and r["time_s"] > 0
        assert r.get("bandwidth_gbs") is None and r.get("floor_share") is None  # not on CPU
        for t in ("floor_share", "peer_speedup"):
            assert r["targets"][t]["pass"] is None  # targets are not judged in the interpreter
        # the peer either ran (with a time) or says why not, in so many words
        if r.get("peer_time_s") is not None:
            assert r["peer_time_s"] > 0 and r["speedup_vs_peer"] > 0
            assert r["peer_status"] == "ok"
        else:
            assert r["peer_status"].startswith("peer not available on CPU"), r["peer_status"]
    for r in rows:
        if r["kernel"] == "hisparse_gather":
            assert r["peer_time_s"] is not None, "the PyTorch peer always runs on CPU"
            assert r["peer_agrees"] is True
            assert r["misses"] >= 0
        elif r["kernel"] == "mamba2_verify":  # no peer, no targets; the op's byte formula
            assert r.get("peer_time_s") is None
            assert r["bytes_formula"] == ops.MAMBA2_VERIFY.bytes_formula
            assert r["bytes"] == ops.MAMBA2_VERIFY.bytes_moved(Mamba2Case(**{k: r["shape"][k] for k in ("N", "T", "H", "G", "P", "DS", "state_dtype")}, T_alloc=r["shape"]["T"]), 0)
        elif r.get("peer_rel_diff") is not None:  # fla ran in the interpreter: same math
            assert r["peer_rel_diff"] < 2e-2
    # the human-readable table says what the numbers are
    assert LABEL in proc.stdout


@pytest.mark.slow
def test_full_sizes_refused_on_cpu() -> None:
    proc = subprocess.run(
        [sys.executable, str(ROOT / "benchmarks" / "kernels.py"), "--device", "cpu"],
        cwd=ROOT, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert proc.returncode == 2
    assert "--quick" in proc.stderr


GPU_CHECK = ROOT / "benchmarks" / "gpu_check.sh"


def test_gpu_check_plan_fits_six_minutes_and_orders_parts_by_value() -> None:
    assert subprocess.run(["bash", "-n", str(GPU_CHECK)], capture_output=True).returncode == 0
    p = subprocess.run(["bash", str(GPU_CHECK), "--plan"], capture_output=True, text=True, timeout=60)
    assert p.returncode == 0, p.stdout + p.stderr
    lines = [ln.split() for ln in p.stdout.splitlines()[1:] if ln.startswith("  ")]
    parts = [ln[0] for ln in lines]
    assert parts == ["prepare", "verify", "fla", "floor", "gather", "memcheck", "total"], p.stdout
    budgets = [int(ln[1]) for ln in lines]
    assert all(b > 0 for b in budgets) and sum(budgets[:-1]) == budgets[-1] <= 360, p.stdout
    text = p.stdout
    assert "Kimi-Linear tp 4 and tp 8" in text and "fused_recurrent_kda_fwd" in text
    assert "PCIe floor from pinned host memory" in text and "compute-sanitizer" in text


def test_gpu_check_refuses_an_unknown_option() -> None:
    p = subprocess.run(["bash", str(GPU_CHECK), "--dryrun"], capture_output=True, text=True, timeout=60)
    assert p.returncode == 2 and "unknown option" in p.stdout


def test_the_deployed_sizes_are_the_issue_s() -> None:
    """Kimi-Linear at tp 4 and tp 8, Qwen3-Next, Nemotron-H, each at R = 48 with a chain and
    the widest tree; every model is one kdacheck knows by its preset (config.json)."""
    from kdacheck.model_source import preset

    bench = _kernels_module()
    assert bench.DEPLOYED_R == 48
    kimi_tps = {tp for m, tp, *_ in bench.DEPLOYED if m.startswith("moonshotai/Kimi-Linear")}
    assert kimi_tps == {4, 8}
    assert all(preset(m, loose=False) is not None for m, *_ in bench.DEPLOYED)
    for model in {m for m, *_ in bench.DEPLOYED}:
        shapes = {(s, k) for m, _tp, s, k, _st in bench.DEPLOYED if m == model}
        assert (3, 1) in shapes and (4, 8) in shapes, model


def _kernels_module():  # type: ignore[no-untyped-def]
    import importlib.util

    spec = importlib.util.spec_from_file_location("kdacheck_benchmarks_kernels", ROOT / "benchmarks" / "kernels.py")
    assert spec is not None and spec.loader is not None
    mod = sys.modules.get(spec.name)
    if mod is None:
        mod = importlib.util.module_from_spec(spec)
        sys.modules[spec.name] = mod  # its dataclasses look their module up
        spec.loader.exec_module(mod)
    return mod


@pytest.mark.slow
def test_gpu_check_dry_run_runs_every_part_at_toy_size(tmp_path: Path) -> None:
    """The dry run: the plan, the carried wheels (checked against benchmarks/wheels.lock when
    .whl/ is there; a clean clone, as CI's, has none: then --no-wheels, said in the output),
    and every part's Python at toy size in the interpreter from the copied installed layout."""
    wheels = (ROOT / ".whl").is_dir() and any((ROOT / ".whl").glob("*.whl"))
    out = tmp_path / "out"
    env = {k: v for k, v in os.environ.items() if k not in ("TRITON_INTERPRET", "OUT")}
    env.update(PYTHON=sys.executable, OUT=str(out))
    argv = ["bash", str(GPU_CHECK), "--dry-run"] + ([] if wheels else ["--no-wheels"])
    p = subprocess.run(argv, capture_output=True, text=True, timeout=1500, env=env)
    assert p.returncode == 0, p.stdout[-6000:] + p.stderr[-3000:]
    if wheels:
        assert "ok: fla_core-" in p.stdout and "ok: einops-" in p.stdout
    else:
        assert "carried wheels: not checked (--no-wheels)" in p.stdout
    steps = [ln.split("\t") for ln in (out / "steps.tsv").read_text().splitlines()[1:]]
    assert [s[0] for s in steps] == ["prepare", "verify", "fla", "floor", "gather", "memcheck"]
    assert all(s[1] == "0" for s in steps), steps
    files = sorted(f.name for f in out.iterdir())
    assert len(files) <= 8, files  # the most a device call returns
    for part in ("verify", "fla", "floor", "gather", "memcheck"):
        doc = json.loads((out / f"{part}.json").read_text())
        assert doc["complete"] is True and doc["toy"] is True and doc["rows"], part
        assert not any(r.get("error") for r in doc["rows"] if r.get("name") != "kda unguarded overflow"), (part, doc["rows"])
    device = json.loads((out / "device.json").read_text())
    if wheels:
        assert "_deps" in device["modules"]["fla"]["file"]  # fla from the carried wheel
