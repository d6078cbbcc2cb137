"""Set up before any test module is imported.

Triton decides at import time whether kernels run in its interpreter, so the choice is made
here, first: the interpreter on the CPU (the default, and CI), or a GPU when
``KDACHECK_TEST_DEVICE=cuda`` (see tests/kernels/conftest.py and benchmarks/gpu_check.sh).
"""

from __future__ import annotations

import os

if os.environ.get("KDACHECK_TEST_DEVICE", "cpu") == "cuda":
    os.environ.pop("TRITON_INTERPRET", None)
else:
    os.environ["TRITON_INTERPRET"] = "1"

# CI has no network: no test asks the Hugging Face Hub (the Hub tests serve their own, on
# localhost, and lift this for themselves: tests/test_hostile_models.py).
os.environ["HF_HUB_OFFLINE"] = "1"

# Hypothesis draws the same examples on every run of the suite (derandomize): the gate fails on
# the code, never on a draw. Fresh draws explore: KDACHECK_FUZZ_RANDOM=1 for the tests, or
# benchmarks/fuzz.py --seed N for long runs (docs/robustness.md).
from hypothesis import settings

settings.register_profile("gate", derandomize=True)
settings.register_profile("explore", derandomize=False)
settings.load_profile("explore" if os.environ.get("KDACHECK_FUZZ_RANDOM") else "gate")
