"""GPU: what SGLang allows on one platform and refuses on another (RTX Blackwell SM12x, DGX Spark
GB10, AMD Instinct under ROCm), read from the profile's platform facts (``kdacheck.gpus``)."""

from __future__ import annotations

from collections.abc import Iterator

from kdacheck.findings import Severity
from kdacheck.messages import KV4_NON_CUDA_MESSAGE
from kdacheck.models import Family
from kdacheck.resolve import Resolved
from kdacheck.rules.base import Consequence, Hit, rule, unchecked

_REGISTRY = "0.5.23 `srt/layers/attention/attention_registry.py`"
_HOOK = "0.5.23 `srt/arg_groups/attention_hook.py`"
_PROBES = ("0.5.23 `srt/runtime_context.py` L1824-1840 `_PLATFORM_PROBES`: `is_sm120` is `is_sm120_supported` "
           "(`srt/utils/common.py` L304-308, CUDA major 12: SM120 and GB10's SM121), `is_blackwell` majors 10-12, "
           "`is_sm90`/`is_sm100` majors 9/10, all false on ROCm")

# attention_registry.py L44 HYBRID_GDN_SM100_BACKENDS and L462-470
GDN_SM100_BACKENDS = ("triton", "trtllm_mha", "fa4", "flashinfer")
GDN_SM120_BACKENDS = ("triton", "trtllm_mha", "flashinfer")
GDN_BLACKWELL = ("Only {allowed} backends are supported on Blackwell GPUs for hybrid GDN models. "
                 "Got prefill={prefill}, decode={decode}.")
TRTLLM_PREFILL = ("TRTLLM MHA backend for prefill requires Hopper (SM90), Blackwell (SM100), or SM120 GPUs. "
                  "Please use a different prefill backend.")
TRTLLM_SM120_FP8 = "TRTLLM FMHAv2 prefill on SM120 does not support fp8_e4m3 KV cache or skip-softmax."
TRTLLM_DECODE = ("TRTLLM MHA backend for decode is only supported on Hopper (SM90), Blackwell (SM100) and (SM120) GPUs. "
                 "Please use a different decode backend.")
KV4_ROCM = KV4_NON_CUDA_MESSAGE


def _backends(cfg: Resolved) -> tuple[str | None, str | None]:
    """The prefill and decode attention backends as SGLang resolves them (``attention_backends_of``)."""
    base = cfg.v("attention_backend")
    return cfg.v("prefill_attention_backend") or base, cfg.v("decode_attention_backend") or base


@rule(
    "GPU001", Severity.ERROR,
    consequence=Consequence.REFUSES_BACKEND,
    name="hybrid-gdn-blackwell-backends",
    needs="model", families=(Family.GDN,),
    summary="hybrid GDN models on Blackwell: triton, trtllm_mha, flashinfer (and fa4 on SM100 only)",
    what="""
        When SGLang builds the hybrid linear-attention backend of a GDN model (Qwen3-Next,
        Qwen3.5/3.6) on a Blackwell GPU, it asserts both the prefill and the decode attention
        backend are in an allowlist: triton, trtllm_mha, fa4 or flashinfer on SM100 (B200,
        GB200, B300); triton, trtllm_mha or flashinfer on SM12x (RTX PRO 6000, RTX 5090, and
        DGX Spark's GB10, which SGLang's `is_sm120` counts as SM120). So fa4 (or fa3, or any
        other backend) passes on a B200 and stops an RTX PRO 6000. Hopper and ROCm have no such
        list.
    """,
    why="SGLang raises an AssertionError when the hybrid attention backend is built (model-runner init, after the weights load).",
    sglang_message=GDN_BLACKWELL,
    fix="On SM12x use `--attention-backend flashinfer` (SGLang's default there) or triton; on SM100 leave it to SGLang (trtllm_mha).",
    example="kdacheck lint --gpu rtx-pro-6000 --cmd 'python -m sglang.launch_server --model-path Qwen/Qwen3-Next-80B-A3B-Instruct --tp-size 4 --attention-backend fa4'",
    sources=(f"{_REGISTRY} L44 `HYBRID_GDN_SM100_BACKENDS`, L460-476 `attn_backend_wrapper`", _PROBES),
)
def gpu001(cfg: Resolved) -> Iterator[Hit]:
    pre, dec = _backends(cfg)
    if cfg.family is not Family.GDN or pre is None:
        return
    if cfg.gpu is None:
        yield unchecked("needs --gpu: on Blackwell SGLang allows hybrid GDN models only some attention backends", "attention_backend")
        return
    if not cfg.gpu.blackwell:
        return
    allowed = GDN_SM120_BACKENDS if cfg.gpu.sm120 else GDN_SM100_BACKENDS
    if pre not in allowed or dec not in allowed:
        shown = "{" + ", ".join(f"'{b}'" for b in allowed) + "}"
        yield Hit(f"{GDN_BLACKWELL.format(allowed=shown, prefill=pre, decode=dec)} ({cfg.gpu.name}, {cfg.gpu.label})",
                  f"use `--attention-backend {'flashinfer' if cfg.gpu.sm120 else 'trtllm_mha'}` on this GPU",
                  values=("attention_backend", "prefill_attention_backend", "decode_attention_backend"))


@rule(
    "GPU002", Severity.ERROR,
    consequence=Consequence.REFUSES,
    name="trtllm-mha-platform",
    summary="trtllm_mha runs on Hopper, SM100 and SM12x only, and its SM12x prefill without an fp8_e4m3 KV cache",
    what="""
        SGLang checks the TensorRT-LLM MHA backend against the GPU once the attention backends
        are resolved: as the prefill or the decode backend it needs Hopper (SM90), SM100 or
        SM12x, so an AMD Instinct (ROCm), an A100 or an L40S refuses it; as the prefill backend
        on SM12x (RTX PRO 6000, RTX 5090, GB10) its FMHAv2 kernel takes no fp8_e4m3 KV cache,
        which B200 and H200 do. (Prefill context parallelism with it needs SM100 too: not
        checked; nor the `SGLANG_SKIP_SOFTMAX_PREFILL_THRESHOLD_SCALE_FACTOR` half of the SM12x
        refusal.)
    """,
    why="SGLang refuses to start with a ValueError.",
    sglang_message=f"{TRTLLM_PREFILL}\n{TRTLLM_SM120_FP8}\n{TRTLLM_DECODE}",
    fix="On ROCm use aiter (SGLang's default there) or triton; on SM12x keep trtllm_mha for decode only "
        "(`--prefill-attention-backend flashinfer`) or an auto/bf16 KV cache.",
    example="kdacheck lint --gpu mi355x --cmd 'python -m sglang.launch_server --model-path Qwen/Qwen3-Next-80B-A3B-Instruct --tp-size 4 --attention-backend trtllm_mha'",
    sources=(f"{_HOOK} L110 `handle_attention_backend_compatibility`, L198-237 (the trtllm_mha checks)", _PROBES),
)
def gpu002(cfg: Resolved) -> Iterator[Hit]:
    pre, dec = _backends(cfg)
    if "trtllm_mha" not in (pre, dec):
        return
    if cfg.gpu is None:
        yield unchecked("needs --gpu: trtllm_mha runs on Hopper, SM100 and SM12x only", "attention_backend")
        return
    gpu = cfg.gpu
    supported = gpu.hopper or gpu.sm100 or gpu.sm120
    fix = "use `--attention-backend aiter` (or triton)" if gpu.hip else "use flashinfer or triton on this GPU"
    where = f"({gpu.name}, {gpu.label})"
    if pre == "trtllm_mha" and not supported:
        yield Hit(f"{TRTLLM_PREFILL} {where}", fix, values=("attention_backend", "prefill_attention_backend"))
    elif pre == "trtllm_mha" and gpu.sm120 and cfg.v("kv_cache_dtype") == "fp8_e4m3":
        yield Hit(f"{TRTLLM_SM120_FP8} {where}", "use `--prefill-attention-backend flashinfer`, or an auto/bf16 KV cache",
                  values=("kv_cache_dtype", "attention_backend", "prefill_attention_backend"))
    elif dec == "trtllm_mha" and not supported:
        yield Hit(f"{TRTLLM_DECODE} {where}", fix, values=("attention_backend", "decode_attention_backend"))


@rule(
    "GPU003", Severity.ERROR,
    consequence=Consequence.REFUSES,
    name="fp4-kv-cache-on-rocm",
    summary="no FP4 KV cache (nvfp4, fp4_mx_block16) on ROCm",
    what="""
        SGLang's FP4 KV-cache checks run on CUDA only; on any other platform, an AMD Instinct
        under ROCm included, an `nvfp4` or `fp4_mx_block16` KV cache is refused outright. The
        block-16 recipe that runs on Hopper does not run on an MI300X, MI325X or MI355X.
    """,
    why="SGLang refuses to start with a RuntimeError.",
    sglang_message=KV4_ROCM,
    fix="On ROCm use `--kv-cache-dtype fp8_e4m3` (or auto).",
    example="kdacheck lint --gpu mi300x --cmd 'python -m sglang.launch_server --model-path Qwen/Qwen3-Next-80B-A3B-Instruct --tp-size 2 --kv-cache-dtype fp4_mx_block16'",
    sources=("0.5.23 `srt/arg_groups/kv_cache_hook.py` L112-318 `handle_kv4_compatibility` (`if is_cuda: ... else: raise`, L317-318)",),
)
def gpu003(cfg: Resolved) -> Iterator[Hit]:
    kv = cfg.v("kv_cache_dtype")
    if kv not in ("nvfp4", "fp4_mx_block16") or cfg.family is Family.DSA or cfg.gpu is None or not cfg.gpu.hip:
        return
    yield Hit(f"{KV4_ROCM} (--kv-cache-dtype {kv} on {cfg.gpu.name}, {cfg.gpu.label})", "use `--kv-cache-dtype fp8_e4m3`",
              values=("kv_cache_dtype",))
