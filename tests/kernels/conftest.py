"""Kernel tests run in Triton's interpreter on CPU: the flag must be set before triton loads."""

from __future__ import annotations

import os

os.environ["TRITON_INTERPRET"] = "1"

import random

import pytest

pytest.importorskip("torch")
pytest.importorskip("triton")


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
