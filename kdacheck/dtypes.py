"""Dtypes by name: the one home of their sizes and of SGLang's SSM state dtypes.

Read by the resolution (buffer sizes), the model readers (``mamba_ssm_dtype`` in a config),
``kdacheck run`` (the state dtypes its kernels run) and the kernels themselves (``kernels/``):
plain data, importing nothing.
"""

from __future__ import annotations

# bytes per element, by dtype name (SGLang's and torch's spellings)
DTYPE_BYTES = {"float32": 4, "bfloat16": 2, "float16": 2, "fp8": 1, "float8_e4m3fn": 1, "int32": 4, "int64": 8}
# the SSM state dtypes: SGLang 0.5.23's --mamba-ssm-dtype choices (srt/arg_groups/fields/exec_.py
# L490-495), what a model config's mamba_ssm_dtype may name and what kdacheck run's kernels run
SSM_DTYPES = ("float32", "bfloat16", "float16")
