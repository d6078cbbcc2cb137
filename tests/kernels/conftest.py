"""Kernel tests run in Triton's interpreter on CPU: the flag must be set before triton loads.

``KDACHECK_TEST_DEVICE=cuda`` runs them on a GPU instead: TRITON_INTERPRET is left unset, tests
that take the ``kernel_device`` fixture run on ``cuda``, and tests that hardcode CPU tensors
are skipped (they run in the default interpreter run).
"""

from __future__ import annotations

import os
import random

import pytest

TEST_DEVICE = os.environ.get("KDACHECK_TEST_DEVICE", "cpu")  # TRITON_INTERPRET: tests/conftest.py

pytest.importorskip("torch")
pytest.importorskip("triton")


@pytest.fixture
def kernel_device() -> str:
    """"cpu" (interpreter, default) or "cuda" (KDACHECK_TEST_DEVICE=cuda)."""
    return TEST_DEVICE


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if TEST_DEVICE != "cuda":
        return
    import torch

    no_gpu = pytest.mark.skip(reason="KDACHECK_TEST_DEVICE=cuda but torch sees no CUDA device")
    cpu_only = pytest.mark.skip(reason="hardcodes CPU tensors: runs in the interpreter run")
    here = os.path.dirname(os.path.abspath(__file__))
    for item in items:
        if not str(item.path).startswith(here + os.sep):
            continue  # this hook sees the whole session's items
        if "kernel_device" not in getattr(item, "fixturenames", ()):
            item.add_marker(cpu_only)
        elif not torch.cuda.is_available():
            item.add_marker(no_gpu)


@pytest.fixture
def seed(request: pytest.FixtureRequest) -> int:
    """A fresh seed per test run (override with KDACHECK_TEST_SEED); shown on failure."""
    env = os.environ.get("KDACHECK_TEST_SEED")
    value = int(env) if env else random.SystemRandom().randrange(2**31)
    request.node.user_properties.append(("seed", value))
    return value


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]):  # type: ignore[no-untyped-def]
    outcome = yield
    report = outcome.get_result()
    if report.when == "call" and report.failed:
        for name, value in item.user_properties:
            if name == "seed":
                report.sections.append(
                    ("seed", f"rerun with KDACHECK_TEST_SEED={value} to reproduce")
                )
