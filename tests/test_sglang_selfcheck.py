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
    assert "SGLANG002 [warning] SGLang resolves page_size = 64; kdacheck resolved 1" in odd.stdout, odd.stdout


def test_without_sglang_exit_2_with_a_clear_message() -> None:
    if subprocess.run([sys.executable, "-c", "import sglang"], capture_output=True).returncode == 0:
        pytest.skip("SGLang is installed here")
    p = _lint(None, "--cmd", "python -m sglang.launch_server --model-path x --tp-size 2")
    assert p.returncode == 2
    assert "SGLang is not importable" in p.stderr and "Traceback" not in p.stderr
