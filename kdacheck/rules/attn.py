"""ATTN: attention backends SGLang refuses for the GPU or the KV-cache dtype."""

from __future__ import annotations

from collections.abc import Iterator

from kdacheck import architectures, messages, versions
from kdacheck.findings import Severity
from kdacheck.models import Family
from kdacheck.resolve import Resolved, dsa
from kdacheck.rules.base import Consequence, Hit, rule

_OVERRIDES = "0.5.23 `srt/arg_groups/overrides.py`"
SINK_KV = (None, "auto", "bf16", "bfloat16")  # the KV dtypes learnable DSA sinks accept (overrides.py L527)
TRTLLM_MLA_BLACKWELL = "TRTLLM MLA backend is only supported on Blackwell GPUs (SM100/SM12x). Please use a different backend."
TRTLLM_MLA_KV = "TensorRT-LLM MLA backend only supports kv-cache-dtype of fp8_e4m3, bf16, or auto."
DSA_KV = "DeepSeek DSA only supports bf16/bfloat16 or fp8_e4m3 kv_cache_dtype"


@rule(
    "ATTN001", Severity.ERROR,
    consequence=Consequence.REFUSES,
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
    elif not cfg.gpu.blackwell:
        yield Hit(f"{TRTLLM_MLA_BLACKWELL} (`{names[0]}` trtllm_mla on {cfg.gpu.label})",
                  "use fa3 or flashinfer on this GPU, or leave the attention backend to SGLang", values=(names[0],))
    if cfg.v("kv_cache_dtype") not in ("fp8_e4m3", "bf16", "auto", None):
        yield Hit(f"{TRTLLM_MLA_KV} (got {cfg.v('kv_cache_dtype')})", "use `--kv-cache-dtype fp8_e4m3` or bf16",
                  values=("kv_cache_dtype", names[0]))


@rule(
    "ATTN002", Severity.ERROR,
    consequence=Consequence.REFUSES,
    name="dsa-kv-cache-dtype",
    summary="DSA models run with a bf16 or fp8_e4m3 KV cache",
    what="""
        For DeepSeek-family DSA models (DeepSeek-V3.2, GLM-5) SGLang resolves `auto` to
        fp8_e4m3 on SM100+ and bfloat16 before, and asserts the result is one of the two. With
        `--enable-hisparse` HSP006 reports the same value. A config with learnable attention sinks
        (`learnable_sink`, 0.5.20+) takes bfloat16 for `auto` on every GPU and refuses any other
        given dtype first.
    """,
    why="SGLang refuses to start with an AssertionError.",
    sglang_message=f"{messages.DSA_SINK_KV}\n{DSA_KV}".replace("{kv}", "{kv_cache_dtype}"),
    fix="Use `--kv-cache-dtype fp8_e4m3`, `bf16`, or leave it `auto` (with learnable sinks: bfloat16 or auto).",
    example="python -m sglang.launch_server --model-path deepseek-ai/DeepSeek-V3.2 --tp-size 8 --kv-cache-dtype fp8_e5m2",
    sources=(f"{_OVERRIDES} L491-545 `_dsa_kv_cache_dtype_default`",),
)
def attn002(cfg: Resolved) -> Iterator[Hit]:
    if cfg.family is not Family.DSA:
        return
    kv = cfg.v("kv_cache_dtype")
    if cfg.model is not None and cfg.model.learnable_sink and cfg.at_least(versions.DSA_LEARNABLE_SINKS) \
            and kv not in SINK_KV:
        yield Hit(messages.DSA_SINK_KV.format(kv=kv), "use `--kv-cache-dtype bfloat16` (or leave it auto)", values=("kv_cache_dtype",))
        return
    if cfg.v("enable_hisparse"):
        return
    if kv not in (None, "auto", "bf16", "bfloat16", "fp8_e4m3"):
        yield Hit(f"{DSA_KV} (got {kv})", "use `--kv-cache-dtype fp8_e4m3` or bf16", values=("kv_cache_dtype",))


_KV_HOOK = "0.5.23 `srt/arg_groups/kv_cache_hook.py`"
NVFP4_KV = ("--kv-cache-dtype=nvfp4 requires Blackwell SM100 or SM120. "
            "Use --kv-cache-dtype=fp4_mx_block16 for the block-size-16 FP4 recipe.")
MXFP8_KV = ("--kv-cache-dtype mxfp8 requires an SM100+ (Blackwell) GPU for the block-scaled operands "
            "used by the FA4 MXFP8 attention path.")


@rule(
    "ATTN003", Severity.ERROR,
    consequence=Consequence.REFUSES,
    name="fp4-and-mxfp8-kv-cache-need-blackwell",
    summary="an nvfp4 KV cache needs SM100 or SM12x, an mxfp8 KV cache SM100+",
    what="""
        SGLang checks the KV-cache dtype against the GPU after it has chosen the attention
        backends: `nvfp4` runs only on SM100 (B200, GB200, B300) and SM12x (RTX PRO 6000, RTX 5090,
        GB10), `mxfp8` only on Blackwell (SM100, SM110, SM12x). (DSA models refuse both earlier:
        ATTN002; ROCm refuses every FP4 KV cache: GPU003.)
    """,
    why="SGLang refuses to start (a RuntimeError for nvfp4, a ValueError for mxfp8).",
    sglang_message=f"{NVFP4_KV}\n{MXFP8_KV}",
    fix="On Hopper use `--kv-cache-dtype fp4_mx_block16` (block-16 FP4), fp8_e4m3 or auto; or run on a Blackwell GPU.",
    example="kdacheck lint --gpu h200 --cmd 'python -m sglang.launch_server --model-path Qwen/Qwen3-Next-80B-A3B-Instruct --tp-size 4 --kv-cache-dtype nvfp4'",
    sources=(
        f"{_KV_HOOK} L112-131 `handle_kv4_compatibility` (nvfp4: `is_sm100 or is_sm120`; 0.5.21 the same lines)",
        f"{_KV_HOOK} L100-109 `handle_mxfp8_kv_cache_compatibility` (`is_blackwell`; 0.5.19 L24)",
        "0.5.23 `srt/runtime_context.py` L1824-1840: the platform's `is_sm100` and `is_sm120` are `srt/utils/common.py`'s "
        "`is_sm100_supported` (major 10) and `is_sm120_supported` (major 12, GB10's 12.1 included), `is_blackwell` majors 10-12",
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
    if kv == "nvfp4" and cfg.gpu.hip:
        return  # ROCm refuses every FP4 KV cache before (GPU003)
    ok = cfg.gpu.sm100 or cfg.gpu.sm120 if kv == "nvfp4" else cfg.gpu.blackwell
    if not ok:
        message = NVFP4_KV if kv == "nvfp4" else MXFP8_KV
        yield Hit(f"{message} ({cfg.gpu.label}: {cfg.gpu.name})", "use `--kv-cache-dtype fp4_mx_block16`" if kv == "nvfp4" else
                  "use `--kv-cache-dtype fp8_e4m3` or auto on this GPU", values=("kv_cache_dtype",))


@rule(
    "ATTN004", Severity.ERROR,
    consequence=Consequence.REFUSES,
    name="dsa-backend-constraints",
    needs="gpu",
    summary="DSA prefill/decode backends: triton is ROCm-only; TileLang with an FP8 KV cache on both, without DCP or HiSparse",
    what="""
        For a DSA model SGLang fills the prefill and decode DSA backends from the KV-cache dtype
        and the GPU (FP8: trtllm on Blackwell, flashmla_kv on Hopper; bfloat16: flashmla_sparse
        with trtllm or fa3; with HiSparse flashmla_kv or flashmla_sparse), then checks the
        pair: the `triton` DSA backend runs on ROCm only, and TileLang with an fp8_e4m3 KV cache
        needs TileLang on both sides, no `--dcp-size` > 1 and no HiSparse.
    """,
    why="SGLang refuses to start with a ValueError.",
    sglang_message="\n".join((dsa.TRITON_ROCM_ONLY, dsa.TILELANG_FP8_PAIR, dsa.TILELANG_FP8_DCP, dsa.TILELANG_FP8_HISPARSE)),
    fix="On CUDA pick flashmla_kv (Hopper) or trtllm (Blackwell), or set both `--dsa-prefill-backend` and `--dsa-decode-backend` to tilelang.",
    example="kdacheck lint --gpu h200 --cmd 'python -m sglang.launch_server --model-path deepseek-ai/DeepSeek-V3.2 --tp-size 8 --kv-cache-dtype fp8_e4m3 --dsa-prefill-backend tilelang'",
    sources=(f"{_OVERRIDES} L550-583 `_check_dsa_backend_constraints`, L600-733 `_dsa_split_backend_resolution`",
             "0.5.23 `srt/arg_groups/hisparse_hook.py` L26-29 `_hisparse_default_backend`"),
)
def attn004(cfg: Resolved) -> Iterator[Hit]:
    if cfg.gpu is None and cfg.family is Family.DSA and (cfg.user("dsa_prefill_backend") or cfg.user("dsa_decode_backend")):
        from kdacheck.rules.base import unchecked

        yield unchecked("needs --gpu: SGLang pairs the DSA backends by the GPU and the KV-cache dtype it resolves for it")
        return
    problem = cfg.v("dsa_backend_problem")
    if problem:
        pre, dec = cfg.v("dsa_backends")
        yield Hit(f"{problem} (prefill {pre}, decode {dec}, KV cache {cfg.v('kv_cache_dtype')})",
                  "use flashmla_kv (Hopper) or trtllm (Blackwell), or tilelang for both DSA backends",
                  values=("dsa_backends", "kv_cache_dtype"))


_KV4 = "kv4".upper()  # SGLang's name for the FP4 KV caches in its messages
_KV4_MLA: tuple[str, ...] = ("flashinfer", "trtllm_mla")
_KV4_MHA: tuple[str, ...] = ("triton", "torch_native", "flex_attention", "trtllm_mha")
_KV4_FA4_MHA: tuple[str, ...] = ("triton", "torch_native", "flex_attention")
_NATIVE_NVFP4_SPEC = ("EAGLE", "EAGLE3", "NEXTN", "NGRAM")


def _kv4_problem(cfg: Resolved, kv: str, sm: int) -> str | None:
    """SGLang's refusal of an FP4 KV cache with these backends (0.5.23 ``kv_cache_hook.py``
    L112-318 ``handle_kv4_compatibility``, CUDA), or None."""
    if cfg.user("enable_unified_memory"):
        return ("FP4 KV cache does not yet support --enable-unified-memory: the unified MHA pool does not allocate FP4 "
                "block scales or the prefill dequant workspace.")
    attn = cfg.v("attention_backend")
    pre = cfg.v("prefill_attention_backend") or attn
    dec = cfg.v("decode_attention_backend") or attn
    native = kv == "nvfp4" and sm // 10 == 10 and "trtllm_mha" in (pre, dec)
    algo = (cfg.user("speculative_algorithm") or "").upper() or None
    if native and algo in ("DFLASH", "DSPARK"):
        return f"SM100 native NVFP4 speculative decoding does not yet support {algo}; use EAGLE/NEXTN or NGRAM."
    if native and algo is not None and algo not in _NATIVE_NVFP4_SPEC:
        return f"SM100 native NVFP4 speculative decoding supports EAGLE, EAGLE3, NEXTN, and breadth-1 NGRAM; got {algo}."
    breadth = cfg.user("speculative_ngram_max_bfs_breadth")
    breadth = 10 if breadth is None else breadth  # the flag's default
    if native and algo == "NGRAM" and breadth != 1:
        return ("SM100 native NVFP4 NGRAM speculative decoding requires --speculative-ngram-max-bfs-breadth=1 because "
                f"trtllm_mha supports linear target verification only; got {breadth}.")
    draft = cfg.user("speculative_draft_attention_backend")
    if native and algo not in (None, "NGRAM") and draft is not None and draft != "trtllm_mha":
        return ("SM100 native NVFP4 speculative decoding requires --speculative-draft-attention-backend=trtllm_mha so the "
                f"draft worker consumes its physical NVFP4 KV layout; got {draft!r}.")
    if native and cfg.v("disaggregation_mode") not in (None, "null"):
        return ("SM100 native NVFP4 with trtllm_mha does not yet support PD disaggregation because its physical block-scale "
                "layout is not implemented by the KV transfer path.")
    if native and (cfg.user("enable_hierarchical_cache") or cfg.user("enable_lmcache")):
        return ("SM100 native NVFP4 with trtllm_mha does not yet support hierarchical KV cache or LMCache because their host "
                "pools do not preserve the physical block-scale layout.")
    mla = cfg.model is not None and cfg.model.mla
    if pre != dec and pre != "fa4":
        return None  # a mixed pair: SGLang only warns
    if pre == "fa4":
        allowed, got, field = (_KV4_MLA if mla else _KV4_FA4_MHA), dec, "decode_attention_backend"
    else:
        allowed, got, field = (_KV4_MLA if mla else _KV4_MHA), attn, "attention_backend"
    which = ("FA4 " if pre == "fa4" else "") + ("MLA" if mla else "MHA")
    if got not in allowed:
        return f"{_KV4} {which} expects {field} to be one of {list(allowed)}, but got {got}"
    return None


@rule(
    "ATTN005", Severity.ERROR,
    consequence=Consequence.REFUSES,
    name="fp4-kv-cache-backends",
    summary="an FP4 KV cache (nvfp4, fp4_mx_block16) runs with the attention backends SGLang lists for it",
    what="""
        With `--kv-cache-dtype nvfp4` or `fp4_mx_block16` SGLang checks the attention backends
        it resolved: one backend for prefill and decode must be triton, torch_native,
        flex_attention or trtllm_mha (flashinfer or trtllm_mla for an MLA model; with FA4
        prefill, the decode backend triton, torch_native or flex_attention). On SM100 with
        trtllm_mha (native NVFP4) speculative decoding is EAGLE, EAGLE3, NEXTN or breadth-1
        NGRAM only, the draft runs trtllm_mha, and PD disaggregation, hierarchical cache and
        LMCache are refused; `--enable-unified-memory` is refused with any FP4 KV cache.
    """,
    why="SGLang refuses to start (an AssertionError for the backend lists, a ValueError otherwise).",
    sglang_message="""
        KV4 MHA expects attention_backend to be one of ['triton', 'torch_native', 'flex_attention', 'trtllm_mha'], but got {backend}
        SM100 native NVFP4 speculative decoding does not yet support {algorithm}; use EAGLE/NEXTN or NGRAM.
    """,
    fix="Use `--attention-backend trtllm_mha` (or triton) with an FP4 KV cache, or `--kv-cache-dtype fp8_e4m3`.",
    example="kdacheck lint --gpu h200 examples/errors/ATTN005-fp4-kv-fa3.sh",
    sources=(f"{_KV_HOOK} L112-318 `handle_kv4_compatibility`",
             f"{_KV_HOOK} L24-97 `handle_nvfp4_prefill_kv_dequant_dtype` (runs first: the prefill dequant dtype and the backends it selects)",
             "0.5.23 `srt/arg_groups/model_override_base.py` L138-152 `attention_backends_of`"),
)
def attn005(cfg: Resolved) -> Iterator[Hit]:
    nvfp4 = cfg.v("nvfp4_problem")
    if nvfp4:  # handle_nvfp4_prefill_kv_dequant_dtype runs first (pipeline.py)
        yield Hit(nvfp4, "drop the backend options and let --kv-cache-dtype nvfp4 select them",
                  values=("kv_cache_dtype", "prefill_attention_backend", "decode_attention_backend"))
        return
    kv = cfg.v("kv_cache_dtype")
    if kv not in ("nvfp4", "fp4_mx_block16") or cfg.family is Family.DSA:
        return
    if cfg.gpu is None:
        if kv == "fp4_mx_block16":  # for nvfp4 ATTN003 says so
            from kdacheck.rules.base import unchecked

            yield unchecked("needs --gpu: the attention backends an FP4 KV cache is checked against depend on the GPU")
        return
    if cfg.gpu.hip or (kv == "nvfp4" and not (cfg.gpu.sm100 or cfg.gpu.sm120)):
        return  # GPU003 on ROCm, ATTN003 for nvfp4
    problem = _kv4_problem(cfg, kv, cfg.gpu.sm)
    if problem is not None:
        yield Hit(problem, "use `--attention-backend trtllm_mha` (or triton), or `--kv-cache-dtype fp8_e4m3`",
                  values=("kv_cache_dtype", "attention_backend"))


FLEX_SPEC = "Speculative decoding is currently not supported with Flex Attention backend"


@rule(
    "ATTN006", Severity.ERROR,
    consequence=Consequence.REFUSES,
    name="flex-attention-without-speculation",
    summary="the flex_attention backend runs without speculative decoding",
    what="""
        With `--attention-backend flex_attention` (torch's Flex Attention) SGLang turns the CUDA
        graphs off and asserts that no speculative algorithm is set.
    """,
    why="SGLang refuses to start with an AssertionError.",
    sglang_message=FLEX_SPEC,
    fix="Drop `--speculative-algorithm`, or use another attention backend (triton, fa3, flashinfer).",
    example="python -m sglang.launch_server --model-path meta-llama/Meta-Llama-3-8B-Instruct --attention-backend flex_attention --speculative-algorithm NGRAM",
    sources=("0.5.23 `srt/arg_groups/attention_hook.py` L143-163 `handle_attention_backend_compatibility`",),
)
def attn006(cfg: Resolved) -> Iterator[Hit]:
    if cfg.v("attention_backend") == "flex_attention" and cfg.user("speculative_algorithm") is not None:
        yield Hit(f"{FLEX_SPEC} (--speculative-algorithm {cfg.user('speculative_algorithm')})",
                  "drop --speculative-algorithm, or use `--attention-backend triton`",
                  values=("attention_backend", "speculative_algorithm"))


NO_TRITON = "{arch} does not support triton attention backend, as the first layer might not be an attention layer"


@rule(
    "ATTN007", Severity.ERROR,
    consequence=Consequence.REFUSES,
    name="triton-attention-on-lfm2",
    summary="LFM2 (dense and MoE) refuses the triton attention backend",
    what="""
        For `Lfm2ForCausalLM` and `Lfm2MoeForCausalLM` SGLang asserts, while it adjusts the
        arguments per model, that the attention backend (as given, or as an override wrote it)
        is not `triton`: their first layer may be a short-convolution layer, not attention.
        LFM2-VL is not in that list.
    """,
    why="SGLang refuses to start with an AssertionError.",
    sglang_message=NO_TRITON,
    fix="Leave `--attention-backend` unset (SGLang picks one; flashinfer on SM100), or give fa3 or flashinfer.",
    example="kdacheck lint examples/errors/ATTN007-lfm2-triton.sh",
    sources=("0.5.23 `srt/arg_groups/model_hook.py` L716-721 `handle_model_specific_adjustments` "
             "(0.5.21 L672-677, 0.5.19 L547-553)",),
)
def attn007(cfg: Resolved) -> Iterator[Hit]:
    if cfg.model is None or not architectures.lookup(cfg.model.architecture).no_triton or "attention_backend" not in cfg:
        return
    val = cfg["attention_backend"]
    # SGLang's assertion runs before the default backend is chosen: only a given or overridden one counts
    if val.value == "triton" and val.origin in ("user", "model"):
        yield Hit(NO_TRITON.format(arch=cfg.model.architecture),
                  "leave `--attention-backend` unset, or use fa3 or flashinfer", values=("attention_backend",))


CUTEDSL_DECODE = "CuteDSL MLA only supports decoding for now"
CUTEDSL_SM100 = "CuteDSL MLA backend is only supported on Blackwell GPUs (SM100). Please use a different backend."
CUTEDSL_KV = "CuteDSL MLA backend only supports kv-cache-dtype of fp8_e4m3, bf16, or auto."


@rule(
    "ATTN008", Severity.ERROR,
    consequence=Consequence.REFUSES,
    name="cutedsl-mla-on-sm100",
    summary="cutedsl_mla attention decodes only, on SM100 only, with an fp8_e4m3/bf16/auto KV cache",
    what="""
        The CuteDSL MLA backend (`cutedsl_mla`; from 0.5.23 also the deprecated name
        `tokenspeed_mla`, which SGLang renames to it and whose FP8 KV cache it keeps) as
        `--attention-backend` or `--decode-attention-backend` runs on SM100 GPUs only and with an
        fp8_e4m3, bf16 or auto KV cache; as `--prefill-attention-backend` it is refused
        (decode only). Without a prefill backend SGLang gives it trtllm_mla.
    """,
    why="SGLang refuses to start with a ValueError (an AssertionError for the prefill backend).",
    sglang_message=f"{CUTEDSL_DECODE}\n{CUTEDSL_SM100}\n{CUTEDSL_KV}",
    fix="On Hopper use fa3 or flashinfer (or leave `--attention-backend` unset); keep the KV cache fp8_e4m3, bf16 or auto.",
    example="kdacheck lint --gpu h200 examples/errors/ATTN008-cutedsl-mla-hopper.sh",
    sources=(f"{_OVERRIDES} L1232-1259 `_cutedsl_prefill_backend_fill` (0.5.21 L1180-1203)",
             "0.5.23 `srt/arg_groups/serving_hook.py` L303-336 `_handle_deprecated_args` (tokenspeed_mla → cutedsl_mla)"),
)
def attn008(cfg: Resolved) -> Iterator[Hit]:
    names = [n for n in ("attention_backend", "decode_attention_backend", "prefill_attention_backend") if cfg.v(n) == "cutedsl_mla"]
    if not names:
        return
    if cfg.v("prefill_attention_backend") == "cutedsl_mla":
        yield Hit(f"{CUTEDSL_DECODE} (`--prefill-attention-backend cutedsl_mla`)",
                  "use `--prefill-attention-backend trtllm_mla`, or leave it unset", values=("prefill_attention_backend",))
        return
    if cfg.gpu is None:
        from kdacheck.rules.base import unchecked

        yield unchecked(f"needs --gpu: `{names[0]}` cutedsl_mla runs on SM100 GPUs only", names[0])
        return
    if cfg.gpu.sm // 10 != 10:
        yield Hit(f"{CUTEDSL_SM100} (`{names[0]}` cutedsl_mla on SM{cfg.gpu.sm})",
                  "use fa3 or flashinfer on this GPU, or leave the attention backend to SGLang", values=(names[0],))
    elif cfg.v("kv_cache_dtype") not in ("fp8_e4m3", "bf16", "bfloat16", "auto", None):
        yield Hit(f"{CUTEDSL_KV} (got {cfg.v('kv_cache_dtype')})", "use `--kv-cache-dtype fp8_e4m3` or bf16",
                  values=("kv_cache_dtype", names[0]))


@rule(
    "ATTN009", Severity.ERROR,
    consequence=Consequence.REFUSES,
    name="trtllm-mha-prefill-cp",
    summary="attention context parallelism (--attn-cp-size > 1) with a trtllm_mha prefill needs SM100",
    what="""
        After its platform checks of trtllm_mha (GPU002), `handle_attention_backend_compatibility`
        refuses a trtllm_mha prefill backend (`--prefill-attention-backend`, else
        `--attention-backend`, or the one SGLang picks for the model) with `--attn-cp-size` > 1
        on any GPU but SM100 (B200, GB200, B300): the SM90/SM120 fmha_v2 prefill kernel does
        not mask CP shards. Decided with `--gpu`; without it, said to be unchecked.
    """,
    why="SGLang refuses to start with a ValueError while it resolves its arguments.",
    sglang_message=("Prefill context parallelism with the TRTLLM MHA prefill backend requires SM100 (trtllm-gen context kernel): "
                    "the SM90/SM120 fmha_v2 prefill path does not implement CP shard masking."),
    fix="On Hopper or SM12x use another prefill backend (e.g. `--prefill-attention-backend fa3` on Hopper), or no attention CP.",
    example="kdacheck lint --gpu h200 --cmd 'python -m sglang.launch_server --model-path meta-llama/Meta-Llama-3-8B-Instruct --tp-size 4 --attn-cp-size 2 --attention-backend trtllm_mha'",
    sources=("0.5.23 `srt/arg_groups/attention_hook.py:197-236` `handle_attention_backend_compatibility` (0.5.19-0.5.22: the same check)",),
)
def attn009(cfg: Resolved) -> Iterator[Hit]:
    from kdacheck.messages import TRTLLM_MHA_PREFILL_CP
    from kdacheck.rules.base import unchecked

    base = cfg.v("attention_backend")
    if (cfg.v("prefill_attention_backend") or base) != "trtllm_mha" or int(cfg.v("attn_cp_size") or 1) <= 1:
        return
    gpu = cfg.gpu
    if gpu is None:
        yield unchecked("needs --gpu: a trtllm_mha prefill with attention CP runs on SM100 only", "attention_backend", "attn_cp_size")
        return
    if gpu.sm100 or not (gpu.hopper or gpu.sm120) or (gpu.sm120 and cfg.v("kv_cache_dtype") == "fp8_e4m3"):
        return  # SM100; or GPU002 refuses first (no trtllm_mha here, or SM12x's fp8_e4m3 KV cache)
    yield Hit(f"{TRTLLM_MHA_PREFILL_CP} ({gpu.name}, {gpu.label}; --attn-cp-size {cfg.v('attn_cp_size')})",
              "use another prefill backend on this GPU (fa3 on Hopper), or `--attn-cp-size 1`",
              values=("attn_cp_size", "prefill_attention_backend", "attention_backend"))


@rule(
    "ATTN010", Severity.ERROR,
    consequence=Consequence.REFUSES,
    name="deepseek-v4-fp4-indexer-gpu",
    summary="--enable-deepseek-v4-fp4-indexer needs an SM100 or SM12x GPU (from 0.5.20 also gfx95: MI355X)",
    what="""
        `handle_environment_variables` refuses `--enable-deepseek-v4-fp4-indexer` unless the
        platform is SM100 (B200, GB200, B300), SM12x (RTX PRO 6000, RTX 5090, GB10) or, from
        0.5.20, a gfx95 AMD GPU (MI355X), whatever the model. Decided with `--gpu`; without it,
        said to be unchecked.
    """,
    why="SGLang refuses to start with a ValueError while it resolves its arguments.",
    sglang_message="--enable-deepseek-v4-fp4-indexer requires SM100, SM120, or gfx95 GPUs with FP4 indexer support.",
    fix="Drop `--enable-deepseek-v4-fp4-indexer` on this GPU (the default indexer runs everywhere).",
    example="kdacheck lint --gpu h200 --cmd 'python -m sglang.launch_server --model-path deepseek-ai/DeepSeek-V4-Flash --tp-size 8 --enable-deepseek-v4-fp4-indexer'",
    sources=("0.5.23 `srt/arg_groups/serving_hook.py:464-470` `handle_environment_variables` (0.5.20-0.5.22 the same; "
             "0.5.19 L421-427: SM100 or SM120 only)",),
    changes=("0.5.20: gfx95 accepted",),
)
def attn010(cfg: Resolved) -> Iterator[Hit]:
    from kdacheck import versions
    from kdacheck.messages import FP4_INDEXER_GPU, FP4_INDEXER_GPU_OLD
    from kdacheck.rules.base import unchecked

    if not cfg.user("enable_deepseek_v4_fp4_indexer"):
        return
    gpu = cfg.gpu
    if gpu is None:
        yield unchecked("needs --gpu: --enable-deepseek-v4-fp4-indexer runs on SM100, SM12x (and from 0.5.20 gfx95) only",
                        "enable_deepseek_v4_fp4_indexer")
        return
    new = cfg.at_least(versions.FP4_INDEXER_GFX95)
    if gpu.sm100 or gpu.sm120 or (new and gpu.hip and gpu.sm == 95):
        return
    yield Hit(f"{FP4_INDEXER_GPU if new else FP4_INDEXER_GPU_OLD} ({gpu.name}, {gpu.label})",
              "drop `--enable-deepseek-v4-fp4-indexer` on this GPU", values=("enable_deepseek_v4_fp4_indexer",))


@rule(
    "ATTN011", Severity.ERROR,
    consequence=Consequence.REFUSES,
    name="replayssm-spec-ragged-verify",
    speculative=True,
    summary="--enable-linear-replayssm-spec under a ragged verify mode (SGLANG_RAGGED_VERIFY_MODE compact or cap-accept) needs DSPARK/DFLASH and a triton or nv_cutedsl verify",
    what="""
        With `--enable-linear-replayssm-spec`, after its draft-chain and decode-backend checks
        (RSSM002), `handle_linear_attn_backend` reads `SGLANG_RAGGED_VERIFY_MODE`: under a
        ragged mode (`compact`, `cap-accept`; `static` is the default) it requires DSPARK or
        DFLASH and `--linear-attn-verify-backend` triton or nv_cutedsl (as given, or the
        nv_cutedsl Kimi's hook declares), since only the KDA fold-every-commit family writes the
        ring with a ragged layout. kdacheck reads the variable where the launch's own file sets it.
    """,
    why="SGLang refuses to start with a ValueError while it resolves its arguments.",
    sglang_message=("--enable-linear-replayssm-spec with SGLANG_RAGGED_VERIFY_MODE={mode} requires the KDA fold-every-commit family "
                    "(DSPARK/DFLASH) and a ring-writing verify kernel (--linear-attn-verify-backend triton or nv_cutedsl); got "
                    "algorithm={algorithm!r}, verify={verify!r}. Use SGLANG_RAGGED_VERIFY_MODE=static."),
    fix="Run ReplaySSM spec-verify under `SGLANG_RAGGED_VERIFY_MODE=static` (the default), or with DSPARK/DFLASH and a triton verify.",
    example=("SGLANG_RAGGED_VERIFY_MODE=compact python -m sglang.launch_server --model-path Qwen/Qwen3-Next-80B-A3B-Instruct --tp-size 4 "
             "--speculative-algorithm NEXTN --speculative-num-steps 3 --speculative-eagle-topk 1 --speculative-num-draft-tokens 4 "
             "--enable-linear-replayssm-spec"),
    sources=("0.5.23 `srt/arg_groups/attention_hook.py:450-493` `handle_linear_attn_backend` (0.5.19 L383-425, the same check)",
             "0.5.23 `srt/speculative/ragged_verify.py:13-27` (the modes), `srt/environ.py:1572` (default static)"),
    inferred="SGLANG_RAGGED_VERIFY_MODE is read where the launch's own file sets it; set elsewhere it is taken to be static.",
)
def attn011(cfg: Resolved) -> Iterator[Hit]:
    from kdacheck.messages import REPLAYSSM_SPEC_RAGGED
    from kdacheck.rules.model import RAGGED_ENV, RAGGED_MODES

    if not cfg.v("enable_linear_replayssm_spec"):
        return
    if cfg.parsed.value("speculative_eagle_topk") not in (None, 1) or cfg.v("decode_backend") not in ("triton", "flashinfer"):
        return  # RSSM002: SGLang refuses the draft tree or the decode backend first
    mode = cfg.cmd.env.get(RAGGED_ENV, "static")
    if mode == "static" or mode not in RAGGED_MODES:
        return  # the default; or a value read_ragged_verify_mode refuses itself
    algo, verify = cfg.user("speculative_algorithm"), cfg.v("linear_attn_verify_backend")
    if str(algo or "").upper() in ("DSPARK", "DFLASH") and verify in ("triton", "nv_cutedsl"):
        return
    yield Hit(REPLAYSSM_SPEC_RAGGED.format(mode=mode, algo=algo, verify=verify),
              f"set {RAGGED_ENV}=static (SGLang's default), or use DSPARK/DFLASH with `--linear-attn-verify-backend triton`",
              values=("enable_linear_replayssm_spec", "linear_attn_verify_backend"))


@rule(
    "ATTN012", Severity.ERROR,
    consequence=Consequence.REFUSES,
    name="dsa-learnable-sinks-flashmla-sparse",
    needs="model", families=(Family.DSA,),
    summary="a DSA model with learnable attention sinks runs flashmla_sparse on both sides",
    what="""
        A DSA checkpoint whose config sets `learnable_sink` (attention sinks learned per head)
        runs only on FlashMLA's sparse kernels: SGLang sets `--dsa-prefill-backend` and
        `--dsa-decode-backend` to `flashmla_sparse` where they are not given and refuses either
        given as anything else (0.5.20+; its KV cache must be bfloat16: ATTN002).
    """,
    why="SGLang refuses to start with a ValueError while it resolves the DSA backends.",
    sglang_message=messages.DSA_SINK_BACKEND.replace("{backend!r}", "'flashmla_sparse'").replace("{value!r}", "{value}"),
    fix="Drop `--dsa-prefill-backend` / `--dsa-decode-backend`, or give `flashmla_sparse`.",
    example="python -m sglang.launch_server --model-path tests/data/dsa-sink-handmade/v32-sink --tp-size 8 --dsa-decode-backend trtllm",
    sources=(f"{_OVERRIDES} L601-660 `_dsa_split_backend_resolution` (0.5.20 L700-722)",),
    since=versions.DSA_LEARNABLE_SINKS,
)
def attn012(cfg: Resolved) -> Iterator[Hit]:
    m = cfg.model
    if m is None or m.family is not Family.DSA or not m.learnable_sink:
        return
    kv = cfg.v("kv_cache_dtype")
    if kv not in SINK_KV:
        return  # _dsa_kv_cache_dtype_default refuses first (ATTN002)
    for dest in ("dsa_prefill_backend", "dsa_decode_backend"):
        value = cfg.user(dest)
        if value is not None and value != "flashmla_sparse":
            option = "--" + dest.replace("_", "-")
            yield Hit(messages.DSA_SINK_BACKEND.format(arch=m.architecture, option=option, backend="flashmla_sparse", value=value),
                      f"give `{option} flashmla_sparse` or leave it out", values=(dest,))
            return
