"""ATTN: attention backends SGLang refuses for the GPU or the KV-cache dtype."""

from __future__ import annotations

from collections.abc import Iterator

from kdacheck.findings import Severity
from kdacheck.models import Family
from kdacheck.resolve import Resolved
from kdacheck.rules.base import Hit, rule

_OVERRIDES = "0.5.23 `srt/arg_groups/overrides.py`"
TRTLLM_MLA_BLACKWELL = "TRTLLM MLA backend is only supported on Blackwell GPUs (SM100/SM12x). Please use a different backend."
TRTLLM_MLA_KV = "TensorRT-LLM MLA backend only supports kv-cache-dtype of fp8_e4m3, bf16, or auto."
DSA_KV = "DeepSeek DSA only supports bf16/bfloat16 or fp8_e4m3 kv_cache_dtype"


@rule(
    "ATTN001", Severity.ERROR,
    name="trtllm-mla-on-blackwell",
    summary="trtllm_mla attention needs a Blackwell GPU and an fp8_e4m3/bf16/auto KV cache",
    what="""
        The TensorRT-LLM MLA backend (as `--attention-backend` or `--decode-attention-backend`)
        runs on Blackwell only (SM100, SM12x) and with an fp8_e4m3, bf16 or auto KV cache.
    """,
    why="SGLang refuses to start with a ValueError.",
    sglang_message=f"{TRTLLM_MLA_BLACKWELL}\n{TRTLLM_MLA_KV}",
    fix="On Hopper use fa3 or flashinfer (or leave `--attention-backend` unset); keep the KV cache fp8_e4m3, bf16 or auto.",
    example="kdacheck lint --gpu h200 --cmd 'python -m sglang.launch_server --model-path deepseek-ai/DeepSeek-V3.2 --tp-size 8 --attention-backend trtllm_mla'",
    sources=(f"{_OVERRIDES} L1204-1217 `_mla_kv_cache_dtype_checks`",),
)
def attn001(cfg: Resolved) -> Iterator[Hit]:
    names = [n for n in ("attention_backend", "decode_attention_backend") if cfg.v(n) == "trtllm_mla"]
    if not names:
        return
    if cfg.gpu is None:
        from kdacheck.rules.base import unchecked

        yield unchecked(f"needs --gpu: `{names[0]}` trtllm_mla runs on Blackwell GPUs only (SM100, SM12x)", names[0])
    elif cfg.gpu.sm // 10 not in (10, 11, 12):
        yield Hit(f"{TRTLLM_MLA_BLACKWELL} (`{names[0]}` trtllm_mla on SM{cfg.gpu.sm})",
                  "use fa3 or flashinfer on this GPU, or leave the attention backend to SGLang", values=(names[0],))
    if cfg.v("kv_cache_dtype") not in ("fp8_e4m3", "bf16", "auto", None):
        yield Hit(f"{TRTLLM_MLA_KV} (got {cfg.v('kv_cache_dtype')})", "use `--kv-cache-dtype fp8_e4m3` or bf16",
                  values=("kv_cache_dtype", names[0]))


@rule(
    "ATTN002", Severity.ERROR,
    name="dsa-kv-cache-dtype",
    summary="DSA models run with a bf16 or fp8_e4m3 KV cache",
    what="""
        For DeepSeek-family DSA models (DeepSeek-V3.2, GLM-5) SGLang resolves `auto` to
        fp8_e4m3 on SM100+ and bfloat16 before, and asserts the result is one of the two. With
        `--enable-hisparse` HSP006 reports the same value.
    """,
    why="SGLang refuses to start with an AssertionError.",
    sglang_message=DSA_KV,
    fix="Use `--kv-cache-dtype fp8_e4m3`, `bf16`, or leave it `auto`.",
    example="python -m sglang.launch_server --model-path deepseek-ai/DeepSeek-V3.2 --tp-size 8 --kv-cache-dtype fp8_e5m2",
    sources=(f"{_OVERRIDES} L491-545 `_dsa_kv_cache_dtype_default`",),
)
def attn002(cfg: Resolved) -> Iterator[Hit]:
    if cfg.family is not Family.DSA or cfg.v("enable_hisparse"):
        return
    kv = cfg.v("kv_cache_dtype")
    if kv not in (None, "auto", "bf16", "bfloat16", "fp8_e4m3"):
        yield Hit(f"{DSA_KV} (got {kv})", "use `--kv-cache-dtype fp8_e4m3` or bf16", values=("kv_cache_dtype",))


_KV_HOOK = "0.5.23 `srt/arg_groups/kv_cache_hook.py`"
NVFP4_KV = ("--kv-cache-dtype=nvfp4 requires Blackwell SM100 or SM120. "
            "Use --kv-cache-dtype=fp4_mx_block16 for the block-size-16 FP4 recipe.")
MXFP8_KV = ("--kv-cache-dtype mxfp8 requires an SM100+ (Blackwell) GPU for the block-scaled operands "
            "used by the FA4 MXFP8 attention path.")


@rule(
    "ATTN003", Severity.ERROR,
    name="fp4-and-mxfp8-kv-cache-need-blackwell",
    summary="an nvfp4 KV cache needs SM100 or SM120, an mxfp8 KV cache SM100+",
    what="""
        SGLang checks the KV-cache dtype against the GPU after it has chosen the attention
        backends: `nvfp4` runs only on SM100 (B200, GB200, B300) and SM120, `mxfp8` only on
        Blackwell (SM100, SM110, SM12x). (DSA models refuse both earlier: ATTN002.)
    """,
    why="SGLang refuses to start (a RuntimeError for nvfp4, a ValueError for mxfp8).",
    sglang_message=f"{NVFP4_KV}\n{MXFP8_KV}",
    fix="On Hopper use `--kv-cache-dtype fp4_mx_block16` (block-16 FP4), fp8_e4m3 or auto; or run on a Blackwell GPU.",
    example="kdacheck lint --gpu h200 --cmd 'python -m sglang.launch_server --model-path Qwen/Qwen3-Next-80B-A3B-Instruct --tp-size 4 --kv-cache-dtype nvfp4'",
    sources=(
        f"{_KV_HOOK} L112-131 `handle_kv4_compatibility` (nvfp4: `is_sm100 or is_sm120`; 0.5.21 the same lines)",
        f"{_KV_HOOK} L100-109 `handle_mxfp8_kv_cache_compatibility` (`is_blackwell`; 0.5.19 L24)",
        "0.5.23 `srt/utils/common.py` `is_sm100`, `is_sm120` (capability (12, 0)), `is_blackwell` (majors 10-12)",
    ),
)
def attn003(cfg: Resolved) -> Iterator[Hit]:
    kv = cfg.v("kv_cache_dtype")
    if kv not in ("nvfp4", "mxfp8") or cfg.family is Family.DSA:
        return
    if cfg.gpu is None:
        from kdacheck.rules.base import unchecked

        yield unchecked(f"needs --gpu: a {kv} KV cache runs on Blackwell GPUs only")
        return
    sm = cfg.gpu.sm
    ok = sm // 10 == 10 or sm == 120 if kv == "nvfp4" else sm // 10 in (10, 11, 12)
    if not ok:
        message = NVFP4_KV if kv == "nvfp4" else MXFP8_KV
        yield Hit(f"{message} (SM{sm}: {cfg.gpu.name})", "use `--kv-cache-dtype fp4_mx_block16`" if kv == "nvfp4" else
                  "use `--kv-cache-dtype fp8_e4m3` or auto on this GPU", values=("kv_cache_dtype",))
