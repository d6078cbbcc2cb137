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
