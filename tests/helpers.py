"""Small helpers shared by the tests: lint a command line or text, list the codes."""

from __future__ import annotations

from kdacheck.findings import Finding
from kdacheck.flags import NEWEST
from kdacheck.gpus import gpu as get_gpu
from kdacheck.lint import FileResult, Options, lint_text
from kdacheck.resolve import Resolved


def lint(text: str, version: str = NEWEST, gpu: str | None = None, model: str | None = None, path: str = "<cmd>") -> FileResult:
    opts = Options(version=version, gpu=get_gpu(gpu) if gpu else None, model=model)
    return lint_text(text, path, opts, ".")


def codes(result: FileResult) -> list[str]:
    return sorted({f.code for f in result.findings})


def only(result: FileResult, code: str) -> list[Finding]:
    return [f for f in result.findings if f.code == code]


def resolved(text: str, **kw: object) -> Resolved:
    result = lint(text, **kw)  # type: ignore[arg-type]
    assert result.error is None, result.error
    assert len(result.resolved) == 1
    return result.resolved[0]


LAUNCH = "python -m sglang.launch_server"
KIMI = f"{LAUNCH} --model-path moonshotai/Kimi-Linear-48B-A3B-Instruct"
