"""MEM: the state memory of hybrid models and its speculative scratch."""

from __future__ import annotations

from collections.abc import Iterator

from kdacheck.findings import Severity
from kdacheck.resolve import Resolved
from kdacheck.rules.base import Hit, rule


def gib(n: int) -> str:
    return f"{n / 2**30:.3f} GiB"


@rule(
    "MEM001", Severity.INFO,
    summary="size of the speculative scratch buffers per rank",
    what="""
        The bytes of `intermediate_ssm` and `intermediate_conv_window` (all layers, per rank),
        the per-request state, and their share of the GPU's memory when `--gpu` is given.
    """,
    why="The scratch is allocated before the KV cache and comes out of its budget.",
    fix="Nothing to fix: lower `--max-running-requests` or the draft width to shrink it.",
    example="kdacheck lint --gpu h200 examples/kimi-linear-eagle.yaml",
    sources=("0.5.19 `srt/mem_cache/memory_pool.py:714-822`",),
)
def mem001(cfg: Resolved) -> Iterator[Hit]:
    if "intermediate_ssm_bytes" not in cfg or not cfg.v("scratch_allocated"):
        return
    ssm = cfg.v("intermediate_ssm_bytes")
    conv = cfg.v("intermediate_conv_window_bytes")
    msg = (
        f"intermediate_ssm {cfg.v('intermediate_ssm_shape')} {cfg.v('ssm_dtype')} = {ssm:,} bytes ({gib(ssm)}); "
        f"intermediate_conv_window = {conv:,} bytes ({gib(conv)}) per rank"
    )
    if cfg.gpu is not None:
        msg += f"; {100 * (ssm + conv) / cfg.gpu.memory_bytes:.1f}% of a {cfg.gpu.name.upper()}"
    yield Hit(msg, None, values=("intermediate_ssm_bytes", "intermediate_conv_window_bytes", "per_request_state_bytes", "R", "d_max"))
