"""``kdacheck lint --sglang`` end to end, against a stand-in ``sglang`` package (the real one is
exercised by benchmarks/sglang_diff; CI has no SGLang). The stand-in follows SGLang 0.5.23's
entry points: ``prepare_server_args(argv)`` → ``resolve_once()`` → ``check_server_args()``,
``resolved_dict()``; it refuses TP 2 with attention DP 4 the way parallel_hook.py L326 does."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from tests.helpers import python_with

ROOT = Path(__file__).resolve().parent.parent
KIMI = ROOT / "tests" / "data" / "models" / "kimi-linear-48b"

FAKE = '''
def prepare_server_args(argv):
    return _Args(argv)


class _Args:
    def __init__(self, argv):
        self.argv = argv

    def _get(self, flag, default=None):
        return self.argv[self.argv.index(flag) + 1] if flag in self.argv else default

    def resolve_once(self):
        tp, adp = int(self._get("--tp-size", 1)), int(self._get("--attn-dp-size", 1))
        assert tp % adp == 0

    def check_server_args(self):
        pass

    def resolved_dict(self):
        return {"tp_size": int(self._get("--tp-size", 1)), "page_size": int(self._get("--fake-page", 1)),
                "speculative_algorithm": None, "attention_backend": "fa3"}
'''


def _fake_site(tmp: Path) -> Path:
    site = tmp / "site-packages"
    pkg = site / "sglang" / "srt"
    pkg.mkdir(parents=True)
    (site / "sglang" / "__init__.py").write_text("")
    (pkg / "__init__.py").write_text("")
    (pkg / "server_args.py").write_text(textwrap.dedent(FAKE))
    meta = site / "sglang-0.5.23.dist-info"
    meta.mkdir()
    (meta / "METADATA").write_text("Metadata-Version: 2.1\nName: sglang\nVersion: 0.5.23\n")
    return site


def _plain_model(tmp: Path) -> Path:
    """Kimi Linear's config.json without its ``auto_map`` (a folder with one is not handed to
    SGLang at all: tests/test_hostile_exec.py)."""
    config = json.loads((KIMI / "config.json").read_text())
    config.pop("auto_map", None)
    folder = tmp / "kimi-linear-48b"
    folder.mkdir()
    (folder / "config.json").write_text(json.dumps(config))
    return folder


def _lint(site: Path | None, *args: str) -> subprocess.CompletedProcess[str]:
    """``kdacheck lint --sglang`` by an interpreter that has the stand-in installed (``site``;
    a PYTHONPATH entry would not do: kdacheck's children run isolated, ``python -I``)."""
    python = python_with(site.parent, site) if site else Path(sys.executable)
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    env["PYTHONPATH"] = str(ROOT)
    return subprocess.run([str(python), "-m", "kdacheck", "lint", "--sglang", "--output-format", "concise", *args],
                          capture_output=True, text=True, timeout=120, env=env, cwd=ROOT)


def test_sglang_refusal_is_reported_with_its_place(tmp_path: Path) -> None:
    site, kimi = _fake_site(tmp_path), _plain_model(tmp_path)
    p = _lint(site, "--model", str(kimi), "--cmd", f"python -m sglang.launch_server --model-path {kimi} --tp-size 2 --attn-dp-size 4")
    assert p.returncode == 1, p.stderr
    assert "SGLANG001 [error] SGLang refuses to start: AssertionError: (no message) (at sglang/srt/server_args.py:" in p.stdout
    assert "PAR001" in p.stdout  # kdacheck's own rule names the same cause


@pytest.mark.slow
def test_sglang_agreement_and_a_difference(tmp_path: Path) -> None:
    site, kimi = _fake_site(tmp_path), _plain_model(tmp_path)
    clean = _lint(site, "--model", str(kimi), "--cmd", f"python -m sglang.launch_server --model-path {kimi} --tp-size 4")
    assert "SGLANG" not in clean.stdout, clean.stdout
    # the stand-in reports a page size kdacheck does not resolve: a SGLANG002 difference
    # (--fake-page is unknown to kdacheck's tables too: ARG001)
    odd = _lint(site, "--model", str(kimi), "--cmd", f"python -m sglang.launch_server --model-path {kimi} --tp-size 4 --fake-page 64")
    assert "SGLANG002 [info] kdacheck defect: SGLang resolves page_size = 64; kdacheck resolved 1" in odd.stdout, odd.stdout


FAKE_NEEDS_A_GPU = FAKE + '''

def _device():
    import torch  # the machine here has no CUDA device: the answer is the simulated one

    if not torch.cuda.is_available():
        raise RuntimeError("No accelerator (CUDA, XPU, HPU, NPU, MPS) is available.")
    return torch.cuda.get_device_capability()


_resolve_once = _Args.resolve_once


def _checked(self):
    assert _device() == (9, 0)  # the default GPU kdacheck simulates: an H200
    _resolve_once(self)


_Args.resolve_once = _checked
'''


def test_sglang_judges_the_launch_not_the_machine(tmp_path: Path) -> None:
    """No --gpu on a CPU-only machine: SGLang runs on kdacheck's default simulated GPU (an H200),
    never "No accelerator"; a clean launch exits 0 (the real SGLang: test_real_sglang_* below)."""
    import torch

    if torch.cuda.is_available():
        pytest.skip("a CUDA device is present")
    site, kimi = _fake_site(tmp_path), _plain_model(tmp_path)
    (site / "sglang" / "srt" / "server_args.py").write_text(textwrap.dedent(FAKE_NEEDS_A_GPU))
    p = _lint(site, "--model", str(kimi), "--cmd", f"python -m sglang.launch_server --model-path {kimi} --tp-size 4")
    assert "No accelerator" not in p.stdout + p.stderr
    assert p.returncode == 0, (p.stdout, p.stderr)
    assert "simulated H200 (no --gpu given)" in p.stdout + p.stderr


FAKE_STARTS_EVERYTHING = FAKE.replace("assert tp % adp == 0", "pass")


def test_sglang_verdict_is_the_result_and_kdacheck_disagreement_a_note(tmp_path: Path) -> None:
    """Where SGLang starts a launch kdacheck's start-up rules refuse (here a stand-in that skips the
    attention-DP check), SGLang's verdict stands: exit 0, kdacheck's PAR001 shown as a note, and a
    SGLANG002 note naming both verdicts (no error left)."""
    site, kimi = _fake_site(tmp_path), _plain_model(tmp_path)
    (site / "sglang" / "srt" / "server_args.py").write_text(textwrap.dedent(FAKE_STARTS_EVERYTHING))
    p = _lint(site, "--model", str(kimi), "--cmd", f"python -m sglang.launch_server --model-path {kimi} --tp-size 2 --attn-dp-size 4")
    assert " 0 errors," in p.stdout, (p.stdout, p.stderr)  # (KDA008's warning on this layout stays a warning)
    assert "PAR001 [info] kdacheck defect (SGLang's own resolution starts this launch)" in p.stdout, p.stdout
    assert "SGLANG002 [info] kdacheck defect: SGLang 0.5.23's own resolution starts this launch; kdacheck's start-up rules say it refuses (PAR001)" in p.stdout


FAKE_REFUSES_TP3 = FAKE.replace("assert tp % adp == 0", "assert tp % adp == 0\n        assert tp != 3, 'tp 3 refused'")


def test_sglang_refusal_kdacheck_misses_is_the_result_with_a_note(tmp_path: Path) -> None:
    """The other way round: SGLang refuses what kdacheck's rules pass (the stand-in refuses TP 3):
    SGLANG001 is the error (exit 1), and a SGLANG002 note says kdacheck's rules found none."""
    site, kimi = _fake_site(tmp_path), _plain_model(tmp_path)
    (site / "sglang" / "srt" / "server_args.py").write_text(textwrap.dedent(FAKE_REFUSES_TP3))
    p = _lint(site, "--model", str(kimi), "--cmd", f"python -m sglang.launch_server --model-path {kimi} --tp-size 3")
    assert p.returncode == 1, (p.stdout, p.stderr)
    assert "SGLANG001 [error] SGLang refuses to start: AssertionError: tp 3 refused" in p.stdout, p.stdout
    assert "SGLANG002 [info] kdacheck defect: SGLang 0.5.23's own resolution refuses this launch (AssertionError, SGLANG001); " \
           "kdacheck's start-up rules found no error" in p.stdout, p.stdout


def test_sglang_runs_when_kdacheck_cannot_read_the_model(tmp_path: Path) -> None:
    """A config.json kdacheck will not read (not JSON) is no exit 2 under --sglang: SGLang's
    resolution runs, its verdict is the result, and the note says kdacheck could not read it."""
    site = _fake_site(tmp_path)
    folder = tmp_path / "odd-model"
    folder.mkdir()
    (folder / "config.json").write_text("{not json")
    p = _lint(site, "--cmd", f"python -m sglang.launch_server --model-path {folder} --tp-size 2 --attn-dp-size 4")
    assert p.returncode == 1, (p.stdout, p.stderr)
    assert "SGLANG001 [error] SGLang refuses to start: AssertionError" in p.stdout, p.stdout
    assert "kdacheck could not read the model" in p.stdout + p.stderr
    ok = _lint(site, "--cmd", f"python -m sglang.launch_server --model-path {folder} --tp-size 2")
    # SGLang starts it: no error (MODEL001's "model unknown" is the gate's business, not SGLang's verdict)
    assert " 0 errors," in ok.stdout and "SGLANG001" not in ok.stdout and "SGLang 0.5.23's own resolution ran and starts" in ok.stdout, \
        (ok.stdout, ok.stderr)


ORACLE = Path("/work/oracle/venv-0.5.23/bin/python")


@pytest.mark.slow
@pytest.mark.skipif(not ORACLE.is_file(), reason="no SGLang 0.5.23 oracle venv (benchmarks/sglang_diff/build_venv.sh)")
def test_real_sglang_on_a_cpu_machine_without_gpu(tmp_path: Path) -> None:
    """The real SGLang 0.5.23 (the oracle venv), no --gpu: a good launch exits 0 with no
    "No accelerator"; a refusal is SGLang's (SGLANG001 with its place)."""
    kimi = _plain_model(tmp_path)
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    env["PYTHONPATH"] = str(ROOT)

    def run(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([str(ORACLE), "-m", "kdacheck", "lint", "--sglang", "--output-format", "concise", *args],
                              capture_output=True, text=True, timeout=600, env=env, cwd=ROOT)

    good = run("--cmd", f"python -m sglang.launch_server --model-path {kimi} --tp-size 4")
    assert "No accelerator" not in good.stdout + good.stderr
    assert good.returncode == 0, (good.stdout, good.stderr)
    bad = run("--cmd", f"python -m sglang.launch_server --model-path {kimi} --tp-size 2 --attn-dp-size 4")
    assert bad.returncode == 1 and "SGLANG001 [error] SGLang refuses to start: AssertionError" in bad.stdout, bad.stdout
    assert "parallel_hook.py" in bad.stdout


def test_without_sglang_exit_2_with_a_clear_message() -> None:
    if subprocess.run([sys.executable, "-c", "import sglang"], capture_output=True).returncode == 0:
        pytest.skip("SGLang is installed here")
    p = _lint(None, "--cmd", "python -m sglang.launch_server --model-path x --tp-size 2")
    assert p.returncode == 2
    assert "SGLang is not importable" in p.stderr and "Traceback" not in p.stderr
