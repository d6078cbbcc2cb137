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


def test_gpu_check_script_parses_and_plans_within_eight_minutes() -> None:
    import subprocess

    script = str(Path(__file__).resolve().parent.parent / "benchmarks" / "gpu_check.sh")
    assert subprocess.run(["bash", "-n", script], capture_output=True).returncode == 0
    p = subprocess.run(["bash", script, "--dry-run"], capture_output=True, text=True, timeout=60)
    assert p.returncode == 0, p.stdout + p.stderr
    total = next(ln for ln in p.stdout.splitlines() if ln.strip().startswith("total"))
    assert int(total.split()[1]) <= 480, total
    for part in ("kernel-tests-cuda", "registers", "run-mamba2", "benchmarks", "memcheck"):
        assert part in p.stdout
